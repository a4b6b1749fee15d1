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
  se_zero: "its standard error is 0: every item on the diagonal, a rater who always gives the same rating, or two raters with no category in common",
  reference_one_category: "the reference gave one category only, so kappa is 0 whatever the rater does: it measures nothing here",
  rater_one_category: "the rater gave one category only, so kappa is 0 whatever the reference says: it measures nothing here",
  a_rater_one_category: "a rater gave one category only, so kappa is 0 whatever the other does: it measures nothing here",
  no_shared_category:
    "the two raters never used a category in common (no item on the diagonal), so observed and chance agreement are both 0 and kappa is 0 with standard error 0: they never agree, which is not agreement at chance",
  no_pairable_units: "no item rated by two raters",
  binary_table_only: "defined for two categories only",
  zero_total_weight: "the weights sum to 0",
  category_unused: "the category is never used",
  category_used_by_every_rating: "every rating is this category",
  all_resamples_undefined: "undefined on every bootstrap resample",
  no_verdicts: "the run has no verdicts",
  no_weights_in_label_file: "the label file carries no design weights",
  // design-based estimates (`estimate`, `agree --human`, the paper table)
  stratum_n_lt_2:
    "a stratum holding items of this estimate has fewer than 2 labelled items, so its variance cannot be estimated: draw the sample with coarser --strata (fewer fields), or a larger --random / --disagreement so every stratum gets 2 or more",
  too_few_labelled_items: "too few labelled trajectories in the group (raise the sample, or lower --min-sampled)",
  no_labelled_item_in_group: "no labelled trajectory in the group",
  empty_group: "the group has no trajectory",
  no_run_labelled_by_every_judge: "no run of the row has a label from every judge (its own figure beside is over the runs it labelled)",
  emptied_by_like_for_like_cut: "every run of the group is on cells its model's other conditions did not run: the like-for-like cut left none (--own-mix gives the group over all its runs)",
  no_usable_judge_verdict: "no usable judge verdict in the group",
  no_usable_verdict: "no usable judge verdict",
  no_attacked_trajectories: "no attacked trajectory",
  // session 40: after --where attack=X the cell read "no unattacked trajectory", as if the run had none
  unattacked_outside_where: "--where left out the unattacked runs",
  // new user 48: the same cell blamed --where when the human sample's recorded population was applied as one
  unattacked_outside_sample_population: "the human sample's population left out the unattacked runs; --no-sample-population reads them",
  only_injection_task_runs: "every unattacked run is an injection-task run (the benchmark's injection task as the user's task), not in utility",
  blocked_attempt_not_recorded: "some partial compliance verdicts do not record whether the attempt was blocked",
  // new user 28: the code said the committee had no refusal buckets, yet its votes hold refusals
  committee_refusal_rate_not_counted: "not counted for a committee (use --judge for one judge's refusal rate)",
  no_trajectories: "no trajectory",
  // the paper table like for like (session 51): a model whose conditions cannot be put on shared cells; a row whose
  // runs the shared cells cut, whose calibrated estimate (the human sample's design) is over all of them
  no_like_for_like_cells: "no like-for-like rate: the model's conditions cannot be put on shared (suite, user task, injection task, attack) cells",
  calibrated_over_all_runs_not_like_for_like_cells: "the calibrated estimate is over every attacked run of the row (the human sample's design), not the shared cells its rates are over; --own-mix gives it",
  // break52 #4b: the utility cut with the rates to the user tasks of the shared cells, none of whose runs is left
  no_unattacked_run_on_shared_cells: "none of the row's unattacked runs is on a user task of the shared cells its rates are over; --own-mix gives utility over every unattacked run",
  no_utility_in_input: "the input records no utility",
  // why a verdict or a label is not used
  no_verdict: "no verdict",
  judge_crash: "judge crashed on it (errors.jsonl judge_crash; the same command judges it again)",
  judge_error: "judge error",
  judge_refused: "the judge refused",
  unjudgeable: "unjudgeable",
  unverified: "evidence not verified",
  // an unverified verdict's kind, when code found nothing to verify against (src/verdict/exposure.ts)
  injection_text_unknown: "injection_text_unknown: the input records no injected text",
  injection_text_ambiguous: "injection_text_ambiguous: sibling runs record different injected texts",
  injection_text_too_short: "injection_text_too_short: the injected text is too short to find",
  injection_only_in_agent_text: "injection_only_in_agent_text: the injected text is only in the agent's own text",
  surface_not_judged: "surface_not_judged: the injected text entered through a user or system message, which the signature judge does not judge",
  committee_no_quorum: "committee without quorum",
  committee_disputed: "committee split evenly",
  consensus_tie: "annotators tied",
  not_in_run: "not in the run",
  missing_label: "no label",
  duplicate_repeated: "the same label repeated by its annotator (counted once)",
  bad_row: "unreadable row",
  fewer_than_3_clusters: "fewer than 3 models to resample: a cluster bootstrap over one model gives the same figure on every resample, over two only three figures, which is no interval",
  fewer_than_2_conditions: "fewer than 2 conditions observed, so no condition can be worse than the baseline",
  baseline_not_observed: "the baseline condition is not observed",
  conditions_share_no_cell: "its conditions share no cell, so their rates are over different tasks and no condition is worse like for like (the paired differences from the baseline, over the cells each pair shares, are above)",
  no_model_with_baseline: "no model is observed under the baseline",
  zero_width_bootstrap: "its percentiles coincide, (nearly) every bootstrap resample gave the same figure: a zero-width interval is no precision, as the Wald CI with SE 0",
  no_variation:
    "no variation: a rater gave one category only, so every resample gives the same figure; a zero-width interval here is no precision",
};

