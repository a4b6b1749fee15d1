/**
 * The label passes that left a run short of its inputs (break 51 #2: `label --limit 100`, then `label --where
 * model=X`, read `complete` while its stored trajectories were the first 100 files plus one model). `store.json`
 * `label_state.partial_passes` lists the passes with `--limit` (that stopped the reading) or `--where` (that left
 * trajectories out) since the run's inputs were last covered by a pass without them; `[]` on a new run until such a
 * pass completes. Absent: covered (or a run recorded before this field: its last pass's `limit` alone is known).
 * State machine, per pass: a new run starts uncovered (`[]`); a limited pass adds itself, whatever its outcome; a pass
 * without --limit/--where that ends `complete` clears the list (a resume or a rejudge of the same command is such a pass
 * when the command has neither); any other outcome keeps it. A covered run stays covered through a later limited pass
 * (its trajectories are stored; a `--limit` last pass keeps its own `limited` note, ./run-state.ts).
 */
import type { LabelState, PartialPass } from "./run-snapshot.js";

/**
 * The list a new pass starts from.
 * @param prev the run's `label_state` before this pass (undefined: none recorded); @param trajectories how many
 *   trajectories the run holds before this pass (0 with no `label_state`: a new run, uncovered).
 */
export function carriedPasses(prev: LabelState | undefined, trajectories: number): PartialPass[] | undefined {
  if (prev?.partial_passes) return prev.partial_passes;
  if (!prev) return trajectories === 0 ? [] : undefined;
  // recorded before partial_passes: a last pass that ended complete under --limit is the one known
  return prev.state === "complete" && prev.limit !== undefined ? [{ started_at: prev.started_at, limit: prev.limit }] : undefined;
}

/**
 * The list after a pass ended (`st.state` set, `st.partial_passes` the carried list): see the module docstring.
 * @param pass this pass's --limit (when it stopped the reading) and --where (when it left trajectories out), or null
 *   when it had neither.
 */
export function passesAfter(st: LabelState, pass: Omit<PartialPass, "started_at"> | null): PartialPass[] | undefined {
  if (!pass) return st.state === "complete" ? undefined : st.partial_passes;
  if (!st.partial_passes) return undefined; // a covered run stays covered
  return [...st.partial_passes, { started_at: st.started_at, ...pass }];
}

/** How a pass limited the run, as the state's message names it: `--limit 100 (2026-12-07T10:00:00Z)`. */
export function passText(p: PartialPass): string {
  const how = [p.limit !== undefined ? `--limit ${p.limit}` : "", p.where !== undefined ? `--where ${p.where}${p.left_out !== undefined ? ` (${p.left_out.toLocaleString("en-US")} read trajectories left out)` : ""}` : ""].filter(Boolean);
  return `${how.join(" ")} (started ${p.started_at})`;
}

/**
 * Set `st.partial_passes` after a pass ended ({@link passesAfter}), from its --limit (when it stopped the reading) and
 * --where (its text and how many read trajectories it left out: none left out covers what it read).
 */
export function recordPasses(st: LabelState, limit: number | undefined, where: { text: string; left_out: number } | undefined): void {
  const w = where?.left_out ? { where: where.text, left_out: where.left_out } : {};
  const passes = passesAfter(st, limit !== undefined || w.where ? { ...(limit !== undefined ? { limit } : {}), ...w } : null);
  if (passes) st.partial_passes = passes;
  else delete st.partial_passes;
}
