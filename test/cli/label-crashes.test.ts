/**
 * The end-of-label warning about a judge's crashes (new user 19 item 2): above 10% of the items this invocation sent
 * it, a warning naming the judge, the kinds and what to do; above half, a broken judge (exit 3). And the runner's
 * crash message says the trajectory once (item 3); the coverage reason names the crashes.
 */
import { describe, expect, it } from "vitest";
import { CRASH_BROKEN_SHARE, CRASH_WARN_SHARE, judgeCrashWarnings } from "../../src/cli/label-crashes.js";
import { crashKind, withoutRepeatedId } from "../../src/run/online.js";
import { crashedItems } from "../../src/run/summary.js";
import { coverageText } from "../../src/format/rates-text.js";
import type { AttackRates } from "../../src/stats/rates.js";

describe("judgeCrashWarnings", () => {
  it("nothing at or below 10% of the items sent; a warning above; broken above half", () => {
    expect(CRASH_WARN_SHARE).toBe(0.1);
    expect(CRASH_BROKEN_SHARE).toBe(0.5);
    expect(judgeCrashWarnings({ judge_crashes_by_judge: { s: { timed_out: 10 } }, sent_by_judge: { s: 100 } })).toEqual({ warnings: [], broken: [] });
    const w = judgeCrashWarnings({ judge_crashes_by_judge: { s: { timed_out: 11 } }, sent_by_judge: { s: 100 } });
    expect(w.broken).toEqual([]);
    expect(w.warnings).toEqual([
      "judge \"s\" crashed on 11 of the 100 trajectories this invocation sent it (11.0%: timed_out 11); they have no verdict of it, so its rates leave them out; " +
        "raise --signature-time-limit if the inputs are legitimately large; the same command judges them again",
    ]);
    const b = judgeCrashWarnings({ judge_crashes_by_judge: { s: { timed_out: 150, worker_died: 49 } }, sent_by_judge: { s: 300 } });
    expect(b.broken).toEqual(["s"]);
    expect(b.warnings[0]).toMatch(/199 of the 300 .*\(66\.3%: timed_out 150, worker_died 49\).*raise --signature-time-limit.*; a signature worker died on them: see the messages in errors\.jsonl.*treated as a broken judge\)$/);
    // exactly half: a warning, not broken
    expect(judgeCrashWarnings({ judge_crashes_by_judge: { s: { other: 5 } }, sent_by_judge: { s: 10 } }).broken).toEqual([]);
  });

  it("a judge with crashes but no count of items sent (not the online path) is not judged by a share", () => {
    expect(judgeCrashWarnings({ judge_crashes_by_judge: { s: { other: 3 } } })).toEqual({ warnings: [], broken: [] });
  });
});

describe("the crash message and its kind", () => {
  it("the pool's 'signature judge on <id>: ' is dropped: the runner names the trajectory once", () => {
    expect(withoutRepeatedId("signature judge on a/b: analysis took longer than the 1 s time limit", "a/b")).toBe("analysis took longer than the 1 s time limit");
    // not a leading prefix: kept whole
    expect(withoutRepeatedId("boom: the worker on a/b: died", "a/b")).toBe("boom: the worker on a/b: died");
    expect(withoutRepeatedId("TypeError: x", "a/b")).toBe("TypeError: x");
  });

  it("kinds: time-out, worker death, other", () => {
    expect(crashKind("signature judge on a: analysis took longer than the 0.001 s time limit (its worker was stopped)")).toBe("timed_out");
    expect(crashKind("signature judge on a: the worker judging this trajectory alone died (exit code 3)")).toBe("worker_died");
    expect(crashKind("TypeError: x")).toBe("other");
  });
});

describe("the coverage reason names the crashes", () => {
  it("crashedItems: by judge_id, or an older record's message; other repeats left out", () => {
    const m = crashedItems([
      { path: "p", trajectory_id: "t1", kind: "judge_crash", message: "m", judge_id: "j", repeat: 0, verdict_seq: 0 },
      { path: "p", trajectory_id: "t2", kind: "judge_crash", message: "judge old one failed on t2: boom" },
      { path: "p", trajectory_id: "t3", kind: "judge_crash", message: "judge j on t3: the verdict could not be stored: x" },
      { path: "p", trajectory_id: "t4", kind: "judge_crash", message: "m", judge_id: "j", repeat: 1, verdict_seq: 0 },
      { path: "p", trajectory_id: "t5", kind: "unknown_format", message: "judge j failed on t5: x" },
    ]);
    expect([...m].map(([j, s]) => [j, [...s]])).toEqual([
      ["j", ["t1", "t3"]],
      ["old one", ["t2"]],
    ]);
  });

  it("coverageText says what judge_crash means", () => {
    const r = { coverage: 0.3, labelled: 3, attacked: 10, coverage_low: true, coverage_low_reason: "judge_crash", unlabelled: { judge_crash: 7 } } as unknown as AttackRates;
    expect(coverageText(r)).toContain("most unlabelled: judge_crash 7 (the judge crashed on them: errors.jsonl kind judge_crash; the same command judges them again)");
  });
});
