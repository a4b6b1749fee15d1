/**
 * Annotating a sample in `ipi-judge view --sample DIR`: the items of the sample's manifest, blinded exactly as the
 * annotation export (src/sample/export.ts `blindTrajectory`: the item id for the trajectory id, no model, suite,
 * attack, source or judge view, tool-call ids replaced), and the annotators' labels.
 *
 * Files (in the sample folder; nothing else is written):
 * - `annotations/<file>.jsonl`: one annotator's labels (an annotator is known by the rows' `annotator` field, not by
 *   the file name: a file of an earlier version named otherwise, e.g. `Alice.jsonl`, stays theirs and is written to), one JSON line per item in task order:
 *   `{item_id, annotator, label, evidence?, note?, labelled_at}`; `import-annotations` reads it as it is (JSONL
 *   rows item_id/annotator/label; other fields ignored; a row without a label counts as unlabelled). After every
 *   change it is read again and rewritten whole (temp file + rename) under `<file>.jsonl.lock`, so a label is on
 *   disk before it is acknowledged and two view processes on one folder lose nothing; every read (rows,
 *   annotators, disagreements, adjudication) reads the files again. `<file>`: {@link annotatorFileName} for a new annotator. A line the rewrite
 *   could not carry over (not JSON, not a row) makes the write refused, the file left as it is.
 * - `annotations/.claims.json` (blind mode): annotator file name -> sha256 of the secret of the browser using it.
 * - `adjudication.jsonl`: the adjudicated label of items the annotators disagree on, apart from theirs (same lock):
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
import { contentSha256 } from "../io/hash.js";
import { repeatedKeyProblem } from "../io/jsonl.js";
import { restoreBidiControls, showBidiControlsExactly } from "../format/bidi.js";
import { AnnotationWriteError, withFileLock, writeAtomic } from "./file-lock.js";
import { adjudicationNote, importedSampleLabels, type ImportedLabels } from "./imported-labels.js";
import { howTheyDiffer, lookAlike, nfcName, shownName } from "../agree/annotator-names.js";
import { showInvisibleExactly } from "../format/invisible.js";
import { changedSnapshotWarnings, checkedAdjudications, rewrittenAdjudications, type AdjudicationRow } from "./adjudication-file.js";
import { isReservedAnnotator, RESERVED_ANNOTATOR } from "../agree/adjudicated.js";
import { FileChange, fileStamp } from "./file-change.js";
import { readDrawnTexts, type DrawnTexts } from "./drawn-text.js";

export { AnnotationWriteError, withFileLock };

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
  /** A label read from the `--human` file, not from an annotator file (`./imported-labels.ts`): its file name. */
  imported_from?: string;
}

export type { AdjudicationRow } from "./adjudication-file.js";

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

export { AnnotationInputError } from "./annotation-errors.js";
import { AnnotationInputError } from "./annotation-errors.js";

export { RESERVED_ANNOTATOR, isReservedAnnotator };

export { annotatorFileName, MAX_ANNOTATOR_CHARS } from "./annotator-file.js";
import { annotatorFileName } from "./annotator-file.js";

/** An item cannot be shown as it was drawn; `drawn_text` is the sample's own rendering of it when the folder holds it. */
export class ItemUnavailableError extends AnnotationInputError {
  constructor(
    message: string,
    readonly drawnText?: string,
  ) {
    super(message);
    this.name = "ItemUnavailableError";
  }
}

/** Allowed evidence kinds of a label on a scale (three-way: the union of its buckets' kinds). */
export function evidenceKinds(label: string, scale: Scale): PartKind[] {
  const buckets: Bucket[] = scale === "six" ? [label as Bucket] : (scaleLabels(scale).find((l) => l.value === label)?.buckets ?? []);
  return [...new Set(buckets.flatMap((b) => EVIDENCE_KINDS[b] ?? []))];
}

/**
 * The annotation rows of a JSONL file (none when it does not exist). A file that cannot be read, or a line that is
 * not JSON or not an annotation row, is a warning, or, with `strict` (about to be rewritten: it must not be replaced
 * unread, and a rewrite would drop the line), an AnnotationWriteError: nothing is written, nothing is lost.
 */
