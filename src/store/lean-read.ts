/**
 * Streaming, compact readers of a closed run's journals for the commands after `label` (agree, committee, compare,
 * estimate, report, sample): the same records `readVerdicts(dir, { slim: true })` and `readTrajectoryIndex` of
 * `./records.ts` return, in the same order with the same supersede rules, but read line by line and held
 * compactly: every repeated string (judge, model, label, status, condition, suite, hashes...) and every repeated
 * small object (usage, error, the slim findings, reference, metadata, surfaces) is one shared instance, and a
 * verdict's `trajectory_id` is the index row's own string. Superseded verdicts are found with one map per
 * (judge, repeat) slot keyed by that shared id string, not with a key string built per line.
 *
 * The shared objects must not be mutated: they are the records of many verdicts (no reader after `label` does).
 * What a full verdict holds beyond the slim fields (rationale, quotes, raw replies) is read back by id when a
 * command shows it ({@link readFullVerdicts}).
 */
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import type { Verdict } from "../types.js";
import { isIndexRecord, verdictRecordCheck, NOT_INDEX_ROW, NOT_VERDICT, slimVerdict, type TrajectoryIndexRow } from "./records.js";
import { journalSkips, noteUnattackedRelabels, noteVerdictsWithoutRow } from "./skipped-lines.js";
import { OlderRules } from "./old-rules.js";
import { applyUnattackedRule } from "../rubric/unattacked.js";
import { noteRemovedLeftOut, removedIds } from "./removed-ids.js";
import { contentCode } from "./content-code.js";
import { StaleVerdicts } from "./stale-verdicts.js";

/** Where a reader is: bytes of the file read so far and the file's size (for a progress display). */
export type ReadProgress = (done: number, total: number, file: string) => void;

/**
 * Share equal values: strings by value, small objects by their JSON text. Bounded per field: after `cap` distinct
 * values of one field it adds no more of that field (a value that is unique per record, such as a run's duration in
 * `metadata` or a file's `file_stamp`, would otherwise be held twice, once as the key), and returns new values as
 * they are. The cap is counted per field, not over all fields: one field of unique values must not stop the sharing
 * of the others (a shared cap filled by the index rows' `metadata` and `file_stamp` left every verdict of a run of
 * more than ~10k trajectories with its own prototype: ~4 KB a trajectory, issue 26 at 1M, session 41). A value
 * already held is shared whatever field asks for it.
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly objects = new Map<string, unknown>();
  /** distinct values added, by field */
  private readonly added = new Map<string, number>();
  constructor(private readonly cap = 20_000) {}
  /** Whether `field` may add one more distinct value (and count it). */
  private room(field: string): boolean {
    const n = this.added.get(field) ?? 0;
    if (n >= this.cap) return false;
    this.added.set(field, n + 1);
    return true;
  }
  /** The shared instance of a string (undefined and non-strings pass through); `field` names whose cap counts it. */
  s<T>(x: T, field = ""): T {
    if (typeof x !== "string") return x;
    const hit = this.strings.get(x);
    if (hit !== undefined) return hit as T;
    if (this.room(field)) this.strings.set(x, x);
    return x;
  }
  /** The shared instance of a JSON value equal to `x` (undefined passes through); `field` names whose cap counts it. */
  o<T>(x: T, field = ""): T {
    if (x === undefined || x === null || typeof x !== "object") return x;
    const k = JSON.stringify(x);
    const hit = this.objects.get(k);
    if (hit !== undefined) return hit as T;
    if (this.room(field)) this.objects.set(k, x);
    return x;
  }
}

/**
 * Lines of a file, with the bytes read so far; nothing when the file does not exist. A line that is not blank and
 * that the caller cannot use is `skip(line)`ped: counted by line number for the command's warning (`./skipped-lines.ts`).
 */
export async function* lines(file: string, progress: ReadProgress | undefined, what: string): AsyncGenerator<{ text: string; skip: () => void; at: number }> {
  if (!fs.existsSync(file)) return;
  const skips = journalSkips(file, what);
  let at = 0;
  const skip = () => skips.bad(at);
  const total = fs.statSync(file).size;
  const input = fs.createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 });
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    if (progress && ++n % 4096 === 0) progress(input.bytesRead, total, file);
    at++;
    yield { text: line, skip, at };
  }
  skips.end(at);
  progress?.(total, total, file);
}

