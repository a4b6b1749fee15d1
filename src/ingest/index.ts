// src/ingest/: input formats in, canonical Trajectory records out: one file per format, format detection,
// the streaming reader with its line framing (lines.ts), and the formats' warnings and errors.
/**
 * The ingest stage: trajectory corpora in, canonical {@link Trajectory} records out, streamed.
 *
 * Formats: `agentdojo` (one run log per `*.json` file, see ./agentdojo.ts; also AgentDyn and VIGIL), `chat-jsonl`
 * (one trajectory per line of a `*.jsonl` file, see ./chat-jsonl.ts), `inspect` (Inspect AI `.eval` zips and
 * `.json` logs, one trajectory per sample and epoch, see ./inspect.ts) and `shell` (mini-SWE-agent / SWE-agent
 * trajectories, `.traj` and `.json`, see ./shell.ts). A `.json` file's content tells which of agentdojo, inspect
 * and shell it is. Bad inputs never stop the read: each becomes one error item
 * (an {@link IngestError}) and the good items still come out, unless `strict` is set.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import type { IngestError, Trajectory } from "../types.js";
import { convertAgentDojo, parseAgentDojoBytes, type ConvertResult } from "./agentdojo.js";
import { convertInspectLog, countEvalSamples, isInspectLog, readInspectEval } from "./inspect-read.js";
import type { InspectOptions } from "./inspect.js";
import { convertShell, isShellTrajectory } from "./shell.js";
import { withChatShapeHint } from "./chat-shape.js";
import { unlessRepeatedKey } from "./repeated-keys.js";
import { oneDocumentError } from "./one-document.js";
import { chatSpanLine, parsesAlone, prettyRecordError } from "./pretty-record.js";
import { PrettySpans, type SpanOut } from "../io/pretty-spans.js";
import { parseChatLineBytes, type MappableField } from "./chat-jsonl.js";
import { IngestFatalError, ingestError, tooLargeError } from "./errors.js";
import { countNonBlankLines, isBlank, rawLines } from "./lines.js";
import { plan, type InputFormat } from "./detect.js";
export { INPUT_FORMATS, type InputFormat } from "./detect.js";
import { chatFallbackIdPath, fallbackIdRoot, idPath } from "./ids.js";
import { errText, EVAL_EXT, inputFiles, JSON_EXT, PathTable, Relinked, signalTurn, type InputFile } from "./walk.js";
import { SameFiles } from "./same-files.js";
import { IdSlots, type Interner } from "../store/compact.js";
import { parseJson, decodeUtf8Strict, decodeFailure } from "./text.js";
import { WarningCollector, type IngestWarning, type ItemWarning } from "./warnings.js";
import { normalizeGroupNames } from "./group-names.js";
import { familyOf } from "./family.js";
import { attackContradiction, normalizeAttack, normalizeCondition } from "./attacked.js";
import { unchangedHit, type InputStamp, type UnchangedFile, type UnchangedItem } from "./unchanged.js";
export type { InputStamp, UnchangedFile, UnchangedHit, UnchangedItem } from "./unchanged.js";
import { resolvedPath } from "./resolved.js";
import { readJsonBytes } from "./read-file.js";
import { ChangedDuringRead, changedDuringReadError, pathStamp, stampChanges } from "./changed.js";
import { DuplicatePlaces, placeSuffix, sameBytes } from "./duplicates.js";
import { RetryCopies } from "./retry-copies.js";
import { jsonSidecarKept, PassedOver, sidecarPlan } from "./sidecars.js";
import { OwnFolders } from "./own-folders.js";
import { isPlaceholderFile } from "./placeholder-count.js";

export { familyOf, FAMILY_PATTERNS } from "./family.js";
export { inputFiles, type InputFile } from "./walk.js";
export { DETECT_SAMPLE_LINES } from "./detect.js";
export { chatFallbackIdPath, fallbackIdRoot, idPath } from "./ids.js";
export { IngestFatalError, ingestError, type IngestErrorKind } from "./errors.js";
export { convertAgentDojo, splitDefense, agentDojoLayout, KNOWN_DEFENSES, NO_DEFENSE, attributeRun } from "./agentdojo.js";
export { NOTE_KINDS, WHERE_LEFT_OUT, WarningCollector, type IngestWarning, type ItemWarning } from "./warnings.js";
export { convertChatLine, openAIText, parseFieldMap, FIELD_ALIASES, MAPPABLE_FIELDS, type MappableField } from "./chat-jsonl.js";

import type { ReadOptions } from "./read-options.js";
export type { ReadOptions } from "./read-options.js";

/**
 * The reading loop gives the event loop a turn (`setImmediate`) before every READ_TURN-th `.json` file it reads, so
 * that what waits (a judge's replies, a signal) runs between reads. One turn per file cost a promise, an immediate
 * and a poll of the event loop per trajectory; the signature judge's pool sends its trajectories in batches of up to
 * 8 at such a turn (`../judges/signature/pool.ts` `BATCH`). Issue 26.
 */
