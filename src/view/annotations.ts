/**
 * Annotating a sample in `ipi-judge view --sample DIR`: the items of the sample's manifest, blinded exactly as the
 * annotation export (src/sample/export.ts `blindTrajectory`: the item id for the trajectory id, no model, suite,
 * attack, source or judge view, tool-call ids replaced), and the annotators' labels.
 *
 * Files (in the sample folder; nothing else is written):
 * - `annotations/<annotator>.jsonl`: one annotator's labels, one JSON line per item in task order:
 *   `{item_id, annotator, label, evidence?, note?, labelled_at}`; `import-annotations` reads it as it is (JSONL
 *   rows item_id/annotator/label; other fields ignored; a row without a label counts as unlabelled). Rewritten
 *   whole (temp file + rename) after every change, so a label is on disk as soon as it is given. The file name is
 *   the annotator's name when it is a plain name (letters, digits, `.`, `_`, `-`, not starting with `u-`), else
 *   `u-` + the name's UTF-8 bytes in hex: two annotators never share a file.
 * - `adjudication.jsonl`: the adjudicated label of items the annotators disagree on, apart from theirs:
 *   `{item_id, annotator: "adjudicated", label, note?, adjudicator, annotators: {name: label}, adjudicated_at}`.
 */
import fs from "node:fs";
import path from "node:path";
import type { Bucket, EvidenceQuote, PartKind, Trajectory, VerifiedQuote } from "../types.js";
import { EVIDENCE_KINDS } from "../rubric/buckets.js";
import { canonicalScaleLabel, scaleLabels, type Scale, type ScaleLabel } from "../rubric/scale.js";
import { parseManifest, type Manifest } from "../sample/import.js";
import { blindTrajectory, EXPORT_FILES } from "../sample/export.js";
import { trajectoryParts } from "../serialize/parts.js";
import { evidenceContext } from "../evidence/context.js";
import { verifyQuote } from "../evidence/verify.js";
import { trajectoryDoc, type TrajectoryDoc } from "./document.js";

/** The folder of annotator files inside the sample folder. */
export const ANNOTATIONS_DIR = "annotations";
/** The adjudication file inside the sample folder. */
export const ADJUDICATION_FILE = "adjudication.jsonl";

/** One annotator's label of one item, as stored. */
export interface AnnotationRow {
  item_id: string;
  annotator: string;
  label: string;
  evidence?: VerifiedQuote[];
  note?: string;
  labelled_at: string;
}

/** One adjudicated label, as stored. */
export interface AdjudicationRow {
  item_id: string;
  annotator: "adjudicated";
  label: string;
  note?: string;
  adjudicator: string;
  annotators: Record<string, string>;
  adjudicated_at: string;
}

/** A request to record or change an annotator's label, evidence or note. */
export interface AnnotationChange {
  annotator: string;
  item_id: string;
  label?: string;
  /** Text the annotator selected in part `part` of the item's document. */
  evidence?: { part: number; quote: string };
  /** Remove the evidence. */
  clear_evidence?: boolean;
  note?: string;
}

/** A request the sample cannot take (unknown item, bad label or name): the message says which field. */
export class AnnotationInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AnnotationInputError";
  }
}

/** The annotator's file name (module docstring). @throws AnnotationInputError for an empty or over-long name. */
export function annotatorFileName(name: string): string {
  const n = name.trim();
  if (n === "" || n.length > 100) throw new AnnotationInputError("annotator: give a name of 1 to 100 characters");
  if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(n) && !n.startsWith("u-") && !n.endsWith(".")) return `${n}.jsonl`;
  return `u-${Buffer.from(n, "utf8").toString("hex")}.jsonl`;
}

