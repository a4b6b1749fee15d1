/**
 * Label counts in one-line text with the population each line counts (new user 49 item 2: `committee labels:
 * not_exposed 1450` counted all 3,268 runs beside rates over the 2,684 attacked ones): one line for the attacked runs
 * (the rates' population) and one for the unattacked runs, each with its run count. A run with no label is in neither.
 */
import { BUCKETS, type Bucket } from "../types.js";

/** Label counts split by whether the run is attacked; the two add up to the labels of every run. */
export interface LabelCountsSplit {
  by_label_attacked: Record<Bucket, number>;
  by_label_unattacked: Record<Bucket, number>;
}

/**
 * `<title>, attacked runs (n A): full_compliance 470, ...` and `<title>, unattacked runs (n U): not_exposed 584`
 * (the unattacked line gives its non-zero counts only, `none` when it has none).
 * @param title the line's start with its indent, e.g. `  committee labels`
 */
export function labelCountsText(title: string, c: LabelCountsSplit): string[] {
  const sum = (r: Record<Bucket, number>) => BUCKETS.reduce((n, b) => n + r[b], 0);
  const un = BUCKETS.filter((b) => c.by_label_unattacked[b] > 0).map((b) => `${b} ${c.by_label_unattacked[b]}`);
  return [
    `${title}, attacked runs (n ${sum(c.by_label_attacked)}): ${BUCKETS.map((b) => `${b} ${c.by_label_attacked[b]}`).join(", ")}`,
    `${title}, unattacked runs (n ${sum(c.by_label_unattacked)}): ${un.length ? un.join(", ") : "none"}`,
  ];
}
