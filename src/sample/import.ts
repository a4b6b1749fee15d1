/**
 * Importing human annotations of a sample (`ipi-judge import-annotations`): parsing the annotation files,
 * checking every row against the private manifest (src/sample/export.ts) and the study's label scale, and
 * building the human-label rows `agree --human` reads.
 *
 * Accepted files:
 * - CSV (`.csv`): a header row with `item_id` or `trajectory_id`, `label`, and optionally `annotator`; other
 *   columns are ignored, but a `trajectory` cell (our `tasks.csv`) beginning `# Item <id>` must show the row's item_id
 *   (./shifted-rows.ts: a shifted file is refused). Read by src/io/csv.ts (RFC 4180 quoting, CRLF /
 *   LF / CR row ends, a UTF-8 BOM ignored; malformed quoting is an error naming the line).
 * - JSONL (`.jsonl`, `.ndjson`): one object per line with the same fields.
 * - JSON (`.json`): Label Studio's JSON export (an array of tasks with `data.item_id` and
 *   `annotations[].result[].value.choices`, annotator from `completed_by`; cancelled annotations are skipped; the
 *   legacy key `completions` is read like `annotations`), or an array of row objects (Label Studio's JSON-MIN
 *   export gives `{item_id, label, annotator, ...}`).
 * A row with no label is not a label (a blank line of `tasks.csv`): it is counted as unlabelled, not imported.
 *
 * Checks (every problem names its file and row; all are reported together): unknown item or trajectory ids,
 * item_id and trajectory_id that disagree, a missing annotator, labels outside the scale (spelling is
 * canonicalized like the judges' labels: case, spaces and dashes only, `test/data/cases/B05.json`), and an annotator
 * labelling one item twice with different labels (the same label twice is kept once and counted).
 */
import path from "node:path";
import type { HumanLabel } from "../types.js";
import { kishEffectiveN } from "../stats/weighted.js";
import { RESERVED_ANNOTATOR } from "../agree/adjudicated.js";
import { annotatorIdentities } from "./annotator-identities.js";
import { adjudicatedRecord, lookAlikeProblems, mixedScriptNotes, type AdjudicatedRecord } from "./import-adjudicated.js";
import { adjudicationFacts, type AdjudicationFacts } from "../agree/adjudication-facts.js";
import { nfcName } from "../agree/annotator-names.js";
import { CsvError, parseCsv } from "../io/csv.js";
import { jsonLines } from "../io/jsonl.js";
import { invalidJsonLineText } from "./torn-line.js";
import { mayRepeatKey, repeatedKey } from "../io/repeated-keys.js";
import { describeLabelStudioJsonMin, jsonMinWarning } from "../io/label-studio.js";
import type { ManifestHeader, ManifestRow } from "./export.js";
import { sampleWhereOf, type SampleWhere } from "../store/sample-where.js";
import type { SampleFrame } from "../store/sample-frame.js";
import { canonicalScaleLabel, scaleValues, SCALES, type Scale } from "../rubric/scale.js";
import { otherSampleProblem } from "./other-sample.js";
import { endSpaceTwin } from "../agree/end-space-ids.js";
import { shiftedRow, shiftedRowsRefusal, type ShiftedRow } from "./shifted-rows.js";

/**
 * One row of the human-label file (DESIGN "Human label", with the design fields of the item): what
 * `import-annotations` writes, every field set. `agree --human` and `estimate` read the same rows back
 * (`HumanLabelRead` in src/agree/human.ts: the DESIGN fields, `stratum` and `stratum_size` when present).
 */