/** Allowed evidence kinds of a label on a scale (three-way: the union of its buckets' kinds). */
export function evidenceKinds(label: string, scale: Scale): PartKind[] {
  const buckets: Bucket[] = scale === "six" ? [label as Bucket] : (scaleLabels(scale).find((l) => l.value === label)?.buckets ?? []);
  return [...new Set(buckets.flatMap((b) => EVIDENCE_KINDS[b] ?? []))];
}

/** Write a file atomically (temp file in the same folder + rename). */
function writeAtomic(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, text, "utf8");
  fs.renameSync(tmp, file);
}

function readRows<T>(file: string, warnings: string[]): T[] {
  const out: T[] = [];
  fs.readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      try {
        const v = JSON.parse(line);
        if (v && typeof v === "object" && typeof v.item_id === "string" && typeof v.annotator === "string") out.push(v as T);
        else warnings.push(`${file} line ${i + 1}: not an annotation row (item_id, annotator), skipped`);
      } catch {
        warnings.push(`${file} line ${i + 1}: not JSON, skipped`);
      }
    });
  return out;
}

/** A sample folder opened for annotation. */
export class SampleStore {
  readonly dir: string;
  readonly manifest: Manifest;
  readonly scale: Scale;
  readonly labels: ScaleLabel[];
  readonly warnings: string[] = [];
  /** annotator -> item_id -> row. */
  private byAnnotator = new Map<string, Map<string, AnnotationRow>>();
  private adjudicated = new Map<string, AdjudicationRow>();
  private order: Map<string, number>;
  private blinded = new Map<string, Trajectory>();

  /**
   * Open a sample folder: its `manifest.jsonl`, and the annotation and adjudication files already there.
   * @param load re-reads a trajectory by id from the run (src/view/item.ts `loadTrajectory`).
   * @throws AnnotationImportError when the manifest cannot be read; Error when the folder has none.
   */
  constructor(
    dir: string,
    private load: (trajectoryId: string) => Promise<{ trajectory: Trajectory } | { error: string }>,
  ) {
    this.dir = dir;
    const mf = path.join(dir, EXPORT_FILES.manifest);
    if (!fs.existsSync(mf)) throw new Error(`${mf} not found: --sample takes a folder written by ipi-judge sample --out`);
    this.manifest = parseManifest(fs.readFileSync(mf, "utf8"), mf);
    this.scale = this.manifest.header.scale;
    this.labels = scaleLabels(this.scale);
    this.order = new Map(this.manifest.rows.map((r, i) => [r.item_id, i]));
    const adir = path.join(dir, ANNOTATIONS_DIR);
    if (fs.existsSync(adir)) {
      for (const f of fs.readdirSync(adir).filter((n) => n.endsWith(".jsonl")).sort()) {
        for (const r of readRows<AnnotationRow>(path.join(adir, f), this.warnings)) {
          if (!this.order.has(r.item_id)) {
            this.warnings.push(`${f}: item ${r.item_id} is not in this sample's manifest, ignored`);
            continue;
          }
          const m = this.byAnnotator.get(r.annotator) ?? new Map<string, AnnotationRow>();
          m.set(r.item_id, r);
          this.byAnnotator.set(r.annotator, m);
        }
      }
    }
    const adj = path.join(dir, ADJUDICATION_FILE);
    if (fs.existsSync(adj)) for (const r of readRows<AdjudicationRow>(adj, this.warnings)) this.adjudicated.set(r.item_id, r);
  }

  /** Item ids in task order. */
  itemIds(): string[] {
    return this.manifest.rows.map((r) => r.item_id);
  }

  /** The trajectory id of an item (private: never sent to an annotator's page). */
  trajectoryIdOf(itemId: string): string | undefined {
    const i = this.order.get(itemId);
    return i === undefined ? undefined : this.manifest.rows[i].trajectory_id;
  }

