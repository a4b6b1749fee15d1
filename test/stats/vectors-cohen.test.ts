/**
 * Two-rater Cohen's kappa vectors: R irr `kappa2` on `anxiety`, the SAS PROC FREQ table printed in
 * statsmodels' tests, and sklearn's Artstein & Poesio tables. Every leaf of each file is checked or
 * acknowledged (see vector-harness.ts).
 */
import { expect } from "vitest";
import {
  type CohenKappa,
  type WeightSpec,
  cohenKappa,
  cohenKappaFromLabels,
  confusionMatrix,
  kappaVariances,
  pairLabels,
  weightsFromDistances,
} from "../../src/stats/index.js";
import { type PathKey, type Resolver, assert, comment, loadVector, metadata, num, vectorSuite } from "./vector-harness.js";

// ---------------------------------------------------------------- cohen_irr_anxiety.json
{
  const file = "cohen_irr_anxiety.json";
  const v = loadVector(file);
  const raters: Record<string, number[]> = {
    "1": v.data.anxiety_rater1,
    "2": v.data.anxiety_rater2,
    "3": v.data.anxiety_rater3,
  };
  /** irr semantics: the two columns named by "anxiety[,i:j]", levels = sorted values present in either. */
  const pair = (sel: string) => {
    const m = /^anxiety\[,(\d):(\d)\]$/.exec(sel);
    if (!m) throw new Error(`unknown rater selector ${sel}`);
    const a = raters[m[1]];
    const b = raters[m[2]];
    const levels = [...new Set([...a, ...b])].sort((x, y) => x - y);
    return { a, b, levels };
  };
  const irrWeights = (w: string, q: number): WeightSpec => {
    if (w === "unweighted") return "unweighted";
    if (w === "equal") return "linear";
    if (w === "squared") return "quadratic";
    const m = /^c\(([\d,\s.]+)\)$/.exec(w);
    if (!m) throw new Error(`unknown irr weight ${w}`);
    const vec = m[1].split(",").map(Number);
    if (vec.length !== q) throw new Error(`weight vector of length ${vec.length} for ${q} levels`);
    return weightsFromDistances(vec);
  };
  const caseResult = (i: number): CohenKappa => {
    const c = v.cases[i];
    const { a, b, levels } = pair(c.raters);
    const table = confusionMatrix(a, b, levels).table;
    return cohenKappa(table, { weights: irrWeights(c.weight, levels.length) });
  };
  const declared = (sel: string, w: "unweighted" | "linear" | "quadratic") => {
    const { a, b } = pair(sel);
    return cohenKappa(confusionMatrix(a, b, [1, 2, 3, 4, 5, 6]).table, { weights: w });
  };
  const pick = (r: CohenKappa, key: string): number | null | undefined =>
    ({ kappa: r.value, z: r.z, p_two_sided: r.p_two_sided, ase_h0: r.se0, ase_nonnull_fce: r.se, ase: r.se })[key];

  const resolvers: Resolver[] = [
    ...metadata("name", "source", "irr_semantics", "table_convention", "decimals", "data"),
    {
      match: /^tables\./,
      resolve: (p: PathKey) => {
        const key = String(p[1]);
        const sel = key.slice(0, key.indexOf("]") + 1);
        const { a, b } = pair(sel);
        const levels = key.endsWith("1..6") ? [1, 2, 3, 4, 5, 6] : [1, 2, 3, 4, 6];
        return num(confusionMatrix(a, b, levels).table[p[2] as number][p[3] as number]);
      },
    },
    { match: /^cases\.\d+\.(raters|weight)$/, resolve: () => comment },
    {
      match: /^cases\.\d+\.(expected|crosscheck)\.[a-z_0-9]+$/,
      resolve: (p) => {
        const key = String(p[3]);
        const dec = p[2] === "expected" ? (v.decimals as Record<string, number>)[key] : undefined;
        return num(pick(caseResult(p[1] as number), key), dec);
      },
    },
    { match: /^derived_declared_scale_1_to_6\.note$/, resolve: () => comment },
    {
      match: /^derived_declared_scale_1_to_6\.[^.]+\.(unweighted|linear|quadratic)\.(kappa|ase|ase_h0)$/,
      resolve: (p) => num(pick(declared(String(p[1]), p[2] as "unweighted"), String(p[3]))),
    },
  ];
  vectorSuite(file, resolvers);
}