export const READ_TURN = 8;

/** The default {@link ReadOptions.maxItemBytes}: 64 MiB (the largest real AgentDojo run log is under 1 MB). */
export const DEFAULT_MAX_ITEM_BYTES = 64 * 1024 * 1024;

/** `opts.maxItemBytes`, checked. @throws RangeError when it is not a positive number */
function maxItemBytes(opts: ReadOptions): number {
  const m = opts.maxItemBytes ?? DEFAULT_MAX_ITEM_BYTES;
  if (typeof m !== "number" || Number.isNaN(m) || m <= 0) {
    throw new RangeError(`maxItemBytes must be a positive number of bytes (or Infinity), not ${String(m)}`);
  }
  return m;
}

/**
 * One item of a read: a trajectory, or an error standing for one unreadable file or line. A trajectory that was the
 * one item of its `.json` file (its id not renamed) carries the file's `stamp` (size in bytes and mtime in ms, from
 * the open file before it was read, and the warnings the file raised): what a resume compares to take the file as
 * unchanged unread ({@link readTrajectoriesResuming}).
 */
export type IngestItem =
  | { kind: "trajectory"; trajectory: Trajectory; stamp?: InputStamp; /** its warnings, held (ReadOptions.holdItemWarnings) */ warnings?: ItemWarning[] }
  | { kind: "error"; error: IngestError };


/** A conversion result as read items, its warnings collected. */
function itemOf(r: ConvertResult, ctx?: ReadContext): IngestItem {
  if (r.ok && r.warnings && ctx) ctx.said.push(...r.warnings);
  const item: IngestItem = r.ok ? { kind: "trajectory", trajectory: r.trajectory } : { kind: "error", error: r.error };
  if (r.ok && r.warnings) for (const w of r.warnings) warnOn(item, w, ctx);
  return item;
}

/** Aggregate an item's warning, or hold it on the item (ReadOptions.holdItemWarnings). */
function warnOn(item: IngestItem, w: ItemWarning, ctx?: ReadContext): void {
  if (ctx?.hold && item.kind === "trajectory") (item.warnings ??= []).push(w);
  else ctx?.warnings.add(w);
}

/**
 * Read and convert one `.json` file (or any file forced to `agentdojo`, `inspect` or `shell`). Without a forced
 * format the content decides: an Inspect `EvalLog` (`eval.task` and `samples`/`status`) gives one item per
 * sample, a mini-SWE-agent/SWE-agent trajectory one item, anything else is read as one AgentDojo run.
 */
function readJsonFile(file: string, max: number, idRoot: string, ctx?: ReadContext, opts: ReadOptions = {}): IngestItem[] {
  const read = readJsonBytes(file, max);
  if ("error" in read) return [{ kind: "error", error: read.error }];
  const items = convertJsonFile(file, read.bytes, idRoot, ctx, opts);
  // the stamp of a file that gave one trajectory (a resume may take it as unchanged, its warnings said again)
  if (items.length === 1 && items[0].kind === "trajectory") items[0].stamp = read.stamp;
  return items;
}

