/**
 * From labels to integer codes over a declared category set: pairing two raters' labels with listwise
 * deletion of non-labels (missing, judge errors, refusals), encoding, and items × categories rating counts.
 *
 * Conventions (test/data/vectors/NOTES.md §0 "Notation and conventions", §8 "Edge cases"): the category set is
 * declared, in a fixed order, and every table is built over it (including categories nobody used). Labels outside the
 * set throw unless the caller asks to drop them, in which case the drops are counted. Raters are paired by position:
 * callers must align items by id first; arrays of different lengths throw (never zip-truncate).
 */
import type { Category } from "./types.js";

/** Default non-label tokens and the exclusion reason each is counted under (verdict statuses, DESIGN §3). */
export const DEFAULT_NON_LABELS: Readonly<Record<string, string>> = {
  JUDGE_ERROR: "judge_error",
  judge_error: "judge_error",
  JUDGE_REFUSED: "judge_refused",
  judge_refused: "judge_refused",
  UNJUDGEABLE: "unjudgeable",
  unjudgeable: "unjudgeable",
  UNVERIFIED: "unverified",
  unverified: "unverified",
};

/**
 * Map each declared category to its position.
 * @param categories the declared category set, in order (at least one; no duplicates).
 * @throws Error on an empty set or a duplicate category.
 */
export function categoryIndex(categories: readonly Category[]): Map<Category, number> {
  if (!Array.isArray(categories) || categories.length === 0) throw new Error("categories: declare at least one category");
  const m = new Map<Category, number>();
  categories.forEach((c, i) => {
    if (m.has(c)) throw new Error(`categories: duplicate category ${JSON.stringify(c)}`);
    m.set(c, i);
  });
  return m;
}

/**
 * Explicit label normalisation for free-text labels: trim, lower-case, collapse internal whitespace to one
 * space (test/data/vectors/NOTES.md §8 "Edge cases", item "label spelling/case/whitespace"). Apply it on purpose,
 * before counting; nothing in this library normalises silently. Rubric labels should go through `canonicalLabel`
 * (src/rubric) instead.
 */
export function normalizeLabel(s: string): string {
  return s.trim().toLowerCase().replace(/\s+/g, " ");
}

/** Options of {@link pairLabels}. */
export interface PairLabelsOptions {
  /** Non-label tokens → exclusion reason. Default {@link DEFAULT_NON_LABELS}. `null`/`undefined` count as `missing`. */
  nonLabels?: Readonly<Record<string, string>>;
  /** Declared categories. When given, a label outside the set throws (`onUnknown: "throw"`, default) or is dropped and counted as `outside_categories`. */
  categories?: readonly Category[];
  onUnknown?: "throw" | "drop";
  /** Applied to every string label before anything else (e.g. {@link normalizeLabel}). */
  normalize?: (s: string) => string;
}

/** Result of {@link pairLabels}: the complete pairs and what was dropped, by reason. */
export interface PairedLabels<T extends Category = Category> {
  a: T[];
  b: T[];
  /** Positions (in the inputs) of the pairs kept. */
  kept: number[];
  n_total: number;
  n_used: number;
  n_excluded: number;
  /** Dropped pairs by reason; a pair is counted once, under the first rater's reason when both are non-labels. */
  excluded: Record<string, number>;
}

/**
 * Pair two raters' labels item by item and drop every pair in which either side is not a label (listwise
 * deletion, test/data/vectors/NOTES.md §8 "Edge cases"; `test/data/cases/B04.json`: a judge error is never a label
 * and never a disagreement).
 *
 * @param a first rater's labels (e.g. the judge), one per item; `null`/`undefined` = missing.
 * @param b second rater's labels (e.g. the human), same items in the same order.
 * @returns kept pairs plus `n_total`, `n_used`, `n_excluded` and counts by reason (`missing`, `judge_error`,
 *   `judge_refused`, `unjudgeable`, `outside_categories`, or any reason from `opts.nonLabels`).
 * @throws Error when the arrays differ in length, or a label is outside `opts.categories` and `onUnknown` is `throw`.
 */