export interface HumanLabelRow extends HumanLabel {
  item_id: string;
  stratum: string;
  phase: 1 | 2;
  inclusion_probability: number;
  weight: number;
  sampling_stratum: string;
  committee_stratum: ManifestRow["committee_stratum"];
  /**
   * N_h of `stratum` in the population, for post-stratified weights N_h/n_h (test/data/vectors/NOTES.md §7.2
   * "Estimators").
   */
  stratum_size: number;
  scale: Scale;
  /**
   * The content hash of the trajectory when it was sampled (the manifest's `content_sha256`): the text the label was
   * given for, which every consumer checks against the run's now (src/agree/label-pairing.ts). Absent when the
   * manifest records none (a manifest of an earlier version).
   */
  content_sha256?: string;
  /** An adjudicated row's adjudicator (annotator `adjudicated`: view's adjudication.jsonl). */
  adjudicator?: string;
  /** An adjudicated row's snapshot of the annotators' labels it settled (adjudication.jsonl `annotators`), to tell when they changed. */
  settled_labels?: Record<string, string>;
  /** The population `sample --where` drew from (design.json `where`); absent when the sample is of the whole run. */
  sample_where?: SampleWhere;
  /** The sample's exact frame (design.json `frame`, src/store/sample-frame.ts); absent for designs of earlier versions. */
  sample_frame?: SampleFrame;
}

/** One annotation as read from a file, before checking. `where` names the file and row for messages. */
export interface AnnotationRecord {
  where: string;
  item_id?: string;
  trajectory_id?: string;
  annotator?: string;
  /** Other names of the same person the file gives (a Label Studio user object's email, username). */
  annotator_aliases?: string[];
  label?: string;
  /** An adjudicated row's adjudicator (`view`'s adjudication.jsonl; a CSV's `adjudicator` column, read to be refused: ./import-adjudicated.ts). */
  adjudicator?: string;
  /** An adjudicated row's snapshot of the annotators' labels it settled (adjudication.jsonl `annotators`). */
  settled_labels?: Record<string, string>;
}

/**
 * Why a row or annotation carries no label: `skipped` (Label Studio's skip: `was_cancelled`), `empty` (an
 * annotation submitted with no choice), `pending` (a task nobody annotated yet), `blank` (a template row without a
 * label).
 */
export type UnlabelledKind = "skipped" | "empty" | "pending" | "blank";

/** The result of parsing one annotation file. */
export interface ParsedAnnotations {
  format: "csv" | "jsonl" | "label-studio" | "json-rows";
  records: AnnotationRecord[];
  /** Rows or annotations that carry no label (blank template rows, cancelled or empty Label Studio annotations). */
  skipped: Array<{ where: string; reason: string; kind?: UnlabelledKind }>;
  /** What the user should know about the file (a Label Studio JSON-MIN export holds one annotation per task). */
  warnings?: string[];
}

export { annotatorIdentities } from "./annotator-identities.js";
/** An annotation file or manifest that cannot be imported: `problems` lists every problem, each naming its row. */
export class AnnotationImportError extends Error {
  readonly problems: string[];
  constructor(summary: string, problems: string[]) {
    const shown = problems.slice(0, 50).map((p) => `  ${p}`);
    if (problems.length > 50) shown.push(`  ... and ${problems.length - 50} more`);
    super(problems.length ? `${summary}:\n${shown.join("\n")}` : summary);
    this.name = "AnnotationImportError";
    this.problems = problems;
  }
}

const str = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" && Number.isFinite(v) ? String(v) : undefined;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A label value of a row object: a string, or Label Studio JSON-MIN's `{choices: [one]}`. */
function labelOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (isObj(v) && Array.isArray(v.choices)) return v.choices.length === 1 ? str(v.choices[0]) : JSON.stringify(v.choices);
  if (Array.isArray(v)) return v.length === 1 ? str(v[0]) : JSON.stringify(v);
  return undefined;
}

/**
 * The annotator key of a `completed_by` / `annotator` value. Label Studio exports `completed_by` as the user id in
 * one version and as the user object `{id, email, ...}` in another: both give the id, so one person is one annotator
 * (test/data/cases/E11). An object without an id gives its email or username.
 */
function annotatorOf(v: unknown): string | undefined {
  if (isObj(v)) return str(v.id) ?? str(v.email) ?? str(v.username);
  return str(v);
}

