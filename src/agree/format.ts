/**
 * The one way every text and HTML output (`agree`, `agreement`, `committee`, `report`) renders a statistic that
 * may be undefined or degenerate: a number, or `undefined (<why>)`; never `n/a`, `null`, `0.000` standing in
 * for "no value", and never a collapsed interval `[0.000, 0.000]` shown as if it measured something. JSON
 * outputs carry `null` with a reason code (the same codes explained here).
 */

/** Plain-language explanation of each reason code the statistics and reports use. */
export const REASON_TEXT: Readonly<Record<string, string>> = {
  empty_input: "no item to compare",
  undefined_single_category: "every rating is in one category, so chance agreement is 1",
  undefined_chance_agreement_1: "chance agreement is 1",
  undefined_single_value: "every rating has the same value",
  n_lt_2: "fewer than 2 items",
  fewer_than_2_declared_categories: "fewer than 2 categories",
  fewer_than_2_raters: "fewer than 2 raters",
  fewer_than_2_annotators: "fewer than 2 annotators",
  se_zero: "its standard error is 0: every item on the diagonal, or a rater who always gives the same rating",
  no_pairable_units: "no item rated by two raters",
  binary_table_only: "defined for two categories only",
  zero_total_weight: "the weights sum to 0",
  category_unused: "the category is never used",
  category_used_by_every_rating: "every rating is this category",
  all_resamples_undefined: "undefined on every bootstrap resample",
  no_verdicts: "the run has no verdicts",
  no_weights_in_label_file: "the label file carries no design weights",
  fewer_than_2_conditions: "fewer than 2 conditions observed, so no condition can be worse than the baseline",
  baseline_not_observed: "the baseline condition is not observed",
  no_model_with_baseline: "no model is observed under the baseline",
};

/** The explanation of a reason code (the code itself, spaced, when it has none). */
export function reasonText(reason: string | undefined | null): string {
  if (!reason) return "no value";
  return REASON_TEXT[reason] ?? reason.replace(/_/g, " ");
}

/** `undefined (<why>)`: how every output shows a statistic without a value. */
export function undefinedText(reason: string | undefined | null): string {
  return `undefined (${reasonText(reason)})`;
}

/** A statistic with `digits` decimals, or `undefined (<why>)`. */
export function statText(value: number | null | undefined, reason?: string | null, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? undefinedText(reason) : value.toFixed(digits);
}

/** A share as a percentage with one decimal, or `undefined (<why>)`. */
export function pctText(value: number | null | undefined, reason?: string | null): string {
  return value === null || value === undefined || !Number.isFinite(value) ? undefinedText(reason) : `${(100 * value).toFixed(1)}%`;
}

/** An interval's shape as the statistics library and the reports give it. */
export interface IntervalLike {
  lower?: number | null;
  upper?: number | null;
  lower_clipped?: number;
  upper_clipped?: number;
  degenerate?: boolean;
  reason?: string;
}

/**
 * An interval `[lower, upper]` (clipped bounds when given), or `undefined (<why>)` when it has no bounds or is
 * degenerate (its SE is 0, so it collapses to a point that measures nothing).
 * @param reason the reason to show when the interval is absent.
 */
export function ciText(ci: IntervalLike | null | undefined, reason?: string | null, digits = 3): string {
  if (!ci) return undefinedText(reason);
  if (ci.degenerate) return undefinedText("se_zero");
  const lo = ci.lower_clipped ?? ci.lower;
  const hi = ci.upper_clipped ?? ci.upper;
  if (lo === null || lo === undefined || hi === null || hi === undefined) return undefinedText(ci.reason ?? reason);
  return `[${lo.toFixed(digits)}, ${hi.toFixed(digits)}]`;
}

/** A kappa-like estimate: value, SE, Wald and bootstrap intervals, each possibly undefined. */
export interface EstimateLike {
  value: number | null;
  reason?: string;
  se?: number | null;
  se_reason?: string;
  ci_wald?: IntervalLike | null;
  ci_t?: IntervalLike | null;
  ci_bootstrap?: IntervalLike & { B?: number; seed?: number };
}

/**
 * One estimate in one line: `0.412 (SE 0.051, 95% Wald CI [0.312, 0.512], bootstrap CI [...])`, or
 * `undefined (<why>)` when the value is undefined (nothing else is shown then), with every undefined part
 * said so: `1.000 (SE 0, 95% Wald CI undefined (its standard error is 0: ...))`.
 */
export function estimateText(e: EstimateLike): string {
  if (e.value === null || e.value === undefined) return undefinedText(e.reason);
  const parts: string[] = [];
  if (e.se !== undefined) parts.push(e.se === null ? `SE ${undefinedText(e.se_reason)}` : e.se === 0 ? "SE 0" : `SE ${e.se.toFixed(3)}`);
  if (e.ci_wald !== undefined) parts.push(`95% Wald CI ${ciText(e.ci_wald, e.se_reason)}`);
  else if (e.ci_t !== undefined) parts.push(`95% CI ${ciText(e.ci_t, e.se_reason)}`);
  if (e.ci_bootstrap) {
    const b = e.ci_bootstrap;
    parts.push(`bootstrap CI ${ciText(b, b.reason)}${b.lower !== null && b.lower !== undefined && b.B !== undefined ? ` (B=${b.B}, seed ${b.seed})` : ""}`);
  }
  return `${e.value.toFixed(3)}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}
