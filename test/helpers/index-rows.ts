/**
 * The same index rows held two ways, for tests that check a reader of a store's rows by slot (`IndexRows`) against
 * the plain `Map` path: a slim AgentDojo-like row maker and both holders filled in the same order.
 */
import { IndexRows } from "../../src/store/index-rows.js";
import { IdSlots } from "../../src/store/id-slots.js";
import { slimIndexRow, type TrajectoryIndexRow } from "../../src/store/records.js";

/** A slim attacked row of agent model m1 under no_defense (fields overridden by `over`). */
export const indexRow = (id: string, over: Partial<TrajectoryIndexRow> = {}): TrajectoryIndexRow =>
  slimIndexRow({ id, agent_model: "m1", condition: "no_defense", attacked: true, surface: "tool_output", run_folder: "/r", ...over } as TrajectoryIndexRow);

/** `rows` set in order into a store's `IndexRows` and into a `Map` by id (a later row of an id replaces it in both). */
export function storeAndMap(rows: readonly TrajectoryIndexRow[]): { store: IndexRows; map: Map<string, TrajectoryIndexRow> } {
  const store = new IndexRows(new IdSlots());
  const map = new Map<string, TrajectoryIndexRow>();
  for (const r of rows) {
    store.set(r);
    map.set(r.id, r);
  }
  return { store, map };
}