/** The items of one `.json` file's bytes ({@link readJsonFile}). */
function convertJsonFile(file: string, bytes: Buffer, idRoot: string, ctx?: ReadContext, opts: ReadOptions = {}): IngestItem[] {
  const read = { bytes };
  const format = opts.format;
  if (format === undefined || format === "agentdojo") {
    if (format === undefined) {
      // sniff: parse once, dispatch by shape
      const decoded = decodeUtf8Strict(read.bytes);
      if (decoded.ok) {
        const parsed = parseJson(decoded.text);
        if (parsed.ok && isInspectLog(parsed.value)) {
          return convertInspectLog(decoded.text, parsed.value as Record<string, unknown>, file, idPath(idRoot, file).replace(/\.json$/i, ""), inspectOpts(opts)).map((r) => itemOf(r, ctx));
        }
        if (parsed.ok && isShellTrajectory(parsed.value)) {
          return [itemOf(unlessRepeatedKey(decoded.text, parsed.value, file, () => convertShell(parsed.value, { path: file, idPath: idPath(idRoot, file).replace(/(\.traj)?\.json$/i, "") })), ctx)];
        }
        if (parsed.ok) return [itemOf(unlessRepeatedKey(decoded.text, parsed.value, file, () => withChatShapeHint(convertAgentDojo(parsed.value, agentDojoSource(file, idRoot, ctx)), parsed.value, decoded.text)), ctx)];
      }
    }
    return [itemOf(parseAgentDojoBytes(read.bytes, agentDojoSource(file, idRoot, ctx)), ctx)];
  }
  const decoded = decodeUtf8Strict(read.bytes);
  if (!decoded.ok) return [{ kind: "error", error: decodeFailure(decoded, file) }];
  const parsed = parseJson(decoded.text);
  if (!parsed.ok) return [{ kind: "error", error: ingestError("invalid_json", file, parsed.message) }];
  if (format === "inspect") {
    if (!isInspectLog(parsed.value)) return [{ kind: "error", error: ingestError("schema", file, "not an Inspect log: needs an `eval` object with `task`, and `samples` or `status`") }];
    return convertInspectLog(decoded.text, parsed.value as Record<string, unknown>, file, idPath(idRoot, file).replace(/\.json$/i, ""), inspectOpts(opts)).map((r) => itemOf(r, ctx));
  }
  return [itemOf(unlessRepeatedKey(decoded.text, parsed.value, file, () => convertShell(parsed.value, { path: file, idPath: idPath(idRoot, file).replace(/(\.traj)?(\.json)?$/i, "") })), ctx)];
}

function agentDojoSource(file: string, idRoot: string, ctx?: ReadContext) {
  return { path: file, root: idRoot, siblings: ctx?.siblings(file) ?? [] };
}

function inspectOpts(opts: ReadOptions): InspectOptions {
  const o: InspectOptions = {};
  if (opts.securityScorer !== undefined) o.securityScorer = opts.securityScorer;
  if (opts.utilityScorer !== undefined) o.utilityScorer = opts.utilityScorer;
  if (opts.fieldMap !== undefined) o.fieldMap = opts.fieldMap;
  return o;
}

/** What one read shares across files: the warning collector and a cache of model-folder listings. */
interface ReadContext {
  warnings: WarningCollector;
  /** items hold their own warnings (ReadOptions.holdItemWarnings) */
  hold: boolean;
  /** the warnings raised by the current file's items, in order (a stamped file's, said again when a resume passes it over) */
  said: ItemWarning[];
  /** The folder names beside the model folder of an AgentDojo-layout file (`<model>/<suite>/<task>/<attack>/<file>`). */
  siblings(file: string): readonly string[];
}

