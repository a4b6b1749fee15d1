/**
 * A mark's count beside a rate says how many of the successes that rate counts (repeat 0, attacked) carry it, not only
 * the count over every repeat and unattacked runs (break51 finding 8: `asr_goal 31.8% (21/66)` beside `33 of its 92`).
 */
import { describe, expect, it } from "vitest";
import { addMarkedCompliance, emptyMarkedCompliance, markedCounts, markedRateText } from "../../src/verdict/marked-compliance.js";
import type { Verdict } from "../../src/types.js";

const v = (label: Verdict["label"], repeat: number, attacked: boolean): Verdict => ({ trajectory_id: "t", status: "ok", label, repeat, attacked }) as unknown as Verdict;

describe("marked compliance counts", () => {
  it("every repeat and unattacked runs in the first counts; repeat 0 attacked apart, said in the sentence", () => {
    const h = emptyMarkedCompliance();
    addMarkedCompliance(h, v("full_compliance", 0, true), true);
    addMarkedCompliance(h, v("full_compliance", 0, true), false);
    addMarkedCompliance(h, v("partial_compliance", 0, true), true);
    addMarkedCompliance(h, v("full_compliance", 1, true), true);
    addMarkedCompliance(h, v("full_compliance", 0, false), true);
    addMarkedCompliance(h, v("unaffected", 0, true), true);
    expect(h).toMatchObject({ compliance_labels: 5, flagged: 4, flagged_full: 3, rate: { compliance_labels: 3, flagged: 2, flagged_full: 1 } });
    expect(markedCounts(h)).toBe("4 of its 5 compliance labels (3 full_compliance)");
    expect(markedRateText(h)).toBe(
      "; of its 3 compliance labels the rates count (attacked runs, repeat 0), 2 carry the mark (1 full_compliance), the counts before being over every repeat and unattacked runs too",
    );
  });
  it("health stored before the repeat-0 counts: the sentence as before", () => {
    expect(markedRateText({ compliance_labels: 2, flagged: 1, flagged_full: 1, first_items: [] })).toBe("");
    // the same counts (one repeat, attacked runs only): not said twice
    expect(markedRateText({ compliance_labels: 2, flagged: 1, flagged_full: 1, first_items: [], rate: { compliance_labels: 2, flagged: 1, flagged_full: 1 } })).toBe("");
  });
});
