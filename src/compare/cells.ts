/**
 * Like-for-like conditions (issue 22, item 3): `compare` ranks conditions on the (suite, user task, injection
 * task, attack) cells they all cover. Pooling a baseline run over 15 attacks against defenses run on one attack
 * answers another question than "what does the defense change"; so by default every condition is restricted to
 * the cells common to all conditions, and what each one lost is named (`cells_dropped`). `--all-cells` keeps
 * everything and says that the mixes differ.
 *
 * Two steps: (1) the cells every condition covers (pooled over models); (2) per agent model, the cells of step 1
 * it covers under every one of its own conditions, so that a model's conditions (its worst-condition risk, its
 * reversals) are like for like too.
 *
 * A cell leaves out the condition field itself (with `--by attack` the attack is what is compared, so a cell is
 * (suite, user task, injection task); with `--by surface` the attack too, as the attack sets the surface).
 */
/** What the filter reads of an observation (`Observation` of ./data.ts, which imports this file). */
export interface CellObservation {
  model: string;
  condition: string;
  suite: string;
  attack?: string;
  cell?: string;
  /** Trajectories it stands for (absent: 1; `Observation.weight` of ./data.ts). */
  weight?: number;
}

/** The fields of a cell, in key order. */
export const CELL_FIELDS = ["suite", "user_task_id", "injection_task_id", "attack"] as const;

/**
 * The cell fields for a condition field: all of {@link CELL_FIELDS} but the condition field itself; with `surface`,
 * also without `attack` (where the injection enters is set by the attack: VIGIL's `tool_attack` is the schema
 * surface, `important_instructions` the data surface, so two surfaces never share an attack).
 */
export function cellFields(conditionField: string): string[] {
  return CELL_FIELDS.filter((f) => f !== conditionField && !(conditionField === "surface" && f === "attack"));
}

/**
 * The cell key of a trajectory (`suite/user_task/injection_task/attack`, minus the condition field), or undefined
 * when it has no user task or injection task id (its cell is unknown). A missing suite or attack reads `(none)`.
 */
export function cellKey(
  r: { suite?: string; user_task_id?: string; injection_task_id?: string; attack?: string },
  conditionField: string,
): string | undefined {
  if (r.user_task_id === undefined || r.injection_task_id === undefined) return undefined;
  return cellFields(conditionField)
    .map((f) => (r as Record<string, string | undefined>)[f] ?? "(none)")
    .join("/");
}

/** What one condition lost to the common cells. */
export interface CellsDropped {
  /** Cells of this condition that some other condition lacks (step 1). */
  cells: number;
  /** Attacked trajectories of this condition (labelled or not) left out of every figure (both steps). */
  trajectories: number;
  /** Those trajectories by attack and by suite. */
  by_attack: Record<string, number>;
  by_suite: Record<string, number>;
  /** The dropped cells, sorted (`suite/user_task/injection_task/attack`, as `cell_fields` says). */
  list: string[];
  /**
   * Second step, per agent model: common cells this model lacks under another of its conditions, so its own
   * conditions stay like for like (model -> the cells and trajectories dropped from this condition); `{}` when none.
   */
  per_model: Record<string, { cells: number; trajectories: number; list: string[] }>;
  /**
   * Per agent model whose rate under this condition the drop changes (both steps): `dropped` attacked trajectories
   * (labelled or not) of its `of` under this condition; its rate is over the other `of - dropped`. Every model with
   * a dropped trajectory is here (newuser16: 320 runs dropped were all one model's, and no output named it).
   */
  by_model: Record<string, { dropped: number; of: number }>;
}

/** The result of {@link commonCellFilter}. */
export interface CellCheck {
  /** `common`: conditions compared on their common cells; `all` (`--all-cells`): nothing dropped. */
  mode: "common" | "all";
  /** False when the check could not be made (see `reason`) or with `--all-cells`. */
  applied: boolean;
  reason?: string;
  /** What a cell is made of (`cellFields`). */
  cell_fields: string[];
  /** Distinct cells per condition before filtering. */
  cells_per_condition: Record<string, number>;
  /** Cells observed under every condition. */
  common_cells: number;
  /** Per condition that lost cells (absent when it lost none; `{}` when not applied). */
  cells_dropped: Record<string, CellsDropped>;
  /** True when the conditions cover different cells (with `--all-cells`, or when not applied, the mixes differ). */
  mixes_differ: boolean;
}

const count = (m: Record<string, number>, k: string, n: number) => {
  m[k] = (m[k] ?? 0) + n;
};
const wt = (o: CellObservation) => o.weight ?? 1;

/**
 * What the conditions' observations differ in, named for a warning (nu19: never "tasks and attacks" of conditions
 * that ran one attack on different suites): "different suites", "different attacks", "different suites and attacks",
 * else "different tasks" (same suites and attacks, different user or injection tasks).
 * @param fields the cell's fields (`cellFields`): a field not among them is not named.
 */