/** The other names a Label Studio user object gives its person (email, username), beside the id key. */
function annotatorAliases(v: unknown): string[] | undefined {
  if (!isObj(v) || str(v.id) === undefined) return undefined;
  const out = [str(v.email), str(v.username)].filter((x): x is string => x !== undefined && x.trim() !== "");
  return out.length ? out : undefined;
}

function rowRecord(o: Record<string, unknown>, where: string): AnnotationRecord {
  const lower: Record<string, unknown> = Object.create(null); // keys come from the file: no prototype
  for (const [k, v] of Object.entries(o)) lower[k.trim().toLowerCase()] = v;
  const snapshot = snapshotOf(lower);
  return {
    where,
    item_id: str(lower.item_id),
    trajectory_id: str(lower.trajectory_id),
    annotator: annotatorOf(lower.annotator ?? lower.completed_by),
    ...(annotatorAliases(lower.annotator ?? lower.completed_by) ? { annotator_aliases: annotatorAliases(lower.annotator ?? lower.completed_by) } : {}),
    label: labelOf(lower.label),
    ...(typeof lower.adjudicator === "string" ? { adjudicator: lower.adjudicator } : {}),
    ...(snapshot ? { settled_labels: Object.fromEntries(Object.entries(snapshot).filter(([, v]) => typeof v === "string")) as Record<string, string> } : {}),
  };
}

/**
 * An adjudicated row's snapshot of the labels it settled: view's adjudication.jsonl `annotators`, or the
 * `settled_labels` import-annotations writes (its output imported again keeps its adjudications: fixM 4). Only an
 * object: a CSV cell is a string, so a CSV still cannot carry one (./import-adjudicated.ts).
 */
function snapshotOf(lower: Record<string, unknown>): Record<string, unknown> | undefined {
  return isObj(lower.annotators) ? lower.annotators : isObj(lower.settled_labels) ? lower.settled_labels : undefined;
}

function fromLabelStudio(tasks: unknown[], file: string, out: ParsedAnnotations, problems: string[]): void {
  tasks.forEach((task, ti) => {
    const tw = `${file} task ${ti + 1}`;
    if (!isObj(task)) {
      problems.push(`${tw}: not a Label Studio task object`);
      return;
    }
    const data = isObj(task.data) ? task.data : {};
    const item_id = str(data.item_id);
    const trajectory_id = str(data.trajectory_id);
    const where0 = `${tw} (item ${item_id ?? trajectory_id ?? "?"})`;
    const anns = [...(Array.isArray(task.annotations) ? task.annotations : []), ...(Array.isArray(task.completions) ? task.completions : [])];
    if (anns.length === 0) {
      out.skipped.push({ where: where0, reason: "no annotations", kind: "pending" });
      return;
    }
    anns.forEach((a, ai) => {
      const where = `${where0} annotation ${ai + 1}`;
      if (!isObj(a)) {
        problems.push(`${where}: not an annotation object`);
        return;
      }
      if (a.was_cancelled === true) {
        out.skipped.push({ where, reason: "cancelled (skipped) in Label Studio", kind: "skipped" });
        return;
      }
      const results = Array.isArray(a.result) ? a.result.filter(isObj) : [];
      const choices = results.filter((r) => r.type === "choices" || (isObj(r.value) && Array.isArray(r.value.choices)));
      const named = choices.filter((r) => r.from_name === "label");
      const use = named.length > 0 ? named : choices;
      if (use.length === 0) {
        out.skipped.push({ where, reason: "no choice selected", kind: "empty" });
        return;
      }
      if (use.length > 1) {
        problems.push(`${where}: ${use.length} choice results; expected one (from_name "label")`);
        return;
      }
      const value = isObj(use[0].value) ? use[0].value : {};
      const ch = Array.isArray(value.choices) ? value.choices : [];
      if (ch.length !== 1) {
        problems.push(`${where}: ${ch.length} choices selected (${JSON.stringify(ch)}); exactly one label per item`);
        return;
      }
      const aliases = annotatorAliases(a.completed_by);
      out.records.push({ where, item_id, trajectory_id, annotator: annotatorOf(a.completed_by), ...(aliases ? { annotator_aliases: aliases } : {}), label: str(ch[0]) });
    });
  });
}