function readContext(hold = false): ReadContext {
  const listings = new Map<string, readonly string[]>();
  // the last file's folder as given and the listing its files get (the same for every file of that folder, and a walk
  // reads a folder's files one after another): one entry, not a map (a map of every folder grew with the corpus,
  // ~30 MB at 1,000,000 files)
  let lastFolder: string | undefined;
  let lastNames: readonly string[] = [];
  return {
    warnings: new WarningCollector(),
    hold,
    said: [],
    siblings(file: string) {
      // a file named `<folder>/<name>` resolves to resolve(<folder>)/<name>: the listing depends on its folder only
      const cut = file.lastIndexOf(path.sep);
      const base = file.slice(cut + 1);
      const folder = cut > 0 && base !== "" && base !== "." && base !== ".." ? file.slice(0, cut) : undefined;
      if (folder !== undefined && folder === lastFolder) return lastNames;
      const parent = path.dirname(path.dirname(path.dirname(path.dirname(path.dirname(resolvedPath(file))))));
      let names = listings.get(parent);
      if (names === undefined) {
        try {
          names = readdirSync(parent, { withFileTypes: true }).filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name);
        } catch {
          names = [];
        }
        listings.set(parent, names);
      }
      if (folder !== undefined) {
        lastFolder = folder;
        lastNames = names;
      }
      return names;
    },
  };
}

/** Apply {@link ReadOptions.overrides} to one trajectory (in place). */
function applyOverrides(t: Trajectory, o: NonNullable<ReadOptions["overrides"]>): void {
  for (const k of ["agent_model", "condition", "attack"] as const) {
    const v = o[k];
    if (v === undefined) continue;
    if (t[k] !== undefined && t[k] !== v) (t.metadata ??= {})[`original_${k}`] = t[k];
    t[k] = v;
  }
  if (o.agent_model !== undefined) {
    const fam = familyOf(o.agent_model);
    if (fam !== undefined) t.agent_family = fam;
    else delete t.agent_family;
  }
}

/** The items of one file, without the duplicate-id check. */
async function* readOne(f: InputFile, format: InputFormat | undefined, max: number, idRoot: string, ctx?: ReadContext, opts: ReadOptions = {}): AsyncGenerator<IngestItem> {
  const pl = await plan(f.file, format, max);
  if (pl.as === "error") {
    yield { kind: "error", error: pl.error };
    return;
  }
  if (pl.as === "unknown") {
    yield { kind: "error", error: ingestError("unknown_format", f.file, pl.why) };
    return;
  }
  if (pl.as === "inspect" && EVAL_EXT.test(f.file)) {
    // the zip is read by offsets from its directory: its stamp before and after (red team 31 F4, ./changed.ts)
    const before = pathStamp(f.file);
    let n = 0;
    for await (const r of readInspectEval(f.file, idPath(idRoot, f.file).replace(/\.eval$/i, ""), max, inspectOpts(opts))) {
      n++;
      yield itemOf(r, ctx);
    }
    const after = pathStamp(f.file);
    const changes = before === undefined ? [] : after === undefined ? ["the path is gone"] : stampChanges(before, after);
    if (changes.length > 0) {
      const kept = n === 0 ? "nothing of it is kept" : `the ${n} sample item(s) read before the end were kept and may mix two versions: check them`;
      yield { kind: "error", error: changedDuringReadError(f.file, changes, kept) };
    }
    return;
  }
  if (pl.as === "agentdojo" || pl.as === "inspect" || pl.as === "shell") {
    yield* readJsonFile(f.file, max, idRoot, ctx, { ...opts, format: pl.as === "agentdojo" && opts.format === undefined ? undefined : pl.as });
    return;
  }
  const relPath = chatFallbackIdPath(f.file);
  let sawLine = false;
  let rows = 0;
  // a record written over several lines (pretty-printed) is one error for its span (./pretty-record.ts)
  const spans = new PrettySpans<ConvertResult>(max);
  const chatItem = (r: ConvertResult): IngestItem => {
    const item: IngestItem = r.ok ? { kind: "trajectory", trajectory: r.trajectory } : { kind: "error", error: r.error };
    if (r.ok && r.warnings) for (const w of r.warnings) warnOn(item, w, ctx);
    return item;
  };
  const settled = function* (outs: SpanOut<ConvertResult>[]): Generator<IngestItem> {
    for (const o of outs) yield o.kind === "span" ? { kind: "error", error: prettyRecordError(f.file, o) } : chatItem(o.at.item);
  };
  try {
    // a file that changes while it is read stops at the change (red team 31 F4; ./changed.ts)
    for await (const { line, bytes, tooLong } of rawLines(f.file, { maxLineBytes: max, guard: true })) {
      if (tooLong !== undefined) {
        sawLine = true;
        yield* settled(spans.end());
        yield { kind: "error", error: tooLargeError(f.file, "line", tooLong, max, { line }) };
        continue;
      }
      if (isBlank(bytes)) continue;
      sawLine = true;
      rows++;
      const r = parseChatLineBytes(bytes, { path: f.file, line, relPath }, { fieldMap: opts.fieldMap });
      // a first line that is not JSON: the file may be one pretty-printed document, said once (./one-document.ts)
      const whole = rows === 1 && !r.ok && r.error.kind === "invalid_json" ? oneDocumentError(f.file, max) : undefined;
      if (whole !== undefined) {
        yield { kind: "error", error: whole };
        return;
      }
      // no search open and the line is JSON: read as ever, nothing held or allocated for the search
      if (spans.idle && parsesAlone(r)) yield chatItem(r);
      else yield* settled(spans.push(chatSpanLine(line, bytes, r)));
    }
    yield* settled(spans.end());
  } catch (e) {
    if (e instanceof ChangedDuringRead) {
      yield* settled(spans.end());
      const kept =
        rows === 0
          ? "nothing of it is kept"
          : `only its first ${e.linesBefore} line(s) (${rows} item(s)), all read before the change, are kept and labelled; nothing after them was read`;
      yield { kind: "error", error: changedDuringReadError(f.file, e.changes, kept) };
      return;
    }
    yield { kind: "error", error: ingestError("read_error", f.file, `cannot read file: ${errText(e)}`) };
    return;
  }
  if (!sawLine) yield { kind: "error", error: ingestError("invalid_json", f.file, "empty file: no JSON lines") };
  else ctx?.warnings.total(f.file, rows);
}

