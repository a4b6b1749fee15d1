/**
 * The report's rates by condition value (defense), by attack and by surface: one view per field with two values or
 * more and per rate, its cells per (agent model, value), suites pooled (`asrTable` of ../compare/analysis.ts), with
 * what a LOW coverage's list says of them (counts, the benchmark's own verdict over the labelled runs and over all).
 */
import { ALL_SUITES, asrTable } from "../compare/analysis.js";
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
  }>;
  /** Values of `field` with attacked trajectories but no usable label (absent from `cells`, named here). */
  excluded_groups: ExcludedGroup[];
  /**
   * The labels' coverage over the view: attacked trajectories with a model and a value of `field`, and those with a
   * usable label; named in the charts' titles beside whose labels (new user 37: a committee labelling 10.6%).
   */
  label_coverage?: { labelled: number; attacked: number };
}

/** The two rates by condition, attack and surface (fields with two values or more among the attacked runs, labelled or not), one view per field and rate, from the observations of each field (objects or columns). */
export function conditionViewsOf(observationsOf: (field: string) => Observations): ConditionView[] {
  const conditions: ConditionView[] = [];
  for (const field of ["condition", "attack", "surface"]) {
    const obs = observationsOf(field);
    // the values of the attacked runs, labelled or not: a value whose runs all lack a label (VIGIL's tool_output
    // surface, 66 runs) is named among the left out, never a view dropped in silence (new user 41)
    const values = new Set([...obs.observations, ...(obs.unlabelled ?? [])].map((x) => x.condition));
    if (values.size < 2) continue;
    const table = asrTable(obs.observations, obs.unlabelled).filter((c) => c.suite === ALL_SUITES);
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
        }));
      conditions.push({ field, rate, cells, excluded_groups: obs.excluded_groups.filter((g) => g.field === field), label_coverage });
    }
  }
  return conditions;
}
