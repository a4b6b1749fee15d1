/**
 * Two-rater and many-rater comparisons assembled from the statistics library (`src/stats/`): the blocks that
 * `ipi-judge committee`, `ipi-judge agree --human` and `ipi-judge agreement` print. No statistic is computed
 * here; this file only pairs labels, builds tables over a declared category set, calls the library and keeps
 * the JSON small (per-item arrays are dropped). Every value is a number or null with a reason, never NaN.
 */
import { textTable, type ColumnAlign } from "../format/text-table.js";
import { kappaNote, oneCategory, type KappaNote, type OneCategory } from "../stats/one-category.js";
import { fewInCategory, fewItemsLine, type FewInCategory } from "../stats/few-in-category.js";
import {
  bootstrapItems,
  bootstrapKappa,
  brennanPrediger,
  cohenKappa,
  confusionMatrix,
  withMarginals,
  emptyFleissKappa,
  fleissKappa,
  fleissKappaGeneralized,
  gwetAC1,
  gwetAC1Raw,
  krippendorffAlpha,
  krippendorffAlphaGwet,
  pairLabels,
  percentAgreement,
  percentAgreementRaw,
  prepareCounts,
  ratingCounts,
  type BootstrapInterval,
  type BrennanPrediger,
  type Category,
  type CohenKappa,
  type FleissKappa,
  type GwetAC1,
  type KrippendorffAlpha,
  type MultiRaterEstimate,
  type PercentAgreement,
  type WeightSpec,
} from "../stats/index.js";
import { estimateText, NO_VARIATION, pctText, reasonText, statText, ZERO_WIDTH } from "../format/stat-text.js";
import { rateCaveatMarker, type RateCaveat } from "../verdict/rate-caveat.js";
import { shownStrings } from "../format/shown.js";
import { repeatZeroByJudge } from "../verdict/vote.js";

/** Bootstrap settings: `B` resamples (0 = no bootstrap) and the seed of pure-rand xoroshiro128+. */
export interface BootstrapSettings {
  B: number;
  seed: number;
}

/**
 * Cohen's kappa as reported here: the library result (SE, Wald CI, z) plus the percentile bootstrap CI, and `note`
 * when a rater gave one category only, so that the kappa is 0 by construction (`../stats/one-category.ts`
 * {@link KappaNote}: the 0 is kept, its intervals are no precision, and the text says so, never a bare 0.000).
 */
export type KappaReport = CohenKappa & { ci_bootstrap?: BootstrapInterval; note?: KappaNote };

/** What two raters' comparison over a declared category set reports. */
export interface TwoRaterComparison {
  categories: Category[];
  /** Items offered (pairs before dropping non-labels). */
  n_total: number;
  /** Items where both sides have a label: the n of every coefficient below. */
  n_used: number;
  /** Dropped pairs by reason (`missing`, `judge_error`, `judge_refused`, ...): never labels, never disagreements. */
  excluded: Record<string, number>;
  /** Σ diagonal / n with Wilson and Wald intervals. */
  percent_agreement: PercentAgreement;
  /** Unweighted Cohen's kappa (Cohen 1960) with the FCE (1969) SE, Wald CI and, when B > 0, a bootstrap CI. */
  kappa: KappaReport;
  /** Weighted kappa (Cohen 1968) when weights were asked for. */
  weighted_kappa?: KappaReport;
  /** Gwet's AC1 (Gwet 2008), two-rater table form. */
  ac1: GwetAC1;
  /**
   * PABAK (Byrt, Bishop & Carlin 1993): (q·p_o − 1)/(q − 1) over the q declared categories, which is the
   * Brennan–Prediger coefficient; for q = 2 it is 2p_o − 1 and the prevalence and bias indices are given.
   */
  pabak: BrennanPrediger;
  /**
   * Set when both raters (or the second, when it is the comparison's reference: `opts.reference`) gave one category
   * only: AC1 and PABAK then say nothing about discrimination (`../stats/one-category.ts`, review 16).
   */
  one_category?: OneCategory;
  /**
   * Set on a 2 x 2 table (two categories) whose kappa is defined and rests on a category a rater used 1-4 times: one
   * label the other way moves it far (`../stats/few-in-category.ts`; new user 44, as `agree --reference` says it).
   * A q x q table (the six buckets) is not flagged: see that module.
   */
  few_in_category?: FewInCategory;
  /** Rows = first rater, columns = second rater, over `categories`. */
  confusion: { rows: string; cols: string; categories: Category[]; table: number[][] };
}

