/**
 * What the report's headline figure pools, said in the headline itself (newuser55 #4: "Attack success over all 8,640
 * attacked trajectories ...: asr_goal 6.4%" pooled 5 agent models and 9 conditions (defenses), said only in a note
 * under it; a rate over defenses has no meaning of its own). Read from the paper table's rows (one per agent model and
 * condition with attacked runs), as the calibrated headline's `pooledText` reads its `(all)` row.
 */

const int = (x: number) => x.toLocaleString("en-US");

/**
 * ` (pooled over 24 agent model x condition rows of the table: 5 agent models x 9 conditions (defenses))`, or with one
 * model ` (pooled over 3 conditions (defenses) of agent model m)`, or with one condition ` (pooled over 4 agent models,
 * condition c)`; "" when the rows are one agent model under one condition (nothing pooled) or there is no row.
 * @param rows the paper table's rows (`agent_model`, `condition` null when the input names none, `n_attacked`).
 */
export function headlinePoolText(rows: ReadonlyArray<{ agent_model: string; condition: string | null; n_attacked: number }>): string {
  const att = rows.filter((r) => r.n_attacked > 0);
  const models = [...new Set(att.map((r) => r.agent_model))];
  const conds = [...new Set(att.map((r) => r.condition ?? "(none)"))];
  if (models.length <= 1 && conds.length <= 1) return "";
  if (models.length === 1) return ` (pooled over ${conds.length} conditions (defenses) of agent model ${models[0]})`;
  if (conds.length === 1) return ` (pooled over ${models.length} agent models${att[0].condition === null ? "" : `, condition ${conds[0]}`})`;
  return ` (pooled over ${int(att.length)} agent model x condition rows of the table: ${models.length} agent models x ${conds.length} conditions (defenses))`;
}
