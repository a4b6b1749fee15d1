/**
 * Red team L3: `label`'s "this invocation: ... N new input errors" counted a judge's crash on an item (errors.jsonl
 * kind `judge_crash`: a signature worker killed by a trajectory, a verdict that cannot be stored) as an input error.
 * Input errors and judge crashes are now counted and named apart, in the text and in `this_run` (`--json`,
 * summary.json); the progress bar's done count no longer counts a crashed item twice (it is in `read` already).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Judge } from "../../src/judges/judge.js";
import { labelRun } from "../../src/run/label.js";
import { invocationText } from "../../src/cli/label.js";
import { progressDone } from "../../src/cli/progress.js";
import type { Verdict } from "../../src/types.js";
import { buildVerdict } from "../../src/verdict/record.js";
import { SAMPLES } from "../helpers/paths.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A judge whose verdict for the call numbered in `bad` (0-based) cannot be serialized: that item's judge_crash. */
function judgeWith(bad: Set<number>): Judge {
  let n = 0;
  const identity = { id: "j-crash", model: "m", family: "test", promptSha256: "ab".repeat(32), rubricVersion: "r1" };
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

describe("label: judge crashes are not input errors (red team L3)", () => {
  it("counts them apart in progress and this_run, and the text names each", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-crash-text-"));
    dirs.push(dir);
    const res = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [judgeWith(new Set([0, 2]))], limit: 4 });
    const errs = readFileSync(path.join(dir, "s", "errors.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(errs.map((e) => e.kind)).toEqual(["judge_crash", "judge_crash"]);
    expect(res.progress).toMatchObject({ read: 4, judged: 2, errors: 0, judge_crashes: 2 });
    expect(res.thisRun).toMatchObject({ read: 4, kept: 4, judged: 2, errors: 0, judge_crashes: 2 });
    // kept = judged + skipped + judge_crashes (one judge, one repeat, no input error)
    expect(res.thisRun.judged + res.thisRun.skipped + res.thisRun.judge_crashes).toBe(res.thisRun.kept);
    const text = invocationText(res, {});
    expect(text).toContain(
      "this invocation: 4 trajectories read, 2 verdicts stored, 0 already stored (skipped), 0 new input errors, 2 new judge crashes (errors.jsonl kind judge_crash: no verdict stored for them, a rerun judges them again)\n",
    );
    // the progress bar's done count: a crashed item is read, not one more input item
    expect(progressDone(res.progress)).toBe(4);
    const summary = JSON.parse(readFileSync(path.join(dir, "s", "summary.json"), "utf8"));
    expect(summary.this_run).toMatchObject({ errors: 0, judge_crashes: 2 });
  });

  it("says nothing of judge crashes when there are none (the line as before)", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-crash-text-"));
    dirs.push(dir);
    const res = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [judgeWith(new Set())], limit: 2 });
    expect(res.progress).toMatchObject({ errors: 0, judge_crashes: 0 });
    expect(invocationText(res, {})).toContain("2 verdicts stored, 0 already stored (skipped), 0 new input errors\n");
  });
});
