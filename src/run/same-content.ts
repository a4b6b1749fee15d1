/**
 * The same trajectory counted under two ids (red team 37 F2/F3): a chat-JSONL file without ids labelled again from
 * another directory (its fallback ids `<path>:<line>` are relative to the working directory), a copy of a file that
 * is not byte-identical (a byte-identical copy is read once), a run file read under two layouts. The run's index
 * holds the equal content hashes: label's summary says how many trajectories share their content with another id,
 * naming a few pairs with their files, and how to keep one. Nothing is left out: two real runs can be equal (a
 * deterministic agent run twice), and which one to keep is the user's choice. (Inspect's `eval-retry` copies, the
 * same sample and epoch with the same content in two logs, are read once by the reader: `../ingest/retry-copies.ts`.)
 *
 * Cost: fixed-width per trajectory (slots, content codes and positions in typed arrays) at the end of label; the
 * index rows of the ids that share a content hash, and only those, are kept from the read-back.
 */

import fs from "node:fs";
import path from "node:path";
import type { TrajectoryIndexRow } from "../store/records.js";
import { writeSameContent, type SameContentRecord } from "../store/same-content-record.js";
import { CandidatePairs, copiesAcrossCells } from "./copies-across-cells.js";
import { sameSampleEpochs } from "../ingest/inspect-epochs.js";

/** How many pairs the warning names. */
const SHOWN = 3;

/** What the warning reads of the run's store (`RunStore`): slots and content codes, no string per trajectory. */
export interface ContentSource {
  /** the exact id table: an id's slot (-1 when none) and a slot's id (a new string each call) */
  readonly idSlots: { find(id: string): number; id(slot: number): string; readonly size: number };
  /** the content hash by slot, as a code: equal hashes, equal codes (-1: none); `pool.find("")` the empty hash's */
  readonly hashes: { code(slot: number): number; readonly pool: { find(sha: string): number } };
  /** where an id was read from (path, `:line` for a JSON Lines row); a relative one resolved from this directory */
  trajectorySource(id: string): string | undefined;
  /** whether an id's source was recorded as a relative path */
  trajectorySourceRelative(id: string): boolean;
}

/**
 * The warning for trajectories of `ids` whose content hash another id of `ids` has in the same cell (agent model,
 * condition, attack, suite, user task, injection task), or undefined when none. Equal content in two cells is two
 * runs (an unattacked run a defense left unchanged, a DRIFT run that never met its injection: 13 and 89 such pairs
 * in the AgentDojo defenses and AgentDyn corpora), not said.
 *
 * Memory (issue 26): fixed-width per trajectory, ~21 bytes (typed arrays by position and by slot), whatever the
 * number grouped; no string per trajectory is kept (the ids are read one at a time and dropped; a row's cell is two
 * interned codes, one string per distinct (agent model, condition, attack, suite) and per distinct (user task,
 * injection task)). Held as a Set of ids and a Map of cells, a run of 300,000 copies grew the heap by ~150 MB at the
 * end of label (1,000,000: a 807 MB peak against the 500 MB target); one interned key per distinct whole cell, where
 * each copy's agent model is its folder's, by ~100 MB at 1,000,000 (a resume's end: 367 -> 440 MiB RSS); the byte
 * check's candidate pairs (one per trajectory of equal content in another cell) held as pair arrays, ~75 bytes each:
 * now the first CHECK_LIMIT held, the others counted (`CandidatePairs`).
 * @param ids the trajectories the summary counts (consumed once).
 * @param store the run's store: slots, content codes and sources (a relative source is shown as recorded, relative to
 *   the directory it was labelled from, not resolved from this one).
 * @param rows streams the run's index rows whose id `wanted.has` to `each` (called only when some ids share a content
 *   hash); a later row of an id replaces an earlier one.
 */
export async function sameContentWarning(
  ids: Iterable<string>,
  store: ContentSource,
  rows: (wanted: { has(id: string): boolean }, each: (row: TrajectoryIndexRow) => void) => Promise<void>,
): Promise<string | undefined> {
  return (await sameContentFinding(ids, store, rows))?.text;
}

/**
 * What {@link sameContentWarning} says, with its parts for the run folder's record (`../store/same-content-record.ts`,
 * which every figure command says): `count` trajectories sharing content in `groups` groups, `extra` of them counted
 * more than once, the first pairs, and the folders (where their files are now, or were recorded) of every one.
 */
