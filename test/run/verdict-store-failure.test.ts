/**
 * The runner (`src/run/label.ts`) and a verdict that cannot be written: a verdict `JSON.stringify` rejects (the
 * RangeError of an oversized verdict, here forced with a value JSON cannot hold) is that item's `judge_crash` in
 * errors.jsonl and the run goes on; only a `StoreWriteError` (disk, permissions) stops the run.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Judge } from "../../src/judges/judge.js";
import { labelRun } from "../../src/run/label.js";
import type { Verdict } from "../../src/types.js";
import { buildVerdict } from "../../src/verdict/record.js";
import { SAMPLES } from "../helpers/paths.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A judge whose verdict for the item numbered `bad` (0-based call order) cannot be serialized. */
function judgeWith(bad: Set<number>): Judge {
  let n = 0;
  const identity = { id: "j-ser", model: "m", family: "test", promptSha256: "cd".repeat(32), rubricVersion: "r1" };
  return {
    ...identity,
    concurrency: 1,
    async judge(t, ctx): Promise<Verdict> {
      const v = buildVerdict({ trajectory: t, judge: identity, repeat: ctx.repeat, status: "judge_error", decision: null, attempts: 1, error: { kind: "x", message: "x" } });
      if (bad.has(n++)) Object.defineProperty(v, "rationale", { enumerable: true, get: () => { throw new RangeError("Invalid string length"); } });
      return v;
    },
  };
}

describe("a verdict that cannot be serialized", () => {
  it("is that item's judge_crash; the other items are stored and the run completes; a resume judges it again", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-ser-"));
    dirs.push(dir);
    const r = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [judgeWith(new Set([1]))], limit: 3 });
    expect(r.interrupted ?? false).toBe(false);
    const lines = (f: string) => readFileSync(path.join(dir, "s", f), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(lines("verdicts.jsonl")).toHaveLength(2);
    const errs = lines("errors.jsonl");
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ kind: "judge_crash" });
    expect(errs[0].message).toMatch(/could not be stored: Invalid string length/);
    // resume: the missing item is judged again (and now stored)
    await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [judgeWith(new Set())], limit: 3 });
    expect(lines("verdicts.jsonl")).toHaveLength(3);
  });
});
