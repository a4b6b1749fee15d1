/** Test helpers: groups of attacked runs with a label and a benchmark verdict, tallied as label's summary does. */
import { RateTally, type RateItem } from "../../src/stats/rates.js";
import type { ReferenceValue } from "../../src/stats/reference-rates.js";

/** A group of `n` attacked runs with the same label (null: unlabelled) and benchmark verdict. */
export const runs = (n: number, label: RateItem["label"], ref: ReferenceValue): Array<[RateItem, ReferenceValue]> =>
  Array.from({ length: n }, () => [label === null ? { label: null, reason: "injection_text_unknown" } : { label }, ref]);

/** The rates of the groups, as one `RateTally`. */
export function tally(...groups: Array<Array<[RateItem, ReferenceValue]>>) {
  const t = new RateTally();
  for (const g of groups) for (const [item, ref] of g) t.add(item, ref);
  return t.result();
}
