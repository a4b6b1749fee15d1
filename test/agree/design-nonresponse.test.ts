/**
 * New-user report 38 F2/F5: agree --human's post-stratified figures count in n_h only the items with a consensus on
 * the scale; an item whose annotators split full/partial on the six scale is nonresponse, its weight spread within
 * its stratum, and the text and JSON say how many each stratum lost. The 1/pi Kish n_eff and each figure's own are
 * named apart; `consensus.ties` no longer counts the coarser-than-scale items.
 */
import { describe, expect, it } from "vitest";
import { formatHumanAgreement, humanAgreement, type HumanLabelFile } from "../../src/agree/human.js";
import { nonresponseByStratum, nonresponseText } from "../../src/agree/design-nonresponse.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const row = (id: string): TrajectoryIndexRow => ({ id, attacked: true, source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
const v = (trajectory_id: string, label: Bucket): Verdict => ({ trajectory_id, judge_id: "j", repeat: 0, status: "ok", label, judge_model: "j", judge_family: "f" }) as Verdict;

// stratum A (1/pi weight 10): a1 full/full, a2 unaffected/unaffected, a3 full/partial (no six-scale consensus)
// stratum D (weight 5): d1 full/full, d2 unaffected/unaffected
const items: Array<[string, string, string, string, number]> = [
  ["a1", "full_compliance", "full_compliance", "A", 10],
  ["a2", "unaffected", "unaffected", "A", 10],
  ["a3", "full_compliance", "partial_compliance", "A", 10],
  ["d1", "full_compliance", "full_compliance", "D", 5],
  ["d2", "unaffected", "unaffected", "D", 5],
];
const file: HumanLabelFile = {
  format: "jsonl",
  rows: items.flatMap(([t, x, y, s, w], i) => [
    { trajectory_id: t, annotator: "x", label: x, line: 2 * i + 1, weight: w, stratum: s },
    { trajectory_id: t, annotator: "y", label: y, line: 2 * i + 2, weight: w, stratum: s },
  ]),
  bad_rows: [],
};
const index = new Map(items.map(([t]) => [t, row(t)]));
const verdicts = [v("a1", "full_compliance"), v("a2", "unaffected"), v("a3", "full_compliance"), v("d1", "unaffected"), v("d2", "unaffected")];

describe("six-scale design weights: items without a consensus are nonresponse within their stratum (F2)", () => {
  const r = humanAgreement(file, verdicts, index, { scale: "six", bootstrap: { B: 0, seed: 1 } });

  it("spreads a3's weight over A's compared items (n_A = 2) and says so per stratum", () => {
    const d = r.judges[0].design_weighted!;
    expect(d.weights_used).toBe("post_stratified");
    expect(d.estimator).toMatch(/n_h = those with a consensus on the scale/);
    // N_A = 30, n_A = 2 -> a1, a2 weigh 15; N_D = 10, n_D = 2 -> d1, d2 weigh 5: agreement (15 + 15 + 5) / 40
    expect(d.po.value).toBeCloseTo(35 / 40, 12);
    expect(d.kish_n_eff).toBeCloseTo(1600 / 500, 12);
    expect(r.weights!.kish_n_eff_design_weights).toBeCloseTo(900 / 250, 12); // the 1/pi weights 10, 10, 5, 5
    expect(r.weights!.nonresponse_by_stratum).toEqual({
      A: { items: 3, compared: 2, without_consensus: { consensus_coarser_than_scale: 1 } },
      D: { items: 2, compared: 2, without_consensus: {} },
    });
    const text = formatHumanAgreement(r);
    expect(text).toContain("1 item left out so, by stratum: A: 1 of 3 (consensus_coarser_than_scale 1)");
    expect(text).toContain("Kish n_eff of these weights 3.200");
  });

  it("counts ties and coarser-than-scale items apart (F5)", () => {
    expect(r.consensus).toMatchObject({ n: 4, ties: 0, coarser_than_scale: 1 });
    expect(r.consensus.adjudication.map((a) => a.trajectory_id)).toEqual(["a3"]);
    expect(formatHumanAgreement(r)).toContain("for adjudication (1: consensus_coarser_than_scale 1)");
  });

  it("says nothing when no stratum lost an item", () => {
    const by = nonresponseByStratum(["a", "b"], new Set(["a", "b"]), () => "x", new Map([["a", "S"], ["b", "S"]]));
    expect(by).toEqual({ S: { items: 2, compared: 2, without_consensus: {} } });
    expect(nonresponseText(by)).toBeUndefined();
  });
});
