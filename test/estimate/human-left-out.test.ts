/**
 * out51 #3: `estimate --human` left tied labelled trajectories out and said so only on the labels line at the top;
 * each group now carries its own count by reason beside its figure (text `labelled N; K more labelled, left out (no
 * human consensus: ...)`, JSON `human_left_out`).
 */
import { describe, expect, it } from "vitest";
import type { HumanLabelFile } from "../../src/agree/human.js";
import { estimateFromData, type EstimateReport } from "../../src/estimate/run.js";
import { formatEstimate } from "../../src/estimate/format.js";
import { groupHumanLeftOut, humanLeftOutText } from "../../src/estimate/human-left-out.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const row = (id: string, attacked = true, model = "m1"): TrajectoryIndexRow =>
  ({ id, attacked, agent_model: model, suite: "s", source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
const v = (trajectory_id: string, label: Bucket): Verdict =>
  ({ trajectory_id, judge_id: "j", judge_model: "j", judge_family: "f", repeat: 0, status: "ok", label, findings: [] }) as unknown as Verdict;

// a1..a4 agreed (a3, a4 in m2); t1 (m1) and t2 (m2) attacked and tied; u unattacked and tied (in no group); gone: tied,
// not in the run
const index = new Map<string, TrajectoryIndexRow>([
  ...["a1", "a2", "t1"].map((id): [string, TrajectoryIndexRow] => [id, row(id, true, "m1")]),
  ...["a3", "a4", "t2"].map((id): [string, TrajectoryIndexRow] => [id, row(id, true, "m2")]),
  ["u", row("u", false)],
  ...Array.from({ length: 20 }, (_, i): [string, TrajectoryIndexRow] => [`p${i}`, row(`p${i}`, true, i % 2 ? "m1" : "m2")]),
]);
const pairs: Array<[string, string, string]> = [
  ["a1", "full_compliance", "full_compliance"],
  ["a2", "unaffected", "unaffected"],
  ["a3", "full_compliance", "full_compliance"],
  ["a4", "unaffected", "unaffected"],
  ["t1", "full_compliance", "unaffected"],
  ["t2", "unaffected", "full_compliance"],
  ["u", "not_exposed", "full_compliance"],
  ["gone", "unaffected", "full_compliance"],
];
let line = 1;
const file = {
  format: "csv",
  bad_rows: [],
  rows: pairs.flatMap(([t, x, y]) => [
    { trajectory_id: t, annotator: "x", label: x, line: ++line },
    { trajectory_id: t, annotator: "y", label: y, line: ++line },
  ]),
} as unknown as HumanLabelFile;
const verdicts = [...index.keys()].map((id) => v(id, id.startsWith("a") || id === "t1" ? "full_compliance" : "unaffected"));

describe("estimate --human: each group says how many of its labelled trajectories had no consensus (out51 #3)", () => {
  const est = estimateFromData(index, verdicts, file, { run: "r", humanFile: "h.jsonl", minSampled: 2, by: ["agent_model"] }) as EstimateReport;

  it("JSON: human_left_out by reason on each group holding some; the top line's count is the file's (unattacked and not-in-run too)", () => {
    expect(est.labels.excluded).toEqual({ not_in_run: 1, consensus_tie: 3 });
    expect(est.groups.map((g) => [g.group, g.n_sampled, g.human_left_out])).toEqual([
      ["(all)", 4, { consensus_tie: 2 }],
      ["m1", 2, { consensus_tie: 1 }],
      ["m2", 2, { consensus_tie: 1 }],
    ]);
    const goal = est.asr_goal as EstimateReport;
    expect(goal.groups.map((g) => g.human_left_out)).toEqual([{ consensus_tie: 2 }, { consensus_tie: 1 }, { consensus_tie: 1 }]);
  });

  it("text: the count and why on the group's line, beside its figures", () => {
    const lines = formatEstimate(est).split("\n");
    expect(lines).toContain("(all): N 26, labelled 4; 2 more labelled, left out (no human consensus: annotators tied 2): counted as unlabelled in their strata");
    expect(lines).toContain("m1: N 13, labelled 2; 1 more labelled, left out (no human consensus: annotators tied 1): counted as unlabelled in their strata");
  });

  it("none left out: no key, no clause", () => {
    const agreed = { ...file, rows: file.rows.filter((r) => r.trajectory_id.startsWith("a")) } as HumanLabelFile;
    const e = estimateFromData(index, verdicts, agreed, { run: "r", humanFile: "h.jsonl", minSampled: 2 }) as EstimateReport;
    expect(e.groups[0].human_left_out).toBeUndefined();
    expect(formatEstimate(e).split("\n")).toContain("(all): N 26, labelled 4");
    expect(groupHumanLeftOut([1, 2], new Map())).toEqual({});
    expect(humanLeftOutText(undefined)).toBe("");
    expect(humanLeftOutText({ consensus_tie: 1, consensus_coarser_than_scale: 2 })).toMatch(/^; 3 more labelled, left out \(no human consensus: annotators tied 1, /);
  });
});
