import { describe, expect, it } from "vitest";
import { AGREE_FRAME_WORDS, checkStrataTotal, STRATA_EXCEED_POPULATION, type FrameCheck } from "../../src/agree/sample-frame.js";

describe("checkStrataTotal: what the label file's strata cover (new-user report 31, item 7)", () => {
  it("a --where sample whose file's cells hold fewer than the population: 'cover 698 of the 702', why the rest is out, never two totals side by side", () => {
    const check = { known: "exact", population: { N_run: 702, filter: "attack=important_instructions" } } as unknown as FrameCheck;
    const w: string[] = [];
    checkStrataTotal(check, 698, 780, 702, "h.jsonl", w, () => ({ n: 0, attacked: 0, strata: [] }));
    expect(w).toEqual([
      "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 698 of the 702 trajectories of the run the sample's --where attack=important_instructions keeps: " +
        "the other 4 are in cells with no labelled item (none drawn there, e.g. a disagreement cell phase 2 drew nothing from; none labelled; or no labelled item with a consensus, e.g. annotators tied on each): no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them",
    ]);
    expect(w[0]).not.toMatch(/hold 698 trajectories, the 702/);
  });
  it("strata holding more trajectories than the population are no design: the figures are undefined (strata_exceed_population), with a --where frame or the whole run (break50 3)", () => {
    const where = { known: "exact", population: { N_run: 414, filter: "attacked=true" } } as unknown as FrameCheck;
    const w: string[] = [];
    expect(checkStrataTotal(where, 1971, 516, 414, "h.jsonl", w)).toBe(`${STRATA_EXCEED_POPULATION} (the label file's strata hold 1971 trajectories, the population 414)`);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^the strata of label file h\.jsonl hold 1971 trajectories \(the sum of their stratum_size\), more than the 414 trajectories of the run the sample's --where attacked=true keeps: strata larger than their population are no valid design .* so no group gets a human or calibrated estimate \(undefined: strata_exceed_population\)/);
    const whole = { known: "exact", population: null } as unknown as FrameCheck;
    const a: string[] = [];
    expect(checkStrataTotal(whole, 9, 8, 8, "h.jsonl", a, undefined, AGREE_FRAME_WORDS)).toMatch(/^strata_exceed_population \(the label file's strata hold 9 trajectories, the population 8\)$/);
    expect(a[0]).toMatch(/more than the run's 8 trajectories: .*no judge gets a design-weighted agreement with the humans \(undefined: strata_exceed_population\)/);
    // equal: nothing said, nothing refused
    const none: string[] = [];
    expect(checkStrataTotal(whole, 8, 8, 8, "h.jsonl", none)).toBeUndefined();
    expect(none).toEqual([]);
  });
});
