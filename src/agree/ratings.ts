/**
 * Agreement of any ratings table (`ipi-judge agreement FILE`): items × raters, categories declared or found,
 * every coefficient that applies to the number of raters.
 */
import { mayRepeatKey, repeatedKey } from "../io/repeated-keys.js";
import { howTheyDiffer, nameKey } from "./annotator-names.js";
import { showInvisibleExactly } from "../format/invisible.js";
import fs from "node:fs";
import type { WeightSpec } from "../stats/index.js";
import { CsvError, parseCsvTable } from "../io/csv.js";
import { describeLabelStudioJsonMin } from "../io/label-studio.js";
import { ciText, droppedResamplesText, estimateText } from "../format/stat-text.js";
import { compareManyRaters, compareTwoRaters, f3, formatTwoRater, pct, type BootstrapSettings, type ManyRaterComparison, type TwoRaterComparison } from "./pairwise.js";
import { shownStrings } from "../format/shown.js";

/** A ratings table: items × raters, `null` = missing. Values are strings (numbers in JSON are written as strings). */
export interface RatingsTable {
  raters: string[];
  /** One row per item, one entry per rater. */
  ratings: (string | null)[][];
  /** Declared categories from the file (JSON `categories`), when any. */
  categories?: string[];
  /** Item ids when the file has an id column (named with `idColumn`, or found by its name). */
  items?: string[];
  /** The id column used, and how it was chosen. */
  id_column?: { name: string; how: "named" | "detected" };
  /**
   * Items whose id appears on more than one row, each counted once: identical rows are kept once, rows that
   * complete each other (each rater rates on one row only) are merged, and rows that contradict each other (a
   * rater with two different ratings) leave the item out.
   */
  duplicates?: Array<{ item: string; lines: number[]; resolution: "identical" | "merged" | "conflict_excluded"; conflicts?: string[] }>;
  /** Item ids that are equal once white space at their ends is removed (`"t1"`, `"t1 "`): kept apart, named in a note. */
  end_space_ids?: string[][];
}

/** Header names read as item ids, not raters: `id`, `item`, `item_id`, `trajectory_id`, `task-id`, `itemId`, ... */
const ID_NAMES = new Set(["id", "ids", "#", "item", "items", "key", "uid", "uuid", "guid", "index", "idx", "row", "trajectory", "subject", "unit", "case", "task"]);
function isIdName(name: string): boolean {
  const n = name.trim();
  return ID_NAMES.has(n.toLowerCase()) || /[_ .-]id$/i.test(n) || /^[a-z][A-Za-z0-9]*Id$/.test(n);
}

/**
 * A rater column that holds item ids: the name of the column, or null. Either any column whose values are all
 * distinct (at least three) with at most a quarter of them used anywhere else in the table; or the FIRST column
 * when it has a value on every row, all distinct, and more rows than the other columns have distinct values
 * (categories): a numeric id column 1..n overlaps ratings 1..k, but no rater gives every item its own rating
 * when there are fewer categories than items.
 */
function idLikeColumn(names: string[], rows: (string | null)[][]): string | null {
  for (let k = 0; k < names.length; k++) {
    const vals = rows.map((r) => r[k]).filter((v): v is string => v !== null);
    if (vals.length < 3 || new Set(vals).size !== vals.length) continue;
    const elsewhere = new Set<string>();
    rows.forEach((r) => r.forEach((v, j) => j !== k && v !== null && elsewhere.add(v)));
    const shared = vals.filter((v) => elsewhere.has(v)).length;
    if (shared * 4 <= vals.length) return names[k];
    if (k === 0 && names.length > 1 && vals.length === rows.length && rows.length > elsewhere.size) return names[k];
  }
  return null;
}

/** Cell texts read as missing, not as a category (case-insensitive): `NA`, `N/A`, `n.a.`, ... */
const MISSING_TEXTS = new Set(["na", "n/a", "n.a.", "n.a"]);

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
  return t === "" || MISSING_TEXTS.has(t.toLowerCase()) ? null : t;
};