/** The reason an interval with bounds carries when it is zero-width because the statistic measures nothing ({@link ciText}). */
export const NO_VARIATION = "no_variation";

/** The reason of a percentile bootstrap interval left undefined because it is zero-width (`../agree/pairwise.ts`). */
export const ZERO_WIDTH = "zero_width_bootstrap";

/** Reason codes with a variable part: `no_verdicts_of_<judge>`, `no_<kind>_trajectories`. */
const REASON_PATTERNS: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => string]> = [
  [/^no_verdicts_of_(.+)$/s, (m) => `the run has no verdicts of judge ${m[1]}`],
  [/^no_([a-z]+)_trajectories$/, (m) => `no ${m[1]} trajectory`],
  // the classic Fleiss' kappa has no SE of its own (../stats/fleiss.ts): the generalised one beside it has Gwet's (new
  // user 30, L10: the code itself was printed)
  [/^use_fleissKappaGeneralized_for_nonnull_se$/, () => "Fleiss, Nee & Landis's (1979) SE holds only under the null of chance agreement, so it gives no interval: see the generalised Fleiss' kappa's"],
];

/**
 * The explanation of a reason code. A reason `code (detail)` (e.g. `stratum_n_lt_2 (stratum "D|suite=travel"
 * has 1 labelled item of 4 ...)`) reads `<explanation>; <detail>`; text that is not a code is returned as it is;
 * a code with no explanation here is shown spaced (add it to {@link REASON_TEXT}).
 */
export function reasonText(reason: string | undefined | null): string {
  if (!reason) return "no value";
  for (const [re, f] of REASON_PATTERNS) {
    const p = re.exec(reason);
    if (p) return f(p);
  }
  const m = /^([a-z0-9_]+)(?: \((.*)\))?$/s.exec(reason);
  if (!m) return reason;
  const [, code, detail] = m;
  const text = REASON_TEXT[code] ?? code.replace(/_/g, " ");
  return detail ? `${text}; ${detail}` : text;
}

/**
 * `x.toFixed(digits)`, never `-0.000`: a value that rounds to zero from below (a design-weighted kappa of -1e-17,
 * or -0 itself) reads as the zero it is, not as a negative figure (new user 19). Every formatter here uses it.
 */
export function fixed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** `undefined (<why>)`: how every output shows a statistic without a value. */
export function undefinedText(reason: string | undefined | null): string {
  return `undefined (${reasonText(reason)})`;
}

/** A statistic with `digits` decimals, or `undefined (<why>)`. */
export function statText(value: number | null | undefined, reason?: string | null, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? undefinedText(reason) : fixed(value, digits);
}

/** A share as a percentage with one decimal, or `undefined (<why>)`. */
export function pctText(value: number | null | undefined, reason?: string | null): string {
  return value === null || value === undefined || !Number.isFinite(value) ? undefinedText(reason) : `${fixed(100 * value, 1)}%`;
}

/**
 * A difference of two rates (both in [0,1]) in percentage points, one decimal: `3.6 pp` (10.0% - 6.4%), never `3.6%`,
 * which would read as a relative change; `undefined (<reason>)` as {@link pctText} when there is no value.
 */
