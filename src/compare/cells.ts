/**
 * Like-for-like conditions (issue 22, item 3): `compare` compares conditions on the (suite, user task, injection
 * task, attack) cells they cover alike. Pooling a baseline run over 15 attacks against defenses run on one attack
 * answers another question than "what does the defense change"; so by default the cells some condition lacks are
 * left out, and what each figure lost is named. `--all-cells` keeps everything and says that the mixes differ.
 *
 * Two scopes, each figure in one (session 29: a model seen under one condition lost cells to other models'
 * conditions, although nothing of its own was contrasted):
 * - per model (`per_model`): each model on the cells common to ITS OWN conditions (a model with one condition keeps
 *   every cell: it has no contrast between conditions). A model's rates per condition, its worst condition and its
 *   leave-one-suite-out folds are over them ({@link PER_MODEL_FIGURES}).
 * - pooled (`common_cells`, `cells_dropped`): the figures that set models side by side ({@link POOLED_FIGURES}) are
 *   over (1) the cells every condition covers (pooled over models), then (2) per model the cells of (1) it covers
 *   under every one of its own conditions, so that they compare like with like across conditions and models alike.
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

// the cell key is the stats layer's (estimate's --like-for-like builds the same cells, and may not import compare)
export { CELL_FIELDS, cellFields, cellKey, cellText } from "../stats/cell-key.js";
import { cellFields, cellKey, cellText } from "../stats/cell-key.js";

/** What one condition lost to the pooled figures' cells ({@link POOLED_FIGURES}; each model's own: {@link ModelCells}). */
export interface CellsDropped {
  /** Cells of this condition that some other condition lacks (step 1). */
  cells: number;
  /** Attacked trajectories of this condition (labelled or not) left out of the pooled figures (both steps). */
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
   * Per agent model with a trajectory under this condition left out of the pooled figures (both steps): `dropped`
   * attacked trajectories (labelled or not) of its `of` under this condition; the pooled figures count the other
   * `of - dropped` (newuser16: 320 runs dropped were all one model's, and no output named it). The model's own figures
   * keep what its own conditions share ({@link ModelCells}).
   */
  by_model: Record<string, { dropped: number; of: number }>;
}

/** The figures of `compare` over each model's own common cells ({@link ModelCells}; keys of its JSON result). */
export const PER_MODEL_FIGURES = ["asr", "utility.under_attack", "worst_condition", "leave_one_suite_out"] as const;
/**
 * The per-model figures NOT over its common cells: an unattacked run has no injection task, so no cell; they are over
 * all its unattacked runs under each condition, whatever suites and user tasks (red team 29: utility without attack
 * over banking and workspace beside attack-success rates over banking only; a warning names the suites).
 */
export const NOT_ON_CELLS_FIGURES = ["utility.without_attack", "utility.injection_task_runs"] as const;
/** The figures of `compare` that set models side by side, over the cells every condition covers (`common_cells`). */
export const POOLED_FIGURES = ["reversals", "interaction"] as const;

/** What one condition of a model lost to the cells common to the model's own conditions. */
export interface ModelDropped {
  /** Its cells under this condition that another of its conditions lacks. */
  cells: number;
  /** Its attacked trajectories (labelled or not) under this condition in them, of `of` it has under this condition. */
  trajectories: number;
  of: number;
  /** Those cells, sorted (as `cell_fields` says). */
  list: string[];
}

/** What one agent model's own figures ({@link PER_MODEL_FIGURES}) are over: the cells common to its own conditions. */
export interface ModelCells {
  /** Its conditions, sorted. */
  conditions: string[];
  /** False with one condition: nothing of its own is contrasted, so every cell of it is kept. */
  contrast: boolean;
  /** Its distinct cells per condition. */
  cells_per_condition: Record<string, number>;
  /** Cells it has under every one of its conditions (with one condition, all its cells). */
  common_cells: number;
  /**
   * False when its conditions share no cell: nothing of it is like for like, so its trajectories are kept whole
   * (`reason`, and a warning); true otherwise (with one condition too).
   */
  applied: boolean;
  reason?: string;
  /**
   * With three or more conditions and no cell common to all: the cells each pair of them shares, sorted by count then
   * name (newuser51: "3 attacks share no cell" beside a difference paired over 13 cells of two of them). Absent else.
   */
  pairwise_common?: { a: string; b: string; cells: number }[];
  /** Its attacked trajectories (labelled or not) in its own figures, of the `of` it has. */
  kept: number;
  of: number;
  /** Per condition that lost trajectories to its common cells; `{}` when none. */
  dropped: Record<string, ModelDropped>;
  /** Its attacked trajectories (labelled or not) in the pooled figures ({@link POOLED_FIGURES}). */
  pooled: number;
  /**
   * With `--common-tasks` (set by `compare` after this check): what of `kept` is on the tasks every model ran, which
   * its rows are over (red team 29: "all its 657 attacked trajectories are kept" above rows over 97). Absent without it.
   */
  common_tasks?: { kept: number; cells: number };
}

/** The result of {@link commonCellFilter}. */
export interface CellCheck {
  /** `common`: conditions compared on common cells; `all` (`--all-cells`): nothing dropped. */
  mode: "common" | "all";
  /**
   * True when the pooled figures are over the cells every condition covers. False when the check could not be made
   * (see `reason`), with `--all-cells`, or when the conditions share no cell (then the pooled figures are over each
   * model's own cells, `per_model`, and `reason` says so).
   */
  applied: boolean;
  reason?: string;
  /** What a cell is made of (`cellFields`). */
  cell_fields: string[];
  /** Distinct cells per condition before filtering (pooled over models). */
  cells_per_condition: Record<string, number>;
  /** Cells observed under every condition (pooled over models): those of the pooled figures. */
  common_cells: number;
  /** What each condition lost to the pooled figures (absent when it lost none; `{}` when not applied). */
  cells_dropped: Record<string, CellsDropped>;
  /**
   * What each model's own figures are over: the cells common to its own conditions, and what each of its conditions
   * lost to them. `{}` when the check could not be made or with `--all-cells` (nothing is dropped).
   */
  per_model: Record<string, ModelCells>;
  /** Which figures are over which cells: `per_model` (each model's own common cells) and `pooled` (`common_cells`). */
  figures: { per_model: string[]; pooled: string[]; /** Per-model figures over all its unattacked runs, not its cells. */ not_on_cells?: string[] };
  /** True when the conditions cover different cells (with `--all-cells`, or when not applied, the mixes differ). */
  mixes_differ: boolean;
}

const count = (m: Record<string, number>, k: string, n: number) => {
  m[k] = (m[k] ?? 0) + n;
};
const wt = (o: CellObservation) => o.weight ?? 1;
const intersect = (sets: readonly Set<string>[]) => new Set(sets.length ? [...sets[0]].filter((k) => sets.every((s) => s.has(k))) : []);

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

/** A model whose own conditions share no cell: its conditions' cell counts, its attacked trajectories, their mix. */
interface WholeModel {
  model: string;
  cs: string;
  n: number;
  mix: string;
  /** What they share: "no ... cell" or, with 3+ conditions, "no ... cell common to all 3 (pairwise: ...)". */
  none: string;
}

/**
 * The cells each pair of a model's conditions shares ({@link ModelCells.pairwise_common}), most first then by name.
 * @param byCond condition -> its distinct cells.
 */
export function pairwiseCommon(byCond: ReadonlyMap<string, Set<string>>): { a: string; b: string; cells: number }[] {
  const cs = [...byCond.keys()].sort();
  const out: { a: string; b: string; cells: number }[] = [];
  for (let i = 0; i < cs.length; i++)
    for (let j = i + 1; j < cs.length; j++) out.push({ a: cs[i], b: cs[j], cells: intersect([byCond.get(cs[i])!, byCond.get(cs[j])!]).size });
  return out.sort((x, y) => y.cells - x.cells || x.a.localeCompare(y.a) || x.b.localeCompare(y.b));
}

/**
 * What a model's conditions share, in words: `no (fields) cell` for two; for three or more `no (fields) cell common to
 * all N (pairwise: a & b 13, a & c 4, b & c 2)`, so that "share no cell" never reads as "no pair is comparable".
 */
export function sharedNoneText(fields: readonly string[], n: number, pairs: readonly { a: string; b: string; cells: number }[] | undefined): string {
  const cell = fields.length ? `(${fields.join(", ")}) cell` : "cell";
  if (n < 3 || !pairs) return `no ${cell}`;
  return `no ${cell} common to all ${n} (pairwise: ${pairs.map((p) => `${p.a} & ${p.b} ${p.cells}`).join(", ")})`;
}

/**
 * The one warning naming every model whose own conditions share no cell (session 39: one warning per model, the same
 * text but the name, repeated), or null when none.
 */
function wholeModelsWarning(whole: readonly WholeModel[], fields: readonly string[], one: string): string | null {
  if (whole.length === 0) return null;
  if (whole.length === 1) {
    const [m] = whole;
    return (
      `agent model ${m.model}: its conditions share ${m.none} (${m.cs}): nothing of it is like for like, so all its ${m.n} attacked trajectories are kept ` +
      `and its rates per ${one} mix ${m.mix} (it has no worst ${one}; its leave-one-suite-out folds are each over the cells its ${one}s share in the fold, or withheld); narrow them with --where`
    );
  }
  // a model with 3+ conditions: what each pair shares (newuser51: "share no cell" read as "no pair is comparable")
  const pw = (m: WholeModel) => (m.none.includes("(pairwise: ") ? `, ${m.none.slice(m.none.indexOf("(pairwise: ") + 1, -1)}` : "");
  const pairs = whole.some((m) => pw(m) !== "");
  return (
    `${whole.length} agent models: their own conditions share no (${fields.join(", ")}) cell${pairs ? " common to all" : ""} (${whole.map((m) => `${m.model}: ${m.cs}${pw(m)}`).join("; ")}): nothing of them is like for like, ` +
    `so all their attacked trajectories are kept (${whole.map((m) => `${m.model} ${m.n}`).join(", ")}) and their rates per ${one} ` +
    `mix ${whole.map((m) => `${m.mix} (${m.model})`).join(", ")} (they have no worst ${one}; their leave-one-suite-out folds are each over the cells their ${one}s share in the fold, or withheld); narrow them with --where`
  );
}

/**
 * The per-model scope: each model's cells common to its own conditions ({@link ModelCells}, `pooled` left 0 for the
 * caller), and whether an observation is in it. A model whose conditions share no cell is kept whole, with a warning.
 * @param fields the cell's fields, for the warning's words; `one` the compared field's noun (`condition`, `attack`, ...).
 */
function ownCells<T extends CellObservation>(obs: readonly T[], fields: readonly string[], one: string): { per_model: Record<string, ModelCells>; keep: (o: T) => boolean; warnings: string[] } {
  const byModel = new Map<string, Map<string, Set<string>>>();
  for (const o of obs) {
    let m = byModel.get(o.model);
    if (!m) byModel.set(o.model, (m = new Map()));
    if (!m.has(o.condition)) m.set(o.condition, new Set());
    m.get(o.condition)!.add(o.cell!);
  }
  const common = new Map<string, Set<string> | null>(); // null: its conditions share no cell, kept whole
  const per_model: Record<string, ModelCells> = {};
  const warnings: string[] = [];
  const whole: WholeModel[] = [];
  for (const model of [...byModel.keys()].sort()) {
    const m = byModel.get(model)!;
    const conditions = [...m.keys()].sort();
    const shared = intersect(conditions.map((c) => m.get(c)!));
    const cellsPer = Object.fromEntries(conditions.map((c) => [c, m.get(c)!.size]));
    common.set(model, shared.size > 0 ? shared : null);
    per_model[model] = { conditions, contrast: conditions.length > 1, cells_per_condition: cellsPer, common_cells: shared.size, applied: shared.size > 0, kept: 0, of: 0, dropped: {}, pooled: 0 };
    if (shared.size === 0) {
      const cs = conditions.map((c) => `${c} ${cellsPer[c]}`).join(", ");
      const pairs = conditions.length > 2 ? pairwiseCommon(m) : undefined;
      if (pairs) per_model[model].pairwise_common = pairs;
      const none = sharedNoneText(fields, conditions.length, pairs);
      per_model[model].reason = `its conditions share ${none} (${cs})`;
      const mine = obs.filter((o) => o.model === model);
      whole.push({ model, cs, n: mine.reduce((s, o) => s + wt(o), 0), mix: mixWords(mine, conditions, fields), none });
    }
  }
  const w = wholeModelsWarning(whole, fields, one);
  if (w) warnings.push(w);
  const keep = (o: T) => {
    const s = common.get(o.model);
    return s === null || s!.has(o.cell!);
  };
  for (const o of obs) {
    const pm = per_model[o.model];
    pm.of += wt(o);
    if (keep(o)) {
      pm.kept += wt(o);
      continue;
    }
    const d = (pm.dropped[o.condition] ??= { cells: 0, trajectories: 0, of: 0, list: [] });
    d.trajectories += wt(o);
  }
  for (const o of obs) {
    const d = per_model[o.model].dropped[o.condition];
    if (d) d.of += wt(o);
  }
  for (const [model, pm] of Object.entries(per_model)) {
    for (const [c, d] of Object.entries(pm.dropped)) {
      d.list = [...byModel.get(model)!.get(c)!].filter((k) => !common.get(model)!.has(k)).map(cellText).sort();
      d.cells = d.list.length;
    }
  }
  return { per_model, keep, warnings };
}

/**
 * The pooled scope: (1) the cells every condition covers, pooled over models; (2) per model, the cells of (1) it
 * covers under every one of its conditions there. What each condition lost is named ({@link CellsDropped}).
 */
function pooledCells<T extends CellObservation>(obs: readonly T[], byCond: Map<string, Set<string>>, conds: readonly string[]): { common: Set<string>; dropped: Record<string, CellsDropped>; keep: (o: T) => boolean } {
  const common = intersect(conds.map((c) => byCond.get(c)!));
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
    d.list = [...byCond.get(c)!].filter((k) => !common.has(k)).map(cellText).sort();
    d.cells = d.list.length;
  }
  // Step 2: per model, the common cells it covers under every one of its conditions (those with a common cell).
  const perModel = new Map<string, Map<string, Set<string>>>();
  for (const o of obs) {
    if (!common.has(o.cell!)) continue;
    let m = perModel.get(o.model);
    if (!m) perModel.set(o.model, (m = new Map()));
    if (!m.has(o.condition)) m.set(o.condition, new Set());
    m.get(o.condition)!.add(o.cell!);
  }
  const modelCommon = new Map<string, Set<string>>();
  for (const [model, m] of perModel) modelCommon.set(model, intersect([...m.values()]));
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
      pm.list = [...perModel.get(model)!.get(c)!].filter((k) => !modelCommon.get(model)!.has(k)).map(cellText).sort();
      pm.cells = pm.list.length;
    }
  }
  return { common, dropped, keep };
}