/**
 * Compare two raters item by item over a declared category set.
 *
 * @param a first rater's labels (rows), `null`/`undefined` or a non-label token (`judge_error`, ...) when absent.
 * @param b second rater's labels (columns), aligned with `a` by item.
 * @param categories declared categories in order (every table is q × q over them, unused ones included).
 * @param opts.names row and column names for the confusion matrix; `bootstrap` B and seed (B = 0: none);
 *   `weights` adds a weighted kappa (`linear`/`quadratic`, by category position); `nonLabels` maps further
 *   tokens to exclusion reasons (see `pairLabels`); `reference: "cols"` when `b` is the reference
 *   ({@link TwoRaterComparison.one_category}).
 * @returns see {@link TwoRaterComparison}; a coefficient that is undefined is null with a reason.
 * @throws Error when the arrays differ in length or a label is outside the declared categories.
 * Sources: `src/stats/` (Cohen 1960/1968, Fleiss–Cohen–Everitt 1969, Gwet 2008, Byrt et al. 1993, Wilson 1927).
 */
export function compareTwoRaters(
  a: readonly (Category | null | undefined)[],
  b: readonly (Category | null | undefined)[],
  categories: readonly Category[],
  opts: {
    names?: [string, string];
    bootstrap?: BootstrapSettings;
    weights?: Exclude<WeightSpec, "unweighted" | readonly (readonly number[])[]>;
    nonLabels?: Readonly<Record<string, string>>;
    /** the second rater is the comparison's reference (a human consensus): its one category alone is said */
    reference?: "cols";
  } = {},
): TwoRaterComparison {
  const paired = pairLabels(a, b, { categories, nonLabels: opts.nonLabels });
  const cm = confusionMatrix(paired.a, paired.b, categories);
  return compareTwoRatersTable(cm.table, paired, categories, opts);
}

/**
 * {@link compareTwoRaters} from its paired table: what it reports once the pairs are counted (by `pairLabels` and
 * `confusionMatrix`, or by {@link PairTally} over codes, for a million items without an array of labels per rater).
 * @param table q × q counts over `categories`, rows = first rater; @param paired `n_total`, `n_used` and the
 *   dropped pairs by reason (in the order `pairLabels` first meets them: the JSON keeps that order).
 */
