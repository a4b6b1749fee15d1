// src/stats/: agreement statistics as pure functions over arrays and tables, one file per coefficient family,
// each with its published source; reference values vendored in test/data/vectors/, checked in test/stats/.
/**
 * Agreement statistics for LLM-judge vs human labels and judge committees: pure functions over arrays and
 * tables with a declared category set. Formulas, conventions and test vectors: `test/data/vectors/NOTES.md`.
 *
 * ## Conventions
 * - **Declared categories.** Every table is built over a declared category list, in a fixed order,
 *   including categories nobody used. κ, p_o and α do not change when empty categories are added; AC1,
 *   PABAK/Brennan–Prediger and weighted κ do (q or positions enter them). Labels outside the set throw
 *   (or, with `pairLabels(..., {onUnknown: "drop"})`, are dropped and counted).
 * - **Orientation.** `table[i][j]` = items with first rater (judge, A) = category i and second rater
 *   (human, B) = category j. Rows are the first argument.
 * - **Non-labels.** Missing ratings, judge errors and refusals are never labels and never disagreements:
 *   `pairLabels` drops such pairs (listwise deletion) and counts them by reason. Multi-rater functions keep
 *   partially rated items (Krippendorff, generalised Fleiss, AC1).
 * - **Undefined is null.** A coefficient that is undefined (0/0) has `value: null` and a `reason` code
 *   (e.g. `undefined_single_category`, `empty_input`, `no_pairable_units`, `n_lt_2` for an SE). Never NaN,
 *   never a substituted 0 or 1. Invalid input (ragged table, unknown category, arrays of different lengths,
 *   unequal raters for classic Fleiss) throws an `Error`.
 *
 * ## One result shape ({@link Estimate})
 * ```
 * { value: number | null, reason?: string, n: number,
 *   se?: number | null, se_reason?: string,
 *   ci_wald?: Interval | null,      // normal: θ ± 1.959964·SE (SAS, statsmodels)
 *   ci_t?: Interval | null,         // irrCAC: θ ± t_{0.975, n−1}·SE
 *   ci_bootstrap?: BootstrapInterval,
 *   flags?: string[] }              // e.g. "degenerate_ci" (SE = 0), "z_undefined" (null SE = 0)
 * Interval = { lower, upper, lower_clipped, upper_clipped, level, method, df?, degenerate }
 * BootstrapInterval = { lower, upper, reason?, level, B, defined, undefined_resamples, undefined_fraction,
 *                       seed, generator, resampling, quantile_rule }
 * ```
 * `lower`/`upper` are never clipped; `*_clipped` are for display ([−1, 1] for coefficients, [0, 1] for
 * proportions; irrCAC caps only the upper end, which `upper_clipped` reproduces). Coefficient results extend
 * this shape with their components (`po`, `pe`, `se0`, `z`, p-values, per-category values, ...).
 *
 * ## Which function for what
 * - two raters: `confusionMatrix`, `percentAgreement` (+ Wilson), `cohenKappa` (unweighted/linear/quadratic/
 *   custom, FCE ASE, null SE, z, Wald CI), `cohenKappaFromLabels`, `scottPi`, `brennanPrediger`/`pabak`
 *   (+ prevalence and bias indices), `gwetAC1`, `bootstrapKappa` (percentile CI, seeded).
 * - many raters: `ratingCounts`, `fleissKappa` (complete data; P̄ vs unanimity, per-category κ, null SE, z,
 *   Randolph), `krippendorffAlpha` (missing data; nominal/ordinal/interval/ratio), and the irrCAC family with
 *   Gwet SEs and t intervals: `percentAgreementRaw`, `gwetAC1Raw`, `fleissKappaGeneralized`,
 *   `brennanPredigerRaw`, `krippendorffAlphaGwet`, `congerKappa`; `bootstrapItems` for a bootstrap over units.
 * - two-phase design: `inclusionProbabilities`, `postStratifiedWeights`, `horvitzThompsonWeights`,
 *   `weightedConfusion`, `weightedAgreement`, `designAgreement` (stratified linearised SEs), `kishEffectiveN`.
 * - a linear combination of independent binomial proportions (e.g. a standardized difference): `moverWilson`
 *   (MOVER with Wilson limits per proportion, Zou, Huang & Zhang 2009).
 */
export * from "./types.js";
export * from "./distributions.js";
export * from "./stratified.js";
export * from "./labels.js";
export * from "./confusion.js";
export * from "./weights.js";
export * from "./cohen.js";
export * from "./pabak.js";
export * from "./gwet.js";
export * from "./fleiss.js";
export * from "./krippendorff.js";
export * from "./multirater.js";
export * from "./bootstrap.js";
export * from "./mover.js";
export * from "./weighted.js";
export * from "./rates.js";
export * from "./reference-rates.js";
export * from "./newcombe-unpaired.js";
export * from "./newcombe-paired.js";
export * from "./mcnemar-exact.js";