/**
 * Read trajectories from files and directories, streamed.
 *
 * - `paths`: files or directories (walked recursively in sorted order, see {@link inputFiles}).
 * - Format per file: `*.json` = an Inspect log (`eval.task` + `samples`), a shell-agent trajectory
 *   (`trajectory_format` / `info` + `messages` / `trajectory` + `history`) or else one AgentDojo run log;
 *   `*.eval` = Inspect zip (streamed, one sample in memory at a time); `*.traj` = SWE-agent; `*.jsonl` = chat-jsonl, one trajectory per non-blank line,
 *   when any of its first {@link DETECT_SAMPLE_LINES} non-blank lines has `messages` (a bad line among them is an
 *   error of its own); a `.jsonl` where none has gives one `unknown_format` error. A corpus's sidecar files met in
 *   a walked folder (`manifest.jsonl`, README, licence, checksums: `./sidecars.ts`) are no error: passed over
 *   unless they hold trajectories, and named at the end in one warning of kind `passed_over` per input folder; one
 *   that cannot be read (a dangling link, no permission) is a `read_error` like any file. A file or folder reached
 *   twice through symbolic links is read once, said in one note of kind `linked_twice` per input path. A folder of
 *   ipi-judge's own output (`opts.labelsRoot`, a label run, an annotation sample: ./own-folders.ts) is passed over
 *   whole, said in one note of kind `own_output` per folder.
 *   `opts.format` overrides detection for every file.
 * - Memory: one AgentDojo file at a time; chat-jsonl line by line (64 KiB chunks), each line bounded by the
 *   limit. Only the ids read so far are kept (for the duplicate check).
 * - Errors are items `{kind: "error", error: {path, line?, message_index?, kind, message, trajectory_id?}}`, one
 *   per bad file or line, with kinds `read_error`, `invalid_utf8`, `invalid_json`, `schema`, `no_messages`,
 *   `unknown_format`, `too_large`, `duplicate_id` (a trajectory id seen before in this read from another input, another
 *   line or another Inspect sample of the same file included: the first is kept, the later one is an error naming
 *   both places), `duplicate_input` (the same file, line or sample given twice, or a byte-identical copy of a run
 *   file or Inspect log: read once; ./duplicates.ts). Messages name the file, the line, the field (`messages[3]...`, with
 *   `message_index`), and what is wrong.
 *
 * - Ids: a trajectory's own id (chat-jsonl `id`; AgentDojo: the layout path `<model>/<suite>/<user_task>/<attack>/
 *   <injection_task>`); without one, a fallback from the file's path: chat-jsonl `<path>:<line>` with the path
 *   from the current directory ({@link chatFallbackIdPath}: the same whatever else is read); AgentDojo `<path>`
 *   without `.json`, relative to {@link fallbackIdRoot}(paths) (the common ancestor of all inputs).
 * - Size: an AgentDojo file or a chat-jsonl line over `opts.maxItemBytes` (default 64 MiB) is one `too_large`
 *   error naming its size and the limit, found before the item is read whole.
 *
 * @returns an async generator of {@link IngestItem}; items come in input order.
 * @throws {@link IngestFatalError} on the first error when `opts.strict` is true (never on an `empty_placeholder`:
 *   no bad input); RangeError (before anything is read) when `opts.maxItemBytes` is not a positive number. Nothing
 *   else is thrown.
 */