export function compareTwoRatersTable(
  table: number[][],
  paired: { n_total: number; n_used: number; excluded: Record<string, number> },
  categories: readonly Category[],
  opts: { names?: [string, string]; bootstrap?: BootstrapSettings; weights?: Exclude<WeightSpec, "unweighted" | readonly (readonly number[])[]>; reference?: "cols" } = {},
): TwoRaterComparison {
  const cm = withMarginals(table, categories);
  const one = oneCategory(cm.table, categories.map(String), opts.reference, { reference: opts.names?.[1] });
  const kappa: KappaReport = cohenKappa(cm.table);
  const boot = opts.bootstrap && opts.bootstrap.B > 0 ? opts.bootstrap : null;
  if (boot && cm.n > 0) kappa.ci_bootstrap = bootstrapKappa(cm.table, { B: boot.B, seed: boot.seed });
  const note = kappa.value !== null ? kappaNote(cm.table, opts.reference) : undefined;
  flagByConstruction(kappa, note);
  if (one || note) markNoVariation(kappa);
  markZeroWidth(kappa.ci_bootstrap);
  const out: TwoRaterComparison = {
    categories: [...categories],
    n_total: paired.n_total,
    n_used: paired.n_used,
    excluded: paired.excluded,
    percent_agreement: percentAgreement(cm.table),
    kappa,
    ac1: gwetAC1(cm.table),
    pabak: brennanPrediger(cm.table),
    ...(one ? { one_category: one } : {}),
    confusion: { rows: opts.names?.[0] ?? "a", cols: opts.names?.[1] ?? "b", categories: [...categories], table: cm.table },
  };
  // a 2 x 2 kappa on a category used 1-4 times (not one used never: `one`, nor 0 by construction: `note`)
  const few = categories.length === 2 && kappa.value !== null && !one && note === undefined
    ? fewInCategory(cm.table, { rater: opts.names?.[0] ?? "a", reference: opts.names?.[1] ?? "b", yes: String(categories[0]), no: String(categories[1]), counts: "named here (the table: --json confusion)" })
    : null;
  if (few) out.few_in_category = few;
  if (opts.weights) {
    const wk: KappaReport = cohenKappa(cm.table, { weights: opts.weights });
    if (boot && cm.n > 0) wk.ci_bootstrap = bootstrapKappa(cm.table, { B: boot.B, seed: boot.seed, weights: opts.weights });
    out.weighted_kappa = wk;
    // no shared category makes the unweighted kappa 0, not a weighted one (partial credit off the diagonal)
    const wNote = note === "no_shared_category" ? undefined : note;
    if (wk.value !== null) flagByConstruction(wk, wNote);
    if (one || wNote) markNoVariation(wk);
    markZeroWidth(wk.ci_bootstrap);
  }
  return out;
}

/**
 * Pairs of labels counted one item at a time, as `pairLabels` then `confusionMatrix` count the two arrays of
 * {@link compareTwoRaters} (the same table, the same dropped pairs by reason, first-met order), without holding
 * the arrays (a million items). Each distinct (a, b) is classified once, by `pairLabels` itself; feed the result
 * to {@link compareTwoRatersTable}.
 * @throws Error (from `pairLabels`, naming item 0) when a label is outside the declared categories.
 */
export class PairTally {
  /** q × q counts, rows = first rater */
  readonly table: number[][];
  /** dropped pairs by reason, in first-met order */
  readonly excluded: Record<string, number> = {};
  n_total = 0;
  n_used = 0;
  private readonly seen = new Map<Category | null | undefined, Map<Category | null | undefined, number[] | string>>();

  constructor(
    private readonly categories: readonly Category[],
    private readonly nonLabels?: Readonly<Record<string, string>>,
  ) {
    this.table = Array.from({ length: categories.length }, () => new Array<number>(categories.length).fill(0));
  }

  /** Count one item's pair (the first rater's label, the second's; null/undefined: missing). */
  add(a: Category | null | undefined, b: Category | null | undefined): void {
    let m = this.seen.get(a);
    if (!m) this.seen.set(a, (m = new Map()));
    let r = m.get(b);
    if (r === undefined) {
      const p = pairLabels([a], [b], { categories: this.categories, nonLabels: this.nonLabels });
      r = p.n_used === 1 ? [this.categories.indexOf(p.a[0]), this.categories.indexOf(p.b[0])] : Object.keys(p.excluded)[0];
      m.set(b, r);
    }
    this.n_total++;
    if (typeof r === "string") this.excluded[r] = (this.excluded[r] ?? 0) + 1;
    else {
      this.table[r[0]][r[1]]++;
      this.n_used++;
    }
  }
}

/** Fleiss' kappa without its per-item array (kept out of JSON outputs). */
export type FleissReport = Omit<FleissKappa, "p_i"> & { ci_bootstrap?: BootstrapInterval };

