/**
 * What names a trajectory's cell in the figures, as one string: the index row's fields the readers group and count
 * by (model, family, condition, attack, suite, tasks, attacked, surfaces, the agent's error). Two rows with the same
 * key give the same figures for the same verdicts. A resume compares it with the stored row's (break54 #0: metadata
 * fixed in the input, as the tool's own "give its runs one spelling" warning asks, was never read back): when it
 * differs for the same content, the index row is re-written (`./run-store.ts` `addTrajectory`, "metadata_changed"),
 * nothing is judged again (a verdict judges the content, `../io/hash.ts`).
 */
import type { TrajectoryIndexRow } from "./records.js";

/** The fields of {@link metadataKey}, in its order. */
export const CELL_FIELDS = ["agent_model", "agent_family", "condition", "attack", "suite", "user_task_id", "injection_task_id", "attacked", "surface", "surfaces", "run_error"] as const;

/**
 * The cell-naming fields of an index row as one JSON string (an absent field is `null`; `surfaces` with its keys
 * sorted, so the same map read in another order is the same key).
 * @param row an index row (or any object with some of {@link CELL_FIELDS}).
 * @returns a string equal for two rows exactly when every field of {@link CELL_FIELDS} is equal.
 */
export function metadataKey(row: Partial<Pick<TrajectoryIndexRow, (typeof CELL_FIELDS)[number]>>): string {
  return JSON.stringify(CELL_FIELDS.map((f) => (f === "surfaces" ? sortedSurfaces(row.surfaces) : (row[f] ?? null))));
}

/** The names of the fields whose values differ between two keys of {@link metadataKey}, e.g. `["agent_model"]`. */
export function changedCellFields(before: string, now: string): string[] {
  const a = JSON.parse(before) as unknown[];
  const b = JSON.parse(now) as unknown[];
  return CELL_FIELDS.filter((_, i) => JSON.stringify(a[i]) !== JSON.stringify(b[i]));
}

function sortedSurfaces(s: unknown): unknown {
  if (typeof s !== "object" || s === null) return s ?? null;
  return Object.fromEntries(Object.entries(s).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}