/**
 * Parse one annotation file's text (formats in the module docstring), by extension, or by content when the
 * extension says nothing (`[` JSON, `{` JSONL, else CSV).
 * @param text file contents; @param file name used in messages and for the extension.
 * @throws AnnotationImportError for unreadable JSON/JSONL lines, a CSV without the needed columns, or malformed
 *   Label Studio tasks (all problems listed).
 */
export function parseAnnotationText(text: string, file: string): ParsedAnnotations {
  const ext = path.extname(file).toLowerCase();
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const head = body.trimStart()[0];
  const kind = ext === ".csv" ? "csv" : ext === ".jsonl" || ext === ".ndjson" ? "jsonl" : ext === ".json" ? "json" : head === "[" ? "json" : head === "{" ? "jsonl" : "csv";
  const problems: string[] = [];
  const name = path.basename(file);
  if (kind === "csv") {
    const out: ParsedAnnotations = { format: "csv", records: [], skipped: [] };
    let rows;
    try {
      rows = parseCsv(body, name);
    } catch (e) {
      if (e instanceof CsvError) throw new AnnotationImportError(`${name}: cannot read the CSV`, [e.message]);
      throw e;
    }
    if (rows.length === 0) throw new AnnotationImportError(`${name}: empty CSV`, []);
    const header = rows[0].fields.map((h) => h.trim().toLowerCase());
    const col = (n: string) => header.indexOf(n);
    const [ci, ct, ca, cl, cj, cx] = [col("item_id"), col("trajectory_id"), col("annotator"), col("label"), col("adjudicator"), col("trajectory")];
    const shifted: ShiftedRow[] = [];
    if ((ci < 0 && ct < 0) || cl < 0) {
      throw new AnnotationImportError(`${name}: cannot read the CSV`, [
        `${name} line ${rows[0].line}: the header needs item_id (or trajectory_id) and label columns; it has ${JSON.stringify(rows[0].fields)}`,
      ]);
    }
    rows.slice(1).forEach((r, i) => {
      const where = `${name} row ${i + 1} (line ${r.line})`;
      if (r.fields.length > header.length) {
        problems.push(`${where}: ${r.fields.length} fields but the header has ${header.length} (a field holding a comma or a line break must be in double quotes)`);
        return;
      }
      const get = (c: number) => (c >= 0 && c < r.fields.length ? r.fields[c] : undefined);
      const rec: AnnotationRecord = { where, item_id: get(ci), trajectory_id: get(ct), annotator: get(ca), label: get(cl) };
      if (get(cj)) rec.adjudicator = get(cj);
      const moved = shiftedRow(where, get(ci), get(cx)); // the row's trajectory cell shows another item: a shifted column
      if (moved) shifted.push(moved);
      out.records.push(rec);
    });
    if (problems.length) throw new AnnotationImportError(`${name}: cannot read the CSV`, problems);
    const refusal = shifted.length ? shiftedRowsRefusal(name, shifted, rows.length - 1) : null;
    if (refusal) throw new AnnotationImportError(refusal.summary, refusal.problems);
    return out;
  }
  if (kind === "jsonl") {
    const out: ParsedAnnotations = { format: "jsonl", records: [], skipped: [] };
    for (const l of jsonLines(body)) {
      const where = `${name} line ${l.line}`;
      if (l.error !== undefined) {
        problems.push(l.span ? `${name} ${l.error}` : invalidJsonLineText(where, l.error, l.line, body)); // a torn last line said so (./torn-line.ts)
        continue;
      }
      const v = l.value;
      if (!isObj(v)) {
        problems.push(`${where}: expected a JSON object with item_id (or trajectory_id), annotator, label`);
        continue;
      }
      out.records.push(rowRecord(v, where));
    }
    if (problems.length) throw new AnnotationImportError(`${name}: cannot read the JSONL`, problems);
    return out;
  }
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (e) {
    throw new AnnotationImportError(`${name}: cannot read the JSON`, [`${name}: not valid JSON (${(e as Error).message})`]);
  }
  const twice = mayRepeatKey(body, v) ? repeatedKey(body) : null; // JSON.parse keeps the last value in silence
  if (twice) throw new AnnotationImportError(`${name}: cannot read the JSON`, [`${name}: ${twice.path || "(root)"}: key "${twice.key}" given twice with different values (${twice.first}, then ${twice.second})`]);
  if (!Array.isArray(v)) {
    throw new AnnotationImportError(`${name}: cannot read the JSON`, [
      `${name}: expected an array (Label Studio JSON export, or rows with item_id, annotator, label)`,
    ]);
  }
  const isLs = v.some((t) => isObj(t) && (isObj(t.data) || Array.isArray(t.annotations) || Array.isArray(t.completions)));
  if (isLs) {
    const out: ParsedAnnotations = { format: "label-studio", records: [], skipped: [] };
    fromLabelStudio(v, name, out, problems);
    if (problems.length) throw new AnnotationImportError(`${name}: cannot read the Label Studio export`, problems);
    return out;
  }
  const out: ParsedAnnotations = { format: "json-rows", records: [], skipped: [] };
  const min = describeLabelStudioJsonMin(v);
  if (min) out.warnings = [jsonMinWarning(name, min)];
  v.forEach((o, i) => {
    const where = `${name} row ${i + 1}`;
    if (!isObj(o)) problems.push(`${where}: expected an object with item_id (or trajectory_id), annotator, label`);
    else out.records.push(rowRecord(o, where));
  });
  if (problems.length) throw new AnnotationImportError(`${name}: cannot read the JSON`, problems);
  return out;
}