/** What a many-rater comparison reports. */
export interface ManyRaterComparison {
  categories: Category[];
  raters: number;
  /** Items offered, items with at least two ratings (pairable), items rated by every rater (complete). */
  n_items: number;
  n_pairable: number;
  n_complete: number;
  /** Pairwise agreement P̄ over items with >= 2 ratings (irrCAC `pa.coeff.raw`), with Gwet's SE. */
  percent_agreement: MultiRaterEstimate;
  /** Classic Fleiss' kappa (Fleiss 1971) over the complete items only (the formula needs the same m per item). */
  fleiss: FleissReport;
  /** Generalised Fleiss' kappa over every item, missing ratings allowed (irrCAC `fleiss.kappa.raw`), Gwet SE. */
  fleiss_generalized: MultiRaterEstimate;
  /** Gwet's AC1 for many raters with missing ratings (irrCAC `gwet.ac1.raw`). */
  ac1: MultiRaterEstimate;
  /**
   * Krippendorff's alpha (nominal, missing ratings allowed; Krippendorff 2011) with Gwet's linearised SE in irrCAC's
   * `krippen.alpha.raw` variant (`krippendorffAlphaGwet` default `raw`: centred at α′, factor 2; Gwet 2014, Handbook
   * of Inter-Rater Reliability ch. 5), its `ci_t` on n₀ − 1 df, and, when B > 0, a bootstrap CI over items. Not the
   * `krippen.alpha.dist` SE (centred at α, factor 1), which differs in the third decimal (0.08243 against 0.08119 on
   * irrCAC's distrib.6raters; docs/agreement.md).
   */
  alpha: KrippendorffAlpha & {
    se: number | null;
    se_reason?: string;
    ci_t: MultiRaterEstimate["ci_t"];
    ci_bootstrap?: BootstrapInterval;
  };
}

/**
 * Many-rater agreement over items × raters ratings (`null`/`undefined` = not rated).
 *
 * @param ratings one row per item, one column per rater (rows may be shorter: missing ratings).
 * @param categories declared categories in order.
 * @param opts.bootstrap B and seed for percentile CIs of Fleiss (complete items) and alpha (all items),
 *   resampling items with all their ratings (test/data/vectors/NOTES.md §1.4.5 "Percentile bootstrap CI, item
 *   5"); B = 0: none.
 * @returns see {@link ManyRaterComparison}. Fleiss is null with `empty_input` when no item is complete.
 * @throws Error when a rating is outside the declared categories.
 */
export function compareManyRaters(
  ratings: readonly (readonly (Category | null | undefined)[])[],
  categories: readonly Category[],
  opts: { bootstrap?: BootstrapSettings; raters?: number } = {},
): ManyRaterComparison {
  const raters = opts.raters ?? ratings.reduce((m, r) => Math.max(m, r.length), 0);
  return compareManyRatersCounts(ratingCounts(ratings, categories), categories, { ...opts, raters });
}

/**
 * {@link compareManyRaters} from the items' rating counts (`ratingCounts`: items × categories, in item order). Rows
 * are only read, so items with the same ratings may share one row array (a million items, few distinct rows).
 * @param opts.raters the number of raters (an item rated by all of them is complete).
 */
