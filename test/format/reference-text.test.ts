import { describe, expect, it } from "vitest";
import { RateTally } from "../../src/stats/rates.js";
import { coverageText, ratesText } from "../../src/format/rates-text.js";
import { referenceSubsetText } from "../../src/format/reference-text.js";
import { runs, tally } from "../stats/reference-groups.js";

describe("the benchmark's own verdict said beside a LOW coverage", () => {
  it("VIGIL-like: both figures with counts, the runs without a verdict, and that the subset is not representative", () => {
    const r = tally(runs(86, "full_compliance", true), runs(171, null, true), runs(145, null, false), runs(31, null, "no_reference"));
    expect(coverageText(r)).toBe(
      "coverage 19.9% (86 labelled of 433 attacked) LOW (below 80%: the rates speak for a subset that may be biased; most unlabelled: injection_text_unknown 347; " +
        "by the benchmark's own security verdict (goal achieved), the labelled runs read 100.0% [95.7, 100.0] (86/86) against 63.9% [59.1, 68.5] (257/402) " +
        "over all attacked runs with a verdict (31 attacked runs record none): the labelled subset is not representative (the rate over all lies outside its 95% interval), " +
        "and these rates speak for the labelled runs, not for the group)",
    );
    expect(ratesText(r)).toContain("(31 attacked runs record none): the labelled subset is not representative");
  });

  it("no bias shown, said as no more than that", () => {
    const r = tally(runs(4, "full_compliance", true), runs(1, null, true), runs(4, null, false));
    expect(referenceSubsetText(r)).toBe(
      "; by the benchmark's own security verdict (goal achieved), the labelled runs read 100.0% [51.0, 100.0] (4/4) against 55.6% [26.7, 81.1] (5/9) over all attacked runs with a verdict: " +
        "the rate over all lies inside the labelled runs' 95% interval, so this check shows no bias (it cannot show there is none)",
    );
  });

  it("labelled runs without a verdict, agent errors: named with their counts", () => {
    const r = tally(runs(3, "full_compliance", true), runs(1, "full_compliance", "run_error"), runs(10, null, false), runs(2, null, "no_reference"));
    const t = referenceSubsetText(r);
    expect(t).toContain("the 3 labelled runs with one (1 labelled run carries none) read 100.0% [43.9, 100.0] (3/3) against 23.1% [8.2, 50.3] (3/13)");
    expect(t).toContain("(3 attacked runs carry none that counts: 2 record none, 1 ended in an agent error, where it means nothing)");
    expect(t).toContain("not representative");
  });

  it("nothing to compare: said why, one figure", () => {
    const every = tally(runs(2, "full_compliance", true), runs(8, null, "no_reference"));
    expect(referenceSubsetText(every)).toBe(
      "; by the benchmark's own security verdict (goal achieved), the labelled runs read 100.0% [34.2, 100.0] (2/2), and they are every attacked run with a verdict (8 attacked runs record none): it cannot say how the unlabelled runs differ",
    );
    const none = tally(runs(2, "full_compliance", "no_reference"), runs(8, null, false));
    expect(referenceSubsetText(none)).toBe(
      "; by the benchmark's own security verdict (goal achieved): none of the 2 labelled runs carries one, so it cannot say how they differ; over all attacked runs with a verdict it reads 0.0% [0.0, 32.4] (0/8) (2 attacked runs record none)",
    );
  });

  it("silent where it is noise or says nothing: coverage not LOW, no labelled run, no verdict at all", () => {
    // 80% coverage with a subset that differs: not LOW, not said (--json keeps the figures)
    const fine = tally(runs(8, "full_compliance", true), runs(2, null, false));
    expect(fine.coverage_low).toBe(false);
    expect(fine.reference_security).toMatchObject({ labelled: { count: 8, n: 8 }, all: { count: 8, n: 10 } });
    expect(referenceSubsetText(fine)).toBe("");
    expect(coverageText(fine)).toBe("coverage 80.0% (8 labelled of 10 attacked)");
    expect(referenceSubsetText(tally(runs(5, null, true)))).toBe("");
    const noRef = tally(runs(1, "full_compliance", "no_reference"), runs(5, null, "no_reference"));
    expect(noRef.reference_security).toBeNull();
    expect(referenceSubsetText(noRef)).toBe("");
    // a tally not given the verdicts: as before
    const t = new RateTally().add({ label: "full_compliance" }).add({ label: null, reason: "x" }).add({ label: null, reason: "x" }).result();
    expect(coverageText(t)).toBe("coverage 33.3% (1 labelled of 3 attacked) LOW (below 80%: the rates speak for a subset that may be biased; most unlabelled: x 2)");
  });
});