export async function sameContentFinding(
  ids: Iterable<string>,
  store: ContentSource,
  rows: (wanted: { has(id: string): boolean }, each: (row: TrajectoryIndexRow) => void) => Promise<void>,
): Promise<SameContentRecord | undefined> {
  const g = sharedContentGroups(ids, store);
  if (g.groups === 0) return undefined;
  const { slots, order, starts } = g;
  // position (in `slots`) of each grouped slot, -1 for the others; the cell of each position, as an interned code
  const posOf = new Int32Array(store.idSlots.size).fill(-1);
  for (let k = 0; k < order.length; k++) posOf[slots[order[k]]] = order[k];
  // the cell of each position as two interned codes, (agent model, condition, attack, suite) and (user task,
  // injection task): each distinct pair held once as a string, not one key per trajectory (at 1,000,000 copies
  // whose agent model is their folder's, one key per trajectory grew the heap by ~100 MB at the end of label)
  const runOf = new Int32Array(slots.length).fill(-1);
  const taskOf = new Int32Array(slots.length).fill(-1);
  const runCodes = new Map<string, number>();
  const taskCodes = new Map<string, number>();
  const codeIn = (m: Map<string, number>, k: string): number => {
    let c = m.get(k);
    if (c === undefined) m.set(k, (c = m.size));
    return c;
  };
  const grouped = (id: string) => {
    const s = store.idSlots.find(id);
    return s >= 0 && s < posOf.length && posOf[s] !== -1;
  };
  await rows({ has: grouped }, (r) => {
    const pos = posOf[store.idSlots.find(r.id)];
    runOf[pos] = codeIn(runCodes, JSON.stringify([r.agent_model, r.condition, r.attack, r.suite]));
    taskOf[pos] = codeIn(taskCodes, JSON.stringify([r.user_task_id, r.injection_task_id]));
  });
  const pairs: Array<[number, number]> = [];
  const folders = new Set<string>();
  // equal content in another cell: a candidate copy, compared byte for byte below (./copies-across-cells.ts); the
  // first CHECK_LIMIT held, the others counted (a run of copies has one per trajectory)
  const across = new CandidatePairs();
  let extra = 0;
  let epochs = 0; // of `extra`, epochs of one Inspect sample: real runs, not copies
  let groups = 0;
  for (let gi = 0; gi + 1 < starts.length; gi++) {
    const first = new Map<string, number>();
    const counted = new Set<string>();
    for (let k = starts[gi]; k < starts[gi + 1]; k++) {
      const pos = order[k];
      const cell = `${runOf[pos]} ${taskOf[pos]}`; // one cell, one pair of codes (a position no row named: -1 -1)
      const had = first.get(cell);
      if (had === undefined) {
        first.set(cell, pos);
        if (k > starts[gi]) across.add(order[starts[gi]], pos);
        continue;
      }
      extra++;
      if (sameSampleEpochs(store.idSlots.id(slots[had]), store.idSlots.id(slots[pos]))) epochs++;
      if (folders.size < FOLDERS) for (const f of whereApart(store, store.idSlots.id(slots[had]), store.idSlots.id(slots[pos]))) folders.add(f);
      if (!counted.has(cell)) (counted.add(cell), groups++);
      if (pairs.length < SHOWN) pairs.push([had, pos]);
    }
  }
  const fileOf = (pos: number) => {
    const src = store.trajectorySource(store.idSlots.id(slots[pos]));
    return src === undefined || src === "" || /:\d+$/.test(src) ? undefined : src;
  };
  const copies = copiesAcrossCells(across, fileOf, SHOWN);
  if (extra === 0 && copies.copies === 0) return undefined;
  const named = (pos: number) => {
    const id = store.idSlots.id(slots[pos]);
    const src = store.trajectorySource(id);
    const shown = src !== undefined && store.trajectorySourceRelative(id) ? path.relative(process.cwd(), src) : src;
    // a recorded file no longer there (its folder moved or renamed): said, not named as if it were the place now
    const gone = src !== undefined && src !== "" && !fs.existsSync(src.replace(/:\d+$/, ""));
    return `${JSON.stringify(id)}${shown ? ` (${gone ? `recorded from ${shown}, not there now` : shown})` : ""}`;
  };
  const copied = copies.copies ? copiesPart(copies, copies.first.map(([a, b]) => `${named(a)} = ${named(b)}`)) : undefined;
  if (extra === 0) return { text: copied!.text, count: 0, extra: 0, groups: 0, pairs: [], folders: [], copies: copied!.record };
  const n = extra + groups;
  const named2 = pairs.map(([a, b]) => `${named(a)} = ${named(b)}`);
  const text =
    `same_content: ${n} trajectories of this run hold the content (messages, injections, tools) of another one of the same agent model, ` +
    `condition, attack, suite and tasks under another id (${groups} group${groups === 1 ? "" : "s"}; ${extra} more than once counted), and each counts in every figure: ` +
    `${named2.join("; ")}. ` +
    (epochs === extra ? epochsText(epochs) : `${epochs ? `${epochsText(epochs)}. For the others: ` : ""}` +
    `If that is one trajectory read twice (a copy of an input file that is not byte-identical; a chat-JSONL file whose lines ` +
    `have no id, labelled from another directory: such ids are <path relative to the working directory>:<line>), keep one: ` +
    `remove the copy from the inputs and label them into a new --run, give the lines an id, or label from the directory the ` +
    `run was first labelled from`);
  return { text: copied ? `${text}; ${copied.text}` : text, count: n, extra, groups, pairs: named2, folders: [...folders].sort(), ...(epochs ? { epochs } : {}), ...(copied ? { copies: copied.record } : {}) };
}

