/**
 * Which attacked runs the paper table's rates are over (`estimate --table`, `report`; session 47, new user finding 1;
 * the default since session 51). Like for like (the default): each agent model's rows are over the (suite, user task,
 * injection task, attack) cells that ALL its conditions ran: `compare`'s per-model scope (src/compare/cells.ts,
 * `ownCells`; the same cell fields, attacked runs labelled or not), so gpt-4o's no_defense row over 15 attacks and its
 * defense rows over one are read over the 629 cells they share (313/629 = 49.8% against 175/629 = 27.8%, as `compare
 * --by condition` gives), not 27.2% over 6,775 runs beside 27.8% over 629 (which read "the defense does nothing").
 * `--own-mix`: every attacked run of each (agent model, condition) row, its unlike rows marked (./table-marks.ts).
 *
 * As in `compare`: a model with one condition keeps every attacked run (nothing of it is contrasted). A model whose
 * conditions share no cell has no like-for-like rate: its rows print no number, the reason naming its conditions (never
 * its own mix in silence). A model with an attacked run without a user task or injection task id has unknown cells:
 * compared as the like-for-like check compares such runs, on attacks and suites, it keeps every attacked run when its
 * conditions ran the same attacks and suites (each row says its cells were not compared), else it has no number.
 * Unattacked runs have no injection task, so no cell: the utility column (over the unattacked runs of the user's own
 * tasks) is cut with the rates instead, to the (suite, user task) pairs of the model's shared cells (break52 #4b: it
 * stayed over four suites beside rates over banking alone, only warned); a run without a user task id, an
 * injection-task run, and every unattacked run of a model not cut are kept. Each row says what it is over
 * ({@link rowOver}): "all runs", or the shared cells with the runs and cells of its own it left out, and the
 * unattacked runs its utility left out.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { cellKey } from "../stats/cell-key.js";
import { NO_VALUE } from "../stats/no-value.js";
import { runKind } from "../ingest/attacked.js";

/** The table's trajectories by position (`TableInput` of ./table.ts). */
interface Rows {
  n: number;
  row(i: number): Partial<TrajectoryIndexRow>;
}

/** What one agent model's rows are over, like for like. */
export interface ModelPopulation {
  /** Its conditions (with an attacked run), sorted. */
  conditions: string[];
  /** Cells all its conditions ran (with one condition: all its cells); 0 when not applied. */
  common_cells: number;
  /** False when its conditions cannot be put on shared cells (`reason`): its rows have no rate (no number). */
  applied: boolean;
  reason?: string;
  /**
   * Its attacked runs without a user task or injection task id (its cells unknown), when it has two or more conditions
   * and they ran the same attacks and suites: every attacked run kept, the cells not compared.
   */
  cells_unknown?: number;
  /** Its attacked runs in the rows, of `of`. */
  kept: number;
  /** Its unattacked runs of user tasks (utility's runs) left out: their (suite, user task) in none of its shared cells. */
  utility_left_out?: number;
  of: number;
  /** The distinct cells each condition ran (absent when some attacked run of the model has no task ids). */
  cells_per_condition?: Record<string, number>;
  /**
   * Applied over two or more conditions and some condition ran a shared cell more than once: each condition's runs kept
   * (not one per cell), so its rate weights the repeated cells more (`compare` calls such a difference unpaired).
   */
  runs_per_condition?: Record<string, number>;
}

/**
 * The rates' population: `like_for_like` (the default), with each model's, or `own_mix` (`--own-mix`: every attacked
 * run of each row). A table stored before session 51 may read `all`, the own mix of that time.
 */
export interface TablePopulation {
  kind: "like_for_like" | "own_mix" | "all";
  /** Per agent model (`like_for_like` only). */
  per_model?: Record<string, ModelPopulation>;
}

/** The population of a table stored before it was recorded: every attacked run of each row. */
export const OWN_MIX: TablePopulation = { kind: "own_mix" };

const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

/** A run's cell key (../stats/cell-key.ts, as `compare --by condition` keys it), or undefined without task ids. */
const cellOf = (r: Partial<TrajectoryIndexRow>): string | undefined => cellKey(r, "condition");
const int = (n: number) => n.toLocaleString("en-US");