/** Parse one journal line: the record when it parses and passes `isRecord`, else undefined (skipped, as `readJsonl`). */
export function parseLine<T>(line: string, isRecord: (v: unknown) => boolean): T | undefined {
  if (!line.trim()) return undefined;
  try {
    const v: unknown = JSON.parse(line);
    return isRecord(v) ? (v as T) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A verdict's slim fields (`slimVerdict` of `./records.ts`: the same fields, in the same order) with every
 * repeated value shared through `it`. The fields other than `trajectory_id` (judge, label, status, the slim
 * findings...) take few distinct values over a run: they are one shared object per distinct combination, the
 * prototype of each verdict, which owns only its `trajectory_id` (`id`, the shared id string). Property reads see
 * every field; a spread or `Object.keys` sees only `trajectory_id` (no reader after `label` copies a verdict).
 */
function leanVerdict(v: Verdict, id: string, it: Interner): Verdict {
  // the slim shape is records.ts's (`slimVerdict`, one definition); all of it but the id goes to the shared prototype
  const { trajectory_id: _id, ...rest } = slimVerdict(v);
  const shared = it.o(rest, "\u0000verdict");
  const out = Object.create(shared) as Verdict;
  out.trajectory_id = id;
  return out;
}

/** In a (judge, repeat) slot map: the trajectory's verdicts were all made on another text than its row's now. */
const STALE_ONLY = -1;

/** Options of {@link readLeanVerdicts}. */
export interface LeanVerdictOptions {
  /** every prompt's and configuration's verdicts (as `readVerdicts(dir, { allPrompts: true })`) */
  allPrompts?: boolean;
  /** the run's index (`readLeanIndex`): a verdict's trajectory id becomes its row's id string (one copy) */
  index?: Map<string, TrajectoryIndexRow>;
  /** shared values (pass the index's to share model and condition strings too) */
  interner?: Interner;
  progress?: ReadProgress;
  /**
   * each row's content hash as `contentCode` (`readLeanIndex`'s `contentCodes`): a verdict made on other content is
   * left out (`./stale-verdicts.ts`); default: the `content_sha256` of `index`'s rows, when kept
   */
  contentCodes?: ReadonlyMap<string, number>;
}

/**
 * Read a run's current verdicts compactly: what `readVerdicts(runDir, { slim: true })` returns (the last one
 * stored per trajectory, judge and repeat, in storage order of the last; `allPrompts`: per trajectory, judge,
 * repeat, prompt and configuration), streamed, with repeated values shared. Lines that do not parse or are not
 * verdicts are skipped, as `readVerdicts` skips them. Each verdict is read through the unattacked rule as there
 * (`applyUnattackedRule`; `attacked` from the verdict, else from `index`), its count noted once; the trajectories
 * whose input is gone are left out (`./removed-ids.ts`, said once), and so are the verdicts made on another text than
 * their row's now (`./stale-verdicts.ts`; with `index` or `contentCodes` only): the current verdict per key is the
 * last made on the text now (or recording no hash); when there is none, none, said once.
 * @param runDir the run folder (`<labelsDir>/<run>`).
 */
export async function readLeanVerdicts(runDir: string, o: LeanVerdictOptions = {}): Promise<Verdict[]> {
  const it = o.interner ?? new Interner();
  const out: Array<Verdict | null> = [];
  const slots = new Map<string, Map<string, number>>(); // (judge, repeat[, prompt, config]) -> trajectory id -> position
  let superseded = 0;
  const relabelled: number[] = []; // positions of verdicts the unattacked rule relabelled
  const gone = removedIds(runDir);
  const stale = new StaleVerdicts();
  const olderRules = new OlderRules(); // current verdicts verified under older rules (./old-rules.ts)
  const rowContent = (id: string): number => o.contentCodes?.get(id) ?? contentCode(o.index?.get(id)?.content_sha256);
  const check = verdictRecordCheck(path.join(runDir, "verdicts.jsonl"));
  for await (const line of lines(path.join(runDir, "verdicts.jsonl"), o.progress, NOT_VERDICT)) {
    const v = parseLine<Verdict>(line.text, (x) => check(x, line.at));
    if (!v) {
      if (line.text.trim()) line.skip();
      continue;
    }
    if (gone.has(v.trajectory_id)) continue;
    const c = contentCode(v.content_sha256);
    const now = c === -1 ? -1 : rowContent(v.trajectory_id);
    const id = o.index?.get(v.trajectory_id)?.id ?? it.s(v.trajectory_id, "trajectory_id");
    const slotKey = o.allPrompts ? `${v.judge_id}\u0000${v.repeat}\u0000${v.prompt_sha256}\u0000${v.judge_config_sha256 ?? ""}` : `${v.judge_id}\u0000${v.repeat}`;
    let slot = slots.get(slotKey);
    if (!slot) slots.set(slotKey, (slot = new Map()));
    const prev = slot.get(id);
    // made on another text than the row's now: not current, and it supersedes nothing; the key is marked stale only
    // while no verdict on the text now is seen (A -> B -> A: the older verdict on A stays current, ./stale-verdicts.ts)
    if (now !== -1 && now !== c) {
      if (prev === undefined) slot.set(id, STALE_ONLY);
      continue;
    }
    if (prev !== undefined && prev !== STALE_ONLY) {
      out[prev] = null; // keep file order = storage order of the last
      superseded++;
    }
    slot.set(id, out.length);
    const r = applyUnattackedRule(v, v.attacked ?? o.index?.get(v.trajectory_id)?.attacked);
    if (r.relabelled) relabelled.push(out.length);
    olderRules.see(v, out.length);
    out.push(leanVerdict(r.verdict, id, it));
  }
  for (const [key, slot] of slots) {
    const judge = key.slice(0, key.indexOf("\u0000"));
    for (const [id, at] of slot) if (at === STALE_ONLY) stale.add(judge, id);
  }
  stale.note(runDir);
  noteUnattackedRelabels(runDir, relabelled.filter((i) => out[i] !== null).length);
  olderRules.noteCurrent(runDir, (i) => out[i] !== null);
  noteRemovedLeftOut(runDir, gone);
  const current = superseded ? (out.filter((v) => v !== null) as Verdict[]) : (out as Verdict[]);
  const index = o.index;
  if (index) {
    noteVerdictsWithoutRow(runDir, current, (id) => index.has(id));
  }
  return current;
}

/** Options of {@link readLeanIndex}. */
export interface LeanIndexOptions {
  /** keep `source` (the statistics do not read it; sample and report read the rows they show in full, {@link readIndexRows}) */
  source?: boolean;
  /**
   * keep `content_sha256` (sample deduplicates by content; the statistics do not read it): of every row, or of the
   * rows of these ids only (the human-labelled trajectories, whose labels are checked against it)
   */
  content?: boolean | ReadonlySet<string>;
  /**
   * keep only these fields' values (besides `id`, and `source`/`content_sha256` as asked): every other field reads
   * undefined, as a dropped `source` does (sample's population reads its strata fields only; a row's `metadata`,
   * unique per row, is most of what a compact row holds)
   */
  only?: readonly string[];
  interner?: Interner;
  progress?: ReadProgress;
  /** filled with each row's content hash as `contentCode` of `./columns.ts` (for `readLeanVerdicts`), kept or not */
  contentCodes?: Map<string, number>;
}

/**
 * A record with its repeated values shared through `it` (strings by value, objects by JSON text), changed in
 * place (its key order and fast shape kept); `trajectory_id` becomes the index row's id string when `index` has it.
 */
export function leanRecord<T extends object>(r: T, it: Interner, index?: Map<string, { id: string }>): T {
  const o = r as Record<string, unknown>;
  for (const k in o) {
    const v = o[k];
    if (k === "trajectory_id" && typeof v === "string") o[k] = index?.get(v)?.id ?? v;
    else o[k] = typeof v === "string" ? it.s(v, k) : it.o(v, k);
  }
  return r;
}

/**
 * An index row with its repeated values shared; `source` and `content_sha256` set to undefined unless kept (a
 * read gives undefined as for an absent field; JSON output leaves them out). The parsed object is changed in
 * place, keeping its fast shape: a row rebuilt key by key (17 keys) becomes a dictionary, several times larger.
 */
function leanRow(t: TrajectoryIndexRow, it: Interner, keep: { source: boolean; content: boolean | ReadonlySet<string>; only?: readonly string[] }): TrajectoryIndexRow {
  const r = t as unknown as Record<string, unknown>;
  const content = keep.content === true || (keep.content !== false && keep.content.has(t.id));
  for (const k in r) {
    if (k === "id") continue;
    if (keep.only && k !== "source" && k !== "content_sha256" && !keep.only.includes(k)) r[k] = undefined;
    else if (k === "source") {
      if (!keep.source) r[k] = undefined;
    } else if (k === "content_sha256") {
      if (!content) r[k] = undefined;
    } else {
      const v = r[k];
      r[k] = typeof v === "string" ? it.s(v, k) : it.o(v, k);
    }
  }
  return t;
}

/**
 * Read a run's trajectory index compactly: what `readTrajectoryIndex(runDir)` returns (the latest row per id, in
 * the map order of first appearance), streamed, repeated values shared, and without `source` and
 * `content_sha256` unless asked (`source`, `content`: a command that reads them must ask).
 * @param runDir the run folder (`<labelsDir>/<run>`).
 */
export async function readLeanIndex(runDir: string, o: LeanIndexOptions = {}): Promise<Map<string, TrajectoryIndexRow>> {
  const it = o.interner ?? new Interner();
  const m = new Map<string, TrajectoryIndexRow>();
  const gone = removedIds(runDir);
  for await (const line of lines(path.join(runDir, "trajectories.jsonl"), o.progress, NOT_INDEX_ROW)) {
    const t = parseLine<TrajectoryIndexRow>(line.text, isIndexRecord);
    if (t && gone.has(t.id)) continue;
    if (t) o.contentCodes?.set(t.id, contentCode(t.content_sha256));
    if (t) m.set(t.id, leanRow(t, it, { source: o.source === true, content: o.content ?? false, only: o.only }));
    else if (line.text.trim()) line.skip();
  }
  noteRemovedLeftOut(runDir, gone);
  return m;
}

/**
 * The run's index and current verdicts, compactly (`readLeanIndex` then `readLeanVerdicts`, sharing one interner
 * and the ids).
 */
export async function readLeanRun(
  runDir: string,
  o: { source?: boolean; content?: LeanIndexOptions["content"]; allPrompts?: boolean; progress?: ReadProgress } = {},
): Promise<{ index: Map<string, TrajectoryIndexRow>; verdicts: Verdict[] }> {
  const interner = new Interner();
  const contentCodes = new Map<string, number>(); // a verdict on other content than its row's is left out
  const index = await readLeanIndex(runDir, { source: o.source, content: o.content, interner, progress: o.progress, contentCodes });
  const verdicts = await readLeanVerdicts(runDir, { index, interner, allPrompts: o.allPrompts, progress: o.progress, contentCodes });
  return { index, verdicts };
}

/**
 * The full stored records of some verdicts, read back by trajectory id: for each id in `ids`, its current verdicts
 * (last per judge and repeat, as `readVerdicts`, through the same unattacked rule), in storage order. One pass over
 * `verdicts.jsonl`; only the wanted records are kept.
 * @param ids the trajectories whose verdicts are wanted (a few hundred: what a report lists).
 * @param contentNow each trajectory's `content_sha256` now (its index row's): when given, a verdict made on another
 *   text is not current and supersedes nothing, as the figures read it (`./stale-verdicts.ts`; no note here).
 */
export async function readFullVerdicts(
  runDir: string,
  ids: ReadonlySet<string>,
  progress?: ReadProgress,
  contentNow?: (id: string) => string | undefined,
): Promise<Verdict[]> {
  const byKey = new Map<string, Verdict>();
  const gone = removedIds(runDir);
  const check = verdictRecordCheck(path.join(runDir, "verdicts.jsonl"));
  for await (const line of lines(path.join(runDir, "verdicts.jsonl"), progress, NOT_VERDICT)) {
    const v = parseLine<Verdict>(line.text, (x) => check(x, line.at));
    if (!v && line.text.trim()) line.skip();
    if (!v || !ids.has(v.trajectory_id) || gone.has(v.trajectory_id)) continue;
    const now = contentNow?.(v.trajectory_id);
    if (now && typeof v.content_sha256 === "string" && v.content_sha256 && v.content_sha256 !== now) continue;
    const k = `${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}`;
    byKey.delete(k);
    byKey.set(k, applyUnattackedRule(v, v.attacked).verdict);
  }
  return [...byKey.values()];
}

/**
 * The full stored index rows of some trajectories (the latest row per id, as `readTrajectoryIndex`), read back by
 * id in one pass over `trajectories.jsonl`: what sample and report need of the few rows they export or show
 * (`source`, `content_sha256`).
 * @param ids the trajectories wanted.
 * @returns the rows by id (an id without a row is absent).
 */
export async function readIndexRows(runDir: string, ids: ReadonlySet<string>, progress?: ReadProgress): Promise<Map<string, TrajectoryIndexRow>> {
  const m = new Map<string, TrajectoryIndexRow>();
  const gone = removedIds(runDir);
  for await (const line of lines(path.join(runDir, "trajectories.jsonl"), progress, NOT_INDEX_ROW)) {
    const t = parseLine<TrajectoryIndexRow>(line.text, isIndexRecord);
    if (!t && line.text.trim()) line.skip();
    if (t && ids.has(t.id) && !gone.has(t.id)) m.set(t.id, t);
  }
  return m;
}