/** What the finding says of `n` trajectories that are epochs of one Inspect sample: real runs, to keep. */
export function epochsText(n: number): string {
  return (
    `${n} of them ${n === 1 ? "is an epoch" : "are epochs"} of one Inspect sample (ids that differ only in _epoch_<n>): repeated runs of one task that gave the same trajectory, ` +
    `real runs, not copies: keep them (the rates' intervals treat epochs as independent runs: the inspect_epochs warning)`
  );
}

/** The finding's part for byte-identical files in two cells (./copies-across-cells.ts): its text and its record. */
function copiesPart(c: { candidates: number; checked: number; copies: number }, shown: string[]): { text: string; record: NonNullable<SameContentRecord["copies"]> } {
  const bound = c.checked < c.candidates;
  const record = { count: c.copies, checked: c.checked, candidates: c.candidates, pairs: shown };
  const text =
    `same_file_other_cell: ${bound ? "at least " : ""}${c.copies} input file${c.copies === 1 ? " is a byte-identical copy" : "s are byte-identical copies"} of another input file, read under another id in another cell ` +
    `(agent model, condition, attack, suite or tasks; ${bound ? `${c.checked} of the ${c.candidates} pairs of equal content in different cells compared byte for byte` : `of ${c.candidates} pair${c.candidates === 1 ? "" : "s"} of equal content in different cells`}): ${shown.join("; ")}. ` +
    `A copy is not a run: each copy counts as a run of its folder's condition, so a comparison of the two cells compares a run with itself ` +
    `(equal content across cells is real, byte-identical files are not: a benchmark's log carries its pipeline and timings). ` +
    `If a folder was copied by mistake, remove it from the inputs and label them into a new --run`;
  return { text, record };
}

/** How many folders a finding names. */
const FOLDERS = 8;

/**
 * Where two ids of equal content part: each one's recorded file path up to the first folder (or file) in which they
 * differ (`runs/gemini-1.5-pro-002` and `runs/gemini-renamed`; `in/a.jsonl` and `in/b.jsonl`), relative to here when
 * recorded relative; the one file when both are rows of it; "(no recorded file)" for an id without one.
 */
function whereApart(store: ContentSource, a: string, b: string): string[] {
  const shown = (id: string) => {
    const src = store.trajectorySource(id);
    if (src === undefined || src === "") return undefined;
    const file = src.replace(/:\d+$/, "");
    return store.trajectorySourceRelative(id) ? path.relative(process.cwd(), file) || file : file;
  };
  const fa = shown(a);
  const fb = shown(b);
  if (fa === undefined || fb === undefined) return [fa ?? "(no recorded file)", fb ?? "(no recorded file)"];
  const pa = fa.split(path.sep);
  const pb = fb.split(path.sep);
  let k = 0;
  while (k < pa.length - 1 && k < pb.length - 1 && pa[k] === pb[k]) k++;
  return [pa.slice(0, k + 1).join(path.sep), pb.slice(0, k + 1).join(path.sep)];
}

/**
 * The ids grouped by equal stored content hash, groups of two or more only, without a string per id: each id's slot
 * and its hash's code in the store's pool (equal hashes, equal codes: the pool holds a value once), positions sorted
 * by code. `slots[pos]` is the slot of the pos-th id; `order[starts[g]] .. order[starts[g + 1] - 1]` are the positions
 * of group g, in the order the ids came (stable sort); `groups` how many.
 */
function sharedContentGroups(ids: Iterable<string>, store: ContentSource): { slots: Int32Array; order: Uint32Array; starts: number[]; groups: number } {
  let slots: Int32Array<ArrayBuffer> = new Int32Array(1024);
  let codes: Int32Array<ArrayBuffer> = new Int32Array(1024);
  let n = 0;
  const empty = store.hashes.pool.find("");
  for (const id of ids) {
    const s = store.idSlots.find(id);
    const c = s === -1 ? -1 : store.hashes.code(s);
    if (c === -1 || c === empty) continue;
    if (n === slots.length) {
      slots = grow(slots);
      codes = grow(codes);
    }
    slots[n] = s;
    codes[n++] = c;
  }
  slots = slots.subarray(0, n);
  const all = new Uint32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  all.sort((a, b) => codes[a] - codes[b] || a - b);
  // keep the runs of equal codes of two or more, in sorted order
  const order = new Uint32Array(n);
  const starts: number[] = [0];
  let m = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && codes[all[j]] === codes[all[i]]) j++;
    if (j - i > 1) {
      for (let k = i; k < j; k++) order[m++] = all[k];
      starts.push(m);
    }
    i = j;
  }
  return { slots, order: order.subarray(0, m), starts, groups: starts.length - 1 };
}

/** A typed array twice as long, with the same first elements. */
function grow(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * Record a run's finding (or its absence) in the run folder for the figure commands (`../store/same-content-record.ts`);
 * a write that fails is added to `warnings` (the figures would then not say it).
 */
export function recordSameContent(runDir: string, finding: SameContentRecord | undefined, warnings: string[]): void {
  try {
    writeSameContent(runDir, finding);
  } catch (e) {
    warnings.push(`cannot write ${path.join(runDir, "same-content.json")} (${(e as Error).message}): the figure commands will not say which trajectories this run counts twice; run label again`);
  }
}
