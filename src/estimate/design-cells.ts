/**
 * What the label file's design cells say about the run's trajectories: the sampling-stratum fields a cell names
 * (`ipi-judge sample` keys, src/sample/population.ts), and which trajectories fall in no cell of the file.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { ALL_STRATUM, STRATUM_FIELDS, stratumKey, type StratumField } from "../sample/population.js";
import type { UncoveredRows } from "../agree/sample-frame.js";

/**
 * The sampling-stratum fields a design cell names (`D|agent_model=x,suite=y` -> agent_model, suite; `A` or `all`
 * -> none), or null when the cell is not a key `ipi-judge sample` writes (then nothing is known about it).
 */
export function cellFields(cell: string): { sampling: string; fields: StratumField[] } | null {
  const sampling = /^[ADU](\|.*)?$/.test(cell) ? (cell.length === 1 ? ALL_STRATUM : cell.slice(2)) : cell;
  if (sampling === ALL_STRATUM) return { sampling, fields: [] };
  const found: Array<{ f: StratumField; at: number }> = [];
  for (const f of STRATUM_FIELDS) {
    const m = new RegExp(`(?:^|,)${f}=`).exec(sampling);
    if (m) found.push({ f, at: m.index });
  }
  if (found.length === 0) return null;
  return { sampling, fields: found.sort((a, b) => a.at - b.at).map((x) => x.f) };
}

/**
 * The frame's trajectories whose sampling stratum has no cell in the label file (a stratum the sample drew nothing
 * from, hence not in the file). Known only when every cell names the same `--strata` fields; null otherwise (a cell
 * of unknown form, or cells over different fields), and then nothing is said about them.
 * @param cells the label file's design cells (`stratum` values).
 * @param frameRows the trajectories of the sample's population (the run, or what the sample's `--where` keeps).
 */
export function uncoveredRows(cells: Iterable<string>, frameRows: readonly TrajectoryIndexRow[]): UncoveredRows | null {
  let fields: StratumField[] | null = null;
  const keys = new Set<string>();
  for (const c of cells) {
    const cf = cellFields(c);
    if (!cf) return null;
    if (fields && fields.join(",") !== cf.fields.join(",")) return null;
    fields = cf.fields;
    keys.add(cf.sampling);
  }
  if (!fields) return null;
  const strata = new Set<string>();
  let n = 0;
  let attacked = 0;
  for (const r of frameRows) {
    const k = stratumKey(r, fields);
    if (keys.has(k)) continue;
    n++;
    if (r.attacked) attacked++;
    strata.add(k);
  }
  return { n, attacked, strata: [...strata].sort() };
}