/**
 * Restrict observations to like-for-like cells, in two scopes (see the file's comment): `observations`, each model on
 * the cells common to its own conditions (the per-model figures); `pooled`, the cells every condition covers, then per
 * model those it has under each of its own conditions (the figures that set models side by side). With `all`, both
 * keep everything and the difference is reported.
 * @param obs observations with `cell` set by `buildObservations` (undefined: unknown cell); each counts `weight`
 *   trajectories (absent: 1).
 * @param conditionField the condition field (left out of the cell).
 * @param mode `common` (default of `compare`) or `all` (`--all-cells`).
 * @returns the kept observations of each scope, the check, and warnings for the reader.
 * When the conditions share no cell at all, the pooled figures are over each model's own cells (`applied: false`
 * with the reason) and a warning says that nothing is like for like across models; a model whose own conditions
 * share no cell is kept whole, with a warning.
 */
export function commonCellFilter<T extends CellObservation>(
  obs: readonly T[],
  conditionField: string,
  mode: "common" | "all",
): { observations: T[]; pooled: T[]; cells: CellCheck; warnings: string[] } {
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
  const figures = { per_model: [...PER_MODEL_FIGURES], pooled: [...POOLED_FIGURES], not_on_cells: [...NOT_ON_CELLS_FIGURES] };
  const base: CellCheck = { mode, applied: false, cell_fields: fields, cells_per_condition: cellsPer, common_cells: 0, cells_dropped: {}, per_model: {}, figures, mixes_differ: false };
  const whole = (warnings: string[]) => ({ observations: [...obs], pooled: [...obs], cells: base, warnings });
  if (unknown > 0) {
    base.reason = `${unknown} of ${obs.reduce((s, o) => s + wt(o), 0)} attacked trajectories (labelled or not) have no user task or injection task id, so their cells are unknown`;
    return whole(conds.length > 1 ? [`the conditions could not be checked for like-for-like cells (${base.reason}): their task and attack mixes may differ`] : []);
  }
  const { common, dropped, keep: pooledKeep } = pooledCells(obs, byCond, conds);
  base.common_cells = common.size;
  base.mixes_differ = Object.keys(dropped).length > 0;
  if (mode === "all") {
    const warnings = base.mixes_differ
      ? [
          `--all-cells: the conditions cover different (${fields.join(", ")}) cells (${conds.map((c) => `${c} ${cellsPer[c]}`).join(", ")}; ${common.size} common): ` +
            `their rates mix ${mixWords(obs, conds, fields)} and are not like for like (without --all-cells they are compared on the common cells)`,
        ]
      : [];
    return whole(warnings);
  }
  const one = fieldNoun(conditionField);
  const own = ownCells(obs, fields, one);
  base.per_model = own.per_model;
  const mine = obs.filter(own.keep);
  if (conds.length > 1 && common.size === 0) {
    // Nothing is like for like across models: the pooled figures are over each model's own common cells, and said.
    base.reason = `the conditions share no (${fields.join(", ")}) cell (${conds.map((c) => `${c} ${cellsPer[c]}`).join(", ")})`;
    for (const pm of Object.values(base.per_model)) pm.pooled = pm.kept;
    // one warning: the models whose own conditions share no cell either are named in it (their own ones would repeat it)
    const whole = Object.entries(base.per_model).filter(([, pm]) => !pm.applied).map(([m]) => m);
    const alsoOwn = whole.length
      ? `; nor do the conditions of ${whole.length === Object.keys(base.per_model).length ? "any model" : whole.join(", ")}, so all ${whole.length === 1 ? "its" : "their"} trajectories are kept and ${whole.length === 1 ? "its" : "their"} rates per ${one} mix tasks too (no worst ${one}; leave-one-suite-out folds each over the cells shared in the fold, or withheld)`
      : "";
    const warnings = [
      `${base.reason}: nothing is like for like across them, so the figures that set models side by side (${POOLED_FIGURES.join(", ")}) are over each model's own cells and ` +
        `the conditions' rates mix ${mixWords(obs, conds, fields)}${alsoOwn}; narrow them with --where to conditions run on the same cells`,
    ];
    return { observations: mine, pooled: mine, cells: base, warnings };
  }
  base.applied = true;
  base.cells_dropped = dropped;
  const pooled = obs.filter(pooledKeep);
  for (const o of pooled) base.per_model[o.model].pooled += wt(o);
  return { observations: mine, pooled, cells: base, warnings: own.warnings };
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
