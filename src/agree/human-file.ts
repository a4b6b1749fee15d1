/**
 * Reading a human-label file (`agree --human FILE`, `estimate --human FILE`, `report`/`view --human FILE`): CSV or
 * JSONL rows `trajectory_id, annotator, label` (DESIGN section 3), with the design fields `import-annotations`
 * writes (weight, inclusion_probability, stratum, stratum_size, sample_where, sample_frame) and the content hash of
 * the trajectory the label was given for (`content_sha256`, from the sample's manifest: ./label-pairing.ts checks it
 * against the run). Rows that cannot be read are kept by line, never dropped silently.
 */
import fs from "node:fs";
import type { HumanLabel } from "../types.js";
import { readFrameFields, type FrameFields } from "../store/sample-frame.js";
import { CsvError, parseCsv } from "../io/csv.js";
import { jsonLines } from "../io/jsonl.js";
import { describeLabelStudioJsonMin, jsonMinWarning } from "../io/label-studio.js";
import { labelOnScale, type HumanScale } from "../rubric/scale.js";
import { canonicalSpelling } from "../rubric/buckets.js";
import { isReservedAnnotator, RESERVED_ANNOTATOR } from "./adjudicated.js";
import { nfcName, shownName } from "./annotator-names.js";

/** A label file that cannot be used at all (unreadable, no header, wrong columns). */
export class HumanLabelsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HumanLabelsError";
  }
}

/**
 * A row of the human-label file (src/sample/import.ts `HumanLabelRow`, DESIGN "Human label") as read, with its
 * line. Only the DESIGN fields are required: `weight`, `inclusion_probability`, `stratum` and `stratum_size` (N_h
 * of the stratum in the population) are set when the file has them (`ipi-judge import-annotations` writes them for
 * two-phase samples), `sample_where` (the `sample --where` population, ../store/sample-where.ts), `sample_frame`
 * (its exact frame, ../store/sample-frame.ts) and `content_sha256` (the content hash of the trajectory as it was
 * sampled, the text the label was given for); other columns are not read.
 */
export type HumanLabelRead = HumanLabel & { stratum?: string; stratum_size?: number; content_sha256?: string } & FrameFields & {
  line: number;
  /** An adjudicated row's adjudicator and the annotators' labels it settled (`import-annotations` writes both; ./adjudication-facts.ts). */
  adjudicator?: string;
  settled_labels?: Record<string, string>;
};

/**
 * The warning naming a label file's rows that could not be read, each with what is wrong (red team 31 L4: a row with
 * weight 0 was counted as "unreadable row" and nothing said why): `label file F: 2 row(s) not read: line 3: weight
 * must be > 0, got 0 (...); line 5: missing annotator`, the first {@link BAD_ROWS_NAMED} named. Undefined when none.
 */
export function badRowsWarning(file: HumanLabelFile, name: string): string | undefined {
  const bad = file.bad_rows;
  if (bad.length === 0) return undefined;
  const named = bad.slice(0, BAD_ROWS_NAMED).map((b) => `line ${b.line}: ${b.message}`).join("; ");
  const more = bad.length > BAD_ROWS_NAMED ? `; and ${bad.length - BAD_ROWS_NAMED} more` : "";
  const all = file.rows.length === 0 ? ` (every row of the file: no label is used)` : "";
  return `label file ${name}: ${bad.length} row(s) not read${all}: ${named}${more}`;
}

/** How many unreadable rows {@link badRowsWarning} names. */
export const BAD_ROWS_NAMED = 5;

/** What {@link readHumanLabels} returns: the usable rows and the rows it could not read, by line. */
export interface HumanLabelFile {
  format: "csv" | "jsonl";
  rows: HumanLabelRead[];
  bad_rows: Array<{ line: number; message: string }>;
}

function numberField(v: unknown, name: string): number | undefined | string {
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : Number(String(v).trim());
  if (!Number.isFinite(n)) return `${name} is not a number: ${JSON.stringify(v)}`;
  return n;
}