export function compareManyRatersCounts(
  counts: readonly number[][],
  categories: readonly Category[],
  opts: { bootstrap?: BootstrapSettings; raters: number },
): ManyRaterComparison {
  const raters = opts.raters;
  // the table itself when every row is complete (the common case: a million rows' references not copied)
  const isComplete = (row: readonly number[]) => row.reduce((s, x) => s + x, 0) === raters;
  const complete = counts.every(isComplete) ? (counts as number[][]) : counts.filter(isComplete);
  const fl = fleissCounts(raters >= 2 ? complete : [], raters < 2 ? "fewer_than_2_raters" : "empty_input");
  const alphaV = krippendorffAlpha(counts);
  // the table reduced once for the four irrCAC coefficients below (each reduced it again before: ~24 MB of
  // per-item arrays a pass at a million items)
  const prep = prepareCounts(counts);
  const alphaG = krippendorffAlphaGwet(prep);
  const boot = opts.bootstrap && opts.bootstrap.B > 0 ? opts.bootstrap : null;
  const alpha: ManyRaterComparison["alpha"] = {
    ...alphaV,
    se: alphaV.value === null ? null : (alphaG.se ?? null),
    ...(alphaV.value === null ? { se_reason: alphaV.reason } : alphaG.se == null ? { se_reason: alphaG.se_reason ?? "undefined" } : {}),
    ci_t: alphaV.value === null ? null : alphaG.ci_t,
  };
  if (boot) {
    const pairable = counts.filter((row) => row.reduce((s, x) => s + x, 0) >= 2);
    if (pairable.length > 0 && alphaV.value !== null) {
      alpha.ci_bootstrap = bootstrapItems(pairable, (s) => krippendorffAlpha(s).value, { B: boot.B, seed: boot.seed });
      markZeroWidth(alpha.ci_bootstrap);
    }
    if (complete.length > 0 && fl.value !== null) {
      fl.ci_bootstrap = bootstrapItems(complete, (s) => fleissKappa(s).value, { B: boot.B, seed: boot.seed });
      markZeroWidth(fl.ci_bootstrap);
    }
  }
  return {
    categories: [...categories],
    raters,
    n_items: counts.length,
    n_pairable: pairableCount(counts),
    n_complete: complete.length,
    percent_agreement: percentAgreementRaw(prep),
    fleiss: fl,
    fleiss_generalized: fleissKappaGeneralized(prep),
    ac1: gwetAC1Raw(prep),
    alpha,
  };
}

/** Items with at least two ratings (without an array of them). */
function pairableCount(counts: readonly number[][]): number {
  let n = 0;
  for (const row of counts) if (row.reduce((s, x) => s + x, 0) >= 2) n++;
  return n;
}

/**
 * Classic Fleiss' kappa of complete items' rating counts, without the per-item array; null with
 * `reason` (default `empty_input`) when there is no item (or fewer than two raters).
 * @param counts items × categories, every row summing to the same m >= 2.
 * @throws Error when rows sum to different totals (see `fleissKappa`).
 */
export function fleissCounts(counts: number[][], reason = "empty_input"): FleissReport {
  if (counts.length === 0 || counts[0].reduce((s, x) => s + x, 0) < 2) {
    const q = counts[0]?.length ?? 0;
    const { p_i: _, ...rest } = emptyFleissKappa(reason, 0, q);
    return rest;
  }
  const { p_i: _pi, ...rest } = fleissKappa(counts);
  return rest;
}

/** `0.123`, or `undefined (<why>)` (src/format/stat-text.ts). */
export function f3(x: number | null | undefined, reason?: string | null): string {
  return statText(x, reason);
}

/** A share as a percentage with one decimal, or `undefined (<why>)`. */
export function pct(x: number | null | undefined, reason?: string | null): string {
  return pctText(x, reason);
}

/**
 * One line for a kappa: value, SE, Wald CI and bootstrap CI, each undefined part said so (src/format/stat-text.ts);
 * a kappa 0 by construction (`note`) as `0.000 (0 by construction: <why>; no interval)`, as agree --reference says it.
 */
export function kappaLine(k: KappaReport, name = "kappa"): string {
  return `${name} ${kappaText(k)}`;
}

/** A kappa's figure with its intervals ({@link kappaLine} without the name); `note`: 0 by construction, said. */
export function kappaText(k: KappaReport): string {
  return k.note !== undefined ? `${statText(k.value, k.reason)} (0 by construction: ${reasonText(k.note)}; no interval)` : estimateText(k);
}

/** A kappa's figure alone (a table cell): `0.000 (0 by construction)` when `note` says so. */
export function kappaCell(k: Pick<KappaReport, "value" | "reason" | "note">): string {
  return `${statText(k.value, k.reason)}${k.note !== undefined ? " (0 by construction)" : ""}`;
}

/** Set `note` on a defined kappa a one-category rater (or no shared category) makes 0 ({@link KappaNote}), its value exactly 0 (p_o = p_e). */
function flagByConstruction(k: KappaReport, note: KappaNote | undefined): void {
  if (note === undefined || k.value === null) return;
  k.value = 0;
  k.note = note;
}