export function readTrajectories(paths: string[], opts: ReadOptions = {}): AsyncGenerator<IngestItem> {
  return readItems(paths, opts) as AsyncGenerator<IngestItem>;
}

/**
 * {@link readTrajectories} for a resume (`label` over a run that holds rows): before reading a `.json` file (format
 * detected, not forced), its stamp (size and mtime, `fs.statSync`) and resolved path go to `unchanged`; when that
 * names the trajectory a run stored from it with that stamp, the file is not read and one `unchanged` item stands
 * for it (its id taken by the duplicate checks as a read would). Every other file is read as by readTrajectories.
 * @returns the items in input order, `unchanged` ones among them. @throws as {@link readTrajectories}.
 */
export function readTrajectoriesResuming(paths: string[], opts: ReadOptions, unchanged: UnchangedFile): AsyncGenerator<ResumeItem> {
  return readItems(paths, opts, unchanged);
}

async function* readItems(paths: string[], opts: ReadOptions = {}, unchanged?: UnchangedFile): AsyncGenerator<ResumeItem> {
  const max = maxItemBytes(opts);
  const idRoot = await fallbackIdRoot(paths);
  const ids = opts.ids ?? new IdSlots(); // one copy of each id for both tables
  /** AgentDojo layout id -> the file that first had it (resolved): a different run with the same id is renamed. */
  const firstFile = new PathTable<string>(ids, { folders: opts.folders });
  /**
   * id -> the input it was first read from (absolute path, and line for a JSON Lines row); for most ids that is the
   * file `firstFile` holds, kept there once (`PathTable`'s `same` table)
   */
  const seen = new PathTable<string>(ids, { same: firstFile, folders: opts.folders });
  opts.onMetSlots?.((slot) => seen.hasSlot(slot));
  const dups = new DuplicatePlaces();
  const retries = new RetryCopies();
  const ctx = readContext(opts.holdItemWarnings === true);
  const passedOver = new PassedOver();
  const relinked = new Relinked();
  const same = new SameFiles();
  const own = new OwnFolders();
  // hard links are not de-duplicated: a file hard-linked under another benchmark path (`cp -al` per condition, a
  // de-duplicating backup) is a distinct trajectory by its path, as a copy would be (red team 14); only symbolic links
  // and the same folder under two input paths are the same input
  try {
    yield* readAll();
  } finally {
    for (const w of ctx.warnings.drain()) opts.onWarning?.(w);
    for (const w of passedOver.warnings()) opts.onWarning?.(w);
    for (const w of relinked.warnings()) opts.onWarning?.(w);
    for (const w of same.warnings()) opts.onWarning?.(w);
    for (const w of own.warnings()) opts.onWarning?.(w);
  }
  async function* readAll(): AsyncGenerator<ResumeItem> {
    let hits = 0;
    let reads = 0;
    for await (const f of inputFiles(paths, { sidecars: true, relinked, same, held: opts.heldFile, labels: opts.labelsRoot, own, ahead: unchanged !== undefined && opts.format === undefined })) {
      ctx.said = [];
      // An AgentDojo file is one item read synchronously: no generator per file. One event-loop turn every
      // READ_TURN files read (`setImmediate`) lets pending I/O (e.g. judge replies) run between reads, instead of
      // reading a whole read-ahead in one block.
      let items: AsyncIterable<IngestItem> | IngestItem[];
      const side = "error" in f || !f.sidecar ? undefined : await sidecarPlan(f, opts.format !== undefined, max);
      if ("error" in f) items = [{ kind: "error", error: f.error }];
      else if (typeof side === "object") items = [{ kind: "error", error: side.error }]; // an unreadable sidecar
      else if (side === "skip") {
        // a manifest, README, licence or checksums (./sidecars.ts): named at the end, not an input error
        passedOver.add(f);
        opts.onPassedOver?.(f.file);
        continue;
      } else if (side === "json") {
        items = readJsonFile(f.file, max, idRoot ?? f.root, ctx, opts);
        if (!jsonSidecarKept(items)) {
          passedOver.add(f);
          opts.onPassedOver?.(f.file);
          continue;
        }
      } else if (opts.format === "agentdojo" || (opts.format === undefined && JSON_EXT.test(f.file))) {
        const hit = unchanged && opts.format === undefined ? unchangedHit(f.file, max, unchanged, { seen, firstFile, warnings: ctx.warnings, real: f.real, stat: f.stat }) : undefined;
        if (hit) {
          if (++hits % 64 === 0) await new Promise<void>((r) => setImmediate(r));
          yield hit;
          continue;
        }
        if (++reads % READ_TURN === 0) await new Promise<void>((r) => setImmediate(r));
        items = readJsonFile(f.file, max, idRoot ?? f.root, ctx, opts);
      } else items = readOne(f, opts.format, max, idRoot ?? f.root, ctx, opts);
      for await (let item of items) {
        if (item.kind === "trajectory") {
          const t = item.trajectory;
          if (opts.overrides) applyOverrides(t, opts.overrides);
          // An attack field saying "no attack" beside recorded injected text is said by name in every format (the
          // chat JSONL and Inspect readers say it with the input's own field names; the others here)
          if (t.source.format !== "chat-jsonl" && t.source.format !== "inspect") {
            const place = `${t.source.path}${t.source.line !== undefined ? `:${t.source.line}` : ""}`;
            const w = attackContradiction(t, { scope: t.source.path, item: place, attackField: t.source.format === "agentdojo" ? "attack_type" : "attack", injectionsField: "injections" });
            if (w !== undefined) {
              warnOn(item, w, ctx);
              ctx.said.push(w);
            }
          }
          // one normalization of every group name (model, suite, condition, attack, tasks), said (./group-names.ts)
          for (const w of normalizeGroupNames(t)) {
            warnOn(item, w, ctx);
            ctx.said.push(w);
          }
          // One definition of "attacked" for every format (./attacked.ts): an attack value meaning "no attack" goes.
          normalizeAttack(t);
          // ... and of "no defense" (finding 6): "none", "None", "" ... are the condition no_defense in every format
          normalizeCondition(t);
          const file = resolvedPath(t.source.path);
          const layoutRun = t.source.format === "agentdojo" && t.metadata?.model_dir !== undefined;
          const first = layoutRun ? firstFile.get(t.id) : undefined;
          if (layoutRun && first === undefined) firstFile.set(t.id, file);
          if (first !== undefined && first !== file && !sameBytes(first, file)) {
            // Two different runs with the same layout id (VIGIL's debug_run/<model>/... and
            // debug_run/travel/type_ii_a/<model>/...): the later one gets its path from the input folder as its id.
            // The same file given twice, or a byte-identical copy, stays a duplicate.
            const longer = idPath(idRoot ?? path.dirname(file), t.source.path).replace(/\.json$/i, "");
            if (longer !== t.id && !seen.has(longer)) {
              warnOn(item, idCollision(t.source.path, t.id, longer), ctx);
              delete item.stamp; // a renamed id depends on the other files read: read again on every resume
              t.id = longer;
            }
          }
          // the item's place names it within its file (line, Inspect entry): ./duplicates.ts
          const firstFrom = seen.get(t.id);
          const retry = retries.error(t, file, firstFrom === undefined); // Inspect eval-retry copies: read once
          if (firstFrom !== undefined || retry) {
            for (const w of item.warnings ?? []) ctx.warnings.add(w); // a duplicate is an error: its held warnings are said here
            item = { kind: "error", error: retry ?? dups.error(firstFrom!, file, t.source, t.id) };
          }
          else seen.set(t.id, file + placeSuffix(t.source));
          if (item.kind === "trajectory" && item.stamp && ctx.said.length > 0) item.stamp = { ...item.stamp, warnings: [...ctx.said] };
        }
        // an empty placeholder (a combination the benchmark never ran) and an input given twice (read once) are no bad input: --strict does not stop on them
        if (item.kind === "error" && opts.strict && item.error.kind !== "empty_placeholder" && item.error.kind !== "duplicate_input") throw new IngestFatalError(item.error);
        yield item;
      }
    }
  }
}