export function ppText(value: number | null | undefined, reason?: string | null): string {
  return value === null || value === undefined || !Number.isFinite(value) ? undefinedText(reason) : `${fixed(100 * value, 1)} pp`;
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
 * degenerate (its SE is 0, so it collapses to a point that measures nothing), or `none (no variation: ...)` when its
 * `reason` is {@link NO_VARIATION} (bounds kept for the JSON, a zero-width interval of a statistic that measures nothing).
 * @param reason the reason to show when the interval is absent.
 */
export function ciText(ci: IntervalLike | null | undefined, reason?: string | null, digits = 3): string {
  if (!ci) return undefinedText(reason);
  if (ci.degenerate) return undefinedText("se_zero");
  const lo = ci.lower_clipped ?? ci.lower;
  const hi = ci.upper_clipped ?? ci.upper;
  if (lo === null || lo === undefined || hi === null || hi === undefined) return undefinedText(ci.reason ?? reason);
  // bounds kept in the JSON, but a zero-width interval of a statistic that measures nothing is no precision
  if (ci.reason === NO_VARIATION) return `none (${reasonText(NO_VARIATION)})`;
  return `[${fixed(lo, digits)}, ${fixed(hi, digits)}]`;
}

/** A kappa-like estimate: value, SE, Wald and bootstrap intervals, each possibly undefined. */
export interface EstimateLike {
  value: number | null;
  reason?: string;
  se?: number | null;
  se_reason?: string;
  ci_wald?: IntervalLike | null;
  ci_t?: IntervalLike | null;
  ci_bootstrap?: IntervalLike & { B?: number; seed?: number; undefined_resamples?: number };
}

/**
 * How many bootstrap resamples gave an undefined figure and were left out of the percentile interval
 * (test/data/vectors/NOTES.md §1.4 step 3: "Exclude them, and report the count/fraction"; stats55 finding 3: only
 * --json said it): `138 of 2000 resamples (6.9%) undefined, left out`, or "" when none was (or the interval's reason,
 * `all_resamples_undefined`, already says every one was). The interval is over the defined resamples only.
 * @param b a bootstrap interval's counts (src/stats/types.ts BootstrapInterval); absent fields: "".
 */
export function droppedResamplesText(b: { B?: number; undefined_resamples?: number; reason?: string | null }): string {
  const u = b.undefined_resamples;
  if (!u || !b.B || b.reason === "all_resamples_undefined") return "";
  const share = (100 * u) / b.B;
  return `${u} of ${b.B} resamples (${share < 0.1 ? share.toPrecision(1) : share.toFixed(1)}%) undefined, left out`;
}

/**
 * One estimate in one line: `0.412 (SE 0.051, 95% Wald CI [0.312, 0.512], bootstrap CI [...])`, or
 * `undefined (<why>)` when the value is undefined (nothing else is shown then), with every undefined part
 * said so: `1.000 (SE 0, 95% Wald CI undefined (its standard error is 0: ...))`.
 */
export function estimateText(e: EstimateLike): string {
  if (e.value === null || e.value === undefined) return undefinedText(e.reason);
  const parts: string[] = [];
  if (e.se !== undefined) parts.push(e.se === null ? `SE ${undefinedText(e.se_reason)}` : e.se === 0 ? "SE 0" : `SE ${fixed(e.se, 3)}`);
  if (e.ci_wald !== undefined) parts.push(`95% Wald CI ${ciText(e.ci_wald, e.se_reason)}`);
  else if (e.ci_t !== undefined) parts.push(`95% CI ${ciText(e.ci_t, e.se_reason)}`);
  if (e.ci_bootstrap) {
    const b = e.ci_bootstrap;
    const said = [b.lower !== null && b.lower !== undefined && b.B !== undefined ? `B=${b.B}, seed ${b.seed}` : "", droppedResamplesText(b)].filter(Boolean);
    parts.push(`bootstrap CI ${ciText(b, b.reason)}${said.length ? ` (${said.join("; ")})` : ""}`);
  }
  return `${fixed(e.value, 3)}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/**
 * The footnote line that names the bootstrap behind a text output's intervals, the same in every command:
 * `bootstrap: B 2000, seed 1 (percentile, pure-rand xoroshiro128+)`, then `: <what>` when given (which intervals,
 * what is resampled); `bootstrap: none (--bootstrap 0)` when B is 0. Percentile intervals over the defined
 * replicates (`src/stats/bootstrap.ts`; Efron & Tibshirani 1993, ch. 13).
 * @param b B resamples (0: none) and the seed
 * @param what what the intervals are and what they resample (or, with B 0, what has no interval)
 */
export function bootstrapLine(b: { B: number; seed: number }, what?: string): string {
  const head = b.B > 0 ? `bootstrap: B ${b.B}, seed ${b.seed} (percentile, pure-rand xoroshiro128+)` : "bootstrap: none (--bootstrap 0)";
  return what ? `${head}: ${what}` : head;
}

/**
 * The mark before a point estimate whose interval is undefined (newuser51 finding 1: a calibrated 35.0% "CI undefined"
 * stood as the report's headline, moved 12 points by one labelled item of a stratum): it is printed, never bare.
 */
export const NO_INTERVAL_MARK = "UNSTABLE (no interval: do not quote alone)";
