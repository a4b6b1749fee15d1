/**
 * vectors/design_two_phase_tiny_exact.json (test/data/vectors/NOTES.md §7): inclusion probabilities, HT and post-stratified
 * weights, weighted confusion proportions, p_o, p_e, κ, AC1, PABAK, prevalences, linearised SEs (with and
 * without fpc), exact fractions, and the two documented checks (replication invariance, one-stratum identity).
 */
import { expect } from "vitest";
import {
  type Category,
  type WeightedAgreement,
  cohenKappa,
  confusionMatrix,
  designAgreement,
  horvitzThompsonWeights,
  inclusionProbabilities,
  influenceValues,
  kappaVariances,
  postStratifiedWeights,
  stratifiedLinearizedVariance,
  weightedAgreement,
} from "../../src/stats/index.js";
import { type Resolver, assert, comment, fraction, loadVector, metadata, num, vectorSuite } from "./vector-harness.js";

const file = "design_two_phase_tiny_exact.json";
const v = loadVector(file);
type Rec = { id: number; stratum: "A" | "D"; in_S1: boolean; in_S2: boolean; judge: string; human: string; pi_design: string; w_ht: string; w_ps: string };
const recs: Rec[] = v.records;
const cats: Category[] = v.categories;
const pop = { A: v.design.population.N_A_unanimous, D: v.design.population.N_D_committee_disagreement };
const judge = recs.map((r) => r.judge);
const human = recs.map((r) => r.human);
const strata = recs.map((r) => r.stratum);
const design = { N: v.design.population.N, N_D: pop.D, n1: 10, n2: 5 };
const pis = inclusionProbabilities({ ...design, variant: "exclude_already_selected" });
const piOf = (h: "A" | "D") => pis[h];
const wHT = horvitzThompsonWeights(recs.map((r) => piOf(r.stratum)));
const wPS = postStratifiedWeights(strata, pop);

const results: Record<string, WeightedAgreement> = {
  w_ps: designAgreement(
    recs.map((r) => ({ judge: r.judge, human: r.human, stratum: r.stratum })),
    pop,
    cats,
  ),
  w_ht: weightedAgreement(judge, human, wHT, cats),
  unweighted: weightedAgreement(judge, human, recs.map(() => 1), cats),
};

const comp = cats.indexOf("comp");
function stat(set: string, name: string) {
  const r = results[set];
  switch (name) {
    case "po":
      return { value: r.po.value, se: r.po.se, se_no: r.po.se_no_fpc };
    case "pe":
      return { value: r.pe };
    case "kappa":
      return { value: r.kappa.value, se: r.kappa.se, se_no: r.kappa.se_no_fpc };
    case "pe_ac1":
      return { value: r.pe_ac1 };
    case "ac1":
      return { value: r.ac1.value, se: r.ac1.se, se_no: r.ac1.se_no_fpc };
    case "pabak_bp":
      return { value: r.pabak.value, se: r.pabak.se, se_no: r.pabak.se_no_fpc };
    case "prev_human_comp":
      return { value: r.prevalence_human[comp].value, se: r.prevalence_human[comp].se };
    case "prev_judge_comp":
      return { value: r.prevalence_judge[comp].value, se: r.prevalence_judge[comp].se };
    default:
      throw new Error(`no statistic ${name}`);
  }
}

/** Forward-difference influence of item i: d/dε θ((1 − ε)P̂ + ε·δ_i), via an added item of weight ε·Σw. */
function numericInfluence(name: "kappa" | "ac1" | "po", i: number): number {
  const eps = 1e-7;
  const sw = wPS.reduce((s, x) => s + x, 0);
  const base = weightedAgreement(judge, human, wPS, cats)[name].value as number;
  const w2 = [...wPS.map((x) => x * (1 - eps)), eps * sw];
  const bumped = weightedAgreement([...judge, judge[i]], [...human, human[i]], w2, cats)[name].value as number;
  return (bumped - base) / eps;
}