function readRows<T>(file: string, warnings: string[], strict = false): T[] {
  const out: T[] = [];
  if (!fs.existsSync(file)) return out;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).name;
    if (strict) throw new AnnotationWriteError(`not saved: the file could not be read before writing (${code})`);
    warnings.push(`${path.basename(file)}: could not be read (${code}), skipped`);
    return out;
  }
  const bad = (i: number, what: string) => {
    if (strict) {
      throw new AnnotationWriteError(
        `not saved: line ${i + 1} of the file is ${what} (a truncated or hand-edited line?); rewriting the file would drop it, so nothing was written; fix or remove that line`,
        `${file} line ${i + 1}: ${what}; the file was left as it is`,
      );
    }
    warnings.push(`${file} line ${i + 1}: ${what}, skipped`);
  };
  text
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      try {
        const v = JSON.parse(line);
        if (!v || typeof v !== "object" || typeof v.item_id !== "string" || typeof v.annotator !== "string") return bad(i, "not an annotation row (item_id, annotator)");
        const twice = repeatedKeyProblem(line, v); // JSON.parse kept the last of two labels in silence (break44)
        if (twice === null) out.push(v as T);
        else bad(i, twice);
      } catch (e) {
        if (e instanceof AnnotationWriteError) throw e;
        bad(i, "not JSON");
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
  private order: Map<string, number>;
  private blinded = new Map<string, Trajectory>();
  private drawn: DrawnTexts | undefined;
  private imported: ImportedLabels | undefined;
  private importedFile: string | undefined;
  private importedWatch: FileChange | undefined;

  /**
   * Open a sample folder: its `manifest.jsonl`; the annotation and adjudication files are read again at every
   * request (another view process may write them), here once for their warnings.
   * @param load re-reads a trajectory by id from the run (src/view/item.ts `loadTrajectory`).
   * @param log where the details of an item that cannot be shown go (the page gets a reason without ids or paths).
   * @throws AnnotationImportError when the manifest cannot be read; Error when the folder has none.
   */
  constructor(
    dir: string,
    private load: (trajectoryId: string) => Promise<{ trajectory: Trajectory } | { error: string }>,
    private log: (message: string) => void = (m) => process.stderr.write(`ipi-judge: view: ${m}\n`),
  ) {
    this.dir = dir;
    const mf = path.join(dir, EXPORT_FILES.manifest);
    if (!fs.existsSync(mf)) throw new Error(`${mf} not found: --sample takes a folder written by ipi-judge sample --out`);
    this.manifest = parseManifest(fs.readFileSync(mf, "utf8"), mf);
    this.scale = this.manifest.header.scale;
    this.labels = scaleLabels(this.scale);
    this.order = new Map(this.manifest.rows.map((r, i) => [r.item_id, i]));
    this.readAnnotations(this.warnings);
  }

  /** Every annotator's rows, read from the files now (a file's later row of an item wins). */
  private readAnnotations(warnings: string[] = []): Map<string, Map<string, AnnotationRow>> {
    const by = new Map<string, Map<string, AnnotationRow>>();
    const adir = path.join(this.dir, ANNOTATIONS_DIR);
    if (!fs.existsSync(adir)) return by;
    for (const f of fs.readdirSync(adir).filter((n) => n.endsWith(".jsonl")).sort()) {
      for (const r of readRows<AnnotationRow>(path.join(adir, f), warnings)) {
        if (!this.order.has(r.item_id)) {
          warnings.push(`${f}: item ${r.item_id} is not in this sample's manifest, ignored`);
          continue;
        }
        // the adjudicated consensus is read from adjudication.jsonl only, checked (./adjudication-file.ts)
        if (isReservedAnnotator(r.annotator)) {
          warnings.push(`${f}: annotator ${shownName(r.annotator)} is the reserved name of adjudicated labels: its rows here are not read (adjudications are in ${ADJUDICATION_FILE})`);
          continue;
        }
        const m = by.get(r.annotator) ?? new Map<string, AnnotationRow>();
        m.set(r.item_id, r);
        by.set(r.annotator, m);
      }
    }
    return by;
  }

  /** The adjudications shown as consensus: the rows of adjudication.jsonl that pass import's checks (./adjudication-file.ts), read now. */
  private readAdjudication(): Map<string, AdjudicationRow> {
    return checkedAdjudications(path.join(this.dir, ADJUDICATION_FILE), this.order, this.scale).rows;
  }

  /** A warning per row of adjudication.jsonl not shown as consensus, naming its line and why (read now). */
  adjudicationWarnings(): string[] {
    const file = path.join(this.dir, ADJUDICATION_FILE);
    const c = checkedAdjudications(file, this.order, this.scale);
    const by = this.labelsForAdjudication();
    const now = (id: string) => Object.fromEntries([...by].flatMap(([a, m]) => (m.get(id)?.label ? [[a, m.get(id)!.label]] : [])));
    return [...c.warnings, ...changedSnapshotWarnings(file, c.rows, now)];
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

  /** An item's text in `tasks.jsonl` (./drawn-text.ts: `refused` names a line not read); warnings join the sample's at the first read. */
  drawnText(itemId: string): { text?: string; refused?: string } {
    if (!this.drawn) {
      this.drawn = readDrawnTexts(path.join(this.dir, EXPORT_FILES.tasksJsonl));
      for (const w of this.drawn.warnings) this.log(w);
      this.warnings.push(...this.drawn.warnings);
    }
    const text = this.drawn.texts.get(itemId);
    const refused = this.drawn.refused.get(itemId);
    return { ...(text !== undefined ? { text } : {}), ...(refused !== undefined ? { refused } : {}) };
  }

  /**
   * The blinded trajectory of an item, as the sample drew it: the run's source is re-read and its content hash
   * checked against the manifest's `content_sha256` (a source edited since, even when a resumed `label` took
   * the new text, is not the item that was drawn).
   * @throws ItemUnavailableError (an AnnotationInputError) for an unknown item, an unreadable or changed source; its
   *   message names no trajectory id or path, its `drawnText` is the sample's rendering when the folder has it.
   */
  async blindedItem(itemId: string): Promise<Trajectory> {
    const cached = this.blinded.get(itemId);
    if (cached) return cached;
    const tid = this.trajectoryIdOf(itemId);
    if (tid === undefined) throw new ItemUnavailableError(`item_id: ${JSON.stringify(itemId)} is not in this sample`);
    const r = await this.load(tid);
    let why: string | undefined;
    if ("error" in r) {
      why = "its source could not be read again";
      this.log(`item ${itemId} (${tid}): ${r.error}`);
    } else {
      const want = this.manifest.rows[this.order.get(itemId)!].content_sha256;
      const sha = contentSha256(r.trajectory);
      if (typeof want === "string" && want !== sha) {
        why = "its source has changed since the sample was drawn (content hash differs from the sample's manifest)";
        this.log(`item ${itemId} (${tid}): content hash ${sha.slice(0, 12)}… differs from the manifest's ${want.slice(0, 12)}…`);
      } else if (typeof want !== "string") {
        this.log(`item ${itemId}: the manifest has no content_sha256, the text shown cannot be checked against the one drawn`);
      }
    }
    if (why) {
      const drawn = this.drawnText(itemId);
      if (drawn.refused !== undefined) this.log(`item ${itemId}: its drawn text is not shown: ${drawn.refused}`);
      throw new ItemUnavailableError(
        drawn.text !== undefined
          ? `item ${itemId} cannot be shown from its source: ${why}; the text below is the one the sample was drawn with (tasks.jsonl); evidence cannot be selected in it`
          : drawn.refused !== undefined
            ? `item ${itemId} cannot be shown: ${why}, and its line in the sample folder's tasks.jsonl cannot be read (the terminal running the view says why)`
            : `item ${itemId} cannot be shown: ${why}, and the sample folder holds no tasks.jsonl with the text it was drawn with`,
        drawn.text,
      );
    }
    const b = blindTrajectory((r as { trajectory: Trajectory }).trajectory, itemId);
    this.blinded.set(itemId, b);
    return b;
  }

  /**
   * The page's answer for an item: its blinded document, or, when it cannot be shown as drawn, `doc: null` with the
   * reason and the sample's own text of it (when the folder holds it).
   * @throws AnnotationInputError for an item not in the sample.
   */
  async itemDoc(itemId: string): Promise<{ doc: TrajectoryDoc | null; error?: string; drawn_text?: string }> {
    try {
      return { doc: trajectoryDoc(await this.blindedItem(itemId)) };
    } catch (e) {
      if (!(e instanceof ItemUnavailableError) || !this.order.has(itemId)) throw e;
      return e.drawnText !== undefined ? { doc: null, error: e.message, drawn_text: showBidiControlsExactly(e.drawnText) } : { doc: null, error: e.message };
    }
  }

  /**
   * The files of `annotations/` holding rows of `annotator` (by the rows' `annotator` field, whatever the file's
   * name: a file written by an earlier version of the view may be named otherwise, e.g. `Alice.jsonl`), read now.
   */
  filesOf(annotator: string): string[] {
    const adir = path.join(this.dir, ANNOTATIONS_DIR);
    if (!fs.existsSync(adir)) return [];
    return fs
      .readdirSync(adir)
      .filter((n) => n.endsWith(".jsonl"))
      .sort()
      .filter((f) => readRows<AnnotationRow>(path.join(adir, f), []).some((r) => r.annotator === annotator));
  }

  /**
   * The file an annotator's labels are written to: the one file already holding their rows (a legacy name is kept,
   * never a second file made), else {@link annotatorFileName}.
   * @throws AnnotationWriteError when their rows are in more than one file (`import-annotations` would refuse the
   *   folder; they must be merged by hand first).
   */
  private fileFor(annotator: string): string {
    const fname = annotatorFileName(annotator);
    const held = this.filesOf(annotator);
    if (held.length > 1) {
      throw new AnnotationWriteError(
        `not saved: this annotator's labels are in ${held.length} files of annotations/; merge them into one first (the terminal running the view names them)`,
        `annotator ${JSON.stringify(annotator)} has rows in ${held.map((f) => path.join(ANNOTATIONS_DIR, f)).join(", ")}; nothing was written`,
      );
    }
    return path.join(this.dir, ANNOTATIONS_DIR, held[0] ?? fname);
  }

  /** Names of the annotators with a file (read now). */
  annotators(): string[] {
    return [...this.readAnnotations().keys()].sort();
  }

  /**
   * Refuse a new annotator name that looks like an existing annotator's: equal after NFKC, case folding and removing
   * invisible characters, different as typed (../agree/annotator-names.ts; red team 35b F3: two such names printed
   * the same and every item they shared was a tie). A name with rows already is not new: no check.
   * @param nameOther name the existing annotator in the message (not in a blind view: annotators do not see each other).
   * @throws AnnotationInputError naming the names.
   */
  checkNewName(annotator: string, nameOther = true): void {
    const names = [...this.readAnnotations().keys()];
    if (names.includes(annotator)) return;
    const other = names.find((a) => lookAlike(a, annotator));
    if (other === undefined) return;
    const them = nameOther ? `the annotator ${shownName(other)}` : "another annotator's name";
    throw new AnnotationInputError(`annotator: ${shownName(annotator)} looks like ${them} (they differ only in ${howTheyDiffer(annotator, other)}): one person or two? Use the existing name exactly, or a name that differs visibly`);
  }

  /** One annotator's rows in task order, read from the files now. */
  rowsOf(annotator: string): AnnotationRow[] {
    const m = this.readAnnotations().get(typeof annotator === "string" ? nfcName(annotator) : "");
    return m ? [...m.values()].sort((a, b) => this.order.get(a.item_id)! - this.order.get(b.item_id)!) : [];
  }

  /**
   * Record a change and write the annotator's file ({@link fileFor}: the one file already holding their rows, even
   * under a legacy name, else {@link annotatorFileName}) at once: under the file's lock the file is read again, the
   * change applied to the row on disk and the file rewritten (temp file + rename), so two view processes on one
   * sample folder lose nothing. Nothing is returned before the file is written.
   * @returns the stored row.
   * @throws AnnotationInputError naming the field (unknown item, label not on the scale, evidence without a label,
   *   part out of range, bad name, a name whose file holds another annotator's rows); AnnotationWriteError when
   *   the file could not be written, holds a line that is not an annotation row (a rewrite would drop it), or the
   *   annotator's rows are in two files (the label is not saved, nothing is changed on disk).
   */
  async change(c: AnnotationChange): Promise<AnnotationRow> {
    if (!c || typeof c !== "object" || Array.isArray(c)) throw new AnnotationInputError("the request body must be a JSON object");
    // a name is NFC where it enters: "Zoë" composed or not is one annotator (../agree/annotator-names.ts)
    const annotator = typeof c.annotator === "string" ? nfcName(c.annotator) : "";
    annotatorFileName(annotator); // checks the name
    this.checkNewName(annotator);
    if (typeof c.item_id !== "string" || !this.order.has(c.item_id)) throw new AnnotationInputError(`item_id: ${JSON.stringify(c.item_id)} is not in this sample`);
    let label: string | undefined;
    if (c.label !== undefined) {
      const l = canonicalScaleLabel(c.label, this.scale);
      if (l === null) throw new AnnotationInputError(`label: ${JSON.stringify(c.label)} is not on the ${this.scale} scale`);
      label = l;
    }
    if (c.note !== undefined && (typeof c.note !== "string" || c.note.length > 10_000)) throw new AnnotationInputError("note: a text of at most 10,000 characters");
    if (c.evidence !== undefined && (typeof c.evidence !== "object" || c.evidence === null)) throw new AnnotationInputError("evidence: give {part, quote}");
    // the item is read before the lock (it may need the source); everything under the lock is synchronous
    let b: Trajectory | undefined;
    if (c.evidence !== undefined) b = await this.blindedItem(c.item_id);
    else if (label !== undefined) b = await this.blindedItem(c.item_id).catch(() => undefined);
    const file = this.fileFor(annotator);
    return withFileLock(file, () => {
      const onDisk = readRows<AnnotationRow>(file, [], true);
      const other = onDisk.find((r) => r.annotator !== annotator);
      if (other) throw new AnnotationInputError(`annotator: the file for ${JSON.stringify(annotator)} holds another annotator's labels; choose another name`);
      const prev = onDisk.filter((r) => r.item_id === c.item_id).pop();
      const row: AnnotationRow = prev ? { ...prev } : { item_id: c.item_id, annotator, label: "", labelled_at: "" };
      if (label !== undefined) row.label = label;
      if (c.note !== undefined) {
        if (c.note === "") delete row.note;
        else row.note = c.note;
      }
      if (c.clear_evidence) delete row.evidence;
      if (c.evidence !== undefined) {
        if (!row.label) throw new AnnotationInputError("evidence: choose a label first (what a quote must show depends on it)");
        row.evidence = [...(row.evidence ?? []), this.verify(b!, c.item_id, row.label, c.evidence)];
      } else if (label !== undefined && row.evidence?.length) {
        // a new label asks for other evidence: check the kept quotes again against it
        if (!b) throw new AnnotationInputError(`label: item ${c.item_id} cannot be read again to check its evidence against the new label; clear the evidence first`);
        const ctx = evidenceContext(b);
        row.evidence = row.evidence.map((q) => verifyQuote(stripVerification(q), evidenceKinds(row.label, this.scale), ctx));
      }
      row.labelled_at = new Date().toISOString();
      const rows = new Map(onDisk.map((r) => [r.item_id, r]));
      rows.set(c.item_id, row);
      const sorted = [...rows.values()].filter((r) => this.order.has(r.item_id)).sort((x, y) => this.order.get(x.item_id)! - this.order.get(y.item_id)!);
      const unknown = [...rows.values()].filter((r) => !this.order.has(r.item_id));
      writeAtomic(file, [...sorted, ...unknown].map((r) => JSON.stringify(r)).join("\n") + "\n");
      return row;
    });
  }

  /**
   * Verify an annotator's quote. The page shows bidi controls as markers (`⟨U+202E⟩`, src/format/bidi.ts), so a
   * selection across one holds the marker: it is tried with the markers turned back into the controls first.
   */
  private verify(b: Trajectory, itemId: string, label: string, ev: { part: number; quote: string }): VerifiedQuote {
    const parts = trajectoryParts(b);
    if (!Number.isInteger(ev?.part) || ev.part < 0 || ev.part >= parts.length) throw new AnnotationInputError(`evidence.part: no part ${JSON.stringify(ev?.part)} in item ${itemId}`);
    if (typeof ev.quote !== "string" || ev.quote.length > 5000) throw new AnnotationInputError("evidence.quote: a text of at most 5,000 characters");
    const p = parts[ev.part];
    const ctx = evidenceContext(b, { parts });
    const at = (quote: string) => {
      const q: EvidenceQuote = { message_index: p.message_index, quote };
      if (p.tool_call_index !== undefined) q.tool_call_index = p.tool_call_index;
      if (p.tool_index !== undefined) q.tool_index = p.tool_index;
      return verifyQuote(q, evidenceKinds(label, this.scale), ctx);
    };
    const controls = restoreBidiControls(ev.quote);
    if (controls !== ev.quote) {
      const v = at(controls);
      if (v.verified) return v;
    }
    return at(ev.quote);
  }

  /**
   * Read the labels of a human-label file (`view --human FILE`: e.g. `import-annotations` of a filled tasks.csv)
   * beside the annotator files, for disagreements and adjudication (`./imported-labels.ts`; new-user report 31, L4).
   * @throws HumanLabelsError when the file cannot be read.
   */
  useImported(file: string): void {
    this.importedWatch = new FileChange(() => fileStamp(file));
    this.importedFile = file;
    this.readImported();
  }

  /**
   * Read the `--human` file again when it changed since its last read (fix 39: rows appended while the view runs are
   * adjudicated without a restart); its warnings replace those of its last read. A file that cannot be read now keeps
   * the labels of its last read, with a warning. @throws HumanLabelsError on the first read only.
   */
  private readImported(): void {
    if (!this.importedFile || !this.importedWatch?.changed()) return;
    const before = this.imported;
    let next: ImportedLabels;
    try {
      next = importedSampleLabels(this.importedFile, this.manifest, this.scale);
    } catch (e) {
      if (!before) throw e;
      next = { ...before, warnings: [`${path.basename(this.importedFile)} could not be read again (${(e as Error).message}): the labels of its last read are used`] };
    }
    for (const w of before?.warnings ?? []) {
      const i = this.warnings.indexOf(w);
      if (i !== -1) this.warnings.splice(i, 1);
    }
    this.imported = next;
    this.warnings.push(...next.warnings);
  }

  /** Why the disagreements list is empty when too few annotators' labels were found (`./imported-labels.ts`), else null. */
  adjudicationNote(): string | null {
    const by = this.labelsForAdjudication();
    return adjudicationNote([...by.values()].filter((m) => [...m.values()].some((r) => r.label)).length, this.imported?.file);
  }

  /** The annotator files' rows, with the imported labels of (annotator, item) pairs no file labels (rows marked `imported_from`). */
  private labelsForAdjudication(): Map<string, Map<string, AnnotationRow>> {
    this.readImported();
    const by = this.readAnnotations();
    for (const [a, items] of this.imported?.labels ?? []) {
      let m = by.get(a);
      if (!m) by.set(a, (m = new Map()));
      for (const [id, label] of items) if (!m.get(id)?.label) m.set(id, { item_id: id, annotator: a, label, labelled_at: "", imported_from: path.basename(this.imported!.file) });
    }
    return by;
  }

  /** Items at least two annotators labelled differently, with every annotator's row and the adjudication (files read now). */
  disagreements(): Array<{ item_id: string; rows: AnnotationRow[]; adjudicated?: AdjudicationRow }> {
    const by = this.labelsForAdjudication();
    const adjudicated = this.readAdjudication();
    const names = [...by.keys()].sort();
    const out: Array<{ item_id: string; rows: AnnotationRow[]; adjudicated?: AdjudicationRow }> = [];
    for (const id of this.itemIds()) {
      const rows = names.map((a) => by.get(a)!.get(id)).filter((r): r is AnnotationRow => !!r && r.label !== "");
      if (rows.length >= 2 && new Set(rows.map((r) => r.label)).size > 1) {
        const adj = adjudicated.get(id);
        out.push(adj ? { item_id: id, rows, adjudicated: adj } : { item_id: id, rows });
      }
    }
    return out;
  }

  /**
   * Record the adjudicated label of an item (written at once to `adjudication.jsonl`, apart from the annotators',
   * read again and rewritten under its lock).
   * @throws AnnotationInputError for an unknown item, an item the annotators do not disagree on, a label not on the
   *   scale, or an empty adjudicator name;
   *   AnnotationWriteError when the file could not be written.
   */
  async adjudicate(c: { item_id: string; label: string; adjudicator: string; note?: string }): Promise<AdjudicationRow> {
    if (!c || typeof c !== "object" || Array.isArray(c)) throw new AnnotationInputError("the request body must be a JSON object");
    if (typeof c.item_id !== "string" || !this.order.has(c.item_id)) throw new AnnotationInputError(`item_id: ${JSON.stringify(c.item_id)} is not in this sample`);
    const label = canonicalScaleLabel(c.label, this.scale);
    if (label === null) throw new AnnotationInputError(`label: ${JSON.stringify(c.label)} is not on the ${this.scale} scale`);
    const who = typeof c.adjudicator === "string" ? nfcName(c.adjudicator) : "";
    if (!who || who.length > 100) throw new AnnotationInputError("adjudicator: give a name of 1 to 100 characters");
    const file = path.join(this.dir, ADJUDICATION_FILE);
    return withFileLock(file, () => {
      const annotators: Record<string, string> = {};
      for (const [a, m] of [...this.labelsForAdjudication()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
        const r = m.get(c.item_id);
        if (r?.label) annotators[a] = r.label;
      }
      // the file is read first: a line the rewrite would drop refuses the write whatever the request
      const onDisk = readRows<AdjudicationRow>(file, [], true);
      // adjudication settles a disagreement: an item one annotator labelled, or all alike, has none (red team 35b F4)
      if (new Set(Object.values(annotators)).size < 2) {
        const had = Object.entries(annotators).map(([a, l]) => `${showInvisibleExactly(a)}=${l}`).join(", ");
        throw new AnnotationInputError(`item_id: item ${c.item_id} has no disagreement to adjudicate (${had ? `its labels: ${had}` : "no annotator labelled it"}); adjudication settles items two or more annotators labelled differently`);
      }
      const row: AdjudicationRow = { item_id: c.item_id, annotator: "adjudicated", label, adjudicator: who, annotators, adjudicated_at: new Date().toISOString() };
      if (typeof c.note === "string" && c.note !== "") row.note = c.note.slice(0, 10_000);
      // every other row is kept as it is, rows of items outside the sample too (./adjudication-file.ts)
      writeAtomic(file, rewrittenAdjudications(onDisk, row, this.order));
      return row;
    });
  }

  /** Every annotator's labels by trajectory id, files read now (for the run view's human column; not for annotators' pages). */
  humanLabels(): Map<string, Record<string, string>> {
    const out = new Map<string, Record<string, string>>();
    for (const [a, m] of this.readAnnotations()) {
      for (const r of m.values()) {
        const tid = this.trajectoryIdOf(r.item_id);
        if (!tid || !r.label) continue;
        const o = out.get(tid) ?? {};
        o[a] = r.label;
        out.set(tid, o);
      }
    }
    // the sample's adjudications (adjudication.jsonl), under their reserved name: a page started with a label file
    // from before the adjudication still shows it (new-user report 38 F7); the page marks it as the consensus
    // only the rows that pass import's checks, and under the reserved name whatever a row's annotator field says (red team 37c F1)
    for (const r of this.readAdjudication().values()) {
      const tid = this.trajectoryIdOf(r.item_id);
      if (!tid || !r.label) continue;
      out.set(tid, { ...(out.get(tid) ?? {}), [RESERVED_ANNOTATOR]: r.label });
    }
    return out;
  }

  /**
   * Blind mode: whether the browser holding `secret` may act as `annotator` (./claims.ts `claimName`).
   * @returns `{secret}` to keep in the browser (a new one when it had none), or `{refused}` with the reason.
   * @throws AnnotationInputError for a bad name; AnnotationWriteError when the claim cannot be written.
   */
  async claim(annotator: string, secret: string | undefined): Promise<{ secret: string } | { refused: string }> {
    // a blind view does not name another annotator
    return claimName({ dir: this.dir, filesOf: (a) => this.filesOf(a), checkNewName: (a) => this.checkNewName(a, false) }, annotator, secret);
  }
}

export { CLAIMS_FILE } from "./claims.js";
import { claimName } from "./claims.js";

function stripVerification(q: VerifiedQuote): EvidenceQuote {
  const out: EvidenceQuote = { message_index: q.message_index, quote: q.quote };
  if (q.tool_call_index !== undefined) out.tool_call_index = q.tool_call_index;
  if (q.tool_index !== undefined) out.tool_index = q.tool_index;
  return out;
}
