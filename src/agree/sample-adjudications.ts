/**
 * A sample folder's adjudications, found beside the files that name it (new-user report 38 F1: `view` saves
 * adjudications to `<sample>/adjudication.jsonl`, not under `<sample>/annotations/`, and the documented
 * `import-annotations study1/annotations/*.jsonl ...` never read them: 10 adjudications lost, and nothing said so
 * by import, agree or estimate).
 *
 * - {@link sampleAdjudicationFiles}: the adjudication files of the sample folders an import names (the manifest's
 *   folder, and the folder above an `annotations/` folder holding an annotation file) that the import was not given.
 * - {@link missingAdjudicationsWarning}: for `agree`/`estimate`/`report --human FILE`, the adjudications the label
 *   file's sample folder holds that the label file lacks, by count, and those it holds with another label or
 *   adjudicator (adjudicated again in view since the import: red team 37c F2), each named with both labels (the
 *   folder: the label file's own, and the one of the manifest recorded in its rows' `sample_manifest`).
 */
import fs from "node:fs";
import path from "node:path";
import { jsonLines } from "../io/jsonl.js";
import { RESERVED_ANNOTATOR } from "./adjudicated.js";
import { nfcName } from "./annotator-names.js";
import { canonicalSpelling } from "../rubric/buckets.js";

/** The file name `view` writes a sample's adjudications to (src/view/annotations.ts `ADJUDICATION_FILE`). */
export const SAMPLE_ADJUDICATION_FILE = "adjudication.jsonl";

/** The folder under a sample folder where `view` writes each annotator's file (src/view/annotations.ts). */
const ANNOTATIONS_DIR = "annotations";

function realOrResolved(f: string): string {
  try {
    return fs.realpathSync(f);
  } catch {
    return path.resolve(f);
  }
}

/**
 * The sample folders an import names: the manifest's folder, and the parent of every `annotations/` folder that
 * holds one of the files (view's layout: `<sample>/annotations/<annotator>.jsonl`).
 */
function sampleDirs(files: readonly string[], manifest: string): string[] {
  const dirs = new Set<string>([path.dirname(realOrResolved(manifest))]);
  for (const f of files) {
    const d = path.dirname(realOrResolved(f));
    if (path.basename(d) === ANNOTATIONS_DIR) dirs.add(path.dirname(d));
  }
  return [...dirs];
}

/**
 * The adjudication files (`<sample>/adjudication.jsonl`) of the sample folders an import names that are not among
 * the files given: `import-annotations` reads them too, and says so.
 * @param files the annotation files given.
 * @param manifest the sample's manifest.
 * @returns paths (as found), in folder order; empty when every such file was given or none exists.
 */
export function sampleAdjudicationFiles(files: readonly string[], manifest: string): string[] {
  const given = new Set(files.map(realOrResolved));
  const out: string[] = [];
  for (const d of sampleDirs(files, manifest)) {
    const f = path.join(d, SAMPLE_ADJUDICATION_FILE);
    if (fs.existsSync(f) && fs.statSync(f).isFile() && !given.has(realOrResolved(f))) out.push(f);
  }
  return out;
}

/** An adjudication as a file holds it: its label and adjudicator (as given). */
interface Adjudged {
  label: string;
  adjudicator?: string;
}

const adjudged = (o: Record<string, unknown>): Adjudged => ({ label: String(o.label), ...(typeof o.adjudicator === "string" ? { adjudicator: o.adjudicator } : {}) });

/** An adjudication file as read here: its adjudications by item id, and each line not read (`line N: why`). */
interface AdjudicationFileRead {
  items: Map<string, Adjudged>;
  /** Lines not read, `line N: what is wrong`. */
  bad: string[];
  /** Set (the error code) when the file could not be read at all. */
  unreadable?: string;
}

/**
 * The adjudications of an adjudication file by item id (rows of annotator `adjudicated` with an item id and a label;
 * a later row of an item wins). A line that is not JSON (or gives a key twice with different values) or not a JSON
 * object is not read and is named in `bad`, as import-annotations names it (break45: such lines were skipped in
 * silence, and the "lacks N of the M adjudications" counts left them out without a word).
 */