function toRow(o: Record<string, unknown>, line: number): HumanLabelRead | string {
  const str = (k: string) => (o[k] === undefined || o[k] === null ? "" : String(o[k]).trim());
  // a trajectory id is read exactly as stored, as `label` and `sample` keep it: "t1" and "t1 " are two trajectories
  // (break50 finding 2: trimmed, the two merged and a census gave 42.9% for 37.5%); ./label-pairing.ts names a row
  // whose id the run holds only without its end spaces
  const id = o.trajectory_id === undefined || o.trajectory_id === null ? "" : String(o.trajectory_id);
  const annotator = str("annotator");
  if (!id.trim()) return "missing trajectory_id";
  if (!annotator) return "missing annotator";
  // the adjudicated consensus is only the reserved name exactly (./adjudicated.ts); a look-alike is not read (red team 35b F2)
  if (isReservedAnnotator(annotator) && annotator !== RESERVED_ANNOTATOR) {
    return `annotator ${shownName(annotator)} looks like the reserved name "${RESERVED_ANNOTATOR}" (letter case, invisible characters or compatibility forms): not read as an adjudicated label nor as an annotator's; import the annotations again (import-annotations refuses such rows)`;
  }
  const row: HumanLabelRead = { trajectory_id: id, annotator: nfcName(annotator), label: str("label"), line };
  const offScale = offDeclaredScale(row.label, str("scale"));
  if (offScale) return offScale;
  if (annotator === RESERVED_ANNOTATOR) {
    if (typeof o.adjudicator === "string" && o.adjudicator.trim()) row.adjudicator = nfcName(o.adjudicator);
    const settled = o.settled_labels;
    if (settled && typeof settled === "object" && !Array.isArray(settled)) {
      row.settled_labels = Object.fromEntries(Object.entries(settled as Record<string, unknown>).filter(([, v]) => typeof v === "string")) as Record<string, string>;
    }
  }
  const w = numberField(o.weight, "weight");
  const p = numberField(o.inclusion_probability, "inclusion_probability");
  if (typeof w === "string") return w;
  if (typeof p === "string") return p;
  if (w !== undefined) {
    if (!(w > 0)) return `weight must be > 0, got ${w} (a design weight is 1 / the row's inclusion probability; give the real one or leave the column empty)`;
    row.weight = w;
  }
  if (p !== undefined) {
    if (!(p > 0 && p <= 1)) return `inclusion_probability must be in (0, 1], got ${p}`;
    row.inclusion_probability = p;
  }
  const s = str("stratum");
  if (s) row.stratum = s;
  const n = numberField(o.stratum_size, "stratum_size");
  if (typeof n === "string") return n;
  if (n !== undefined) {
    if (!(n > 0)) return `stratum_size must be > 0, got ${n}`;
    row.stratum_size = n;
  }
  const c = o.content_sha256;
  if (c !== undefined && c !== null && c !== "") {
    // a hash that is not a string cannot be compared with the run's: the row is not read, never paired unchecked
    if (typeof c !== "string") return `content_sha256 must be a string (the sample manifest's content hash), got ${JSON.stringify(c)?.slice(0, 80)}`;
    row.content_sha256 = c.trim();
  }
  return Object.assign(row, readFrameFields(o));
}

/** The scales a row's `scale` field can declare (`import-annotations` writes the sample's `--scale`). */
const DECLARED_SCALES: readonly string[] = ["six", "three", "binary"];

/**
 * Why a row is not read when its label is off the scale the row itself declares (hostile52 F4b: one hand edit of a
 * six-scale file to `complied` moved the whole file to the three-way scale, and a kappa "on six buckets" became a
 * three-way one with only the header saying so), or null. A row without a `scale` field, or with an unknown label
 * (counted `unknown_label` later, as before), is not this.
 */
