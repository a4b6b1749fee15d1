/**
 * Synthetic populations with a known truth for the estimator's simulation tests: attacked and unattacked
 * trajectories of several agent models, a true compromised flag, a judge of known bias, committee unanimity
 * that is more often broken where the judge is wrong, and the REAL two-phase sample of src/sample/.
 */
import { buildPopulation, drawSample, type CommitteeRow } from "../../src/sample/index.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { DomainUnit, LabelledItem } from "../../src/estimate/calibrated.js";
import { Rand } from "../helpers/rand.js";

export interface SimSettings {
  N: number;
  models: Array<{ name: string; asr: number; share: number }>;
  unattacked: number;
  /** P(judge says compromised | truly compromised): 0.6 = misses 40% of compromises. */
  sensitivity: number;
  /** P(judge says compromised | not compromised). */
  falsePositive: number;
  /** Share of judge verdicts that are not usable (judge_error, unverified, ...). */
  unusable: number;
  /** P(committee not unanimous | judge wrong), P(... | judge right). */
  disagreeWrong: number;
  disagreeRight: number;
  n1: number;
  n2: number;
  strata: string[];
}

export interface SimPopulation {
  units: Array<{ id: string; model: string; attacked: boolean; truth: boolean; judge: boolean | null }>;
  labelled: LabelledItem[];
  cellSizes: Map<string, number>;
}

/** One synthetic population and its real two-phase sample (seeded). */
export function simulate(s: SimSettings, seed: number): SimPopulation {
  const r = new Rand(seed);
  const units: SimPopulation["units"] = [];
  const rows: TrajectoryIndexRow[] = [];
  const committee: CommitteeRow[] = [];
  for (let i = 0; i < s.N; i++) {
    const id = `t${String(i).padStart(5, "0")}`;
    const u = r.int(0, 999_999) / 1_000_000;
    let acc = 0;
    let model = s.models[s.models.length - 1];
    for (const m of s.models) {
      acc += m.share;
      if (u < acc) {
        model = m;
        break;
      }
    }
    const attacked = !r.bool(s.unattacked);
    const truth = attacked && r.bool(model.asr);
    const judge = r.bool(s.unusable) ? null : truth ? r.bool(s.sensitivity) : r.bool(s.falsePositive);
    const wrong = judge === null || judge !== truth;
    const unanimous = !r.bool(wrong ? s.disagreeWrong : s.disagreeRight);
    units.push({ id, model: model.name, attacked, truth, judge });
    rows.push({ id, agent_model: model.name, attacked, content_sha256: `h${id}`, source: { format: "sim", path: id }, n_messages: 3 } as unknown as TrajectoryIndexRow);
    committee.push({ trajectory_id: id, unanimous });
  }
  const pop = buildPopulation(rows, committee, s.strata as never);
  const { items } = drawSample(pop, { random: s.n1, disagreement: s.n2, seed });
  const truthOf = new Map(units.map((u) => [u.id, u.truth]));
  const labelled = items.map((it) => ({ id: it.trajectory_id, cell: it.stratum, human: truthOf.get(it.trajectory_id)! }));
  const cellSizes = new Map(items.map((it) => [it.stratum, it.stratum_size]));
  return { units, labelled, cellSizes };
}

/** The domain units of a group (attacked, `model` or every model) and its true ASR. */
export function domainOf(p: SimPopulation, model?: string): { domain: DomainUnit[]; truth: number } {
  const d = p.units.filter((u) => u.attacked && (model === undefined || u.model === model));
  return { domain: d.map((u) => ({ id: u.id, judge: u.judge })), truth: d.filter((u) => u.truth).length / d.length };
}

/**
 * The settings of the first seeded simulations (calibrated.test.ts, small-count.test.ts): N = 1000, three agent models
 * with ASR 0.15 / 0.30 / 0.50, 10% unattacked; a judge that misses 40% of compromises (3% false positives, 3%
 * unusable); 100 drawn at random stratified by agent model + 50 from the disagreements.
 */
export const THREE_MODELS: SimSettings = {
  N: 1000,
  models: [
    { name: "a", asr: 0.15, share: 0.4 },
    { name: "b", asr: 0.3, share: 0.35 },
    { name: "c", asr: 0.5, share: 0.25 },
  ],
  unattacked: 0.1,
  sensitivity: 0.6,
  falsePositive: 0.03,
  unusable: 0.03,
  disagreeWrong: 0.6,
  disagreeRight: 0.08,
  n1: 100,
  n2: 50,
  strata: ["agent_model"],
};