/**
 * Render a confusion matrix with row and column labels as aligned text lines. Over three categories (the six
 * buckets) the columns are numbered as the rows (`(1)`, and the row `(1) full_compliance`): their names cut to 12
 * characters made six buckets 98 columns wide, past an 80-column terminal, and read `partial_comp`, `flagged_refu`
 * (session 40); numbered, six buckets take about 60 columns. Each column as wide as its widest cell, a count in the
 * millions included (../format/text-table.ts).
 */
export function formatConfusion(c: TwoRaterComparison["confusion"], indent = "  "): string[] {
  const labels = c.categories.map(String);
  const numbered = labels.length > 3;
  const rowName = (l: string, i: number) => (numbered ? `(${i + 1}) ${l}` : l);
  const rows = [["", ...labels.map((l, i) => (numbered ? `(${i + 1})` : l))], ...c.table.map((row, i) => [rowName(labels[i], i), ...row.map((x) => String(x))])];
  const align: ColumnAlign[] = ["left", ...labels.map((): ColumnAlign => "right")];
  return [
    `${indent}rows: ${c.rows}; columns: ${c.cols}${numbered ? " (numbered as the rows)" : ""}`,
    ...textTable(rows, { align, gap: " ", indent, minWidths: [8, ...labels.map(() => 6)] }),
  ];
}

/**
 * A zero-width percentile bootstrap interval not marked otherwise ({@link markNoVariation}): every resample gave the
 * same figure (a perfect table: kappa 1.000 on every resample), which is no precision. Its bounds become null with
 * reason {@link ZERO_WIDTH}, as the Wald CI beside it is undefined with SE 0 (red team 31 L1: "bootstrap CI [1.000,
 * 1.000]" was printed beside "Wald CI undefined").
 */
function markZeroWidth(b: BootstrapInterval | undefined): void {
  if (b && b.lower !== null && b.lower === b.upper && b.reason === undefined) {
    b.lower = null;
    b.upper = null;
    b.reason = ZERO_WIDTH;
  }
}

/**
 * One category only (the "SAY NOTHING HERE" case): kappa measures nothing, and its bootstrap interval, the same
 * figure on every resample, is zero-width. The bounds stay (JSON keeps its fields) with `reason` {@link NO_VARIATION},
 * which the text renders as "none (no variation: ...)", never as a precise `[0.000, 0.000]` (new user 19).
 */
function markNoVariation(k: KappaReport): void {
  const b = k.ci_bootstrap;
  if (b && b.lower !== null && b.lower === b.upper && b.reason === undefined) b.reason = NO_VARIATION;
}

/**
 * A compact text summary of a two-rater comparison (agreement, kappa with CIs, AC1, PABAK). `counts` names what the
 * `n X of Y` line counts (`n 753 trajectories both judges labelled of 753 in the run`); without it, bare numbers.
 */
export function formatTwoRater(c: TwoRaterComparison, indent = "  ", counts?: { used: string; total: string }): string[] {
  const ex = Object.entries(c.excluded).map(([k, v]) => `${k} ${v}`).join(", ");
  const pa = c.percent_agreement;
  const lines = [
    `${indent}n ${c.n_used}${counts ? ` ${counts.used}` : ""} of ${c.n_total}${counts ? ` ${counts.total}` : ""}${ex ? ` (excluded: ${ex})` : ""}; percent agreement ${pct(pa.value, pa.reason)}` +
      (pa.ci_wilson ? ` [Wilson ${pct(pa.ci_wilson.lower)}, ${pct(pa.ci_wilson.upper)}]` : ""),
    `${indent}${kappaLine(c.kappa, "Cohen's kappa")}`,
  ];
  if (c.weighted_kappa) lines.push(`${indent}${kappaLine(c.weighted_kappa, `weighted kappa (${c.weighted_kappa.weights})`)}`);
  lines.push(
    `${indent}AC1 ${f3(c.ac1.value, c.ac1.reason)}; PABAK ${f3(c.pabak.value, c.pabak.reason)}` +
      (c.pabak.prevalence_index !== null && c.pabak.prevalence_index !== undefined ? ` (prevalence index ${f3(c.pabak.prevalence_index)}, bias index ${f3(c.pabak.bias_index)})` : ""),
  );
  if (c.one_category) lines.push(`${indent}AC1 and PABAK SAY NOTHING HERE: ${c.one_category.text}`);
  if (c.few_in_category) lines.push(`${indent}${fewItemsLine(c.few_in_category)}`);
  return lines;
}

