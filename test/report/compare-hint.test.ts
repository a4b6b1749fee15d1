/**
 * The report's "Attack success by condition" section points to `compare` for the reversals and the worst condition.
 * compare now refuses a run with several judges and no --judge/--committee (new user 37), so the pointer names the
 * labels the section used: --committee (building committee.jsonl first when the report computed its own), or --judge.
 */
import { describe, expect, it } from "vitest";
import { compareHint } from "../../src/report/html.js";
import type { ReportModel } from "../../src/report/data.js";
import { conditionViewsOf } from "../../src/report/condition-views.js";
import type { Observation, UnlabelledItem } from "../../src/compare/data.js";

type M = Parameters<typeof compareHint>[0];
/** The hint as read (escapeHtml isolates each value in <bdi>). */
const hint = (m: M) => compareHint(m).replace(/<\/?bdi>/g, "");
const base = { run: "def", conditions: [{ field: "condition" }] as unknown as ReportModel["conditions"] };
const committee = (source: "committee.jsonl" | "computed", left_out: string[] = []) => ({ source, left_out }) as unknown as NonNullable<ReportModel["committee"]>;

describe("report: the compare command beside the conditions section names whose labels", () => {
  it("the stored committee: --committee", () => {
    expect(hint({ ...base, committee: committee("committee.jsonl"), condition_source: "committee" } as M)).toBe("ipi-judge compare --run def --by condition --committee");
  });
  it("a committee the report computed: build committee.jsonl first (with the judges it left out), then --committee", () => {
    expect(hint({ ...base, committee: committee("computed", ["stub"]), condition_source: "committee" } as M)).toBe(
      "ipi-judge committee --run def --exclude-judge stub, then ipi-judge compare --run def --by condition --committee",
    );
  });
  it("one judge: --judge ID", () => {
    expect(hint({ ...base, committee: null, condition_source: "signature" } as M)).toBe("ipi-judge compare --run def --by condition --judge signature");
  });
});

describe("report: the conditions views carry their labels' coverage (named in the charts' titles)", () => {
  it("labelled / attacked over the view, unlabelled weights counted", () => {
    const ob = (i: number, condition: string): Observation => ({ trajectory_id: `t${condition}${i}`, model: "m", suite: "s", condition, injection_task: "s/i", unit: `s/u${i}`, compromised: i === 0, goal: i === 0 });
    const obs = [0, 1, 2].map((i) => ob(i, "a")).concat([0, 1].map((i) => ob(i, "b")));
    const unlabelled: UnlabelledItem[] = [{ model: "m", suite: "s", condition: "a", reason: "committee_no_quorum", weight: 15 }];
    const views = conditionViewsOf((field) => ({ source: { kind: "committee" }, condition_field: field, observations: field === "condition" ? obs : [], unlabelled: field === "condition" ? unlabelled : [], n_total: 20, excluded: {}, excluded_groups: [] }));
    // by hand: 5 labelled, 5 + 15 = 20 attacked
    expect(views.map((v) => [v.field, v.rate, v.label_coverage])).toEqual([
      ["condition", "asr_goal", { labelled: 5, attacked: 20 }],
      ["condition", "asr_behaviour", { labelled: 5, attacked: 20 }],
    ]);
  });
});

describe("report: a field whose second value has attacked runs but no label still gets its view (new user 41)", () => {
  it("VIGIL by surface: tool_description labelled, tool_output all unverified: the view, the left-out group named", () => {
    const ob = (i: number): Observation => ({ trajectory_id: `t${i}`, model: "m", suite: "s", condition: "tool_description", injection_task: "s/i", unit: `s/u${i}`, compromised: true, goal: true });
    const unlabelled: UnlabelledItem[] = [{ model: "m", suite: "s", condition: "tool_output", reason: "injection_text_unknown", weight: 66 }];
    const excluded_groups = [{ field: "surface", group: "tool_output", items: 66, excluded: { unverified: 66 } }];
    const views = conditionViewsOf((field) =>
      field === "surface"
        ? { source: { kind: "judge", judge_id: "signature" }, condition_field: field, observations: [ob(0), ob(1)], unlabelled, n_total: 68, excluded: {}, excluded_groups }
        : { source: { kind: "judge", judge_id: "signature" }, condition_field: field, observations: [], unlabelled: [], n_total: 68, excluded: {}, excluded_groups: [] },
    );
    expect(views.map((v) => [v.field, v.rate, v.cells.map((c) => `${c.condition} ${c.asr} n=${c.n}`), v.excluded_groups, v.label_coverage])).toEqual([
      ["surface", "asr_goal", ["tool_description 1 n=2"], excluded_groups, { labelled: 2, attacked: 68 }],
      ["surface", "asr_behaviour", ["tool_description 1 n=2"], excluded_groups, { labelled: 2, attacked: 68 }],
    ]);
  });
});
