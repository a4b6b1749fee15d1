/**
 * Which group of an estimate report is which row of the paper table (./table.ts): the calibrated cells of a row are
 * its group's. Matched by the groups' `--by` values, not by their names (out50: a model or condition named `(all)`).
 */

/** The key of a table row (agent model, condition; null: the run records none) in {@link groupsByRow}. */
export const tableRowKey = (model: string, condition: string | null) => `${model}\u0000${condition ?? ""}`;

/**
 * An estimate's groups by the table row they are of: by their `--by` values (agent_model[, condition]), not by name, so
 * a model or condition literally named `(all)` is not the pooled group (out50); a group without `fields` (a report of
 * another shape) by its name (`model / condition`, or the model); the pooled group (no field) is no row's.
 */
export function groupsByRow<G extends { group: string; fields?: Record<string, string> }>(gs: readonly G[], withConditions: boolean): Map<string, G> {
  const out = new Map<string, G>();
  for (const g of gs) {
    if (g.fields === undefined) {
      const [m, c] = withConditions ? g.group.split(" / ") : [g.group, null];
      out.set(tableRowKey(m, c ?? null), g);
    } else if (g.fields.agent_model !== undefined) out.set(tableRowKey(g.fields.agent_model, withConditions ? (g.fields.condition ?? "") : null), g);
  }
  return out;
}