// ---------------------------------------------------------------- cohen_sas_statsmodels_table10.json
{
  const file = "cohen_sas_statsmodels_table10.json";
  const v = loadVector(file);
  const unweighted = cohenKappa(v.table);
  const linear = cohenKappa(v.table, { weights: "linear" });
  const quadratic = cohenKappa(v.table, { weights: "quadratic" });
  const byName: Record<string, CohenKappa> = { unweighted, linear_weighted: linear, quadratic_weighted_derived: quadratic };
  const pick = (r: CohenKappa, key: string): number | null | undefined =>
    ({
      kappa: r.value,
      ase: r.se,
      se: r.se,
      ci95_lower: r.ci_wald?.lower,
      ci95_upper: r.ci_wald?.upper,
      ase_h0: r.se0,
      se0: r.se0,
      z: r.z,
      p_one_sided: r.p_one_sided,
      p_two_sided: r.p_two_sided,
      po: r.po,
      po_w: r.po,
      pe: r.pe,
      pe_w: r.pe,
    })[key];
  const resolvers: Resolver[] = [
    ...metadata("name", "source", "table_convention", "edge_case_note", "decimals", "ci_method", "notes"),
    // inputs: categories and table (n is checked)
    { match: /^categories\.\d+$/, resolve: () => comment },
    { match: /^table\.\d+\.\d+$/, resolve: () => comment },
    { match: /^n$/, resolve: () => num(unweighted.n) },
    { match: /^expected\.linear_weighted\.weights$/, resolve: () => comment },
    { match: /^expected\.[a-z_]+\.[a-z_0-9]+$/, resolve: (p) => num(pick(byName[String(p[1])], String(p[2])), v.decimals) },
    { match: /^crosscheck\.[a-z_]+\.ci95\.[01]$/, resolve: (p) => num(p[3] === 0 ? byName[String(p[1])].ci_wald?.lower : byName[String(p[1])].ci_wald?.upper) },
    { match: /^crosscheck\.[a-z_]+\.[a-z_0-9]+$/, resolve: (p) => num(pick(byName[String(p[1])], String(p[2]))) },
  ];
  vectorSuite(file, resolvers);
}

/** Items of a table as label arrays (row label, column label), to rebuild a table from raw data. */
function expandA(t: number[][]): number[] {
  return t.flatMap((r, i) => r.flatMap((c) => new Array(c).fill(i)));
}
function expandB(t: number[][]): number[] {
  return t.flatMap((r) => r.flatMap((c, j) => new Array(c).fill(j)));
}

