/**
 * The report's rates by condition value (defense), by attack and by surface: one view per field with two values or
 * more and per rate, its cells per (agent model, value), suites pooled (`asrTable` of ../compare/analysis.ts), with
 * what a LOW coverage's list says of them (counts, the benchmark's own verdict over the labelled runs and over all).
 *
 * Like for like by default (session 52, as the paper table since session 51): each agent model's cells are over the
 * (suite, user task, injection task, attack) cells, the field itself left out, that all its values ran: `compare`'s
 * per-model scope (`commonCellFilter` of ../compare/cells.ts), so a baseline over 15 attacks is not shown beside a
 * defense run on one. Each cell says what it is over (`over`); a model whose values share no cell has no cell, named
 * in `withheld` with why; when some run has no task ids the cells cannot be compared and every cell is over its own
 * runs (`population.kind` `cells_unknown`, said). `--own-mix`: every cell over its own runs (`own_mix`).
 */
import { ALL_SUITES, asrTable } from "../compare/analysis.js";
import { commonCellFilter, type CellCheck } from "../compare/cells.js";
import { totalWeight, type ExcludedGroup, type Observations } from "../compare/data.js";
import { RATE_NAMES, type RateName } from "../stats/rates.js";
import type { ReferenceRates } from "../stats/reference-rates.js";

/** ASR per model and condition value, from `ReportModel.condition_source` (./data.ts). */
export interface ConditionView {
  field: string;
  /** The rate the cells give (`asr` is its value): one view per field and rate. */
  rate: RateName;
  /**
   * `coverage_low`: labelled / attacked in the cell below 80% (`coverage`), flagged wherever it is shown. `labelled`
   * and `attacked`: its counts; `reference_security` (null with `reference_security_reason`: none of its attacked runs
   * carries a usable verdict): the benchmark's own verdict over the labelled runs and over all (src/stats/rates.ts),
   * which the LOW list says as the overall and per-model rows do. Absent from a model made before the fields.
   */
  cells: Array<{
    model: string;
    condition: string;
    asr: number;
    n: number;
    coverage: number | null;
    coverage_low: boolean;
    coverage_low_reason?: string;
    exposure_low?: boolean;
    labelled?: number;
    attacked?: number;
    reference_security?: ReferenceRates | null;
    reference_security_reason?: string;
    /** What its rate is over: `all runs`, or `629 shared cells (6,146 runs on 6,146 cells left out)` (module docstring). */
    over?: string;
    /** Its attacked runs (labelled or not) left out: not on the cells its model's values share. */
    n_attacked_left_out?: number;
    /** Its distinct cells left out. */
    cells_left_out?: number;
  }>;
  /** Which runs the cells are over (module docstring); absent from a model made before it (own mix). */
  population?: { kind: "like_for_like" | "own_mix" | "cells_unknown"; reason?: string };
  /** Agent models whose values share no cell: no cell of theirs is shown, with why (like for like only). */
  withheld?: Array<{ model: string; reason: string }>;
  /** Values of `field` with attacked trajectories but no usable label (absent from `cells`, named here). */
  excluded_groups: ExcludedGroup[];
  /**
   * The labels' coverage over the view: attacked trajectories with a model and a value of `field`, and those with a
   * usable label; named in the charts' titles beside whose labels (new user 37: a committee labelling 10.6%).
   */
  label_coverage?: { labelled: number; attacked: number };
}

/**
 * The two rates by condition, attack and surface (fields with two values or more among the attacked runs, labelled or
 * not), one view per field and rate, from the observations of each field (objects or columns).
 * @param opts `ownMix`: every cell over its own runs, not like for like (module docstring).
 */
