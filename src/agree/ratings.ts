/**
 * Agreement of any ratings table (`ipi-judge agreement FILE`): items × raters, categories declared or found,
 * every coefficient that applies to the number of raters.
 */
import fs from "node:fs";
import type { WeightSpec } from "../stats/index.js";
import { CsvError, parseCsv } from "./csv.js";
import { compareManyRaters, compareTwoRaters, f3, formatTwoRater, pct, type BootstrapSettings, type ManyRaterComparison, type TwoRaterComparison } from "./pairwise.js";

/** A ratings table: items × raters, `null` = missing. Values are strings (numbers in JSON are written as strings). */
export interface RatingsTable {
  raters: string[];
  /** One row per item, one entry per rater. */
  ratings: (string | null)[][];
  /** Declared categories from the file (JSON `categories`), when any. */
  categories?: string[];
  /** Item ids when an id column was named. */
  items?: string[];
}

/** A ratings file that cannot be used. */
export class RatingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RatingsError";
  }
}

const cell = (v: unknown): string | null => {
  if (v === null || v === undefined) return null;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v !== "string") throw new RatingsError(`rating ${JSON.stringify(v)} is not a string or number`);
  const t = v.trim();
  return t === "" ? null : t;
};

/**
 * Read a ratings table.
 * - CSV: header row = rater names; one row per item; an empty cell = missing. With `idColumn`, that column
 *   holds item ids and is not a rater.
 * - JSON (`.json`, or text starting with `{`): `{"categories"?: [...], "raters"?: [...], "ratings": [[...], ...]}`,
 *   `null` = missing.
 * @throws RatingsError for an unreadable file, bad JSON/CSV, rows longer than the header, no rater, a
 *   missing `idColumn`.
 */
export function readRatings(file: string, opts: { idColumn?: string } = {}): RatingsTable {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new RatingsError(`${file}: cannot read: ${(e as Error).message}`);
  }
  const isJson = file.toLowerCase().endsWith(".json") || text.trimStart().startsWith("{");
  if (isJson) {
    let o: { categories?: unknown; raters?: unknown; ratings?: unknown };
    try {
      o = JSON.parse(text);
    } catch (e) {
      throw new RatingsError(`${file}: not valid JSON: ${(e as Error).message}`);
    }
    if (!o || typeof o !== "object" || !Array.isArray(o.ratings)) throw new RatingsError(`${file}: expected {"ratings": [[...], ...]}`);
    const rows = o.ratings as unknown[];
    const ratings = rows.map((r, i) => {
      if (!Array.isArray(r)) throw new RatingsError(`${file}: ratings[${i}] is not an array`);
      try {
        return r.map(cell);
      } catch (e) {
        throw new RatingsError(`${file}: ratings[${i}]: ${(e as Error).message}`);
      }
    });
    const width = ratings.reduce((m, r) => Math.max(m, r.length), 0);
    const raters = Array.isArray(o.raters) ? (o.raters as unknown[]).map(String) : Array.from({ length: width }, (_, k) => `rater${k + 1}`);
    if (raters.length < width) throw new RatingsError(`${file}: ${width} ratings per item but ${raters.length} rater names`);
    const categories = Array.isArray(o.categories) ? (o.categories as unknown[]).map((c) => cell(c) as string) : undefined;
    return { raters, ratings: ratings.map((r) => Array.from({ length: raters.length }, (_, k) => r[k] ?? null)), ...(categories ? { categories } : {}) };
  }
  let parsed;
  try {
    parsed = parseCsv(text);
  } catch (e) {
    if (e instanceof CsvError) throw new RatingsError(`${file}: ${e.message}`);
    throw e;
  }
  const [header, ...rows] = parsed.rows;
  if (!header) throw new RatingsError(`${file}: empty file (expected a header row of rater names)`);
  const names = header.map((h) => h.trim());
  const idCol = opts.idColumn === undefined ? -1 : names.indexOf(opts.idColumn);
  if (opts.idColumn !== undefined && idCol < 0) throw new RatingsError(`${file}: no column "${opts.idColumn}" (found: ${names.join(", ")})`);
  const raterCols = names.map((_, k) => k).filter((k) => k !== idCol);
  if (raterCols.length === 0) throw new RatingsError(`${file}: no rater column`);
  const ratings = rows.map((r, i) => {
    if (r.length > names.length) throw new RatingsError(`${file}: line ${parsed.lines[i + 1]} has ${r.length} cells but the header has ${names.length}`);
    return raterCols.map((k) => cell(r[k]));
  });
  return { raters: raterCols.map((k) => names[k]), ratings, ...(idCol >= 0 ? { items: rows.map((r) => r[idCol] ?? "") } : {}) };
}

/**
 * The categories to use: the declared ones (option or file), else the values found, in numeric order when
 * every value is a number, else in order of first appearance.
 */
export function categoriesOf(t: RatingsTable, declared?: string[]): string[] {
  if (declared && declared.length) return declared;
  if (t.categories && t.categories.length) return t.categories;
  const seen: string[] = [];
  for (const r of t.ratings) for (const v of r) if (v !== null && !seen.includes(v)) seen.push(v);
  if (seen.length && seen.every((v) => v.trim() !== "" && Number.isFinite(Number(v)))) seen.sort((a, b) => Number(a) - Number(b));
  return seen;
}

