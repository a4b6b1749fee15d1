/**
 * Session 52 (est52 #2): a figure with no interval (marked UNSTABLE) says why in numbers a reader can check: its heaviest
 * labelled item's share of the weight (how far that item's label alone moves the value) and the Kish effective n
 * (src/estimate/weight-check.ts), in `estimate`'s text, the table's text and LaTeX cells and the JSON.
 */
import { describe, expect, it } from "vitest";
import { domainAsr, type LabelledItem } from "../../src/estimate/calibrated.js";
import { designAsrText } from "../../src/estimate/format.js";
import { weightCheck, weightCheckText } from "../../src/estimate/weight-check.js";
import { cellText } from "../../src/estimate/table.js";

// stratum A: N 10, 1 labelled (weight 10); stratum B: N 20, 10 labelled (weight 2 each)
const labelled: LabelledItem[] = [
  { id: "a0", cell: "A", human: true },
  ...Array.from({ length: 10 }, (_, i) => ({ id: `b${i}`, cell: "B", human: i < 3 })),
];
const cellSizes = new Map([["A", 10], ["B", 20]]);
const domain = [...labelled.map((it) => ({ id: it.id, judge: it.human })), ...Array.from({ length: 19 }, (_, i) => ({ id: `u${i}`, judge: i < 4 }))];

describe("a value without an interval says its heaviest item's weight and the Kish effective n (est52 #2)", () => {
  const est = domainAsr(domain, labelled, cellSizes, { minSampled: 5 });

  it("domainAsr: no interval (a one-item stratum), weight_check by hand: 10 / 30 of the weight, Kish n (30^2)/(100 + 10*4)", () => {
    for (const e of [est.human, est.calibrated]) {
      expect(e.asr).not.toBeNull();
      expect(e.ci95).toBeNull();
      expect(e.weight_check!.largest_share).toBeCloseTo(10 / 30, 12);
      expect(e.weight_check!.kish_n_eff).toBeCloseTo(900 / 140, 12);
      expect(e.weight_check).toMatchObject({ stratum: "A", stratum_N: 10, stratum_n: 1, n: 11 });
    }
    // the share is how far the item's label moves the value: flip a0 and the human-only estimate moves by 10/30
    const flipped = domainAsr(domain, labelled.map((it) => (it.id === "a0" ? { ...it, human: false } : it)), cellSizes, { minSampled: 5 });
    expect(est.human.asr! - flipped.human.asr!).toBeCloseTo(10 / 30, 12);
    expect(est.calibrated.asr! - (flipped.calibrated.asr_unclipped ?? flipped.calibrated.asr!)).toBeCloseTo(10 / 30, 12); // before clipping to [0, 1]
  });

  it("a value with an interval carries none", () => {
    const two = domainAsr(domain, [...labelled, { id: "u0", cell: "A", human: true }], cellSizes, { minSampled: 5 });
    expect(two.human.ci95).not.toBeNull();
    expect(two.human.weight_check).toBeUndefined();
    expect(two.calibrated.weight_check).toBeUndefined();
  });

  it("text: estimate's line and the table's cell say it after the reason", () => {
    const want = `; its heaviest labelled item (stratum "A", N 10, 1 labelled) is 33.3% of the estimate's weight: its label alone moves the value 33.3 points; Kish effective n 6.4 of 11 labelled`;
    expect(designAsrText(est.human)).toMatch(/^UNSTABLE \(no interval: do not quote alone\) \d+\.\d% CI undefined \(.*\)/);
    expect(designAsrText(est.human).endsWith(want)).toBe(true);
    expect(cellText({ value: 0.4, ci95: null, ci_reason: "stratum_n_lt_2", weight_check: est.calibrated.weight_check } as never).endsWith(want)).toBe(true);
    expect(weightCheckText(undefined)).toBe("");
    expect(weightCheck([])).toBeNull();
  });
});
