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
  /**
   * Set for a model whose conditions share no cell (kept whole by ./cells.ts): the fold was put on the cells its
   * candidate conditions share, on the training suites and on the held-out one (session 52: such folds mixed tasks).
   */
  shared_cells?: { train: number; held_out: number };
}

/** Leave-one-suite-out condition selection. */
export interface LosoSummary {
  /** The rate conditions are selected and scored by. */
  rate: RateName;
  baseline: string;
  folds: LosoFold[];
  /**
   * (model, suite) pairs skipped, with the reason; `no_shared_cell` (a model whose conditions share no cell, whose
   * candidate conditions share none on the training suites or on the held-out one) says which in `detail`.
   */
  skipped: Array<{ model: string; held_out: string; reason: string; detail?: string }>;
  n_folds: number;
  /** Share of folds whose selected condition is an oracle condition of the held-out suite (a tied fold counts its `correct_share`). */
  selection_accuracy: number | null;
  /** Folds whose training ASRs tied at the top: their figures are means over the tied conditions. */
  folds_tied: number;
  /** The unweighted mean of the folds' realized rates (each fold counts once, whatever its runs: not a pooled rate; break53 #7). */
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
 *
 * A model in `apart` (its conditions share no cell: ./cells.ts keeps its runs whole) has each fold put on the cells
 * its candidate conditions share: on the training suites for the selection, on the held-out suite for the scores
 * (`shared_cells`); a fold where they share none on either side, or where a run has no cell, is skipped with reason
 * `no_shared_cell` and a `detail` (never a fold over each condition's own tasks).
 * @param apart the models kept whole (`apartModels` of ./index.ts); other models' observations are already on their
 *   common cells.
 */
export function leaveOneSuiteOut(obs: readonly Observation[], baseline: string, rate: RateName = "asr_behaviour", apart: ReadonlySet<string> = new Set()): LosoSummary {
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
    const all = obs.filter((o) => o.model === model);
    const suites = sorted(all.map((o) => o.suite));
    for (const s of suites) {
      const others = suites.filter((x) => x !== s);
      if (others.length === 0) {
        skipped.push({ model, held_out: s, reason: "no_training_suite" });
        continue;
      }
      const condsHere = new Set(all.filter((o) => o.suite === s).map((o) => o.condition));
      const trained = new Set(all.filter((o) => o.suite !== s).map((o) => o.condition));
      const fold = apart.has(model) ? sharedFold(all, s, sorted([...condsHere].filter((c) => trained.has(c))), baseline) : { obs: all };
      if ("reason" in fold) {
        skipped.push({ model, held_out: s, reason: "no_shared_cell", detail: fold.reason });
        continue;
      }
      const mine = fold.obs;
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
      const heldOut = new Map<string, { k: number; n: number }>();
      if (fold.cells) {
        for (const o of mine) {
          if (o.suite !== s) continue;
          let c = heldOut.get(o.condition);
          if (!c) heldOut.set(o.condition, (c = { k: 0, n: 0 }));
          c.n += weightOf(o);
          if (o.compromised) c.k += weightOf(o);
        }
      }
      const here = (c: string) => {
        const x = fold.cells ? heldOut.get(c)! : counts.get(key(model, s, c))!;
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
        ...(fold.cells ? { shared_cells: fold.cells } : {}),
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

/**
 * One fold of a model whose conditions share no cell, put on the cells its candidate conditions share: on the training
 * suites and on the held-out suite `s` separately (the selection and the scores each compare like with like).
 * @param all the model's observations; @param candidates the conditions run both on `s` and on another suite.
 * Cells are the observations' `cell` (the compared field left out of it: ./data.ts).
 * @returns the observations of the candidates on those cells and the cell counts, or the reason there is no such fold.
 */
function sharedFold(all: readonly Observation[], s: string, candidates: readonly string[], baseline: string): { obs: readonly Observation[]; cells?: { train: number; held_out: number } } | { reason: string } {
  if (candidates.length < 2 || !candidates.includes(baseline)) return { obs: all }; // skipped below (single_condition, ...)
  const mine = all.filter((o) => candidates.includes(o.condition));
  const unknown = mine.filter((o) => o.cell === undefined).length;
  if (unknown > 0) return { reason: `${unknown} of its runs in the fold have no user task or injection task id, so the cells its conditions share are unknown` };
  const sharedOf = (side: readonly Observation[]) => {
    const per = new Map<string, Set<string>>(candidates.map((c) => [c, new Set<string>()]));
    for (const o of side) per.get(o.condition)!.add(o.cell!);
    const sets = [...per.values()];
    return { shared: new Set([...sets[0]].filter((k) => sets.every((x) => x.has(k)))), counts: candidates.map((c) => `${JSON.stringify(c)} ${per.get(c)!.size}`).join(", ") };
  };
  const train = sharedOf(mine.filter((o) => o.suite !== s));
  const held = sharedOf(mine.filter((o) => o.suite === s));
  const names = candidates.map((c) => JSON.stringify(c)).join(", ");
  if (train.shared.size === 0) return { reason: `its conditions ${names} share no cell on the training suites (cells: ${train.counts})` };
  if (held.shared.size === 0) return { reason: `its conditions ${names} share no cell on the held-out suite ${JSON.stringify(s)} (cells: ${held.counts})` };
  const keep = (o: Observation) => (o.suite === s ? held.shared : train.shared).has(o.cell!);
  return { obs: mine.filter(keep), cells: { train: train.shared.size, held_out: held.shared.size } };
}