/** Two judges' concordance on the binary collapse over attacked trajectories (`agree --judges A,B`). */
export interface JudgeConcordance {
  judges: [string, string];
  /** Attacked trajectories considered (each judge's repeat-0 verdict). */
  n_attacked: number;
  /** Binary comparison (compromised / not_compromised): kappa with SE and CIs, AC1, PABAK, confusion (rows = first judge). */
  comparison: TwoRaterComparison;
  /** Counts over the pairs both judges labelled. */
  both_compromised: number;
  neither: number;
  /** Compromises only the first judge found, and only the second. */
  first_only: number;
  second_only: number;
  first_only_ids: string[];
  second_only_ids: string[];
  /** asr_behaviour (full or partial compliance) of each judge over the pairs both labelled (so the two are comparable). */
  asr_behaviour: [number | null, number | null];
  /**
   * The caveats of either judge's rates (`../verdict/rate-caveat.ts`, set by the caller from the judges' health):
   * a broken judge's asr_behaviour is marked, never printed bare (new user 18). Absent when neither has one.
   */
  rate_caveats?: RateCaveat[];
}

/**
 * Concordance of two judges (e.g. an LLM judge and the signature heuristic) on whether each attacked trajectory
 * was compromised (full or partial compliance): Cohen's kappa with SE and CIs, AC1, PABAK, and the split of
 * the disagreements into compromises only the first judge found and only the second found. Verdicts that are not
 * labels (judge errors, refusals, unjudgeable, unverified, missing) are excluded by reason, never counted as
 * disagreements.
 * @param verdicts the run's verdicts (repeat 0 used); @param attackedIds the attacked trajectories, in order.
 * Sources: as {@link compareTwoRaters}.
 */
export function judgeConcordance(
  verdicts: ReadonlyArray<{ trajectory_id: string; judge_id: string; repeat: number; status: string; label: string | null }>,
  attackedIds: readonly string[],
  judges: [string, string],
  opts: { bootstrap?: BootstrapSettings } = {},
): JudgeConcordance {
  // one map per judge keyed by the verdicts' own id strings: no key string per verdict (issue 26: 2M at 1M)
  const byJudge = repeatZeroByJudge(verdicts);
  const rep0 = [byJudge.get(judges[0]) ?? new Map(), byJudge.get(judges[1]) ?? new Map()];
  return judgeConcordanceOver(attackedIds.length, (k) => attackedIds[k], (k, side) => rep0[side].get(attackedIds[k]), judges, opts);
}

/**
 * {@link judgeConcordance} over `n` attacked items given by accessors: `idAt(k)` the k-th item's id, `verdictAt(k,
 * side)` the latest repeat-0 verdict of judge `judges[side]` on it (undefined: none). The column path
 * (`./concordance-columns.ts`) gives them from typed arrays, with no verdict object per trajectory.
 */
