/**
 * Which attacked runs the paper table's rates are over (`estimate --table`; session 47, new user finding 1). By default
 * every attacked run of each (agent model, condition) row. With `--like-for-like`, each agent model's rows are over the
 * (suite, user task, injection task, attack) cells that ALL its conditions ran: `compare`'s per-model scope
 * (src/compare/cells.ts, `ownCells`; the same cell fields, attacked runs labelled or not), so gpt-4o's no_defense row
 * over 15 attacks and its defense rows over one are read over the 629 cells they share (313/629 = 49.8% against
 * 175/629 = 27.8%, as `compare --by condition` gives), not 27.2% over 6,775 runs beside 27.8% over 629.
 *
 * As in `compare`: a model with one condition keeps every attacked run (nothing of it is contrasted); a model whose
 * conditions share no cell is kept whole and named (nothing of it is like for like); a model with an attacked run
 * without a user task or injection task id cannot be checked and is kept whole and named. Unattacked runs have no
 * injection task, so no cell: they are all kept (the utility column is over them, as `compare`'s utility without attack).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { cellKey } from "../stats/cell-key.js";

/** The table's trajectories by position (`TableInput` of ./table.ts). */
interface Rows {
  n: number;
  row(i: number): Partial<TrajectoryIndexRow>;
}

/** What one agent model's rows are over with `--like-for-like`. */
export interface ModelPopulation {
  /** Its conditions (with an attacked run), sorted. */
  conditions: string[];
  /** Cells all its conditions ran (with one condition: all its cells); 0 when not applied. */
  common_cells: number;
  /** False when its attacked runs are kept whole (`reason`). */
  applied: boolean;
  reason?: string;
  /** Its attacked runs in the rows, of `of`. */
  kept: number;
  of: number;
  /**
   * Applied over two or more conditions and some condition ran a shared cell more than once: each condition's runs kept
   * (not one per cell), so its rate weights the repeated cells more (`compare` calls such a difference unpaired).
   */
  runs_per_condition?: Record<string, number>;
}

/** The rates' population: `all` (default) or `like_for_like`, with each model's when like for like. */
export interface TablePopulation {
  kind: "all" | "like_for_like";
  /** Per agent model (`like_for_like` only). */
  per_model?: Record<string, ModelPopulation>;
}

/** A run's cell key (../stats/cell-key.ts, as `compare --by condition` keys it), or undefined without task ids. */
const cellOf = (r: Partial<TrajectoryIndexRow>): string | undefined => cellKey(r, "condition");

/**
 * The `--like-for-like` population of a table's trajectories (module docstring).
 * @param rows the table's trajectories; `modelOf`/`conditionOf` a row's model and condition as the table names its rows.
 * @returns `keep(i)`: whether trajectory `i` is in the rates' population (every unattacked one is), and each model's
 *   figures ({@link ModelPopulation}). Holds per model and condition the set of its cells (as the like-for-like check does).
 */
export function likeForLikePopulation(
  rows: Rows,
  modelOf: (r: Partial<TrajectoryIndexRow>) => string,
  conditionOf: (r: Partial<TrajectoryIndexRow>) => string,
): { keep: (i: number) => boolean; per_model: Record<string, ModelPopulation> } {
  const cells = new Map<string, Map<string, Set<string>>>();
  const unknown = new Map<string, number>(); // attacked runs without task ids, per model
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
  }
  const common = new Map<string, Set<string> | null>(); // null: kept whole
  const per_model: Record<string, ModelPopulation> = {};
  for (const m of [...cells.keys()].sort()) {
    const byCond = cells.get(m)!;
    const conditions = [...byCond.keys()].sort();
    const sets = conditions.map((c) => byCond.get(c)!);
    const shared = new Set([...sets[0]].filter((k) => sets.every((s) => s.has(k))));
    const u = unknown.get(m) ?? 0;
    const counts = conditions.map((c) => `${c} ${byCond.get(c)!.size}`).join(", ");
    const reason =
      u > 0 ? `${u} of its attacked runs have no user task or injection task id, so its cells are unknown: all its attacked runs are kept`
      : conditions.length > 1 && shared.size === 0 ? `its conditions share no (suite, user task, injection task, attack) cell (${counts}): nothing of it is like for like, so all its attacked runs are kept`
      : undefined;
    common.set(m, reason ? null : shared);
    per_model[m] = { conditions, common_cells: reason ? 0 : shared.size, applied: !reason, ...(reason ? { reason } : {}), kept: 0, of: of.get(m) ?? 0 };
    byCond.clear(); // only the shared set is kept from here on
  }
  const keep = (i: number) => {
    const r = rows.row(i);
    if (!r.attacked) return true;
    const s = common.get(modelOf(r));
    return s === null || s === undefined || s.has(cellOf(r)!);
  };
  const runs = new Map<string, Map<string, number>>(); // kept attacked runs per model and condition
  for (let i = 0; i < rows.n; i++) {
    const r = rows.row(i);
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
    if (!p.applied || p.conditions.length < 2 || !byCond || p.conditions.every((c) => byCond.get(c) === p.common_cells)) continue;
    p.runs_per_condition = Object.fromEntries(p.conditions.map((c) => [c, byCond.get(c) ?? 0]));
  }
  return { keep, per_model };
}

/**
 * The line that says which population the table's rates are over (the text table's first line, the LaTeX header
 * comment, the notes): every attacked run, or like for like with each model's cells and runs kept.
 */
export function populationText(p: TablePopulation): string {
  if (p.kind === "all") {
    return "population: every attacked run of each row (n); rows whose runs differ from the other rows of their model or condition are marked [a], [b] ... (footnotes under the table; --like-for-like builds each model's rows over the cells its conditions share)";
  }
  const each = Object.entries(p.per_model ?? {}).map(([m, x]) =>
    !x.applied ? `${m}: ${x.reason} (${x.of.toLocaleString("en-US")})` : x.conditions.length < 2 ? `${m}: one condition, all ${x.of.toLocaleString("en-US")} attacked runs` : `${m}: ${x.common_cells.toLocaleString("en-US")} cells, ${x.kept.toLocaleString("en-US")} of ${x.of.toLocaleString("en-US")} attacked runs${repeatsText(x)}`,
  );
  return (
    `population: like for like (--like-for-like): each agent model's attacked runs on the (suite, user task, injection task, attack) cells all its conditions ran, as compare --by condition pairs them ` +
    `(${each.join("; ")}); utility without attack over all unattacked runs (they have no cell)`
  );
}

/** ` (runs per condition: D 3, no_defense 6: ...)` when a condition ran a shared cell more than once; else "". */
function repeatsText(x: ModelPopulation): string {
  if (!x.runs_per_condition) return "";
  const each = Object.entries(x.runs_per_condition).map(([c, n]) => `${c} ${n.toLocaleString("en-US")}`).join(", ");
  return ` (runs per condition: ${each}: some cells ran more than once under a condition, so that condition's rate weights them more than one run per cell; compare --by condition calls the difference unpaired)`;
}
