/**
 * out51 #4: `label` and `agree --reference` counted a run's judge errors differently and neither line said how: label's
 * `status:` counts every verdict (unattacked runs included), agree's `excluded:` repeat 0, each trajectory once by the
 * first reason that holds (a judge error on an unattacked run is `unattacked` there). On one run with a judge error on
 * an attacked run and one on an unattacked run, label said `judge_error 2` and agree `judge_error 1`; each line now says
 * what it counts.
 */
import { describe, expect, it } from "vitest";
import { formatReferenceAgreement, referenceAgreement } from "../../src/agree/reference.js";
import { summarizeRun } from "../../src/run/summary.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const verdict = (id: string, label: Bucket | null): Verdict =>
  ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, status: label ? "ok" : "judge_error", label, downgraded: false, findings: [], usage: { prompt_tokens: 0, completion_tokens: 0 } }) as unknown as Verdict;
const row = (id: string, extra: Partial<TrajectoryIndexRow>) => [id, { id, attacked: true, agent_model: "m", ...extra } as TrajectoryIndexRow] as const;

describe("judge errors: label's status line and agree --reference's excluded line say what each counts", () => {
  const index = new Map<string, TrajectoryIndexRow>([
    row("a1", { reference: { security: true } }),
    row("a2", { reference: { security: false } }),
    row("a3", { reference: { security: true } }),
    row("u1", { attacked: false, reference: { utility: true } }),
    row("u2", { attacked: false, reference: { utility: true } }),
  ]);
  const verdicts = [verdict("a1", "full_compliance"), verdict("a2", "unaffected"), verdict("a3", null), verdict("u1", "not_exposed"), verdict("u2", null)];

  it("label: judge_error 2, over every verdict, unattacked runs included", () => {
    const text = unwrapText(formatSummary(summarizeRun("r", verdicts, index, [])));
    expect(text).toContain(
      "status: ok 3, judge_error 2 (every verdict, unattacked runs included; agree --reference's excluded judge_error counts repeat-0 attacked runs with a benchmark verdict only)",
    );
  });

  it("agree --reference: judge_error 1, the unattacked run's error under unattacked, and the line says so", () => {
    const a = referenceAgreement("j", verdicts, index);
    expect(a.excluded).toEqual({ unattacked: 2, judge_error: 1 }); // u2's error is under unattacked
    expect(unwrapText(formatReferenceAgreement(a))).toContain(
      "5 trajectories, 2 used; excluded: judge_error 1, unattacked 2 (repeat 0, each trajectory once by the first reason that holds: judge_error counts the attacked runs with a benchmark verdict only; label's status line and the health line below count every verdict, unattacked runs included)",
    );
  });
});