/**
 * The like-for-like population of a table's trajectories (module docstring).
 * @param rows the table's trajectories; `modelOf`/`conditionOf` a row's model and condition as the table names its rows.
 * @returns `keep(i)`: whether trajectory `i` is in the rates' population (every unattacked one is; no attacked run of a
 *   model not applied is), and each model's figures ({@link ModelPopulation}). Holds per model and condition the set
 *   of its cells (as the like-for-like check does).
 */
export function likeForLikePopulation(
  rows: Rows,
  modelOf: (r: Partial<TrajectoryIndexRow>) => string,
  conditionOf: (r: Partial<TrajectoryIndexRow>) => string,
): { keep: (i: number) => boolean; per_model: Record<string, ModelPopulation> } {
  const cells = new Map<string, Map<string, Set<string>>>();
  const unknown = new Map<string, number>(); // attacked runs without task ids, per model
  const coarse = new Map<string, Map<string, Set<string>>>(); // per model and condition its (attack, suite) values, for those
  const of = new Map<string, number>();
  for (let i = 0; i < rows.n; i++) {
    const r = rows.row(i);
    if (!r.attacked) continue;
    const m = modelOf(r);
    of.set(m, (of.get(m) ?? 0) + 1);
    let byCond = cells.get(m);
    if (!byCond) cells.set(m, (byCond = new Map()));
    const c = conditionOf(r);
    let s = byCond.get(c);
    if (!s) byCond.set(c, (s = new Set()));
    const k = cellOf(r);
    if (k === undefined) unknown.set(m, (unknown.get(m) ?? 0) + 1);
    else s.add(k);
    let byCondCoarse = coarse.get(m);
    if (!byCondCoarse) coarse.set(m, (byCondCoarse = new Map()));
    let a = byCondCoarse.get(c);
    if (!a) byCondCoarse.set(c, (a = new Set()));
    a.add(`a\u0000${r.attack ?? ""}`).add(`s\u0000${r.suite ?? ""}`);
  }
  const common = new Map<string, Set<string> | "all" | "none">(); // "all": one condition, every run kept; "none": no rate
  const per_model: Record<string, ModelPopulation> = {};
  for (const m of [...cells.keys()].sort()) {
    const byCond = cells.get(m)!;
    const conditions = [...byCond.keys()].sort();
    const sets = conditions.map((c) => byCond.get(c)!);
    const shared = new Set([...sets[0]].filter((k) => sets.every((s) => s.has(k))));
    const u = unknown.get(m) ?? 0;
    const names = conditions.map((c) => JSON.stringify(c)).join(", ");
    const counts = conditions.map((c) => `${JSON.stringify(c)} ${int(byCond.get(c)!.size)}`).join(", ");
    // cells unknown: compared on attacks and suites, as the like-for-like check compares such runs
    const sameCoarse = u > 0 && conditions.every((c) => sameSet(coarse.get(m)!.get(c)!, coarse.get(m)!.get(conditions[0])!));
    const reason =
      conditions.length < 2 ? undefined
      : u > 0 ? (sameCoarse ? undefined : `${int(u)} of its attacked runs have no user task or injection task id, so its cells are unknown, and its conditions ${names} ran different attacks or suites`)
      : shared.size === 0 ? `its conditions ${names} share no (suite, user task, injection task, attack) cell (cells: ${counts})`
      : undefined;
    common.set(m, reason ? "none" : conditions.length < 2 || u > 0 ? "all" : shared);
    per_model[m] = {
      conditions,
      common_cells: reason ? 0 : shared.size,
      applied: !reason,
      ...(reason ? { reason } : {}),
      kept: 0,
      of: of.get(m) ?? 0,
      ...(u > 0 && !reason && conditions.length > 1 ? { cells_unknown: u } : {}),
      ...(u > 0 ? {} : { cells_per_condition: Object.fromEntries(conditions.map((c) => [c, byCond.get(c)!.size])) }),
    };
    byCond.clear(); // only the shared set is kept from here on
  }
  // the utility's runs cut with the rates: the (suite, user task) pairs of each cut model's shared cells
  const tasks = new Map<string, Set<string>>();
  for (const [m, s] of common) if (s instanceof Set) tasks.set(m, new Set([...s].map((k) => k.split("\u0000").slice(0, 2).join("\u0000"))));
  const taskOf = (r: Partial<TrajectoryIndexRow>) => `${r.suite ?? NO_VALUE}\u0000${r.user_task_id}`;
  const keep = (i: number) => {
    const r = rows.row(i);
    if (!r.attacked) {
      const t = tasks.get(modelOf(r));
      return !t || r.user_task_id === undefined || runKind(r) !== "user_task" || t.has(taskOf(r));
    }
    const s = common.get(modelOf(r));
    return s === "all" || s === undefined || (s !== "none" && s.has(cellOf(r)!));
  };
  const runs = new Map<string, Map<string, number>>(); // kept attacked runs per model and condition
  for (let i = 0; i < rows.n; i++) {
    const r = rows.row(i);
    if (!r.attacked && !keep(i)) {
      const p = per_model[modelOf(r)];
      if (p) p.utility_left_out = (p.utility_left_out ?? 0) + 1;
    }
    if (!r.attacked || !keep(i)) continue;
    const m = modelOf(r);
    per_model[m].kept++;
    let byCond = runs.get(m);
    if (!byCond) runs.set(m, (byCond = new Map()));
    byCond.set(conditionOf(r), (byCond.get(conditionOf(r)) ?? 0) + 1);
  }
  // a condition that ran a shared cell more than once is not one run per cell beside the others (break47b)
  for (const [m, p] of Object.entries(per_model)) {
    const byCond = runs.get(m);
    if (!p.applied || p.cells_unknown || p.conditions.length < 2 || !byCond || p.conditions.every((c) => byCond.get(c) === p.common_cells)) continue;
    p.runs_per_condition = Object.fromEntries(p.conditions.map((c) => [c, byCond.get(c) ?? 0]));
  }
  return { keep, per_model };
}