/** An item of {@link readTrajectoriesResuming}. */
export type ResumeItem = IngestItem | UnchangedItem;

/** The warning for a layout id already taken by another file: scoped to the file's model folder. */
function idCollision(file: string, id: string, longer: string): ItemWarning {
  const scope = path.dirname(path.dirname(path.dirname(path.dirname(file))));
  return {
    kind: "id_collision",
    scope,
    message: `${scope}: runs whose id <model>/<suite>/<user_task>/<attack>/<file> was already taken by another file of this read (e.g. "${id}") get their path from the input folder as id (e.g. "${longer}"); the first file read keeps the short id`,
    item: file,
  };
}

/**
 * A cheap pre-pass giving the number of items {@link readTrajectories} will yield for the same arguments (for a
 * progress bar): 1 per AgentDojo file, 1 per non-blank line of a chat-jsonl file (counted from the bytes, nothing
 * parsed), 1 per file or path that will be an error (unknown format, empty, unreadable). Duplicate ids do not
 * change the count (they turn an item into an error item).
 *
 * `opts.signal` stops it within a few files (`signalTurn`: a Ctrl-C then stops `label` before it reads), returning the count so far.
 * @returns the expected item count (non-negative integer). Never throws for unreadable paths.
 * @throws RangeError when `opts.maxItemBytes` is not a positive number
 */