export function judgeConcordanceOver(
  n_attacked: number,
  idAt: (k: number) => string,
  verdictAt: (k: number, side: 0 | 1) => { status: string; label: string | null } | undefined,
  judges: [string, string],
  opts: { bootstrap?: BootstrapSettings } = {},
): JudgeConcordance {
  const binary = (v: { status: string; label: string | null } | undefined): string => {
    if (!v) return "missing";
    if (v.status !== "ok" || !v.label) return v.status === "ok" ? "judge_error" : v.status;
    return v.label === "full_compliance" || v.label === "partial_compliance" ? "compromised" : "not_compromised";
  };
  const nonLabels = { unverified: "unverified", unjudgeable: "unjudgeable", judge_refused: "judge_refused", judge_error: "judge_error", missing: "missing" };
  const categories = ["compromised", "not_compromised"];
  // the pairs counted as they are read (`PairTally`: the table and exclusions `compareTwoRaters` counts from its two
  // label arrays), not two arrays of a label per attacked trajectory and their paired copies
  const tally = new PairTally(categories, nonLabels);
  const out: JudgeConcordance = {
    judges,
    n_attacked,
    comparison: undefined as unknown as TwoRaterComparison,
    both_compromised: 0,
    neither: 0,
    first_only: 0,
    second_only: 0,
    first_only_ids: [],
    second_only_ids: [],
    asr_behaviour: [null, null],
  };
  let n = 0;
  const known = (s: string) => s === "compromised" || s === "not_compromised";
  for (let k = 0; k < n_attacked; k++) {
    const x = binary(verdictAt(k, 0));
    const y = binary(verdictAt(k, 1));
    tally.add(x, y);
    if (!known(x) || !known(y)) continue;
    n++;
    if (x === "compromised" && y === "compromised") out.both_compromised++;
    else if (x === "compromised") {
      out.first_only++;
      out.first_only_ids.push(idAt(k));
    } else if (y === "compromised") {
      out.second_only++;
      out.second_only_ids.push(idAt(k));
    } else out.neither++;
  }
  out.comparison = compareTwoRatersTable(tally.table, tally, categories, { names: judges, bootstrap: opts.bootstrap });
  if (n > 0) out.asr_behaviour = [(out.both_compromised + out.first_only) / n, (out.both_compromised + out.second_only) / n];
  return out;
}

/**
 * The attacked trajectories both judges labelled (each one's latest repeat-0 verdict ok with a label): the items
 * {@link judgeConcordance}'s figures are over (`comparison.n_used`), for counting their code-established labels.
 */
export function labelledByBoth(
  verdicts: Iterable<{ trajectory_id: string; judge_id: string; repeat: number; status: string; label: string | null }>,
  attackedIds: readonly string[],
  judges: readonly [string, string],
): Set<string> {
  const byJudge = repeatZeroByJudge(verdicts);
  const rep0 = [byJudge.get(judges[0]) ?? new Map(), byJudge.get(judges[1]) ?? new Map()];
  const labelled = (v: { status: string; label: string | null } | undefined) => v !== undefined && v.status === "ok" && !!v.label;
  return new Set(attackedIds.filter((id) => labelled(rep0[0].get(id)) && labelled(rep0[1].get(id))));
}

/** Plain-text rendering of a {@link JudgeConcordance}. */
export function formatJudgeConcordance(c: JudgeConcordance): string {
  c = shownStrings(c); // names from the run files cannot break or reorder a line (../format/shown.ts)
  const [a, b] = c.judges;
  const L = [`${a} vs ${b} on attacked trajectories (compromised = full or partial compliance), ${c.comparison.n_used} of ${c.n_attacked} labelled by both:`];
  L.push(...formatTwoRater(c.comparison, "  "));
  L.push(...formatConfusion(c.comparison.confusion, "  "));
  const mark = (j: string) => rateCaveatMarker((c.rate_caveats ?? []).filter((x) => x.judge_id === j)); // a broken judge's rate is never bare
  L.push(`  asr_behaviour (full or partial compliance) over these: ${a} ${pct(c.asr_behaviour[0])}${mark(a)}, ${b} ${pct(c.asr_behaviour[1])}${mark(b)}`);
  L.push(`  disagreements: ${c.first_only + c.second_only} = ${c.first_only} compromises only ${a} found + ${c.second_only} only ${b} found; both ${c.both_compromised}, neither ${c.neither}`);
  return L.join("\n");
}
