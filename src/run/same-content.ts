/**
 * The same trajectory counted under two ids (red team 37 F2/F3): a chat-JSONL file without ids labelled again from
 * another directory (its fallback ids `<path>:<line>` are relative to the working directory), a copy of a file that
 * is not byte-identical (a byte-identical copy is read once), a run file read under two layouts. The run's index
 * holds the equal content hashes: label's summary says how many trajectories share their content with another id,
 * naming a few pairs with their files, and how to keep one. Nothing is left out: two real runs can be equal (a
 * deterministic agent run twice), and which one to keep is the user's choice. (Inspect's `eval-retry` copies, the
 * same sample and epoch with the same content in two logs, are read once by the reader: `../ingest/retry-copies.ts`.)
 *
 * Cost: fixed-width per trajectory (a number and a position, sorted) at the end of label; the index rows of the ids
 * that share a content hash, and only those, are read back.
 */

import path from "node:path";
import type { TrajectoryIndexRow } from "../store/records.js";

/** How many pairs the warning names. */
const SHOWN = 3;

/** What the warning reads of the run's store (`RunStore`). */
export interface ContentSource {
  /** the stored content hash of an id */
  storedContent(id: string): string | undefined;
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
 * @param store the run's store: content hashes and sources (a relative source is shown as recorded, relative to the
 *   directory it was labelled from, not resolved from this one).
 * @param rows streams the run's index rows of the `wanted` ids to `each` (called only when some ids share a content hash).
 */
export async function sameContentWarning(
  ids: Iterable<string>,
  store: ContentSource,
  rows: (wanted: ReadonlySet<string>, each: (row: TrajectoryIndexRow) => void) => Promise<void>,
): Promise<string | undefined> {
  const shared = sharedContentGroups([...ids], store);
  if (shared.length === 0) return undefined;
  // per id of a group its cell, one interned string per cell: a run of copies shares most hashes (the full rows were
  // ~1.5 KB each: 150 MB more at 100,000 copies)
  const cells = new Map<string, string>();
  const interned = new Map<string, string>();
  await rows(new Set(shared.flat()), (r) => {
    const k = JSON.stringify([r.agent_model, r.condition, r.attack, r.suite, r.user_task_id, r.injection_task_id]);
    let c = interned.get(k);
    if (c === undefined) interned.set(k, (c = k));
    cells.set(r.id, c);
  });
  const cell = (id: string) => cells.get(id) ?? "";
  const pairs: Array<[string, string]> = [];
  let extra = 0;
  let groups = 0;
  for (const g of shared) {
    const first = new Map<string, string>();
    const grouped = new Set<string>();
    for (const id of g) {
      const k = cell(id);
      const had = first.get(k);
      if (had === undefined) {
        first.set(k, id);
        continue;
      }
      extra++;
      if (!grouped.has(k)) (grouped.add(k), groups++);
      if (pairs.length < SHOWN) pairs.push([had, id]);
    }
  }
  if (extra === 0) return undefined;
  const named = (id: string) => {
    const src = store.trajectorySource(id);
    const shown = src !== undefined && store.trajectorySourceRelative(id) ? path.relative(process.cwd(), src) : src;
    return `${JSON.stringify(id)}${shown ? ` (${shown})` : ""}`;
  };
  const n = extra + groups;
  return (
    `same_content: ${n} trajectories of this run hold the content (messages, injections, tools) of another one of the same agent model, ` +
    `condition, attack, suite and tasks under another id (${groups} group${groups === 1 ? "" : "s"}; ${extra} more than once counted), and each counts in every figure: ` +
    `${pairs.map(([a, b]) => `${named(a)} = ${named(b)}`).join("; ")}. ` +
    `If that is one trajectory read twice (a copy of an input file that is not byte-identical; a chat-JSONL file whose lines ` +
    `have no id, labelled from another directory: such ids are <path relative to the working directory>:<line>), keep one: ` +
    `remove the copy from the inputs and label them into a new --run, give the lines an id, or label from the directory the ` +
    `run was first labelled from`
  );
}

/**
 * The ids grouped by equal stored content hash, groups of two or more only. Fixed-width per id: a 52-bit number from
 * the hash string ({@link hashNumber}) in a Float64Array, sorted through a Uint32Array of positions (a Map keyed by the hash
 * strings held ~150 bytes per trajectory at the end of label: 150 MB at a million); equal numbers are then checked on
 * the full hash.
 */
function sharedContentGroups(ids: readonly string[], store: ContentSource): string[][] {
  const n = ids.length;
  const key = new Float64Array(n);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const sha = store.storedContent(ids[i]);
    key[i] = sha === undefined || sha === "" ? NaN : hashNumber(sha);
    order[i] = i;
  }
  order.sort((a, b) => (Number.isNaN(key[a]) ? 1 : Number.isNaN(key[b]) ? -1 : key[a] - key[b]));
  const groups: string[][] = [];
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && key[order[j]] === key[order[i]]) j++;
    if (j - i > 1 && !Number.isNaN(key[order[i]])) {
      const byHash = new Map<string, string[]>();
      for (let k = i; k < j; k++) {
        const id = ids[order[k]];
        const sha = store.storedContent(id)!;
        const g = byHash.get(sha);
        if (g) g.push(id);
        else byHash.set(sha, [id]);
      }
      for (const g of byHash.values()) if (g.length > 1) groups.push(g);
    }
    i = j;
  }
  return groups;
}

/** A 52-bit number of a string (two FNV-1a 32-bit hashes, one of them cut to 20 bits): equal strings, equal numbers. */
function hashNumber(s: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
  }
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff);
}
