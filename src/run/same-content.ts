/**
 * The same trajectory counted under two ids (red team 37 F2/F3): a chat-JSONL file without ids labelled again from
 * another directory (its fallback ids `<path>:<line>` are relative to the working directory), a copy of a file that
 * is not byte-identical (a byte-identical copy is read once), a run file read under two layouts. The run's index
 * holds the equal content hashes: label's summary says how many trajectories share their content with another id,
 * naming a few pairs with their files, and how to keep one. Nothing is left out: two real runs can be equal (a
 * deterministic agent run twice), and which one to keep is the user's choice. (Inspect's `eval-retry` copies, the
 * same sample and epoch with the same content in two logs, are read once by the reader: `../ingest/retry-copies.ts`.)
 *
 * Cost: one map entry per trajectory of the summary's index (a hash code lookup each), at the end of label; the run's
 * full index rows are read back only when two ids share a content hash.
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
 * @param rows the run's full index rows (read only when some ids share a content hash).
 */
export async function sameContentWarning(
  ids: Iterable<string>,
  store: ContentSource,
  rows: () => Promise<ReadonlyMap<string, TrajectoryIndexRow>>,
): Promise<string | undefined> {
  const byHash = new Map<string, string[]>();
  for (const id of ids) {
    const sha = store.storedContent(id);
    if (sha === undefined || sha === "") continue;
    const at = byHash.get(sha);
    if (at) at.push(id);
    else byHash.set(sha, [id]);
  }
  const shared = [...byHash.values()].filter((g) => g.length > 1);
  if (shared.length === 0) return undefined;
  const full = await rows();
  const cell = (id: string) => {
    const r = full.get(id);
    return JSON.stringify([r?.agent_model, r?.condition, r?.attack, r?.suite, r?.user_task_id, r?.injection_task_id]);
  };
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