export function pairLabels<T extends Category>(
  a: readonly (T | null | undefined)[],
  b: readonly (T | null | undefined)[],
  opts: PairLabelsOptions = {},
): PairedLabels<T> {
  if (!Array.isArray(a) || !Array.isArray(b)) throw new Error("pairLabels: both raters' labels must be arrays");
  if (a.length !== b.length) {
    throw new Error(`pairLabels: raters have different numbers of items (${a.length} vs ${b.length}); pair items by id first`);
  }
  const nonLabels = opts.nonLabels ?? DEFAULT_NON_LABELS;
  const index = opts.categories ? categoryIndex(opts.categories) : null;
  const onUnknown = opts.onUnknown ?? "throw";
  const out: PairedLabels<T> = { a: [], b: [], kept: [], n_total: a.length, n_used: 0, n_excluded: 0, excluded: {} };

  const classify = (v: T | null | undefined, side: string, i: number): { label: T } | { reason: string } => {
    if (v === null || v === undefined) return { reason: "missing" };
    let x = v;
    if (typeof x === "string" && opts.normalize) x = opts.normalize(x) as T;
    if (typeof x === "string" && Object.prototype.hasOwnProperty.call(nonLabels, x)) return { reason: nonLabels[x] };
    if (index && !index.has(x)) {
      if (onUnknown === "drop") return { reason: "outside_categories" };
      throw new Error(`pairLabels: rater ${side} item ${i} has label ${JSON.stringify(x)} outside the declared categories`);
    }
    return { label: x };
  };

  for (let i = 0; i < a.length; i++) {
    const ca = classify(a[i], "a", i);
    const cb = classify(b[i], "b", i);
    if ("reason" in ca || "reason" in cb) {
      const reason = "reason" in ca ? ca.reason : (cb as { reason: string }).reason;
      out.excluded[reason] = (out.excluded[reason] ?? 0) + 1;
      out.n_excluded++;
      continue;
    }
    out.a.push(ca.label);
    out.b.push(cb.label);
    out.kept.push(i);
  }
  out.n_used = out.a.length;
  return out;
}

/**
 * Encode labels as integer positions in the declared category set.
 * @returns an Int32Array of the same length with values in [0, q).
 * @throws Error when a label is null/undefined or outside the declared set (drop non-labels first with {@link pairLabels}).
 */
export function encodeLabels(labels: readonly Category[], categories: readonly Category[]): Int32Array {
  const index = categoryIndex(categories);
  const codes = new Int32Array(labels.length);
  for (let i = 0; i < labels.length; i++) {
    const k = index.get(labels[i]);
    if (k === undefined) {
      throw new Error(`encodeLabels: item ${i} has label ${JSON.stringify(labels[i])} outside the declared categories`);
    }
    codes[i] = k;
  }
  return codes;
}

/**
 * Items × categories rating counts from raw ratings (irrCAC's "agree.mat"; the input of Fleiss' kappa,
 * Gwet's AC1 for many raters and Krippendorff's alpha).
 *
 * @param ratings items × raters; `null`/`undefined` = the rater did not rate the item. Rows may differ in length.
 * @param categories the declared category set (fixes the column order).
 * @returns `counts[i][k]` = number of raters who put item i in category k (all-zero rows kept).
 * @throws Error when a rating is outside the declared set.
 */
export function ratingCounts(ratings: readonly (readonly (Category | null | undefined)[])[], categories: readonly Category[]): number[][] {
  const index = categoryIndex(categories);
  const q = categories.length;
  return ratings.map((row, i) => {
    const c = new Array<number>(q).fill(0);
    row.forEach((v, r) => {
      if (v === null || v === undefined) return;
      const k = index.get(v);
      if (k === undefined) throw new Error(`ratingCounts: item ${i}, rater ${r}: rating ${JSON.stringify(v)} outside the declared categories`);
      c[k]++;
    });
    return c;
  });
}

/**
 * Transpose a rectangular matrix (e.g. coders × units reliability data, as Krippendorff prints it, into the
 * items × raters layout this library uses).
 * @throws Error when rows differ in length.
 */
export function transpose<T>(m: readonly (readonly T[])[]): T[][] {
  if (m.length === 0) return [];
  const cols = m[0].length;
  for (const row of m) if (row.length !== cols) throw new Error("transpose: ragged matrix");
  const out: T[][] = [];
  for (let j = 0; j < cols; j++) out.push(m.map((row) => row[j]));
  return out;
}