/**
 * Read a ratings table.
 * - CSV (src/io/csv.ts): header row = rater names; one row per item; an empty cell = missing; a cell's surrounding
 *   spaces are dropped (`"sabotage "` is `"sabotage"`). An id column is
 *   not a rater: the one named by `idColumn`, else a column whose name reads as an id (`id`, `item_id`,
 *   `trajectory_id`, ...; `idColumn: false` turns this off). A rater column whose values look like item ids
 *   (every value distinct and not a rating anywhere else; or the first column, distinct on every row, with more
 *   rows than the other columns have categories, e.g. ids 1..6 beside ratings 1..3) is refused, naming it. With
 *   an id column, an item on several rows is counted once and reported in `duplicates`. A cell `NA`, `N/A`,
 *   `n.a.` (any case) is missing, like an empty cell, in CSV and JSON.
 * - JSON (`.json`, or text starting with `{` or `[`): `{"categories"?: [...], "raters"?: [...], "ratings": [[...], ...]}`,
 *   `null` = missing. A Label Studio JSON-MIN export (one annotation per task) is refused with the reason.
 * @throws RatingsError for an unreadable file, bad JSON/CSV (naming the line), rows longer than the header, no
 *   rater, a missing `idColumn`, an id-like rater column, a Label Studio JSON-MIN export.
 */
