/**
 * The report's benchmark-verdict notes beside a LOW coverage (src/report/reference-html.ts): the by-condition, by-attack
 * and by-surface coverage_low list says what the overall and per-model rows say (new-user pass), or why it cannot.
 */
import { describe, expect, it } from "vitest";
import { conditionReferenceText } from "../../src/report/reference-html.js";
import { referenceRates } from "../../src/stats/reference-rates.js";
import type { ConditionView } from "../../src/report/condition-views.js";

type Cell = ConditionView["cells"][number];
const cell = (over: Partial<Cell>): Cell => ({ model: "m", condition: "c", asr: 1, n: 3, coverage: 0.5, coverage_low: true, labelled: 3, attacked: 6, ...over });
const counts = { labelled_yes: 3, labelled_n: 3, labelled_without: 0, all_yes: 3, all_n: 5, no_reference: 1, run_error: 0 };

describe("conditionReferenceText", () => {
  it("a LOW cell whose runs carry the benchmark's verdict: the labelled runs against all, as the rows say it", () => {
    const ref = referenceRates(counts);
    if (typeof ref === "string") throw new Error(ref);
    expect(conditionReferenceText(cell({ reference_security: ref }))).toBe(
      "; by the benchmark's own security verdict (goal achieved), the labelled runs read 100.0% [43.9, 100.0] (3/3) against 60.0% [23.1, 88.2] (3/5) over all attacked runs with a verdict " +
        "(1 attacked run records none): the rate over all lies inside the labelled runs' 95% interval, so this check shows no bias (it cannot show there is none)",
    );
    // not LOW: nothing (the figures stay in the model)
    expect(conditionReferenceText(cell({ coverage_low: false, reference_security: ref }))).toBe("");
  });

  it("none of its attacked runs carries a verdict: says why not; a model made before the figures: nothing", () => {
    const why = referenceRates({ ...counts, labelled_yes: 0, labelled_n: 0, labelled_without: 3, all_yes: 0, all_n: 0, no_reference: 6 });
    expect(typeof why).toBe("string");
    expect(conditionReferenceText(cell({ reference_security: null, reference_security_reason: why as string }))).toBe(
      "; the benchmark's own verdict cannot say how its labelled runs differ: no attacked run of the group carries a usable benchmark verdict (reference.security): 6 record none, 0 ended in an agent error (where it means nothing)",
    );
    expect(conditionReferenceText(cell({ labelled: undefined, attacked: undefined }))).toBe("");
  });
});