  /** The blinded trajectory of an item. @throws AnnotationInputError for an unknown item or an unreadable source. */
  async blindedItem(itemId: string): Promise<Trajectory> {
    const cached = this.blinded.get(itemId);
    if (cached) return cached;
    const tid = this.trajectoryIdOf(itemId);
    if (tid === undefined) throw new AnnotationInputError(`item_id: ${JSON.stringify(itemId)} is not in this sample`);
    const r = await this.load(tid);
    if ("error" in r) throw new AnnotationInputError(`item ${itemId} cannot be shown: ${r.error}`);
    const b = blindTrajectory(r.trajectory, itemId);
    this.blinded.set(itemId, b);
    return b;
  }

  /** The page's document of an item, blinded. */
  async itemDoc(itemId: string): Promise<TrajectoryDoc> {
    return trajectoryDoc(await this.blindedItem(itemId));
  }

  /** Names of the annotators with a file. */
  annotators(): string[] {
    return [...this.byAnnotator.keys()].sort();
  }

  /** One annotator's rows in task order. */
  rowsOf(annotator: string): AnnotationRow[] {
    const m = this.byAnnotator.get(annotator.trim());
    return m ? [...m.values()].sort((a, b) => this.order.get(a.item_id)! - this.order.get(b.item_id)!) : [];
  }

  /**
   * Record a change and write the annotator's file at once.
   * @returns the stored row.
   * @throws AnnotationInputError naming the field (unknown item, label not on the scale, evidence without a label,
   *   part out of range, bad name).
   */
  async change(c: AnnotationChange): Promise<AnnotationRow> {
    const annotator = typeof c.annotator === "string" ? c.annotator.trim() : "";
    const file = path.join(this.dir, ANNOTATIONS_DIR, annotatorFileName(annotator));
    if (typeof c.item_id !== "string" || !this.order.has(c.item_id)) throw new AnnotationInputError(`item_id: ${JSON.stringify(c.item_id)} is not in this sample`);
    const m = this.byAnnotator.get(annotator) ?? new Map<string, AnnotationRow>();
    const prev = m.get(c.item_id);
    const row: AnnotationRow = prev ? { ...prev } : { item_id: c.item_id, annotator, label: "", labelled_at: "" };
    if (c.label !== undefined) {
      const label = canonicalScaleLabel(c.label, this.scale);
      if (label === null) throw new AnnotationInputError(`label: ${JSON.stringify(c.label)} is not on the ${this.scale} scale`);
      row.label = label;
    }
    if (c.note !== undefined) {
      if (typeof c.note !== "string" || c.note.length > 10_000) throw new AnnotationInputError("note: a text of at most 10,000 characters");
      if (c.note === "") delete row.note;
      else row.note = c.note;
    }
    if (c.clear_evidence) delete row.evidence;
    if (c.evidence !== undefined) {
      if (!row.label) throw new AnnotationInputError("evidence: choose a label first (what a quote must show depends on it)");
      row.evidence = [...(row.evidence ?? []), await this.verify(c.item_id, row.label, c.evidence)];
    } else if (c.label !== undefined && row.evidence?.length) {
      // a new label asks for other evidence: check the kept quotes again against it
      const b = await this.blindedItem(c.item_id);
      const ctx = evidenceContext(b);
      row.evidence = row.evidence.map((q) => verifyQuote(stripVerification(q), evidenceKinds(row.label, this.scale), ctx));
    }
    row.labelled_at = new Date().toISOString();
    m.set(c.item_id, row);
    this.byAnnotator.set(annotator, m);
    writeAtomic(file, this.rowsOf(annotator).map((r) => JSON.stringify(r)).join("\n") + "\n");
    return row;
  }