function adjudicatedItems(file: string): AdjudicationFileRead {
  const out: AdjudicationFileRead = { items: new Map(), bad: [] };
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    out.unreadable = (e as NodeJS.ErrnoException).code ?? (e as Error).name;
    return out;
  }
  for (const l of jsonLines(text)) {
    if (l.error !== undefined) {
      out.bad.push(l.span ? l.error : `line ${l.line}: ${/ given twice with different values /.test(l.error) ? l.error : `not JSON (${l.error})`}`);
      continue;
    }
    const o = l.value as Record<string, unknown> | null;
    if (!o || typeof o !== "object" || Array.isArray(o)) {
      out.bad.push(`line ${l.line}: not a JSON object`);
      continue;
    }
    // a row without a label is an unlabelled row, as import-annotations reads it
    if (o.annotator === RESERVED_ANNOTATOR && typeof o.item_id === "string" && typeof o.label === "string" && o.label.trim()) out.items.set(o.item_id.trim(), adjudged(o));
  }
  return out;
}

/**
 * The note for the lines of an adjudication file that were not read (or the file itself): the check for
 * adjudications a label file lacks covered the rest only, so an adjudication on such a line may be missing unseen.
 */
function unreadAdjudicationsNote(labelFile: string, adjFile: string, r: AdjudicationFileRead): string | undefined {
  if (r.unreadable !== undefined) {
    return `${adjFile} could not be read (${r.unreadable}): the check for adjudications label file ${labelFile} lacks was skipped for that sample folder`;
  }
  if (r.bad.length === 0) return undefined;
  const shown = r.bad.slice(0, 5).join("; ") + (r.bad.length > 5 ? `; and ${r.bad.length - 5} more` : "");
  return (
    `${adjFile}: ${r.bad.length} line${r.bad.length === 1 ? "" : "s"} not read (${shown}): the check for adjudications label file ${labelFile} lacks ` +
    `covered its ${r.items.size} readable adjudication${r.items.size === 1 ? "" : "s"} only (import-annotations refuses the file until ${r.bad.length === 1 ? "that line is" : "those lines are"} fixed)`
  );
}

/** What a label file says of its sample: its items, its adjudicated items, the manifests its rows name. */
function labelFileItems(file: string): { items: Set<string>; adjudicated: Map<string, Adjudged>; manifests: Set<string> } | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (!text.replace(/^\ufeff/, "").trimStart().startsWith("{")) return null; // a CSV label file carries no item ids to compare
  const items = new Set<string>();
  const adjudicated = new Map<string, Adjudged>();
  const manifests = new Set<string>();
  for (const l of jsonLines(text)) {
    if (l.error !== undefined) continue;
    const o = l.value as Record<string, unknown> | null;
    if (!o || typeof o !== "object") continue;
    if (typeof o.item_id !== "string") continue;
    items.add(o.item_id.trim());
    if (o.annotator === RESERVED_ANNOTATOR) adjudicated.set(o.item_id.trim(), adjudged(o));
    if (typeof o.sample_manifest === "string" && o.sample_manifest) manifests.add(o.sample_manifest);
  }
  return { items, adjudicated, manifests };
}

/**
 * The note for a label file whose recorded sample manifest is not where the record says (the file was moved or
 * copied away from its sample folder): the adjudication check of that folder was skipped.
 */
function lostManifestNote(labelFile: string, recorded: string, tried: string): string {
  return (
    `label file ${labelFile} names the sample manifest ${recorded} (sample_manifest, relative to the label file), not found at ${tried}: ` +
    `the check for adjudications the label file lacks was skipped for that sample folder (if the file was moved, ` +
    `run import-annotations again with the sample folder's ${SAMPLE_ADJUDICATION_FILE}, or keep the label file where it was written)`
  );
}

/**
 * The warning for a label file whose sample folder holds adjudications the file lacks: `label file F lacks N of the
 * M adjudications in DIR/adjudication.jsonl (items ...): those items' consensus is the annotators' labels, not the
 * adjudicated one; import again with that file`. The folders looked in: the label file's own and the folder of each
 * manifest its rows record (`sample_manifest`, relative to the label file). Only items the label file labels count
 * (an adjudication file of another sample shares none). A recorded manifest that is not found (the label file was
 * moved) is said too, with the path tried: its folder's adjudications could not be checked. An adjudication the label
 * file holds with another label or adjudicator than the folder's file now is said too, naming the item and both
 * labels. Undefined when nothing is missing or changed, or the file is not an import's JSONL output (no item ids).
 */