// ---------------------------------------------------------------- cohen_sklearn_artstein_poesio.json
{
  const file = "cohen_sklearn_artstein_poesio.json";
  const v = loadVector(file);
  type Case = { id: string; categories: number[]; table: number[][]; raw?: { rater_a: number[]; rater_b: number[] } };
  const cases: Case[] = v.cases;
  const fromRaw = (c: Case, weights: WeightSpec = "unweighted") =>
    c.raw ? cohenKappa(confusionMatrix(c.raw.rater_a, c.raw.rater_b, c.categories).table, { weights }) : cohenKappa(c.table, { weights });
  const resolvers: Resolver[] = [
    ...metadata("name", "source", "table_convention"),
    { match: /^cases\.\d+\.(id|also|weights)$/, resolve: (p) => (p[2] === "also" ? symmetry(cases[p[1] as number]) : comment) },
    { match: /^cases\.\d+\.categories\.\d+$/, resolve: () => comment },
    { match: /^cases\.\d+\.raw\.rater_[ab]\.\d+$/, resolve: () => comment },
    {
      // the printed table must be what the raw arrays give
      match: /^cases\.\d+\.table\.\d+\.\d+$/,
      resolve: (p) => {
        const c = cases[p[1] as number];
        if (!c.raw) return comment; // an input table with no raw arrays to check it against
        return num(confusionMatrix(c.raw.rater_a, c.raw.rater_b, c.categories).table[p[3] as number][p[4] as number]);
      },
    },
    { match: /^cases\.\d+\.decimals$/, resolve: () => comment },
    {
      match: /^cases\.\d+\.expected\.kappa(_linear|_quadratic)?$/,
      resolve: (p) => {
        const c = cases[p[1] as number];
        const key = String(p[3]);
        const w = key === "kappa_linear" ? "linear" : key === "kappa_quadratic" ? "quadratic" : "unweighted";
        return num(fromRaw(c, w).value, (v.cases[p[1] as number] as { decimals?: number }).decimals);
      },
    },
    {
      // sklearn labels=[0,1] drops items whose label is outside [0,1]: same as pairLabels(onUnknown: "drop")
      match: /^cases\.\d+\.expected\.kappa_with_labels_\[0,1\]$/,
      resolve: (p) => {
        const c = cases[p[1] as number];
        const a = expandA(c.table);
        const b = expandB(c.table);
        const r = cohenKappaFromLabels(a, b, [0, 1], { onUnknown: "drop" });
        return num(r.value, 3);
      },
    },
    {
      match: /^cases\.\d+\.expected\.semantics$/,
      resolve: (p) =>
        assert(() => {
          const c = cases[p[1] as number];
          const paired = pairLabels(expandA(c.table), expandB(c.table), { categories: [0, 1], onUnknown: "drop" });
          expect(paired.n_used).toBe(100);
          expect(paired.excluded).toEqual({ outside_categories: 4 });
          expect(confusionMatrix(paired.a, paired.b, [0, 1]).table).toEqual(cases[0].table);
        }),
    },
    { match: /^cases\.\d+\.crosscheck\.kappa_all_104_items_3_categories$/, resolve: (p) => num(cohenKappa(cases[p[1] as number].table).value) },
    {
      match: /^cases\.\d+\.crosscheck\.(kappa|po|pe|se_fce|se0_fce)$/,
      resolve: (p) => {
        const r = fromRaw(cases[p[1] as number]);
        return num(({ kappa: r.value, po: r.po, pe: r.pe, se_fce: r.se, se0_fce: r.se0 } as Record<string, number | null>)[String(p[3])]);
      },
    },
    {
      match: /^cases\.\d+\.crosscheck\.(unweighted|linear|quadratic)\.(kappa|se_fce|se0_fce)$/,
      resolve: (p) => {
        const r = fromRaw(cases[p[1] as number], p[3] as "linear");
        return num(({ kappa: r.value, se_fce: r.se, se0_fce: r.se0 } as Record<string, number | null>)[String(p[4])]);
      },
    },
  ];
  function symmetry(c: Case) {
    return assert(() => {
      if (!c.raw) throw new Error("symmetry check needs raw arrays");
      const ab = cohenKappa(confusionMatrix(c.raw.rater_a, c.raw.rater_b, c.categories).table);
      const ba = cohenKappa(confusionMatrix(c.raw.rater_b, c.raw.rater_a, c.categories).table);
      expect(ab.value).toBe(ba.value);
      const vab = kappaVariances(confusionMatrix(c.raw.rater_a, c.raw.rater_b, c.categories).table);
      const vba = kappaVariances(confusionMatrix(c.raw.rater_b, c.raw.rater_a, c.categories).table);
      expect(vab?.var).toBeCloseTo(vba?.var as number, 15);
    });
  }
  vectorSuite(file, resolvers);
}