/** A parsed manifest: the header and the item rows. */
export interface Manifest {
  header: ManifestHeader;
  rows: ManifestRow[];
}

/**
 * Parse `manifest.jsonl` (src/sample/export.ts): the header line, then one row per item.
 * @throws AnnotationImportError when the first line is not an ipi-judge manifest header, a row is malformed,
 *   or item ids repeat.
 */
export function parseManifest(text: string, file = "manifest.jsonl"): Manifest {
  const name = path.basename(file);
  const problems: string[] = [];
  let header: ManifestHeader | null = null;
  const rows: ManifestRow[] = [];
  const seen = new Set<string>();
  jsonLines(text).forEach((l) => {
    if (l.error !== undefined) {
      problems.push(l.span ? `${name} ${l.error}` : `${name} line ${l.line}: not valid JSON (${l.error})`);
      return;
    }
    const v = l.value;
    if (!header) {
      if (!isObj(v) || v.ipi_judge_manifest !== 1) {
        problems.push(`${name} line ${l.line}: not an ipi-judge sample manifest (the first line must be its header; pass DIR/manifest.jsonl written by ipi-judge sample)`);
        header = {} as ManifestHeader;
        return;
      }
      if (!(SCALES as readonly string[]).includes(v.scale as string)) problems.push(`${name} line ${l.line}: unknown scale ${JSON.stringify(v.scale)}`);
      header = v as unknown as ManifestHeader;
      return;
    }
    const r = v as ManifestRow;
    if (
      !isObj(v) ||
      typeof r.item_id !== "string" ||
      typeof r.trajectory_id !== "string" ||
      typeof r.stratum !== "string" ||
      (r.phase !== 1 && r.phase !== 2) ||
      !(typeof r.inclusion_probability === "number" && r.inclusion_probability > 0 && r.inclusion_probability <= 1) ||
      !(typeof r.weight === "number" && r.weight >= 1) ||
      (r.content_sha256 !== undefined && (typeof r.content_sha256 !== "string" || r.content_sha256 === ""))
    ) {
      problems.push(`${name} line ${l.line}: not a manifest item row (item_id, trajectory_id, stratum, phase 1|2, inclusion_probability in (0,1], weight >= 1, content_sha256 a string when present)`);
      return;
    }
    if (seen.has(r.item_id)) problems.push(`${name} line ${l.line}: item_id ${r.item_id} appears twice`);
    seen.add(r.item_id);
    rows.push(r);
  });
  if (!header) problems.push(`${name}: empty manifest`);
  if (problems.length) throw new AnnotationImportError(`${name}: cannot read the manifest`, problems);
  return { header: header as unknown as ManifestHeader, rows };
}