/** What one row's rates are over (module docstring): the table's rows carry it, every output says it. */
export interface RowOver {
  /** The row's attacked runs left out (not on the cells its model's conditions share; all of them when not applied). */
  n_attacked_left_out: number;
  /** The row's distinct cells left out; null when its cells are unknown (runs without task ids). */
  cells_left_out: number | null;
  /**
   * `all runs`, `629 shared cells (6,146 runs on 6,146 cells left out)`, or `no number: <why>`; then, when the
   * utility left runs out, `; utility on their user tasks (81 unattacked runs left out)`.
   */
  over: string;
  /** The row's unattacked runs of user tasks its utility left out (absent: none). */
  n_unattacked_left_out?: number;
}

/** The reason code of a rate cell of a model without a like-for-like rate (`reasonText` of ../format/stat-text.ts reads it). */
export const NO_SHARED_CELLS = "no_like_for_like_cells";

/**
 * What a row is over ({@link RowOver}).
 * @param p its model's like-for-like population (undefined: `--own-mix`, every attacked run of the row).
 * @param condition the row's condition as the population keys it; @param leftOut its attacked runs left out.
 */
export function rowOver(p: ModelPopulation | undefined, condition: string, leftOut: number, utilityLeftOut = 0): RowOver {
  const o = rowOverRates(p, condition, leftOut);
  // the utility's unattacked runs left out with the rates' cells (module docstring)
  return utilityLeftOut ? { ...o, n_unattacked_left_out: utilityLeftOut, over: `${o.over}; utility on their user tasks (${int(utilityLeftOut)} unattacked run${utilityLeftOut === 1 ? "" : "s"} left out)` } : o;
}

/** {@link rowOver} of the rates alone. */
function rowOverRates(p: ModelPopulation | undefined, condition: string, leftOut: number): RowOver {
  if (!p) return { n_attacked_left_out: 0, cells_left_out: 0, over: "all runs" };
  const cells = p.cells_per_condition?.[condition];
  if (!p.applied) return { n_attacked_left_out: leftOut, cells_left_out: cells ?? null, over: `no number: ${p.reason}` };
  if (p.cells_unknown) return { n_attacked_left_out: 0, cells_left_out: null, over: `all runs (cells not compared: ${int(p.cells_unknown)} attacked runs of the model without task ids; its conditions ran the same attacks and suites)` };
  if (leftOut === 0) return { n_attacked_left_out: 0, cells_left_out: 0, over: "all runs" };
  const dropped = cells === undefined ? null : cells - p.common_cells;
  return { n_attacked_left_out: leftOut, cells_left_out: dropped, over: `${int(p.common_cells)} shared cells (${int(leftOut)} runs${dropped === null ? "" : ` on ${int(dropped)} cells`} left out)` };
}