const resolvers: Resolver[] = [
  ...metadata("name", "source", "notes", "labels", "categories"),
  { match: /^design\.population\.N$/, resolve: () => num(pop.A + pop.D) },
  { match: /^design\.population\.(N_A_unanimous|N_D_committee_disagreement)$/, resolve: () => comment },
  { match: /^design\.phase2\.(S1|S2)$/, resolve: () => comment },
  {
    match: /^design\.phase2\.realised\.[A-Za-z0-9_]+$/,
    resolve: (p) => {
      const k = String(p[3]);
      const count = (f: (r: Rec) => boolean) => recs.filter(f).length;
      const m: Record<string, number> = {
        S1_hits_A: count((r) => r.in_S1 && r.stratum === "A"),
        S1_hits_D: count((r) => r.in_S1 && r.stratum === "D"),
        n_A: count((r) => r.stratum === "A"),
        n_D: count((r) => r.stratum === "D"),
        n: recs.length,
      };
      return num(m[k]);
    },
  },
  {
    match: /^design\.inclusion_probabilities\.[A-Za-z_]+$/,
    resolve: (p, e) => {
      const last = String(e).split("=").pop() as string; // "... = 7/20": the final exact value
      const key = String(p[2]);
      const actual =
        key === "A" ? pis.A : key === "D_exclude_already_selected" ? pis.D : inclusionProbabilities({ ...design, variant: "independent" }).D;
      return assert(() => expect(actual).toBeCloseTo(fraction(last), 14));
    },
  },
  { match: /^design\.weights\.(w_ht|w_ps)$/, resolve: () => comment },
  { match: /^records\.\d+\.(id|stratum|in_S1|in_S2|judge|human)$/, resolve: () => comment },
  { match: /^records\.\d+\.pi_design$/, resolve: (p) => num(piOf(recs[p[1] as number].stratum)) },
  { match: /^records\.\d+\.w_ht$/, resolve: (p) => num(wHT[p[1] as number]) },
  { match: /^records\.\d+\.w_ps$/, resolve: (p) => num(wPS[p[1] as number]) },
  { match: /^expected_derived\.[a-z_]+\.sum_weights$/, resolve: (p) => num(results[String(p[1])].sum_weights) },
  { match: /^expected_derived\.[a-z_]+\.(P_judge_by_human|P_float)\.\d\.\d$/, resolve: (p) => num(results[String(p[1])].confusion.P[p[3] as number][p[4] as number]) },
  {
    match: /^expected_derived\.w_ps\.check_max_abs_numeric_vs_analytic_influence\.(kappa|ac1|po)$/,
    resolve: (p, e) =>
      assert(() => {
        const name = p[3] as "kappa" | "ac1" | "po";
        const z = influenceValues(judge, human, wPS, cats)[name] as number[];
        let max = 0;
        recs.forEach((_, i) => {
          max = Math.max(max, Math.abs(numericInfluence(name, i) - z[i]));
        });
        // the vector's own check reached e = 3.6e-8..8.6e-8 with its step; a forward difference at 1e-7 is O(1e-7)
        expect(max).toBeLessThan(Math.max(1e-6, 20 * (e as number)));
      }),
  },
  {
    match: /^expected_derived\.[a-z_]+\.[a-z_0-9]+\.(exact|value|se_linearized_fpc|se_linearized_no_fpc|se_stratified_fpc)$/,
    resolve: (p) => {
      const s = stat(String(p[1]), String(p[2])) as { value: number | null; se?: number | null; se_no?: number | null };
      const k = String(p[3]);
      return num(k === "exact" || k === "value" ? s.value : k === "se_linearized_no_fpc" ? s.se_no : s.se);
    },
  },
  {
    match: /^checks_performed\.0$/,
    resolve: (_p, e) =>
      assert(() => {
        // "HT-weighted kappa 0.472687939427 vs kappa on replicated data (weights x7 ...) 0.472687939427"
        const nums = String(e).match(/\d+\.\d{6,}/g)!.map(Number);
        const rep = recs.flatMap((r) => new Array(r.stratum === "A" ? 70 : 20).fill(r));
        const k = cohenKappa(confusionMatrix(rep.map((r) => r.judge), rep.map((r) => r.human), cats).table).value as number;
        expect(results.w_ht.kappa.value).toBeCloseTo(k, 13);
        for (const x of nums) expect(k).toBeCloseTo(x, 11);
      }),
  },
  {
    match: /^checks_performed\.1$/,
    resolve: (_p, e) =>
      assert(() => {
        // "linearised var (1 stratum, no fpc) 0.063456966306 vs FCE var * n/(n-1) 0.063456966306"
        const nums = String(e).match(/\d+\.\d{6,}/g)!.map(Number);
        const z = influenceValues(judge, human, recs.map(() => 1), cats).kappa as number[];
        const one = recs.map(() => "all");
        const vLin = stratifiedLinearizedVariance(z, one, { all: 1e12 }, { fpc: false }) as number;
        const n = recs.length;
        const vFce = (kappaVariances(confusionMatrix(judge, human, cats).table)?.var as number) * (n / (n - 1));
        expect(vLin).toBeCloseTo(vFce, 13);
        for (const x of nums) expect(vLin).toBeCloseTo(x, 11);
      }),
  },
];
vectorSuite(file, resolvers);