/**
 * The warning for a manifest where some item rows record `content_sha256` and others do not (edited by hand, or two
 * manifests joined): the label rows of the items without one are written without a hash, so no reader can check
 * that their label was given for the run's text now; the items are named (up to 5: item id, trajectory id).
 * Undefined when every row or no row records one.
 */
export function partialHashWarning(m: Manifest, file: string): string | undefined {
  const without = m.rows.filter((r) => r.content_sha256 === undefined);
  if (without.length === 0 || without.length === m.rows.length) return undefined;
  const named = without
    .slice(0, 5)
    .map((r) => `item ${r.item_id} (trajectory ${JSON.stringify(r.trajectory_id)})`)
    .join(", ");
  return (
    `${path.basename(file)}: ${without.length} of its ${m.rows.length} items record no content_sha256 while the others do ` +
    `(${named}${without.length > 5 ? `, ... (${without.length} in all)` : ""}): their label rows are written without one, so whether ` +
    `their labels were given for the text the run has now cannot be checked (agree, estimate, report and view say so); use the manifest sample wrote`
  );
}

/** What {@link checkAnnotations} reports beside the rows. */
export interface ImportSummary {
  scale: Scale;
  records_read: number;
  labels: number;
  /** (annotator, item) pairs given twice with the same label (kept once). */
  repeated_identical: number;
  /** Rows or annotations without a label (not imported). */
  unlabelled: number;
  /** `unlabelled` by reason ({@link UnlabelledKind}), each counted by name. */
  unlabelled_by_kind: Record<UnlabelledKind, number>;
  /**
   * What was said about annotator identities: ids linked to the same email (one person), and collisions (one id
   * with two emails, one email under two ids). Empty when nothing was found.
   */
  annotator_notes: string[];
  items_in_manifest: number;
  items_labelled: number;
  items_unlabelled: number;
  labelled_by_phase: { "1": number; "2": number };
  /** Labels per annotator name (the `adjudicated` rows under their reserved name, as the file holds them). */
  annotators: Record<string, number>;
  /** Annotators, the adjudicated rows not counted (an adjudicated label is the item's consensus, not a vote). */
  n_annotators: number;
  /** Adjudicated labels imported (annotator `adjudicated` with an adjudicator and a snapshot of a disagreement: `view`'s adjudication.jsonl). */
  adjudicated_labels: number;
  /** The items adjudication settled, by adjudicator, and those whose settled labels changed since (../agree/adjudication-facts.ts). */
  adjudication: AdjudicationFacts;
  /** Kish effective sample size (Σw)²/Σw² of the labelled items (src/stats/weighted.ts). */
  kish_n_eff: number | null;
  /**
   * Design-weighted (Hájek, w = 1/π) share of each label in the population: each labelled item counts with its
   * weight, split evenly among its annotators' labels, or whole to its adjudicated label (its consensus, not one
   * more vote). Null when no item is labelled.
   */
  weighted_label_shares: Record<string, number> | null;
}

/**
 * Check annotation records against a manifest and build the human-label rows.
 * @param records records of one or more files (in file and row order).
 * @param opts.annotator annotator name for records without one (a single annotator's file).
 * @param opts.skipped records already known to carry no label (counted as unlabelled).
 * @returns rows sorted by item id, then annotator; the summary.
 * @throws AnnotationImportError listing every problem (module docstring), each naming its row.
 */