function offDeclaredScale(label: string, declared: string): string | null {
  if (!label || !DECLARED_SCALES.includes(declared)) return null;
  const m = labelOnScale(label, declared as HumanScale);
  if (!("reason" in m) || m.reason !== "not_on_scale") return null;
  return (
    `label ${JSON.stringify(label)} is not on the scale ${declared} the row declares (its scale field, the sample's --scale): not read, so the file is not moved to a coarser scale ` +
    `(every row's label compared on fewer buckets); give it a ${declared}-scale label, or set the row's scale if another was meant`
  );
}

/**
 * Read a human label file: CSV with a header row (columns `trajectory_id`, `annotator`, `label`, optional
 * `weight`, `inclusion_probability`, `stratum`; other columns ignored; names case-insensitive) or JSONL (one
 * object per line with the same keys). The format is taken from the extension (`.csv`, `.jsonl`/`.json`/
 * `.ndjson`), else from the first character (`{` = JSONL).
 * @param file path of the file.
 * @returns usable rows and bad rows (missing id/annotator, bad numbers, bad JSON) with their line numbers.
 * @throws HumanLabelsError when the file cannot be read, a CSV has no header or lacks a required column, the
 *   file has no row at all, or an annotator gave one trajectory two different labels ({@link refuseConflicts}).
 */
export function readHumanLabels(file: string): HumanLabelFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new HumanLabelsError(`${file}: cannot read human labels: ${(e as Error).message}`);
  }
  const ext = file.toLowerCase().split(".").pop() ?? "";
  const format: "csv" | "jsonl" = ["jsonl", "json", "ndjson"].includes(ext) ? "jsonl" : ext === "csv" ? "csv" : text.trimStart().startsWith("{") ? "jsonl" : "csv";
  const out: HumanLabelFile = { format, rows: [], bad_rows: [] };
  if (format === "jsonl" && text.replace(/^\ufeff/, "").trimStart().startsWith("[")) {
    let arr: unknown = null;
    try {
      arr = JSON.parse(text.replace(/^\ufeff/, ""));
    } catch {
      /* not one JSON document: read as JSONL below, each bad line reported */
    }
    if (Array.isArray(arr)) {
      const min = describeLabelStudioJsonMin(arr);
      throw new HumanLabelsError(
        min
          ? `${jsonMinWarning(file, min)} Run ipi-judge import-annotations on the export first (it writes the human-label file agree reads).`
          : `${file}: a JSON array, not one label per line (JSONL); for a Label Studio export run ipi-judge import-annotations first`,
      );
    }
  }
  if (format === "jsonl") {
    jsonLines(text).forEach((l) => {
      if (l.error !== undefined) {
        out.bad_rows.push({ line: l.line, message: l.span ? l.error : `not JSON: ${l.error}` });
        return;
      }
      const o = l.value;
      if (!o || typeof o !== "object" || Array.isArray(o)) {
        out.bad_rows.push({ line: l.line, message: "not a JSON object" });
        return;
      }
      const r = toRow(o as Record<string, unknown>, l.line);
      if (typeof r === "string") out.bad_rows.push({ line: l.line, message: r });
      else out.rows.push(r);
    });
  } else {
    let parsed;
    try {
      parsed = parseCsv(text, file);
    } catch (e) {
      if (e instanceof CsvError) throw new HumanLabelsError(e.message);
      throw e;
    }
    const [header, ...rows] = parsed;
    if (!header) throw new HumanLabelsError(`${file}: empty file (expected a header row: trajectory_id,annotator,label)`);
    const cols = header.fields.map((h) => h.trim().toLowerCase());
    for (const need of ["trajectory_id", "annotator", "label"]) {
      if (!cols.includes(need)) throw new HumanLabelsError(`${file} line ${header.line}: the header has no "${need}" column (found: ${header.fields.join(", ")})`);
    }
    for (const r of rows) {
      if (r.fields.length > cols.length) {
        out.bad_rows.push({ line: r.line, message: `${r.fields.length} fields but the header has ${cols.length} (a field holding a comma or line break must be in double quotes)` });
        continue;
      }
      const o: Record<string, unknown> = Object.create(null); // header names come from the file
      cols.forEach((c, k) => (o[c] = r.fields[k]));
      const row = toRow(o, r.line);
      if (typeof row === "string") out.bad_rows.push({ line: r.line, message: row });
      else out.rows.push(row);
    }
  }
  if (out.rows.length === 0 && out.bad_rows.length === 0) throw new HumanLabelsError(`${file}: no label rows`);
  refuseConflicts(out, file);
  return out;
}