/** The report of `ipi-judge agreement`. */
export interface RatingsAgreement {
  file: string;
  raters: string[];
  items: number;
  categories: string[];
  /** Whether the categories were declared (option or file) or found in the data. */
  categories_source: "declared" | "found";
  /** Two raters: Cohen's kappa (SE, Wald and bootstrap CIs), weighted kappa if asked, AC1, PABAK, agreement. */
  two_raters?: TwoRaterComparison;
  /** Every rater count: Krippendorff's alpha; three or more: Fleiss, AC1, agreement. */
  many_raters: ManyRaterComparison;
  notes: string[];
  bootstrap: BootstrapSettings;
}

/**
 * Every coefficient that applies to a ratings table.
 * @param t the table; @param opts categories (declared), weights (`linear`/`quadratic`, two raters), bootstrap.
 * @returns with two raters `two_raters` (Cohen with SE and CIs, weighted kappa when asked, AC1, PABAK,
 *   agreement) and `many_raters` (alpha; for two raters Fleiss is Scott's pi); with three or more raters
 *   `many_raters` only (Fleiss, AC1, alpha, pairwise agreement).
 * @throws RatingsError when a rating is outside the declared categories, there are fewer than two raters,
 *   or fewer than two categories are declared with weights.
 */
export function ratingsAgreement(
  t: RatingsTable,
  opts: { file?: string; categories?: string[]; weights?: "linear" | "quadratic"; bootstrap: BootstrapSettings },
): RatingsAgreement {
  if (t.raters.length < 2) throw new RatingsError(`agreement needs at least two raters, found ${t.raters.length}`);
  const categories = categoriesOf(t, opts.categories);
  if (categories.length === 0) throw new RatingsError("no rating at all (every cell is empty)");
  const known = new Set(categories);
  t.ratings.forEach((r, i) =>
    r.forEach((v, k) => {
      if (v !== null && !known.has(v)) throw new RatingsError(`item ${i + 1}, rater ${t.raters[k]}: rating "${v}" is not one of the categories (${categories.join(", ")})`);
    }),
  );
  const notes: string[] = [];
  const out: RatingsAgreement = {
    file: opts.file ?? "",
    raters: t.raters,
    items: t.ratings.length,
    categories,
    categories_source: opts.categories?.length || t.categories?.length ? "declared" : "found",
    many_raters: compareManyRaters(t.ratings, categories, { bootstrap: opts.bootstrap, raters: t.raters.length }),
    notes,
    bootstrap: opts.bootstrap,
  };
  if (t.raters.length === 2) {
    let weights: WeightSpec | undefined = opts.weights;
    if (weights && categories.length < 2) {
      notes.push(`weighted kappa needs at least two categories; not computed`);
      weights = undefined;
    }
    out.two_raters = compareTwoRaters(
      t.ratings.map((r) => r[0]),
      t.ratings.map((r) => r[1]),
      categories,
      { names: [t.raters[0], t.raters[1]], bootstrap: opts.bootstrap, weights: weights as "linear" | "quadratic" | undefined, nonLabels: {} },
    );
    notes.push("with two raters Fleiss' kappa is Scott's pi");
  } else if (opts.weights) {
    notes.push("weighted kappa is a two-rater coefficient: --weights is ignored with three or more raters");
  }
  if (out.categories_source === "found") notes.push("categories were found in the data: declare them (--categories) so unused ones count in AC1 and PABAK");
  return out;
}

/** Plain-text rendering of {@link ratingsAgreement}'s report. */
export function formatRatingsAgreement(r: RatingsAgreement): string {
  const L: string[] = [];
  L.push(`${r.file}: ${r.items} items, ${r.raters.length} raters (${r.raters.join(", ")}), categories (${r.categories_source}): ${r.categories.join(", ")}`);
  if (r.two_raters) {
    L.push("two raters:");
    L.push(...formatTwoRater(r.two_raters, "  "));
  }
  const m = r.many_raters;
  const v = (x: { value: number | null; reason?: string; se?: number | null }) =>
    x.value === null ? `n/a (${x.reason})` : `${f3(x.value)}${x.se !== undefined && x.se !== null ? ` (SE ${f3(x.se)})` : ""}`;
  const b = (ci?: { lower: number | null; upper: number | null; reason?: string }) =>
    ci ? (ci.lower === null ? `, bootstrap CI n/a (${ci.reason})` : `, bootstrap CI [${f3(ci.lower)}, ${f3(ci.upper)}]`) : "";
  L.push(`${r.raters.length === 2 ? "as many raters" : "many raters"}: ${m.n_items} items, ${m.n_complete} rated by all, ${m.n_pairable} by at least two`);
  L.push(`  Krippendorff's alpha (nominal) ${v(m.alpha)}${b(m.alpha.ci_bootstrap)}`);
  if (r.raters.length > 2) {
    L.push(`  Fleiss' kappa (items rated by all) ${v(m.fleiss)}${b(m.fleiss.ci_bootstrap)}; generalised Fleiss (missing allowed) ${v(m.fleiss_generalized)}`);
    L.push(`  Gwet's AC1 ${v(m.ac1)}; pairwise percent agreement ${pct(m.percent_agreement.value)}`);
  }
  for (const n of r.notes) L.push(`note: ${n}`);
  if (r.bootstrap.B > 0) L.push(`bootstrap: B ${r.bootstrap.B}, seed ${r.bootstrap.seed}`);
  return L.join("\n");
}