export function checkAnnotations(
  records: readonly AnnotationRecord[],
  manifest: Manifest,
  opts: { annotator?: string; skipped?: number; skippedByKind?: Partial<Record<UnlabelledKind, number>> } = {},
): { rows: HumanLabelRow[]; summary: ImportSummary } {
  const byKind: Record<UnlabelledKind, number> = { skipped: 0, empty: 0, pending: 0, blank: 0, ...(opts.skippedByKind ?? {}) };
  const identity = annotatorIdentities(records);
  const scale = manifest.header.scale;
  const sampleWhere = manifest.header.design?.where ? sampleWhereOf(manifest.header.design.where) : undefined;
  const f = manifest.header.design?.frame;
  const sampleFrame: SampleFrame | undefined = f ? { design: f.design, N: f.N, ids_sha256: f.ids_sha256 } : undefined;
  const byItem = new Map(manifest.rows.map((r) => [r.item_id, r]));
  const byTrajectory = new Map(manifest.rows.map((r) => [r.trajectory_id, r]));
  const problems: string[] = [];
  const taken = new Map<string, { label: string; where: string }>();
  const out: HumanLabelRow[] = [];
  let unlabelled = opts.skipped ?? 0;
  let repeated = 0;
  const allowed = scaleValues(scale).join(", ");
  const fallback = opts.annotator?.trim() ? nfcName(opts.annotator) : undefined;
  const firstWhere = new Map<string, string>(); // annotator name -> first row using it (look-alike names)
  const adjudication = new Map<HumanLabelRow, AdjudicatedRecord>();
  for (const rec of records) {
    const itemId = rec.item_id?.trim() || undefined;
    const trajId = rec.trajectory_id?.trim() ? rec.trajectory_id : undefined; // exactly as stored: "t1 " is not "t1" (break50 2)
    const rawLabel = rec.label?.trim() ?? "";
    // a name is NFC where it enters: "Zoë" composed or not is one annotator (../agree/annotator-names.ts)
    const given = rec.annotator?.trim() ? nfcName(rec.annotator) : fallback;
    // one person is one annotator: a name that a Label Studio user object links to an id is that id
    const annotator = given !== undefined ? (identity.canonical.get(given) ?? given) : undefined;
    if (rawLabel === "") {
      unlabelled++;
      byKind.blank++;
      continue;
    }
    // an adjudicated row is exactly what view writes; a look-alike of the reserved name is refused (./import-adjudicated.ts)
    const adj = adjudicatedRecord(rec, rec.annotator?.trim() ? rec.annotator : opts.annotator, problems);
    if (adj === undefined) continue;
    if (annotator !== undefined && !adj && !firstWhere.has(annotator)) firstWhere.set(annotator, rec.where);
    let m: ManifestRow | undefined;
    if (itemId !== undefined) {
      m = byItem.get(itemId);
      if (!m) {
        problems.push(`${rec.where}: unknown item_id "${itemId}" (not in this sample's manifest)`);
        continue;
      }
      if (trajId !== undefined && trajId !== m.trajectory_id) {
        problems.push(`${rec.where}: item_id "${itemId}" and trajectory_id ${JSON.stringify(trajId)} name different items${endSpaceTwin(trajId, [m.trajectory_id])}`);
        continue;
      }
    } else if (trajId !== undefined) {
      m = byTrajectory.get(trajId);
      if (!m) {
        problems.push(`${rec.where}: unknown trajectory_id ${JSON.stringify(trajId)} (not in this sample${endSpaceTwin(trajId, byTrajectory.keys())})`);
        continue;
      }
    } else {
      problems.push(`${rec.where}: no item_id or trajectory_id`);
      continue;
    }
    if (!annotator) {
      problems.push(`${rec.where}: no annotator (add an annotator column, or pass --annotator NAME for a one-person file)`);
      continue;
    }
    const label = canonicalScaleLabel(rawLabel, scale);
    if (label === null) {
      problems.push(`${rec.where}: label "${rawLabel}" is not on the ${scale} scale (allowed: ${allowed})`);
      continue;
    }
    const key = `${annotator}\u0000${m.item_id}`;
    const prev = taken.get(key);
    if (prev) {
      if (prev.label !== label) {
        problems.push(`${rec.where}: annotator "${annotator}" labelled item ${m.item_id} "${label}" here and "${prev.label}" at ${prev.where}`);
      } else repeated++;
      continue;
    }
    taken.set(key, { label, where: rec.where });
    const row: HumanLabelRow = {
      trajectory_id: m.trajectory_id,
      annotator,
      label,
      item_id: m.item_id,
      stratum: m.stratum,
      phase: m.phase,
      inclusion_probability: m.inclusion_probability,
      weight: m.weight,
      sampling_stratum: m.sampling_stratum,
      committee_stratum: m.committee_stratum,
      stratum_size: m.stratum_size,
      scale,
      ...(m.content_sha256 ? { content_sha256: m.content_sha256 } : {}),
      ...(sampleWhere ? { sample_where: sampleWhere } : {}),
      ...(sampleFrame ? { sample_frame: sampleFrame } : {}),
      ...(adj ? { adjudicator: adj.adjudicator, settled_labels: adj.settled_labels } : {}),
    };
    if (adj) adjudication.set(row, adj);
    out.push(row);
  }
  problems.push(...lookAlikeProblems(firstWhere));
  if (problems.length) {
    // ids of another draw are said first, with the cause (./other-sample.ts); the count stays that of the problems
    const other = otherSampleProblem(records.map((r) => r.item_id?.trim() ?? "").filter((id) => id !== "" && !byItem.has(id)), byItem.keys());
    throw new AnnotationImportError(`${problems.length} problem${problems.length === 1 ? "" : "s"} in the annotations; nothing was written`, other ? [other, ...problems] : problems);
  }
  out.sort((a, b) => (a.item_id < b.item_id ? -1 : a.item_id > b.item_id ? 1 : a.annotator < b.annotator ? -1 : a.annotator > b.annotator ? 1 : 0));

  const perItem = new Map<string, HumanLabelRow[]>();
  for (const r of out) {
    const g = perItem.get(r.item_id);
    if (g) g.push(r);
    else perItem.set(r.item_id, [r]);
  }
  const annotators: Record<string, number> = Object.create(null);
  for (const r of out) annotators[r.annotator] = (annotators[r.annotator] ?? 0) + 1;
  const byPhase = { "1": 0, "2": 0 };
  const weights: number[] = [];
  const shares: Record<string, number> = Object.fromEntries(scaleValues(scale).map((v) => [v, 0]));
  let sw = 0;
  for (const rows of perItem.values()) {
    const w = rows[0].weight;
    byPhase[String(rows[0].phase) as "1" | "2"]++;
    weights.push(w);
    sw += w;
    // an adjudicated item: its adjudicated label is its consensus (not one more vote beside the annotators')
    const adj = rows.filter((r) => r.annotator === RESERVED_ANNOTATOR);
    const votes = adj.length ? adj : rows;
    for (const r of votes) shares[r.label] += w / votes.length;
  }
  const summary: ImportSummary = {
    scale,
    records_read: records.length + (opts.skipped ?? 0),
    labels: out.length,
    repeated_identical: repeated,
    unlabelled,
    unlabelled_by_kind: byKind,
    annotator_notes: [...identity.notes, ...mixedScriptNotes(firstWhere)],
    items_in_manifest: manifest.rows.length,
    items_labelled: perItem.size,
    items_unlabelled: manifest.rows.length - perItem.size,
    labelled_by_phase: byPhase,
    annotators,
    n_annotators: Object.keys(annotators).filter((a) => a !== RESERVED_ANNOTATOR).length,
    adjudicated_labels: adjudication.size,
    adjudication: adjudicationFacts(out.map((r) => ({ id: r.item_id, annotator: r.annotator, label: r.label, adjudicator: r.adjudicator, settled_labels: r.settled_labels, where: `item ${r.item_id}` }))),
    kish_n_eff: kishEffectiveN(weights),
    weighted_label_shares: sw > 0 ? Object.fromEntries(Object.entries(shares).map(([k, v]) => [k, v / sw])) : null,
  };
  return { rows: out, summary };
}
