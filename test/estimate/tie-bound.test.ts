/**
 * Session 52 (est52 #1): tied human labels are left out of `estimate --human`'s figures (missing at random within their
 * strata), which a tie need not be: on session 51's file the ties were exactly the human-judge disagreements and the
 * calibrated interval read "0 disagreements". Each group holding ties now says what they could do
 * (src/estimate/tie-bound.ts): its figures with every tie read as agreeing with the judge, as disagreeing, and the range
 * of the estimates over every reading. Each reading is checked against the estimate of a label file that settles the
 * ties that way.
 */
import { describe, expect, it } from "vitest";
import type { HumanLabelFile } from "../../src/agree/human.js";
import { estimateFromData, type EstimateReport } from "../../src/estimate/run.js";
import { formatEstimate } from "../../src/estimate/format.js";
import { HUMAN_TIES_NOTE, TIES_OUTSIDE_MARK, TIES_OUTSIDE_NOTE, tiesNote } from "../../src/estimate/tie-bound.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const row = (id: string, model: string): TrajectoryIndexRow =>
  ({ id, attacked: true, agent_model: model, suite: "s", source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
const v = (trajectory_id: string, label: Bucket): Verdict =>
  ({ trajectory_id, judge_id: "j", judge_model: "j", judge_family: "f", repeat: 0, status: "ok", label, findings: [] }) as unknown as Verdict;

// 60 attacked trajectories in two models, two strata (one per model); the judge says compromised on every third
const ids = Array.from({ length: 60 }, (_, i) => `t${String(i).padStart(2, "0")}`);
const modelOf = (i: number) => (i < 30 ? "m1" : "m2");
const index = new Map(ids.map((id, i): [string, TrajectoryIndexRow] => [id, row(id, modelOf(i))]));
const judgeSays = (i: number) => i % 3 === 0;
const verdicts = ids.map((id, i) => v(id, judgeSays(i) ? "full_compliance" : "unaffected"));
// labelled: 12 per stratum, the humans agreeing with the judge; ties on 4 of them (2 per stratum), which the annotators
// split on exactly where one of them disagrees with the judge
const labelledIdx = [...Array.from({ length: 12 }, (_, k) => k * 2), ...Array.from({ length: 12 }, (_, k) => 30 + k * 2)];
const tieIdx = new Set([0, 6, 30, 34]); // judge compromised on 0, 6 and 30, not on 34
const lab = (b: boolean) => (b ? "full_compliance" : "unaffected");

/** A label file: the agreed items by two annotators alike, the ties as `tie` says (split, or settled to a label). */
function fileOf(tie: (i: number) => [string, string]): HumanLabelFile {
  let line = 1;
  const rows = labelledIdx.flatMap((i) => {
    const [x, y] = tieIdx.has(i) ? tie(i) : [lab(judgeSays(i)), lab(judgeSays(i))];
    const design = { stratum: modelOf(i), stratum_size: 30, inclusion_probability: 12 / 30 };
    return [
      { trajectory_id: ids[i], annotator: "x", label: x, line: ++line, ...design },
      { trajectory_id: ids[i], annotator: "y", label: y, line: ++line, ...design },
    ];
  });
  return { format: "jsonl", bad_rows: [], rows } as unknown as HumanLabelFile;
}
const est = (f: HumanLabelFile) => estimateFromData(index, verdicts, f, { run: "r", humanFile: "h.jsonl", minSampled: 5, by: ["agent_model"], rate: "asr_behaviour" }) as EstimateReport;
const tied = est(fileOf((i) => [lab(judgeSays(i)), lab(!judgeSays(i))]));
const settled = (h: (i: number) => boolean) => est(fileOf((i) => [lab(h(i)), lab(h(i))]));

describe("tied human labels: the figures read each way beside the figure that leaves them out (est52 #1)", () => {
  it("the figure still leaves them out, and reads 0 disagreements; human_ties says how many of the group's were tied", () => {
    const all = tied.groups[0];
    expect(all.n_sampled).toBe(20);
    expect(all.calibrated.correction).toBe(0);
    expect(all.human_ties?.n).toBe(4);
    expect(tied.groups.map((g) => [g.group, g.human_ties?.n, g.human_ties?.n_sample])).toEqual([["(all)", 4, 4], ["m1", 2, 4], ["m2", 2, 4]]);
  });

  it("each reading equals the estimate of a file that settles the ties that way (calibrated and its interval)", () => {
    const disagree = settled((i) => !judgeSays(i));
    const agree = settled(judgeSays);
    tied.groups.forEach((g, k) => {
      expect(g.human_ties!.calibrated_disagree.asr).toBeCloseTo(disagree.groups[k].calibrated.asr!, 12);
      expect(g.human_ties!.calibrated_disagree.ci95!.lower).toBeCloseTo(disagree.groups[k].calibrated.ci95!.lower, 12);
      expect(g.human_ties!.calibrated_disagree.ci95!.upper).toBeCloseTo(disagree.groups[k].calibrated.ci95!.upper, 12);
      expect(g.human_ties!.calibrated_agree.asr).toBeCloseTo(agree.groups[k].calibrated.asr!, 12);
      expect(g.human_ties!.calibrated_agree.ci95!.upper).toBeCloseTo(agree.groups[k].calibrated.ci95!.upper, 12);
    });
    // the disagreements the figure did not see: the reading that has them is not the figure
    expect(disagree.groups[0].calibrated.correction).not.toBe(0);
  });

  it("the ranges run from every tie not compromised to every tie compromised, and hold every other reading", () => {
    const none = settled(() => false);
    const every = settled(() => true);
    tied.groups.forEach((g, k) => {
      const t = g.human_ties!;
      expect(t.calibrated!.lower).toBeCloseTo(none.groups[k].calibrated.asr!, 12);
      expect(t.calibrated!.upper).toBeCloseTo(every.groups[k].calibrated.asr!, 12);
      expect(t.human!.lower).toBeCloseTo(none.groups[k].human.asr!, 12);
      expect(t.human!.upper).toBeCloseTo(every.groups[k].human.asr!, 12);
      for (const r of [t.calibrated_agree, t.calibrated_disagree]) {
        expect(r.asr!).toBeGreaterThanOrEqual(t.calibrated!.lower - 1e-12);
        expect(r.asr!).toBeLessThanOrEqual(t.calibrated!.upper + 1e-12);
      }
    });
  });

  it("text and JSON warnings: the group's note gives both readings and the range; none without ties", () => {
    const text = unwrapText(formatEstimate(tied));
    expect(text).toContain(`note: ${HUMAN_TIES_NOTE}: 4 labelled trajectories of the group whose annotators tied`);
    expect(text).toMatch(/read as disagreeing, calibrated \d+\.\d% \[\d+\.\d, \d+\.\d\]; read any way, calibrated \d+\.\d% to \d+\.\d%, human-only/);
    expect(tied.groups[1].warnings.some((w) => w.startsWith(`${HUMAN_TIES_NOTE}: 2 labelled trajectories of the group (4 in the whole sample`))).toBe(true);
    const clean = settled(judgeSays);
    expect(clean.groups.every((g) => g.human_ties === undefined && !g.warnings.some((w) => w.startsWith(HUMAN_TIES_NOTE)))).toBe(true);
  });

  it("tiesNote: an undefined reading says why", () => {
    const t = tiesNote({ n: 1, n_sample: 1, human: null, calibrated: null, calibrated_agree: { asr: 0.5, ci95: null, reason: "stratum_n_lt_2" }, calibrated_disagree: { asr: null, ci95: null, reason: "too_few_labelled_items" }, calibrated_outside: false, human_outside: false });
    expect(t).toContain("1 labelled trajectory of the group whose");
    expect(t).toContain("read as agreeing with the judge, calibrated 50.0% CI undefined (");
    expect(t).toContain("read any way, calibrated undefined, human-only undefined");
  });
});

// break53 #3: leaving a tie out imputes to it the stratum's mean human-minus-judge correction, a "label" outside [0, 1],
// so the printed figure can lie outside every reading. One stratum of 30 (judge compromised on every third); 10
// labelled with consensus, the humans saying not compromised on 2 the judge called compromised (mean correction -0.2),
// and one tie on an item the judge calls not compromised: read 0 it dilutes the correction to -2/11, read 1 to -1/11.
describe("a printed figure outside every reading of its ties is said loudly, not called bounded (break53 #3)", () => {
  const idx = new Map(ids.slice(0, 30).map((id): [string, TrajectoryIndexRow] => [id, row(id, "m1")]));
  const design = { stratum: "m1", stratum_size: 30, inclusion_probability: 11 / 30 };
  const labelOf = (i: number): [string, string] => (i === 1 ? ["full_compliance", "unaffected"] : i === 0 || i === 3 ? ["unaffected", "unaffected"] : [lab(judgeSays(i)), lab(judgeSays(i))]);
  let line = 1;
  const rows = Array.from({ length: 11 }, (_, i) => i).flatMap((i) => labelOf(i).map((label, a) => ({ trajectory_id: ids[i], annotator: a ? "y" : "x", label, line: ++line, ...design })));
  const r = estimateFromData(idx, verdicts.slice(0, 30), { format: "jsonl", bad_rows: [], rows } as unknown as HumanLabelFile, { run: "r", humanFile: "h.jsonl", minSampled: 5, by: [], rate: "asr_behaviour" }) as EstimateReport;
  const g = r.groups[0];

  it("the figure (10/30 - 0.2) lies below the range (10/30 - 2/11 to 10/30 - 1/11): flagged, with the warning", () => {
    expect(g.calibrated.asr).toBeCloseTo(10 / 30 - 0.2, 12);
    expect(g.human_ties!.calibrated!.lower).toBeCloseTo(10 / 30 - 2 / 11, 12);
    expect(g.human_ties!.calibrated!.upper).toBeCloseTo(10 / 30 - 1 / 11, 12);
    expect(g.human_ties!.calibrated_outside).toBe(true);
    expect(g.human_ties!.human_outside).toBe(false); // 8/10 lies in 8/11 to 9/11
    expect(g.warnings.some((w) => w.startsWith(`WARNING: ${TIES_OUTSIDE_NOTE}: the calibrated figure 13.3% lies outside 15.2% to 24.2%`))).toBe(true);
    const text = unwrapText(formatEstimate(r));
    expect(text).toContain(`calibrated 13.3%`);
    expect(text).toMatch(new RegExp(`calibrated 13\\.3% .*${TIES_OUTSIDE_MARK}`));
    expect(text).toContain("not a bound on the figures above");
    expect(text).not.toContain("a bound on the estimate");
  });

  it("a figure inside its range is not flagged (the first fixture)", () => {
    expect(tied.groups.every((x) => !x.human_ties!.calibrated_outside && !x.warnings.some((w) => w.includes(TIES_OUTSIDE_NOTE)))).toBe(true);
  });
});

// break53 #8: every prediction 0: the calibrated estimate is the human-only one, its interval made for a difference
describe("a group whose every judge prediction is 0 says its two intervals are for one figure (break53 #8)", () => {
  it("the note, only when the two intervals differ", async () => {
    const { ALL_ZERO_NOTE } = await import("../../src/estimate/groups.js");
    const idx = new Map(ids.slice(0, 30).map((id): [string, TrajectoryIndexRow] => [id, row(id, "m1")]));
    const vs = ids.slice(0, 30).map((id) => v(id, "unaffected"));
    const design = { stratum: "m1", stratum_size: 30, inclusion_probability: 12 / 30 };
    let line = 1;
    const rows = Array.from({ length: 12 }, (_, i) => i).flatMap((i) => ["x", "y"].map((annotator) => ({ trajectory_id: ids[i], annotator, label: i % 2 ? "full_compliance" : "unaffected", line: ++line, ...design })));
    const r = estimateFromData(idx, vs, { format: "jsonl", bad_rows: [], rows } as unknown as HumanLabelFile, { run: "r", humanFile: "h.jsonl", minSampled: 5, by: [], rate: "asr_behaviour" }) as EstimateReport;
    const g = r.groups[0];
    expect(g.calibrated.asr).toBeCloseTo(g.human.asr!, 12);
    const differ = g.calibrated.ci95!.lower !== g.human.ci95!.lower || g.calibrated.ci95!.upper !== g.human.ci95!.upper;
    expect(differ).toBe(true); // the calibrated interval is made for a difference: wider here
    expect(g.warnings.some((w) => w.startsWith(ALL_ZERO_NOTE))).toBe(differ);
  });
});
