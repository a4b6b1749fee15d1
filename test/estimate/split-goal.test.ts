import { describe, expect, it } from "vitest";
import { estimateFromData, type EstimateReport } from "../../src/estimate/run.js";
import { groupsBiasedBySplit } from "../../src/estimate/split-goal.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";
import type { HumanLabelFile } from "../../src/agree/human.js";

// new user 26: one item whose two annotators wrote full_compliance and partial_compliance (model a's stratum) made
// asr_goal undefined in every group, model b's too, although b's estimate uses none of stratum a's items
const ids = (m: string) => Array.from({ length: 12 }, (_, i) => `${m}${i}`);
const index = new Map<string, TrajectoryIndexRow>(
  ["a", "b"].flatMap((m) => ids(m).map((id) => [id, { id, agent_model: m, attacked: true, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2 } as TrajectoryIndexRow])),
);
const judged = (id: string): Bucket => (Number(id.slice(1)) % 3 === 0 ? "full_compliance" : "unaffected");
const verdicts = [...index.keys()].map((id) => ({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: judged(id), compromised: judged(id) === "full_compliance" }) as Verdict);
const human = (id: string) => (Number(id.slice(1)) % 4 === 0 ? "full_compliance" : "unaffected");
// every trajectory labelled by two annotators; stratum = model (N 12 each); a0 is split full / partial
const file = (split: boolean): HumanLabelFile => ({
  format: "jsonl",
  bad_rows: [],
  rows: [...index.keys()]
    .filter((id) => split || id !== "a0")
    .flatMap((id) =>
      ["x", "y"].map((annotator) => ({ trajectory_id: id, annotator, label: id === "a0" && annotator === "y" ? "partial_compliance" : human(id), stratum: `agent_model=${id[0]}`, stratum_size: 12 })),
    )
    .map((r, i) => ({ ...r, line: i + 1 })),
});
const opts = { run: "r", humanFile: "h", source: { kind: "judge" as const, judge_id: "j" }, minSampled: 5 };
const goalOf = (r: EstimateReport) => r.asr_goal as EstimateReport;

describe("asr_goal with a full/partial split: only the groups it biases are left undefined", () => {
  it("--by agent_model: a and (all) undefined (full_partial_split), b's estimate as if the item were never labelled", () => {
    const r = goalOf(estimateFromData(index, verdicts, file(true), { ...opts, by: ["agent_model"] }));
    const g = new Map(r.groups.map((x) => [x.group, x]));
    for (const name of ["(all)", "a"]) {
      expect(g.get(name)!.human).toMatchObject({ asr: null, ci95: null, reason: expect.stringMatching(/^full_partial_split/) });
      expect(g.get(name)!.calibrated).toMatchObject({ asr: null, ci95: null, reason: expect.stringMatching(/^full_partial_split/) });
      expect(g.get(name)!.warnings.join("\n")).not.toMatch(/SE 0/);
    }
    const without = goalOf(estimateFromData(index, verdicts, file(false), { ...opts, by: ["agent_model"] })).groups.find((x) => x.group === "b")!;
    expect(g.get("b")!.calibrated.asr).not.toBeNull();
    expect(g.get("b")!.calibrated).toEqual(without.calibrated);
    expect(g.get("b")!.human).toEqual(without.human);
    expect(r.warnings.join("\n")).toMatch(/annotators split between full and partial compliance: 1 labelled trajectories .* \(\(all\), a\): undefined there/);
  });

  it("without --by the one group holds the item: asr_goal undefined as a whole, the reason says every group", () => {
    const r = estimateFromData(index, verdicts, file(true), opts);
    expect(r.asr_goal).toEqual({ rate: "asr_goal", reason: expect.stringMatching(/^1 labelled trajectories whose annotators split .* in every group/) });
  });

  it("a split item without a stratum (one cell for the whole run) biases every group", () => {
    const groups = [{ group: "a", fields: { agent_model: "a" }, n_by_stratum: [] }, { group: "b", fields: { agent_model: "b" }, n_by_stratum: [] }];
    const f: HumanLabelFile = { format: "jsonl", bad_rows: [], rows: [{ trajectory_id: "a0", annotator: "x", label: "full_compliance", line: 1 }] };
    expect([...groupsBiasedBySplit(["a0"], f, groups, ["agent_model"], (id) => index.get(id), (row, k) => String((row as never)[k]))]).toEqual(["a", "b"]);
  });
});