/**
 * The reason of every rate cell of a row whose model has no like-for-like rate: {@link NO_SHARED_CELLS} with the
 * model's reason and what gives a figure instead.
 */
export function noSharedCellsReason(model: string, p: ModelPopulation): string {
  return `${NO_SHARED_CELLS} (${JSON.stringify(model)}: ${p.reason}; --own-mix gives each row over its own runs, marked where unlike)`;
}

/**
 * The line that says which population the table's rates are over (the text table's first line, the LaTeX header
 * comment, the report's line above its table): like for like with each model's cells and runs kept, or own mix.
 */
export function populationText(p: TablePopulation): string {
  if (p.kind !== "like_for_like") {
    return "population: own mix (--own-mix): every attacked run of each row (n), whatever the other rows of its model ran; rows whose runs differ from the other rows of their model or condition are marked [a], [b] ... (footnotes under the table; without --own-mix each model's rows are over the cells its conditions share)";
  }
  const each = Object.entries(p.per_model ?? {}).map(([m, x]) =>
    !x.applied ? `${JSON.stringify(m)}: no number (${x.reason}; ${int(x.of)} attacked runs)`
    : x.cells_unknown ? `${JSON.stringify(m)}: all ${int(x.of)} attacked runs, cells not compared (${int(x.cells_unknown)} without task ids; its conditions ran the same attacks and suites)`
    : x.conditions.length < 2 ? `${JSON.stringify(m)}: one condition, all ${int(x.of)} attacked runs` : `${JSON.stringify(m)}: ${int(x.common_cells)} cells, ${int(x.kept)} of ${int(x.of)} attacked runs${repeatsText(x)}`,
  );
  return (
    `population: like for like: each agent model's attacked runs on the (suite, user task, injection task, attack) cells all its conditions ran, as compare --by condition pairs them ` +
    `(${each.join("; ")}); utility without attack over the unattacked runs of the user tasks (suite, user task) of those cells; --own-mix gives each row over all its own runs`
  );
}

/** ` (runs per condition: D 3, no_defense 6: ...)` when a condition ran a shared cell more than once; else "". */
function repeatsText(x: ModelPopulation): string {
  if (!x.runs_per_condition) return "";
  const each = Object.entries(x.runs_per_condition).map(([c, n]) => `${JSON.stringify(c)} ${int(n)}`).join(", ");
  return ` (runs per condition: ${each}: some cells ran more than once under a condition, so that condition's rate weights them more than one run per cell; compare --by condition calls the difference unpaired)`;
}

/** The CSV's columns on which attacked runs each row's rates are over ({@link RowOver}), and its like-for-like marks. */
export const POPULATION_CSV_COLUMNS = ["population", "n_attacked_left_out", "cells_left_out", "over", "attacks", "mix_marks"] as const;

/**
 * A row's first four {@link POPULATION_CSV_COLUMNS} cells (the table's kind; a row made before {@link RowOver}: empty).
 */
export function populationCsvCells(t: { population?: TablePopulation }, r: Partial<RowOver>): Array<string | number> {
  return [t.population?.kind ?? OWN_MIX.kind, r.n_attacked_left_out ?? "", r.cells_left_out ?? "", r.over ?? ""];
}

/** The LaTeX comment lines saying what each row is over: `% over: model | condition: all runs`. */
export function overLatexLines(rows: ReadonlyArray<{ agent_model: string; condition: string | null; n_attacked: number } & Partial<RowOver>>): string[] {
  return rows.map((r) => `% over: ${r.agent_model}${r.condition === null ? "" : ` | ${r.condition}`}: n ${int(r.n_attacked)}, ${r.over ?? "all runs"}`.replace(/[\r\n]/g, " "));
}

/**
 * The text table's `over` column, right after n ({@link RowOver}'s `over`; the `(all)` row's cell empty).
 * @param nAt the index of the n column.
 */
export function insertOverColumn(head: string[], body: string[][], extra: string[][], rows: ReadonlyArray<Partial<RowOver>>, nAt: number): void {
  head.splice(nAt + 1, 0, "over");
  body.forEach((b, k) => b.splice(nAt + 1, 0, rows[k].over ?? "all runs"));
  for (const b of extra) b.splice(nAt + 1, 0, "");
}
