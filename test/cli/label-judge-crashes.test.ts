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
import { formatSummary } from "../../src/run/summary-text.js";
import { progressDone } from "../../src/cli/label-rate.js";
import type { Verdict } from "../../src/types.js";
import { buildVerdict } from "../../src/verdict/record.js";
import { SAMPLES } from "../helpers/paths.js";
import { unserializableJudge } from "../helpers/crashing-judge.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const judgeWith = (bad: Set<number>) => unserializableJudge(bad, "j-crash", "ab".repeat(32));

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

  it("an interrupted --batch run says its batches already sent run on and are billed (new user 34)", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-crash-text-"));
    dirs.push(dir);
    const res = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [judgeWith(new Set())], limit: 1 });
    const stopped = { ...res, interrupted: true };
    expect(invocationText(stopped, { batch: true })).toMatch(/INTERRUPTED: .*\nBatch API chunks already sent keep running at the provider and are billed when they run; the same command \(with --batch\) collects/);
    expect(invocationText(stopped, {})).not.toContain("Batch API chunks");
    expect(invocationText(res, { batch: true })).not.toContain("Batch API chunks");
  });
});

/** A judge that throws on the trajectories `throwOn` says (a judge_crash of that item); judge_error verdicts otherwise. */
function throwing(throwOn: (id: string) => boolean): Judge {
  const identity = { id: "j-throw", model: "m", family: "test", promptSha256: "cd".repeat(32), rubricVersion: "r1" };
  return {
    ...identity,
    concurrency: 1,
    async judge(t, ctx): Promise<Verdict> {
      if (throwOn(t.id)) throw new Error(`j-throw judge on ${t.id}: boom`);
      return buildVerdict({ trajectory: t, judge: identity, repeat: ctx.repeat, status: "judge_error", decision: null, attempts: 1, error: { kind: "x", message: "x" } });
    },
  };
}

describe("label: judge crashes superseded, named and said once (new user 19)", () => {
  it("a crash judged since is superseded; crashes after a stored verdict (--retry-errors) stand; the message names the trajectory once", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-crash-sup-"));
    dirs.push(dir);
    let ids: string[] = [];
    const first = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [throwing((id) => (ids.push(id), ids.length <= 2))], limit: 4 });
    expect(first.progress).toMatchObject({ judged: 2, judge_crashes: 2, judge_crashes_by_judge: { "j-throw": { other: 2 } }, sent_by_judge: { "j-throw": 4 } });
    expect(first.summary.errors).toMatchObject({ total: 2, by_kind: { judge_crash: 2 } });
    const errs = readFileSync(path.join(dir, "s", "errors.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(errs.map((e) => e.message)).toEqual([`judge j-throw failed on ${ids[0]}: boom`, `judge j-throw failed on ${ids[1]}: boom`]);
    expect(errs.map((e) => [e.judge_id, e.repeat])).toEqual([["j-throw", 0], ["j-throw", 0]]);
    // the same command, the judge fixed: both judged, both crashes superseded (not counted, said apart)
    const second = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [throwing(() => false)], limit: 4 });
    expect(second.progress).toMatchObject({ judged: 2, judge_crashes: 0 });
    expect(second.summary.errors.total).toBe(0);
    expect(second.summary.errors_superseded).toMatchObject({ total: 2, judge_crashes: 2 });
    // every item judged again (--retry-errors: its verdicts are judge errors) and every one crashes now: the four new
    // crashes stand (a verdict stored before them does not supersede them); the two old ones stay superseded
    const third = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [throwing(() => true)], limit: 4, retryErrors: true });
    expect(third.progress).toMatchObject({ judged: 0, judge_crashes: 4 });
    expect(third.summary.errors).toMatchObject({ total: 4, by_kind: { judge_crash: 4 } });
    expect(third.summary.errors_superseded).toMatchObject({ total: 2, judge_crashes: 2 });
    // a fourth run crashing again: the later lines stand for the items, counted once each
    const fourth = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [throwing(() => true)], limit: 4, retryErrors: true });
    expect(fourth.summary.errors.total).toBe(4);
  });

  it("an attacked trajectory without a verdict because its judge crashed is unlabelled as judge_crash, not no_verdict", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-crash-cov-"));
    dirs.push(dir);
    let n = 0;
    const res = await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: dir, judges: [throwing(() => n++ % 2 === 0)], limit: 8 });
    const rates = res.summary.judges[0].rates;
    expect(rates.attacked).toBeGreaterThan(0);
    expect(rates.unlabelled.judge_crash).toBeGreaterThan(0);
    expect(rates.unlabelled.no_verdict ?? 0).toBe(0);
    // the judge's health names its crashes, a figure a line (joined back here: src/format/wrap-text.ts) (its "judge errors" are verdicts: the crashes are not among them)
    expect(res.summary.judges[0].judge_crashes).toBe(4);
    expect(unwrapText(formatSummary(res.summary))).toContain(
      " judge crashes 4 (trajectories without its verdict: errors.jsonl kind judge_crash; the same command judges them again)",
    );
  });
});