export function mixWords(obs: readonly CellObservation[], conds: readonly string[], fields: readonly string[]): string {
  const sets = (pick: (o: CellObservation) => string) => {
    const by = new Map<string, Set<string>>(conds.map((c) => [c, new Set<string>()]));
    for (const o of obs) by.get(o.condition)?.add(pick(o));
    const keys = [...by.values()].map((x) => [...x].sort().join("\u0000"));
    return keys.some((k) => k !== keys[0]);
  };
  // only the cell's fields: the condition field itself (or attack beside surface) differs by design
  const suites = fields.includes("suite") && sets((o) => o.suite);
  const attacks = fields.includes("attack") && sets((o) => o.attack ?? "(none)");
  return suites && attacks ? "different suites and attacks" : suites ? "different suites" : attacks ? "different attacks" : "different tasks";
}

/**
 * Restrict observations to the cells every condition covers (or, with `all`, keep everything and report the
 * difference).
 * @param obs observations with `cell` set by `buildObservations` (undefined: unknown cell); each counts `weight`
 *   trajectories (absent: 1).
 * @param conditionField the condition field (left out of the cell).
 * @param mode `common` (default of `compare`) or `all` (`--all-cells`).
 * @returns the kept observations, the check, and warnings for the reader.
 * When, in `common` mode, the conditions share no cell at all, every cell is kept (`applied: false` with the
 * reason) and a warning says that nothing is like for like.
 */
export function commonCellFilter<T extends CellObservation>(
  obs: readonly T[],
  conditionField: string,
  mode: "common" | "all",
): { observations: T[]; cells: CellCheck; warnings: string[] } {
  const fields = cellFields(conditionField);
  const byCond = new Map<string, Set<string>>();
  let unknown = 0;
  for (const o of obs) {
    if (o.cell === undefined) {
      unknown += wt(o);
      continue;
    }
    if (!byCond.has(o.condition)) byCond.set(o.condition, new Set());
    byCond.get(o.condition)!.add(o.cell);
  }
  const conds = [...new Set(obs.map((o) => o.condition))].sort();
  const cellsPer = Object.fromEntries(conds.map((c) => [c, byCond.get(c)?.size ?? 0]));
  const base: CellCheck = { mode, applied: false, cell_fields: fields, cells_per_condition: cellsPer, common_cells: 0, cells_dropped: {}, mixes_differ: false };
  if (unknown > 0) {
    let total = 0;
    for (const o of obs) total += wt(o);
    base.reason = `${unknown} of ${total} attacked trajectories (labelled or not) have no user task or injection task id, so their cells are unknown`;
    const warnings =
      conds.length > 1 ? [`the conditions could not be checked for like-for-like cells (${base.reason}): their task and attack mixes may differ`] : [];
    return { observations: [...obs], cells: base, warnings };
  }
  const sets = conds.map((c) => byCond.get(c)!);
  const common = new Set(sets.length ? [...sets[0]].filter((k) => sets.every((s) => s.has(k))) : []);
  base.common_cells = common.size;
  const dropped: Record<string, CellsDropped> = {};
  const newDropped = (): CellsDropped => ({ cells: 0, trajectories: 0, by_attack: {}, by_suite: {}, list: [], per_model: {}, by_model: {} });
  const dropOne = (d: CellsDropped, o: T) => {
    d.trajectories += wt(o);
    count(d.by_attack, o.attack ?? "(none)", wt(o));
    count(d.by_suite, o.suite, wt(o));
    (d.by_model[o.model] ??= { dropped: 0, of: 0 }).dropped += wt(o);
  };
  for (const o of obs) {
    if (common.has(o.cell!)) continue;
    dropOne((dropped[o.condition] ??= newDropped()), o);
  }
  for (const [c, d] of Object.entries(dropped)) {
    d.list = [...byCond.get(c)!].filter((k) => !common.has(k)).sort();
    d.cells = d.list.length;
  }
  // Step 2: per model, the common cells it covers under every one of its conditions.
  const perModel = new Map<string, Map<string, Set<string>>>();
  for (const o of obs) {
    if (!common.has(o.cell!)) continue;
    let m = perModel.get(o.model);
    if (!m) perModel.set(o.model, (m = new Map()));
    if (!m.has(o.condition)) m.set(o.condition, new Set());
    m.get(o.condition)!.add(o.cell!);
  }
  const modelCommon = new Map<string, Set<string>>();
  for (const [model, m] of perModel) {
    const ss = [...m.values()];
    modelCommon.set(model, new Set([...ss[0]].filter((k) => ss.every((x) => x.has(k)))));
  }
  const keep = (o: T) => common.has(o.cell!) && modelCommon.get(o.model)!.has(o.cell!);
  for (const o of obs) {
    if (!common.has(o.cell!) || keep(o)) continue;
    const d = (dropped[o.condition] ??= newDropped());
    dropOne(d, o);
    let pm = d.per_model[o.model];
    if (!pm) d.per_model[o.model] = pm = { cells: 0, trajectories: 0, list: [] };
    pm.trajectories += wt(o);
  }
  for (const o of obs) {
    const bm = dropped[o.condition]?.by_model[o.model];
    if (bm) bm.of += wt(o);
  }
  for (const [c, d] of Object.entries(dropped)) {
    for (const [model, pm] of Object.entries(d.per_model)) {
      pm.list = [...perModel.get(model)!.get(c)!].filter((k) => !modelCommon.get(model)!.has(k)).sort();
      pm.cells = pm.list.length;
    }
  }
  base.mixes_differ = Object.keys(dropped).length > 0;
  if (mode === "all") {
    base.cells_dropped = {};
    const warnings = base.mixes_differ
      ? [
          `--all-cells: the conditions cover different (${fields.join(", ")}) cells (${conds.map((c) => `${c} ${cellsPer[c]}`).join(", ")}; ${common.size} common): ` +
            `their rates mix ${mixWords(obs, conds, fields)} and are not like for like (without --all-cells they are compared on the common cells)`,
        ]
      : [];
    return { observations: [...obs], cells: base, warnings };
  }
  base.applied = true;
  base.cells_dropped = dropped;
  if (conds.length > 1 && common.size === 0) {
    // Nothing is like for like: comparing on no cell is impossible, so every cell is kept and the reader is told.
    base.applied = false;
    base.cells_dropped = {};
    base.reason = `the conditions share no (${fields.join(", ")}) cell (${conds.map((c) => `${c} ${cellsPer[c]}`).join(", ")})`;
    return {
      observations: [...obs],
      cells: base,
      warnings: [
        `${base.reason}: nothing is like for like, so every cell is kept and the conditions' rates mix ${mixWords(obs, conds, fields)}; ` +
          `narrow them with --where to conditions run on the same cells`,
      ],
    };
  }
  return { observations: obs.filter(keep), cells: base, warnings: [] };
}

