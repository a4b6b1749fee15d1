/**
 * The runner (`src/run/label.ts`) and a verdict that cannot be written: a verdict `JSON.stringify` rejects (the
 * RangeError of an oversized verdict, here forced with a value JSON cannot hold) is that item's `judge_crash` in
 * errors.jsonl and the run goes on; only a `StoreWriteError` (disk, permissions) stops the run.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { labelRun } from "../../src/run/label.js";
import { SAMPLES } from "../helpers/paths.js";
import { unserializableJudge } from "../helpers/crashing-judge.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const judgeWith = (bad: Set<number>) => unserializableJudge(bad, "j-ser", "cd".repeat(32));

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
