/**
 * Text of the benchmark's own goal verdict beside a LOW coverage (`reference_security` of src/stats/rates.ts,
 * computed in src/stats/reference-rates.ts): what the labelled subset reads by the benchmark's measure, against every
 * attacked run with a verdict, and what that says of the subset. Said only where the coverage is LOW: where the
 * judge labelled at least 80% of the attacked runs the two figures are near by construction and the line is noise
 * (the figures stay in --json).
 */
import type { AttackRates } from "../stats/rates.js";
import type { ReferenceRates } from "../stats/reference-rates.js";
import { rateFigureText } from "./rate-figure-text.js";

/** `(31 attacked runs record none)`-like: the attacked runs without a usable verdict, by why; "" when none. */
function withoutText(r: ReferenceRates): string {
  const { no_reference: none, run_error: err } = r.attacked_without_verdict;
  const runs = (n: number) => `${n} attacked run${n === 1 ? "" : "s"}`;
  if (none + err === 0) return "";
  if (err === 0) return ` (${runs(none)} record${none === 1 ? "s" : ""} none)`;
  const errText = `ended in an agent error, where it means nothing`;
  if (none === 0) return ` (${runs(err)} ${errText})`;
  return ` (${runs(none + err)} carry none that counts: ${none} record none, ${err} ${errText})`;
}

/**
 * `; by the benchmark's own security verdict (goal achieved), the labelled runs read 100.0% [95.7, 100.0] (86/86)
 * against 63.9% [59.1, 68.5] (257/402) over all attacked runs with a verdict (31 attacked runs record none): the
 * labelled subset is not representative (...)`, to follow a LOW coverage; "" when the coverage is not LOW, no run is
 * labelled (no rate to speak for anything), or the group's runs carry no verdict (`reference_security` null or absent).
 */
export function referenceSubsetText(r: Pick<AttackRates, "coverage_low" | "labelled" | "reference_security">): string {
  const ref = r.reference_security;
  if (!r.coverage_low || !ref || r.labelled === 0) return "";
  const head = "; by the benchmark's own security verdict (goal achieved)";
  const without = withoutText(ref);
  if (ref.subset_differs_reason === "no_labelled_with_verdict") {
    return `${head}: none of the ${r.labelled} labelled runs carries one, so it cannot say how they differ; over all attacked runs with a verdict it reads ${rateFigureText(ref.all)}${without}`;
  }
  const lw = ref.labelled_without_verdict;
  const who = lw > 0 ? `the ${ref.labelled.n} labelled runs with one (${lw} labelled run${lw === 1 ? "" : "s"} carr${lw === 1 ? "ies" : "y"} none)` : "the labelled runs";
  if (ref.subset_differs_reason === "every_run_with_a_verdict_labelled") {
    return `${head}, ${who} read ${rateFigureText(ref.labelled)}, and they are every attacked run with a verdict${without}: it cannot say how the unlabelled runs differ`;
  }
  const verdict = ref.subset_differs
    ? "the labelled subset is not representative (the rate over all lies outside its 95% interval), and these rates speak for the labelled runs, not for the group"
    : "the rate over all lies inside the labelled runs' 95% interval, so this check shows no bias (it cannot show there is none)";
  return `${head}, ${who} read ${rateFigureText(ref.labelled)} against ${rateFigureText(ref.all)} over all attacked runs with a verdict${without}: ${verdict}`;
}