export function readRatings(file: string, opts: { idColumn?: string | false } = {}): RatingsTable {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new RatingsError(`${file}: cannot read: ${(e as Error).message}`);
  }
  const head = text.replace(/^\ufeff/, "").trimStart()[0];
  const isJson = file.toLowerCase().endsWith(".json") || head === "{" || head === "[";
  if (isJson) {
    let o: { categories?: unknown; raters?: unknown; ratings?: unknown };
    try {
      o = JSON.parse(text.replace(/^\ufeff/, ""));
    } catch (e) {
      throw new RatingsError(`${file}: not valid JSON: ${(e as Error).message}`);
    }
    const twice = mayRepeatKey(text, o) ? repeatedKey(text.replace(/^\ufeff/, "")) : null; // JSON.parse keeps the last in silence (break44)
    if (twice) {
      throw new RatingsError(`${file}: key "${twice.key}"${twice.path ? ` of ${twice.path}` : ""} given twice with different values (${twice.first}, then ${twice.second}): the file says two things; give each key once`);
    }
    if (Array.isArray(o)) {
      const ls = describeLabelStudioJsonMin(o);
      if (ls) {
        throw new RatingsError(
          `${file} is a Label Studio JSON-MIN export (${ls}): it holds one annotation per task, so it has one annotator per item and agreement between annotators cannot be computed from it. ` +
            `Export "JSON" (every annotation) and run ipi-judge import-annotations, or write a table with one column per annotator.`,
        );
      }
      throw new RatingsError(`${file}: expected {"ratings": [[...], ...]}, found a JSON array`);
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
  let table;
  try {
    table = parseCsvTable(text, file);
  } catch (e) {
    if (e instanceof CsvError) throw new RatingsError(e.message);
    throw e;
  }
  const names = table.header;
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) throw new RatingsError(`${file} line ${table.headerLine}: the column "${dup}" appears twice in the header`);
  let idCol = -1;
  let how: "named" | "detected" = "named";
  if (typeof opts.idColumn === "string") {
    idCol = names.indexOf(opts.idColumn);
    if (idCol < 0) throw new RatingsError(`${file}: no column "${opts.idColumn}" (found: ${names.join(", ")})`);
  } else if (opts.idColumn !== false) {
    const found = names.map((n, k) => (isIdName(n) ? k : -1)).filter((k) => k >= 0);
    if (found.length > 1) throw new RatingsError(`${file}: several columns read as item ids (${found.map((k) => names[k]).join(", ")}): name the one with --id-column`);
    if (found.length === 1) {
      idCol = found[0];
      how = "detected";
    }
  }
  const raterCols = names.map((_, k) => k).filter((k) => k !== idCol);
  if (raterCols.length === 0) throw new RatingsError(`${file}: no rater column`);
  const cellsOf = (r: { fields: string[]; line: number }) => {
    try {
      return raterCols.map((k) => cell(r.fields[k]));
    } catch (e) {
      throw new RatingsError(`${file} line ${r.line}: ${(e as Error).message}`);
    }
  };
  let ratings = table.rows.map(cellsOf);
  const raters = raterCols.map((k) => names[k]);
  if (opts.idColumn === undefined && idCol < 0) {
    const idLike = idLikeColumn(raters, ratings);
    if (idLike !== null) {
      throw new RatingsError(
        `${file}: column "${idLike}" looks like item ids, not a rater (every value is distinct: ${idLike === raters[0] ? "one per row, more than the categories the other columns use" : "and is no other rater's rating"}): ` +
          `pass --id-column "${idLike}" to use it as the item id, or --no-id-column to count it as a rater`,
      );
    }
  }
  if (idCol < 0) return { raters, ratings };
  const out: RatingsTable = { raters, ratings: [], items: [], id_column: { name: names[idCol], how }, duplicates: [] };
  const groups = new Map<string, number[]>();
  table.rows.forEach((r, i) => {
    // compared exactly as stored, as label files' ids are (fix50a): "t1" and "t1 " were one item, their rows merged
    const id = r.fields[idCol] ?? "";
    if (id.trim() === "") throw new RatingsError(`${file} line ${r.line}: no item id in column "${names[idCol]}"`);
    const g = groups.get(id);
    if (g) g.push(i);
    else groups.set(id, [i]);
  });
  const byTrimmed = new Map<string, string[]>();
  for (const id of groups.keys()) byTrimmed.set(id.trim(), [...(byTrimmed.get(id.trim()) ?? []), id]);
  const twins = [...byTrimmed.values()].filter((ids) => ids.length > 1);
  if (twins.length) out.end_space_ids = twins;
  for (const [id, idx] of groups) {
    if (idx.length === 1) {
      out.items!.push(id);
      out.ratings.push(ratings[idx[0]]);
      continue;
    }
    const lines = idx.map((i) => table.rows[i].line);
    const rows = idx.map((i) => ratings[i]);
    const identical = rows.every((r) => r.every((v, k) => v === rows[0][k]));
    const merged: (string | null)[] = raters.map(() => null);
    const conflicts: string[] = [];
    raters.forEach((name, k) => {
      const vals = [...new Set(rows.map((r) => r[k]).filter((v): v is string => v !== null))];
      if (vals.length > 1) conflicts.push(`${name}: ${vals.map((v) => JSON.stringify(v)).join(" vs ")}`);
      merged[k] = vals[0] ?? null;
    });
    if (conflicts.length) {
      out.duplicates!.push({ item: id, lines, resolution: "conflict_excluded", conflicts });
      continue;
    }
    out.duplicates!.push({ item: id, lines, resolution: identical ? "identical" : "merged" });
    out.items!.push(id);
    out.ratings.push(merged);
  }
  ratings = out.ratings;
  return out;
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

/**
 * Refuses found categories that differ only in letter case (audit 35 M2: "Benign" and "benign" counted as two
 * categories gave a kappa of neither policy the published vector names, 1.0 normalised or 0.0 raw). Whether they
 * are one category or two is the user's to say: the message names them with their counts; declaring the categories
 * (`--categories`, or `categories` in a JSON file) counts them as declared. Surrounding spaces of a cell are already
 * dropped when it is read ({@link readRatings}).
 * @throws RatingsError naming each group of case variants.
 */
function refuseCaseVariants(t: RatingsTable, categories: string[]): void {
  const groups = new Map<string, string[]>();
  for (const c of categories) {
    const k = nameKey(c); // NFKC, case-folded, without invisible characters or spaces (verifier 35 L3: a zero-width space)
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const clashes = [...groups.values()].filter((g) => g.length > 1);
  if (!clashes.length) return;
  const count = (c: string) => t.ratings.reduce((n, r) => n + r.filter((v) => v === c).length, 0);
  // what differs, said as it is (verifier 37 V2.5: NFC and NFD spellings are not "letter case"); names that print
  // alike are shown with their code points too
  const what = [...new Set(clashes.flatMap((g) => g.slice(1).flatMap((c) => howTheyDiffer(g[0], c).split(" and "))))];
  const shown = (c: string) => {
    const s = `"${showInvisibleExactly(c)}"`;
    const esc = [...c].map((x) => (/[\x20-\x7e]/.test(x) ? x : `\\u${x.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`)).join("");
    // invisible characters already show as markers: escapes only for visible characters beyond ASCII
    return /[^\x20-\x7e\s\p{Cf}\p{Default_Ignorable_Code_Point}]/u.test(c) ? `${s} (written "${esc}")` : s;
  };
  const named = clashes.map((g) => g.map((c) => `${shown(c)} (${count(c)})`).join(" and ")).join("; ");
  throw new RatingsError(
    `ratings differ only in ${what.join(", ")}: ${named}; one category or two? Write them the same in the file, or declare the categories (--categories) to count them apart`,
  );
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
  /** The column read as item ids (not a rater), when any. */
  id_column: RatingsTable["id_column"] | null;
  /** Items found on several rows (each counted once, or left out when the rows contradict each other). */
  duplicates: NonNullable<RatingsTable["duplicates"]>;
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
  if (!opts.categories?.length && !t.categories?.length) refuseCaseVariants(t, categories);
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
    id_column: t.id_column ?? null,
    duplicates: t.duplicates ?? [],
    bootstrap: opts.bootstrap,
  };
  if (t.id_column?.how === "detected") notes.push(`column "${t.id_column.name}" holds item ids and is not a rater (its name reads as an id; --id-column names another, --no-id-column counts it as a rater)`);
  const dups = t.duplicates ?? [];
  if (dups.length) {
    const by = (r: string) => dups.filter((d) => d.resolution === r);
    const show = (ds: typeof dups) => ds.slice(0, 5).map((d) => `${d.item} (lines ${d.lines.join(", ")})`).join(", ") + (ds.length > 5 ? `, ... (${ds.length})` : "");
    if (by("identical").length) notes.push(`${by("identical").length} item(s) appear on several identical rows, each counted once: ${show(by("identical"))}`);
    if (by("merged").length) notes.push(`${by("merged").length} item(s) are split over several rows that complete each other, merged: ${show(by("merged"))}`);
    if (by("conflict_excluded").length)
      notes.push(
        `${by("conflict_excluded").length} item(s) appear on several rows that contradict each other and are left out: ${by("conflict_excluded")
          .slice(0, 5)
          .map((d) => `${d.item} (lines ${d.lines.join(", ")}; ${d.conflicts!.join("; ")})`)
          .join(", ")}`,
      );
  }
  const twins = t.end_space_ids ?? [];
  if (twins.length)
    notes.push(
      `${twins.length} item id(s) differ from another only by white space at the ends, kept apart (ids are compared exactly as stored): ` +
        `${twins.slice(0, 5).map((ids) => ids.map((id) => JSON.stringify(id)).join(" / ")).join(", ")}${twins.length > 5 ? `, ... (${twins.length})` : ""}; if they are one item, correct the ids in the file`,
    );
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
  r = shownStrings(r); // names from the run files cannot break or reorder a line (../format/shown.ts)
  const L: string[] = [];
  L.push(`${r.file}: ${r.items} items, ${r.raters.length} raters (${r.raters.join(", ")}), categories (${r.categories_source}): ${r.categories.join(", ")}`);
  if (r.two_raters) {
    L.push("two raters:");
    L.push(...formatTwoRater(r.two_raters, "  "));
  }
  const m = r.many_raters;
  const v = (x: { value: number | null; reason?: string; se?: number | null; se_reason?: string }) => estimateText({ value: x.value, reason: x.reason, se: x.se, se_reason: x.se_reason });
  const b = (ci?: { lower: number | null; upper: number | null; reason?: string; B?: number; undefined_resamples?: number }) => {
    const dropped = ci ? droppedResamplesText(ci) : "";
    return ci ? `, bootstrap CI ${ciText(ci, ci.reason)}${dropped ? ` (${dropped})` : ""}` : "";
  };
  L.push(`${r.raters.length === 2 ? "as many raters" : "many raters"}: ${m.n_items} items, ${m.n_complete} rated by all, ${m.n_pairable} by at least two`);
  L.push(`  Krippendorff's alpha (nominal) ${v(m.alpha)}${b(m.alpha.ci_bootstrap)}`);
  // with two, Fleiss' kappa is Scott's pi: printed, as the note below names it (new user 43: named, not shown)
  if (r.raters.length === 2) L.push(`  Fleiss' kappa = Scott's pi (items rated by both) ${estimateText({ value: m.fleiss.value, reason: m.fleiss.reason })}${b(m.fleiss.ci_bootstrap)}`);
  if (r.raters.length > 2) {
    L.push(`  Fleiss' kappa (items rated by all) ${v(m.fleiss)}${b(m.fleiss.ci_bootstrap)}; generalised Fleiss (missing allowed) ${v(m.fleiss_generalized)}`);
    L.push(`  Gwet's AC1 ${v(m.ac1)}; pairwise percent agreement ${pct(m.percent_agreement.value, m.percent_agreement.reason)}`);
  }
  for (const n of r.notes) L.push(`note: ${n}`);
  if (r.bootstrap.B > 0) L.push(`bootstrap: B ${r.bootstrap.B}, seed ${r.bootstrap.seed}`);
  return L.join("\n");
}