/** At most this many conflicts are listed in the refusal (the count says how many there are). */
const LISTED_CONFLICTS = 50;

/**
 * The conflicting labels of a label file: an annotator who gave one trajectory two different labels (compared as
 * `import-annotations` compares them: case, spaces and dashes normalized, `Full compliance` = `full_compliance`;
 * a row without a label takes no part). Each names the trajectory, the annotator, both labels and both lines. A
 * label repeated unchanged is no conflict (the readers count it once, `duplicate_repeated`).
 */
export function labelConflicts(file: Pick<HumanLabelFile, "rows">): string[] {
  const first = new Map<string, { label: string; raw: string; line: number }>();
  const out: string[] = [];
  for (const r of file.rows) {
    if (!r.label) continue;
    const key = `${r.trajectory_id}\u0000${r.annotator}`;
    const label = canonicalSpelling(r.label);
    const prev = first.get(key);
    if (prev === undefined) first.set(key, { label, raw: r.label, line: r.line });
    else if (prev.label !== label) {
      out.push(`line ${r.line}: annotator "${r.annotator}" labelled trajectory "${r.trajectory_id}" "${r.label}" here and "${prev.raw}" at line ${prev.line}`);
    }
  }
  return out;
}

/**
 * Refuse a label file in which an annotator gave one trajectory two different labels ({@link labelConflicts}), as
 * `import-annotations` refuses such annotations: which of the two is the annotator's answer is not the readers' to
 * pick (red team 30: the later row silently won in agree, estimate and report). The one check every `--human`
 * reader makes (`readHumanLabels`, and `agree`'s and `estimate`'s grouping for files built in code).
 * @throws HumanLabelsError listing the conflicts (the first {@link LISTED_CONFLICTS}), each with both lines.
 */
export function refuseConflicts(file: Pick<HumanLabelFile, "rows">, name = "the human labels"): void {
  const c = labelConflicts(file);
  if (c.length === 0) return;
  const shown = c.slice(0, LISTED_CONFLICTS).map((p) => `  ${p}`);
  if (c.length > LISTED_CONFLICTS) shown.push(`  ... and ${c.length - LISTED_CONFLICTS} more`);
  throw new HumanLabelsError(
    `${name}: ${c.length} conflicting label${c.length === 1 ? "" : "s"} (one annotator, one trajectory, two different labels); nothing is computed from this file (keep one label per annotator and trajectory, as import-annotations requires):\n${shown.join("\n")}`,
  );
}


/** The trajectory ids a label file labels: what a reader of the run keeps `content_sha256` of (./label-pairing.ts). */
export function labelledIds(file: HumanLabelFile): Set<string> {
  return new Set(file.rows.map((r) => r.trajectory_id));
}

/**
 * The one screening of a label row (`agree --human`'s grouping and `estimate`'s consensus, duplicates D1): its label
 * on `scale` (`labelOnScale`), or null after counting why it is left out with `exclude`: `missing_label` (no label),
 * `unknown_label` or `not_on_scale`.
 */
export function screenLabelRow(r: Pick<HumanLabelRead, "label">, scale: HumanScale, exclude: (reason: string) => void): string | null {
  if (!r.label) {
    exclude("missing_label");
    return null;
  }
  const m = labelOnScale(r.label, scale);
  if ("reason" in m) {
    exclude(m.reason);
    return null;
  }
  return m.label;
}
