/**
 * Leave-one-suite-out condition selection (`compare`): for each model and held-out suite, the condition with the
 * highest rate on the model's other suites, evaluated on the held-out one. Conventions as ./analysis.ts (weights,
 * ties within 1e-12).
 */
import type { RateName } from "../stats/rates.js";
import { weightOf, type Observation } from "./data.js";
import { forRate, TIE } from "./analysis.js";

const key = (...parts: string[]) => parts.join("\u0000");
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/** One leave-one-suite-out fold: a model and a held-out suite. */
export interface LosoFold {
  model: string;
  held_out: string;
  /** Condition with the highest ASR on the model's other suites (pooled); the first by name of `selected_tied`. */
  selected: string;
  /**
   * Every condition tied at that highest training ASR, when several are (compare M1, audit 31): the fold's figures are
   * then the mean over them (the expected value of a tie broken at random), not the first by name's.
   */
  selected_tied?: string[];
  /** Share of the selected (tied) conditions that are oracle conditions: 1 or 0 without a tie. */
  correct_share: number;
  /** Conditions with the highest ASR on the held-out suite (several on ties). */
  oracle: string[];
  correct: boolean;
  realized_asr: number;
  baseline_asr: number;
  oracle_asr: number;
}

/** Leave-one-suite-out condition selection. */
export interface LosoSummary {
  /** The rate conditions are selected and scored by. */
  rate: RateName;
  baseline: string;
  folds: LosoFold[];
  /** (model, suite) pairs skipped, with the reason. */
  skipped: Array<{ model: string; held_out: string; reason: string }>;
  n_folds: number;
  /** Share of folds whose selected condition is an oracle condition of the held-out suite (a tied fold counts its `correct_share`). */
  selection_accuracy: number | null;
  /** Folds whose training ASRs tied at the top: their figures are means over the tied conditions. */
  folds_tied: number;
  mean_realized_asr: number | null;
  mean_baseline_asr: number | null;
  mean_oracle_asr: number | null;
  /** mean(realized − baseline). */
  gain_over_baseline: number | null;
  /** mean(oracle − realized). */
  gap_to_oracle: number | null;
  /** Σ(realized − baseline) / Σ(oracle − baseline); null with a reason when the oracle gains nothing. */
  oracle_gain_recovered: number | null;
  reason?: string;
}

/**
 * Leave-one-suite-out condition selection. For each model and each suite s it was observed on: the candidate
 * conditions are those observed for the model both on s and on its other suites; the selected condition is the
 * one with the highest pooled ASR on the other suites; it is evaluated on s. When several tie at the highest, the
 * fold's realized ASR and correctness are the means over them (a tie broken at random), and `selected_tied` names them. A fold needs
 * at least one other suite (else it is skipped with `no_training_suite`), two candidate conditions or more
 * (`single_condition`: there is nothing to select) and the baseline among them (`baseline_not_observed`). Figures are means over folds (one fold = one model x held-out suite);
 * oracle = the highest ASR on s; the share of the oracle gain recovered is Σ(realized − baseline) /
 * Σ(oracle − baseline).
 */
export function leaveOneSuiteOut(obs: readonly Observation[], baseline: string, rate: RateName = "asr_behaviour"): LosoSummary {
  obs = forRate(obs, rate);
  const counts = new Map<string, { k: number; n: number }>();
  for (const o of obs) {
    const kk = key(o.model, o.suite, o.condition);
    let c = counts.get(kk);
    if (!c) counts.set(kk, (c = { k: 0, n: 0 }));
    c.n += weightOf(o);
    if (o.compromised) c.k += weightOf(o);
  }
  const folds: LosoFold[] = [];
  const skipped: LosoSummary["skipped"] = [];
  for (const model of sorted(obs.map((o) => o.model))) {
    const mine = obs.filter((o) => o.model === model);
    const suites = sorted(mine.map((o) => o.suite));
    for (const s of suites) {
      const others = suites.filter((x) => x !== s);
      if (others.length === 0) {
        skipped.push({ model, held_out: s, reason: "no_training_suite" });
        continue;
      }
      const condsHere = new Set(mine.filter((o) => o.suite === s).map((o) => o.condition));
      const train = new Map<string, { k: number; n: number }>();
      for (const o of mine) {
        if (o.suite === s) continue;
        let c = train.get(o.condition);
        if (!c) train.set(o.condition, (c = { k: 0, n: 0 }));
        c.n += weightOf(o);
        if (o.compromised) c.k += weightOf(o);
      }
      const candidates = sorted([...condsHere].filter((c) => train.has(c)));
      if (candidates.length === 1) {
        skipped.push({ model, held_out: s, reason: "single_condition" });
        continue;
      }
      if (!candidates.includes(baseline)) {
        skipped.push({ model, held_out: s, reason: candidates.length === 0 ? "no_common_condition" : "baseline_not_observed" });
        continue;
      }
      const trainAsr = (c: string) => train.get(c)!.k / train.get(c)!.n;
      const best = Math.max(...candidates.map(trainAsr));
      // every condition tied at the best training ASR: a tie is not decided by name (audit 31 M1: alphabetical
      // picks read as 0% selection accuracy where the other tied choices gave 50%)
      const tied = candidates.filter((c) => trainAsr(c) >= best - TIE);
      const here = (c: string) => {
        const x = counts.get(key(model, s, c))!;
        return x.k / x.n;
      };
      const oracleAsr = Math.max(...candidates.map(here));
      const oracle = candidates.filter((c) => here(c) >= oracleAsr - TIE);
      const realized = tied.reduce((a, c) => a + here(c), 0) / tied.length;
      const correctShare = tied.filter((c) => oracle.includes(c)).length / tied.length;
      folds.push({
        model,
        held_out: s,
        selected: tied[0],
        ...(tied.length > 1 ? { selected_tied: tied } : {}),
        correct_share: correctShare,
        oracle,
        correct: correctShare === 1,
        realized_asr: realized,
        baseline_asr: here(baseline),
        oracle_asr: oracleAsr,
      });
    }
  }
  const n = folds.length;
  const mean = (f: (x: LosoFold) => number) => (n === 0 ? null : folds.reduce((s, x) => s + f(x), 0) / n);
  const num = folds.reduce((s, f) => s + (f.realized_asr - f.baseline_asr), 0);
  const den = folds.reduce((s, f) => s + (f.oracle_asr - f.baseline_asr), 0);
  const recovered = n === 0 || Math.abs(den) < TIE ? null : num / den;
  return {
    rate,
    baseline,
    folds,
    skipped,
    n_folds: n,
    selection_accuracy: mean((f) => f.correct_share),
    folds_tied: folds.filter((f) => f.selected_tied).length,
    mean_realized_asr: mean((f) => f.realized_asr),
    mean_baseline_asr: mean((f) => f.baseline_asr),
    mean_oracle_asr: mean((f) => f.oracle_asr),
    gain_over_baseline: mean((f) => f.realized_asr - f.baseline_asr),
    gap_to_oracle: mean((f) => f.oracle_asr - f.realized_asr),
    oracle_gain_recovered: recovered,
    ...(n === 0 ? { reason: "no_folds" } : recovered === null ? { reason: "no_oracle_gain" } : {}),
  };
}