export function conditionViewsOf(observationsOf: (field: string) => Observations, opts: { ownMix?: boolean } = {}): ConditionView[] {
  const conditions: ConditionView[] = [];
  for (const field of ["condition", "attack", "surface"]) {
    const obs = observationsOf(field);
    // the values of the attacked runs, labelled or not: a value whose runs all lack a label (VIGIL's tool_output
    // surface, 66 runs) is named among the left out, never a view dropped in silence (new user 41)
    const values = new Set([...obs.observations, ...(obs.unlabelled ?? [])].map((x) => x.condition));
    if (values.size < 2) continue;
    const lfl = likeForLike(obs, field, !!opts.ownMix);
    const table = asrTable(lfl.observations, lfl.unlabelled).filter((c) => c.suite === ALL_SUITES);
    const labelled = totalWeight(obs.observations);
    const label_coverage = { labelled, attacked: labelled + totalWeight(obs.unlabelled ?? []) };
    for (const rate of RATE_NAMES) {
      const cells = table
        .filter((c) => c[rate].rate !== null)
        .map((c) => ({
          model: c.model,
          condition: c.condition,
          asr: c[rate].rate!,
          n: c[rate].n,
          coverage: c.coverage,
          coverage_low: c.coverage_low,
          ...(c.coverage_low_reason ? { coverage_low_reason: c.coverage_low_reason } : {}),
          ...(c.exposure_low ? { exposure_low: true } : {}),
          labelled: c.labelled,
          attacked: c.attacked,
          // the benchmark's own verdict beside a LOW coverage, as the overall and per-model rows say it
          ...(c.reference_security !== undefined ? { reference_security: c.reference_security } : {}),
          ...(c.reference_security_reason ? { reference_security_reason: c.reference_security_reason } : {}),
          ...lfl.over(c.model, c.condition),
        }));
      conditions.push({ field, rate, cells, excluded_groups: obs.excluded_groups.filter((g) => g.field === field), label_coverage, population: lfl.population, ...(lfl.withheld.length ? { withheld: lfl.withheld } : {}) });
    }
  }
  return conditions;
}

const int = (n: number) => n.toLocaleString("en-US");

/**
 * The observations a view's cells are over (module docstring), what each cell is over and the models withheld.
 * @param ownMix every observation kept (`--own-mix`).
 */
function likeForLike(obs: Observations, field: string, ownMix: boolean) {
  const all = [...obs.observations, ...(obs.unlabelled ?? [])];
  const allRuns = () => ({ over: "all runs", n_attacked_left_out: 0, cells_left_out: 0 });
  if (ownMix) return { observations: obs.observations, unlabelled: obs.unlabelled, population: { kind: "own_mix" as const }, withheld: [], over: allRuns };
  const f = commonCellFilter(all, field, "common");
  const check: CellCheck = f.cells;
  if (Object.keys(check.per_model).length === 0) {
    // some run has no task ids: nothing is compared (compare keeps them whole too); said, never read as like for like
    const reason = check.reason ?? "the cells could not be compared";
    return { observations: obs.observations, unlabelled: obs.unlabelled, population: { kind: "cells_unknown" as const, reason }, withheld: [], over: () => ({ over: `all runs (cells not compared: ${reason})` }) };
  }
  const apart = new Set(Object.entries(check.per_model).filter(([, pm]) => pm.contrast && !pm.applied).map(([m]) => m));
  const kept = new Set<unknown>(f.observations.filter((o) => !apart.has(o.model)));
  const withheld = [...apart].sort().map((m) => ({ model: m, reason: `no like-for-like cell: ${JSON.stringify(m)}: ${check.per_model[m].reason} (--own-mix gives each cell over its own runs)` }));
  const over = (model: string, value: string) => {
    const pm = check.per_model[model];
    const d = pm?.dropped[value];
    if (!pm || !d || d.trajectories === 0) return allRuns();
    return { over: `${int(pm.common_cells)} shared cells (${int(d.trajectories)} runs on ${int(d.cells)} cells left out)`, n_attacked_left_out: d.trajectories, cells_left_out: d.cells };
  };
  return {
    observations: obs.observations.filter((o) => kept.has(o)),
    unlabelled: (obs.unlabelled ?? []).filter((o) => kept.has(o)),
    population: { kind: "like_for_like" as const },
    withheld,
    over,
  };
}

/**
 * What each by-condition cell is over, for `report --json` (`conditions_over`): per field (its asr_goal view), the
 * population, each (agent model, value) with both rates, n (labelled attacked runs), `over` and what it left out, and
 * the models withheld.
 */
export function conditionsOverJson(views: readonly ConditionView[]) {
  return views.filter((c) => c.rate === "asr_goal").map((c) => ({
    field: c.field,
    population: c.population ?? null,
    cells: c.cells.map((x) => ({
      model: x.model,
      [c.field]: x.condition,
      asr_goal: x.asr,
      asr_behaviour: views.find((v) => v.field === c.field && v.rate === "asr_behaviour")?.cells.find((y) => y.model === x.model && y.condition === x.condition)?.asr ?? null,
      n: x.n,
      over: x.over ?? null,
      n_attacked_left_out: x.n_attacked_left_out ?? null,
      cells_left_out: x.cells_left_out ?? null,
    })),
    withheld: c.withheld ?? [],
  }));
}