export function missingAdjudicationsWarning(labelFile: string): string | undefined {
  const lf = labelFileItems(labelFile);
  if (!lf || lf.items.size === 0) return undefined;
  const base = path.dirname(path.resolve(labelFile));
  const said: string[] = [];
  const found: string[] = [];
  for (const m of [...lf.manifests].sort()) {
    const tried = path.resolve(base, m);
    if (fs.existsSync(tried)) found.push(path.dirname(tried));
    else said.push(lostManifestNote(labelFile, m, tried));
  }
  const dirs = new Set<string>([base, ...found]);
  for (const d of dirs) {
    const f = path.join(d, SAMPLE_ADJUDICATION_FILE);
    if (!fs.existsSync(f)) continue;
    const read = adjudicatedItems(f);
    const unread = unreadAdjudicationsNote(labelFile, f, read);
    if (unread) said.push(unread);
    const adj = read.items;
    const changed = changedAdjudications(labelFile, f, lf.adjudicated, adj);
    if (changed) said.push(changed);
    const missing = [...adj.keys()].filter((id) => lf.items.has(id) && !lf.adjudicated.has(id)).sort();
    if (missing.length === 0) continue;
    const shown = missing.slice(0, 5).join(", ") + (missing.length > 5 ? `, and ${missing.length - 5} more` : "");
    said.push(
      `label file ${labelFile} lacks ${missing.length} of the ${adj.size} adjudication${adj.size === 1 ? "" : "s"} in ${f} (item${missing.length === 1 ? "" : "s"} ${shown}): ` +
        `${missing.length === 1 ? "that item's" : "those items'"} consensus is taken from the annotators' labels, not the adjudicated label; ` +
        `import the annotations again with that file (import-annotations reads a sample folder's ${SAMPLE_ADJUDICATION_FILE} itself)`,
    );
  }
  return said.length ? said.join("; ") : undefined;
}

/** Labels compared as import compares them (case, spaces and dashes), names as import takes them (NFC, trimmed). */
const sameLabel = (a: string, b: string) => canonicalSpelling(a) === canonicalSpelling(b);
const sameName = (a: string | undefined, b: string | undefined) => (a === undefined ? "" : nfcName(a)) === (b === undefined ? "" : nfcName(b));

/**
 * The warning for the adjudications of `adjFile` that the label file holds with another label or adjudicator (red
 * team 37c F2: item0 imported as partial_compliance, then adjudicated again in view as task_refusal; agree and
 * estimate used partial_compliance and said nothing): each item named with both labels. Undefined when none differs.
 */
function changedAdjudications(labelFile: string, adjFile: string, inLabelFile: ReadonlyMap<string, Adjudged>, inAdjFile: ReadonlyMap<string, Adjudged>): string | undefined {
  const changed: string[] = [];
  for (const [id, now] of [...inAdjFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const had = inLabelFile.get(id);
    if (!had || (sameLabel(had.label, now.label) && sameName(had.adjudicator, now.adjudicator))) continue;
    const by = (a: Adjudged) => (a.adjudicator !== undefined ? ` by ${JSON.stringify(a.adjudicator)}` : "");
    changed.push(`item ${id}: ${JSON.stringify(had.label)}${by(had)} in the label file, ${JSON.stringify(now.label)}${by(now)} in ${SAMPLE_ADJUDICATION_FILE}`);
  }
  if (changed.length === 0) return undefined;
  const shown = changed.slice(0, 5).join("; ") + (changed.length > 5 ? `; and ${changed.length - 5} more` : "");
  return (
    `label file ${labelFile} holds ${changed.length} adjudication${changed.length === 1 ? "" : "s"} that ${adjFile} now records differently (${shown}): ` +
    `the label file's (older) adjudicated label is used as ${changed.length === 1 ? "that item's" : "those items'"} consensus; ` +
    `import the annotations again with that file (import-annotations reads a sample folder's ${SAMPLE_ADJUDICATION_FILE} itself)`
  );
}