/**
 * The compared field's noun in `compare`'s headings, singular for `n` 1 and plural otherwise: `condition`,
 * `attack`, `surface`, or `<field> value` (new user 26: `--by attack` printed "worst condition" and "model x condition
 * interaction" while the compared values were attacks).
 */
export function fieldNoun(field: string, n = 1): string {
  const one = field === "condition" || field === "attack" || field === "surface" ? field : `${field} value`;
  return n === 1 ? one : `${one}s`;
}

/** What the compared groups are called in text: {@link fieldNoun} plural (`conditions`, `attacks`, `agent_model values`). */
export function groupsNoun(field: string): string {
  return fieldNoun(field, 2);
}

/**
 * Text lines naming what each condition lost (empty when nothing was dropped or the check was not made), one block
 * per condition; `field` is the compared field (`compare --by`: condition, attack, ...) that names them.
 */
export function formatCellsDropped(c: CellCheck, field = "condition"): string[] {
  const lines: string[] = [];
  const top = (m: Record<string, number>) =>
    Object.entries(m)
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
  if (c.mode === "all") return lines;
  if (!c.applied) return lines;
  const entries = Object.entries(c.cells_dropped);
  if (entries.length === 0) {
    lines.push(`like-for-like: every ${field} covers the same ${c.common_cells} (${c.cell_fields.join(", ")}) cells; nothing dropped`);
    return lines;
  }
  lines.push(
    `like-for-like: ${groupsNoun(field)} compared on the ${c.common_cells} (${c.cell_fields.join(", ")}) cells they all cover (--all-cells keeps everything); dropped, per ${field}:`,
  );
  // one block per condition, each count naming what it belongs to: the by-attack/by-suite breakdown is the
  // condition's, not the last model's listed before it (review, session 11)
  for (const [cond, d] of entries) {
    lines.push(`  ${field} ${cond}: ${d.trajectories} attacked trajectories dropped (labelled or not)`);
    if (d.cells) lines.push(`    ${d.cells} cells of ${cond} that some other ${field} lacks`);
    for (const [m, x] of Object.entries(d.per_model))
      lines.push(`    agent model ${m}: ${x.trajectories} trajectories in ${x.cells} cells that ${m} lacks under another ${field} of its own`);
    lines.push(`    the ${d.trajectories} dropped from ${cond}, by attack: ${top(d.by_attack)}; by suite: ${top(d.by_suite)}`);
    // the models whose rates the drop changes, each with what it ran: a row's n is then read against it
    const bm = Object.entries(d.by_model ?? {}).sort(([a, x], [b, y]) => y.dropped - x.dropped || a.localeCompare(b));
    if (bm.length)
      lines.push(
        `    by agent model (its ${cond} rate below is over the rest): ${bm.map(([m, x]) => `${m} ${x.dropped} of its ${x.of} (rate over ${x.of - x.dropped})`).join(", ")}`,
      );
  }
  const anyPerModel = entries.some(([, d]) => Object.keys(d.per_model).length > 0);
  lines.push(
    `  (in --json: the dropped cells in cells.cells_dropped.<${field}>.list, the counts per model in .by_model` +
      (anyPerModel ? `, each model's own dropped cells in .per_model.<model>.list)` : `)`),
  );
  return lines;
}