  private async verify(itemId: string, label: string, ev: { part: number; quote: string }): Promise<VerifiedQuote> {
    const b = await this.blindedItem(itemId);
    const parts = trajectoryParts(b);
    if (!Number.isInteger(ev?.part) || ev.part < 0 || ev.part >= parts.length) throw new AnnotationInputError(`evidence.part: no part ${JSON.stringify(ev?.part)} in item ${itemId}`);
    if (typeof ev.quote !== "string" || ev.quote.length > 5000) throw new AnnotationInputError("evidence.quote: a text of at most 5,000 characters");
    const p = parts[ev.part];
    const q: EvidenceQuote = { message_index: p.message_index, quote: ev.quote };
    if (p.tool_call_index !== undefined) q.tool_call_index = p.tool_call_index;
    if (p.tool_index !== undefined) q.tool_index = p.tool_index;
    return verifyQuote(q, evidenceKinds(label, this.scale), evidenceContext(b, { parts }));
  }

  /** Items at least two annotators labelled differently, with every annotator's row and the adjudication. */
  disagreements(): Array<{ item_id: string; rows: AnnotationRow[]; adjudicated?: AdjudicationRow }> {
    const out: Array<{ item_id: string; rows: AnnotationRow[]; adjudicated?: AdjudicationRow }> = [];
    for (const id of this.itemIds()) {
      const rows = this.annotators()
        .map((a) => this.byAnnotator.get(a)!.get(id))
        .filter((r): r is AnnotationRow => !!r && r.label !== "");
      if (rows.length >= 2 && new Set(rows.map((r) => r.label)).size > 1) {
        const adj = this.adjudicated.get(id);
        out.push(adj ? { item_id: id, rows, adjudicated: adj } : { item_id: id, rows });
      }
    }
    return out;
  }

  /**
   * Record the adjudicated label of an item (written at once to `adjudication.jsonl`, apart from the annotators').
   * @throws AnnotationInputError for an unknown item, a label not on the scale, or an empty adjudicator name.
   */
  adjudicate(c: { item_id: string; label: string; adjudicator: string; note?: string }): AdjudicationRow {
    if (typeof c.item_id !== "string" || !this.order.has(c.item_id)) throw new AnnotationInputError(`item_id: ${JSON.stringify(c.item_id)} is not in this sample`);
    const label = canonicalScaleLabel(c.label, this.scale);
    if (label === null) throw new AnnotationInputError(`label: ${JSON.stringify(c.label)} is not on the ${this.scale} scale`);
    const who = typeof c.adjudicator === "string" ? c.adjudicator.trim() : "";
    if (!who || who.length > 100) throw new AnnotationInputError("adjudicator: give a name of 1 to 100 characters");
    const annotators: Record<string, string> = {};
    for (const a of this.annotators()) {
      const r = this.byAnnotator.get(a)!.get(c.item_id);
      if (r?.label) annotators[a] = r.label;
    }
    const row: AdjudicationRow = { item_id: c.item_id, annotator: "adjudicated", label, adjudicator: who, annotators, adjudicated_at: new Date().toISOString() };
    if (typeof c.note === "string" && c.note !== "") row.note = c.note.slice(0, 10_000);
    this.adjudicated.set(c.item_id, row);
    const rows = [...this.adjudicated.values()].sort((a, b) => this.order.get(a.item_id)! - this.order.get(b.item_id)!);
    writeAtomic(path.join(this.dir, ADJUDICATION_FILE), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    return row;
  }

  /** Every annotator's labels by trajectory id (for the run view's human column; not for annotators' pages). */
  humanLabels(): Map<string, Record<string, string>> {
    const out = new Map<string, Record<string, string>>();
    for (const [a, m] of this.byAnnotator) {
      for (const r of m.values()) {
        const tid = this.trajectoryIdOf(r.item_id);
        if (!tid || !r.label) continue;
        const o = out.get(tid) ?? {};
        o[a] = r.label;
        out.set(tid, o);
      }
    }
    return out;
  }
}

function stripVerification(q: VerifiedQuote): EvidenceQuote {
  const out: EvidenceQuote = { message_index: q.message_index, quote: q.quote };
  if (q.tool_call_index !== undefined) out.tool_call_index = q.tool_call_index;
  if (q.tool_index !== undefined) out.tool_index = q.tool_index;
  return out;
}