export async function countInputs(paths: string[], opts: ReadOptions & { signal?: AbortSignal } = {}): Promise<number> {
  return (await countInputItems(paths, opts)).items;
}

/**
 * {@link countInputs}, and how many of the items are empty placeholders (`placeholders`: AgentDojo files the read
 * yields as `empty_placeholder` items, passed over at once: ./placeholder-count.ts), for a total of the work to do.
 */
export async function countInputItems(paths: string[], opts: ReadOptions & { signal?: AbortSignal } = {}): Promise<{ items: number; placeholders: number }> {
  const max = maxItemBytes(opts);
  let n = 0;
  let placeholders = 0;
  let files = 0;
  for await (const f of inputFiles(paths, { sidecars: true, labels: opts.labelsRoot })) {
    if (await signalTurn(opts.signal, ++files)) return { items: n, placeholders };
    if ("error" in f) {
      n++;
      continue;
    }
    if (f.sidecar) {
      // passed over unless it holds trajectories (./sidecars.ts); a JSON sidecar is read to tell
      const side = await sidecarPlan(f, opts.format !== undefined, max);
      if (side === "skip") continue;
      if (typeof side === "object") {
        n++; // an unreadable sidecar: one error item
        continue;
      }
      if (side === "json") {
        n += jsonSidecarKept(readJsonFile(f.file, max, f.root)) ? 1 : 0;
        continue;
      }
    }
    const pl = await plan(f.file, opts.format, max);
    if (pl.as === "inspect" && EVAL_EXT.test(f.file)) {
      n += await countEvalSamples(f.file);
      continue;
    }
    if (pl.as !== "chat-jsonl") {
      n++;
      if (pl.as === "agentdojo" && isPlaceholderFile(f.file)) placeholders++;
      continue;
    }
    let lines: number;
    try {
      lines = await countNonBlankLines(f.file);
    } catch {
      lines = 1;
    }
    n += Math.max(lines, 1);
  }
  return { items: n, placeholders };
}
