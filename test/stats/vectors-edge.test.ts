/**
 * vectors/edge_cases.json (test/data/vectors/NOTES.md §8 "Edge cases"): every expected behaviour and every numeric cross-check.
 */
import { expect } from "vitest";
import {
  type Category,
  agreementWeights,
  bootstrapKappa,
  brennanPrediger,
  cohenKappa,
  cohenKappaFromLabels,
  confusionMatrix,
  encodeLabels,
  fleissKappa,
  fleissKappaGeneralized,
  gwetAC1,
  gwetAC1Raw,
  kappaVariances,
  krippendorffAlpha,
  krippendorffAlphaRatings,
  normalizeLabel,
  pairLabels,
  percentAgreement,
  ratingCounts,
  scottPi,
  transpose,
} from "../../src/stats/index.js";
import { type PathKey, type Resolver, assert, comment, loadVector, metadata, num, vectorSuite } from "./vector-harness.js";

const file = "edge_cases.json";
const v = loadVector(file);
type Case = { id: string; rater_a?: (Category | null)[]; rater_b?: (Category | null)[]; categories?: Category[]; [k: string]: unknown };
const cases: Case[] = v.cases;
const byId = (id: string) => {
  const c = cases.find((x) => x.id === id);
  if (!c) throw new Error(`edge case ${id} missing`);
  return c;
};

/** Two-rater statistics of a case over a category set (default: the case's declared categories). */
function twoRater(c: Case, cats: Category[] = c.categories as Category[]) {
  const a = c.rater_a as Category[];
  const b = c.rater_b as Category[];
  const table = confusionMatrix(a, b, cats).table;
  const k = cohenKappa(table);
  const raw = kappaVariances(table);
  return {
    table,
    n: k.n,
    po: k.po,
    pe: k.pe,
    kappa: k.value,
    // n >= 2: the reported ASE; n = 1: the raw FCE formula value the vector lists (the API reports null there)
    ase_fce: k.n >= 2 ? k.se : raw ? Math.sqrt(raw.var) : null,
    ase_h0: k.n >= 2 ? k.se0 : raw ? Math.sqrt(raw.var0) : null,
    gwet_ac1_q_declared: gwetAC1(table).value,
    pabak_bp_q_declared: brennanPrediger(table).value,
    percent_agreement: percentAgreement(table).value,
    scott_pi: scottPi(table).value,
    krippendorff_alpha_nominal: krippendorffAlphaRatings(transpose([a, b]), cats).value,
  };
}

const crossKey = (c: Case, section: string): Category[] => {
  if (section === "crosscheck" || section === "crosscheck_q6") {
    if (c.id === "rater_never_uses_a_category_and_declared_unused_categories" && section === "crosscheck_q6") return ["c1", "c2", "c3", "c4", "c5", "c6"];
    if (c.id === "rater_never_uses_a_category_and_declared_unused_categories") return ["c1", "c2", "c3"];
    return c.categories as Category[];
  }
  if (section === "crosscheck_q3") return ["c1", "c2", "c3"];
  const m = /^crosscheck_q2_categories_\[(.*)\]$/.exec(section);
  if (m) return m[1].split(",");
  throw new Error(`unknown crosscheck section ${section}`);
};

function expectedCheck(p: PathKey, expected: unknown) {
  const c = cases[p[1] as number];
  const key = String(p[3]);
  const q2: Category[] = ["benign", "prompt_injected"];
  // the table10 case declares no list: its expected values are for c1..c3
  const s = c.rater_a ? () => twoRater(c, c.categories ?? ["c1", "c2", "c3"]) : null;
  if (typeof expected === "string") return stringExpectation(c, key, expected);
  switch (key) {
    case "po":
    case "pe":
    case "kappa":
    case "percent_agreement":
    case "ase_fce":
      return num(s!()[key]);
    case "n":
      return num(c.rater_a!.length);
    case "gwet_ac1_q6":
      return num(gwetAC1(twoRater(c).table).value);
    case "gwet_ac1_q2":
      return num(twoRater(c, q2).gwet_ac1_q_declared);
    case "pabak_q6":
      return num(brennanPrediger(twoRater(c).table).value);
    case "pabak_q2":
      return num(twoRater(c, q2).pabak_bp_q_declared);
    case "kappa_q3":
      return num(twoRater(c, ["c1", "c2", "c3"]).kappa, 4);
    case "kappa_q6":
      return num(twoRater(c, ["c1", "c2", "c3", "c4", "c5", "c6"]).kappa, 4);
    case "randolph_kappa":
      // m raters all in the same category: each item's counts row puts every rating in column 0
      return num(fleissKappa(c.rater_a!.map(() => [3, 0, 0, 0, 0, 0])).randolph.value);
    case "ci95_wald":
      return num(p[4] === 0 ? cohenKappa(twoRater(c).table).ci_wald?.lower : cohenKappa(twoRater(c).table).ci_wald?.upper);
    case "kappa_on_complete_pairs": {
      const r = cohenKappaFromLabels(c.rater_a!, c.rater_b!, c.categories!);
      return num(r.value);
    }
    case "generalised_fleiss_irrCAC_style":
      return num(fleissKappaGeneralized(c.counts_subject_by_category as number[][]).value);
    case "krippendorff_alpha_nominal":
      return num(krippendorffAlpha(c.counts_subject_by_category as number[][]).value);
    case "kappa_normalised": {
      const r = cohenKappaFromLabels(c.rater_a!, c.rater_b!, ["benign", "sabotage"], { normalize: normalizeLabel });
      return num(r.value);
    }
    case "kappa_raw_strings": {
      const union = [...new Set([...(c.rater_a as string[]), ...(c.rater_b as string[])])].sort();
      return num(cohenKappa(confusionMatrix(c.rater_a as string[], c.rater_b as string[], union).table).value);
    }
    default:
      throw new Error(`no check for expected.${key}`);
  }
}

/** Behaviour expectations written as prose in the vector. */
function stringExpectation(c: Case, key: string, text: string) {
  const id = c.id;
  if (key === "reason" || key === "note") return comment;
  return assert(() => {
    switch (`${id}:${key}`) {
      case "empty_input:kappa": {
        const r = cohenKappaFromLabels([], [], c.categories!);
        expect(r.value).toBeNull();
        expect(r.reason).toBe("empty_input");
        expect(r.n).toBe(0);
        return;
      }
      case "empty_input:percent_agreement": {
        const r = percentAgreement(confusionMatrix([], [], c.categories!).table);
        expect(r.value).toBeNull();
        expect(r.reason).toBe("empty_input");
        return;
      }
      case "mismatched_lengths:result":
        expect(() => pairLabels(c.rater_a!, c.rater_b!)).toThrow(/different numbers of items/);
        expect(() => confusionMatrix(c.rater_a as Category[], c.rater_b as Category[], c.categories!)).toThrow(/different numbers of items/);
        expect(() => cohenKappaFromLabels(c.rater_a!, c.rater_b!, c.categories!)).toThrow();
        return;
      case "both_raters_single_category:kappa":
      case "single_item_same_label:kappa": {
        const r = cohenKappa(twoRater(c).table);
        expect(r.value).toBeNull();
        expect(r.reason).toBe("undefined_single_category");
        expect(JSON.stringify(r)).not.toMatch(/NaN/);
        return;
      }
      case "both_raters_single_category:ase_fce":
      case "single_item_same_label:se": {
        const r = cohenKappa(twoRater(c).table);
        expect(r.se).toBeNull();
        expect(r.se_reason).toBeTruthy();
        expect(r.ci_wald).toBeNull();
        return;
      }
      case "single_item_different_labels:se": {
        const r = cohenKappa(twoRater(c).table);
        expect(r.value).toBe(0);
        expect(r.se).toBeNull();
        expect(r.se_reason).toBe("n_lt_2");
        expect(gwetAC1(twoRater(c).table).se).toBeNull();
        return;
      }
      case "both_raters_single_category:scott_pi":
        expect(scottPi(twoRater(c).table).value).toBeNull();
        return;
      case "both_raters_single_category:krippendorff_alpha_nominal": {
        const r = krippendorffAlphaRatings(transpose([c.rater_a!, c.rater_b!]), c.categories!);
        expect(r.value).toBeNull();
        expect(r.reason).toBe("undefined_single_value");
        return;
      }
      case "both_raters_single_category:fleiss_kappa_if_m_raters_all_same": {
        const r = fleissKappa(c.rater_a!.map(() => [3, 0, 0, 0, 0, 0]));
        expect(r.value).toBeNull();
        expect(r.reason).toBe("undefined_single_category");
        expect(fleissKappaGeneralized(c.rater_a!.map(() => [3, 0, 0, 0, 0, 0])).value).toBeNull();
        return;
      }
      case "both_raters_single_category:bootstrap": {
        const r = bootstrapKappa(twoRater(c).table, { B: 500, seed: 7 });
        expect(r.lower).toBeNull();
        expect(r.upper).toBeNull();
        expect(r.reason).toBe("all_resamples_undefined");
        expect(r.undefined_resamples).toBe(500);
        expect(r.defined).toBe(0);
        return;
      }
      case "missing_label_in_pair:policy": {
        const r = pairLabels(c.rater_a!, c.rater_b!, { categories: c.categories });
        expect(r.n_used).toBe(2);
        expect(r.n_excluded).toBe(2);
        expect(r.excluded).toEqual({ missing: 2 });
        return;
      }
      case "weighted_kappa_single_declared_category:result": {
        const t = [[5]];
        for (const w of ["linear", "quadratic"] as const) {
          expect(() => agreementWeights(1, w)).toThrow(/q - 1/);
          const r = cohenKappa(t, { weights: w });
          expect(r.value).toBeNull();
          expect(r.reason).toBe("fewer_than_2_declared_categories");
        }
        expect(gwetAC1(t).value).toBeNull();
        expect(gwetAC1(t).reason).toBe("fewer_than_2_declared_categories");
        expect(brennanPrediger(t).value).toBeNull();
        expect(gwetAC1Raw([[2], [3]]).reason).toBe("fewer_than_2_declared_categories");
        return;
      }
      case "krippendorff_no_pairable_units:alpha": {
        const data = c.reliability_data_coders_by_units as (number | null)[][];
        const r = krippendorffAlphaRatings(transpose(data), [1, 2]);
        expect(r.value).toBeNull();
        expect(r.reason).toBe("no_pairable_units");
        expect(r.n_units_dropped).toBe(2);
        return;
      }
      case "fleiss_unequal_raters_per_subject:classic_fleiss":
        expect(() => fleissKappa(c.counts_subject_by_category as number[][])).toThrow(/same m/);
        return;
      case "label_normalisation:policy": {
        // nothing normalises silently: the raw strings are unknown labels for the declared set
        expect(() => cohenKappaFromLabels(c.rater_a!, c.rater_b!, ["benign", "sabotage"])).toThrow(/outside the declared categories/);
        return;
      }
      case "labels_outside_declared_set:policy": {
        expect(() => cohenKappaFromLabels(c.rater_a!, c.rater_b!, c.categories!)).toThrow(/unknown_label/);
        const r = cohenKappaFromLabels(c.rater_a!, c.rater_b!, c.categories!, { onUnknown: "drop" });
        expect(r.n_excluded).toBe(1);
        expect(r.excluded).toEqual({ outside_categories: 1 });
        expect(r.n).toBe(1);
        return;
      }
      default:
        throw new Error(`prose expectation ${id}:${key} = ${JSON.stringify(text)} has no check`);
    }
  });
}

const resolvers: Resolver[] = [
  ...metadata("name", "source", "conventions"),
  { match: /^cases\.\d+\.(id|reference_behaviour(\.\d+)?)$/, resolve: () => comment },
  { match: /^cases\.\d+\.(rater_a|rater_b|categories|reliability_data_coders_by_units(\.\d+)?|counts_subject_by_category(\.\d+)?)(\.\d+)?$/, resolve: () => comment },
  {
    match: /^cases\.\d+\.expected\.note$/,
    resolve: (p) =>
      assert(() => {
        const r = cohenKappa(twoRater(cases[p[1] as number]).table);
        expect(r.value).toBe(1);
        expect(r.se).toBe(0);
        expect(r.ci_wald?.degenerate).toBe(true);
        expect(r.flags).toContain("degenerate_ci");
        expect(r.se0).toBeGreaterThan(0);
      }),
  },
  { match: /^cases\.\d+\.expected\.[A-Za-z_0-9]+(\.\d+)?$/, resolve: (p, e) => expectedCheck(p, e) },
  {
    match: /^cases\.\d+\.crosscheck[^.]*\.table\.\d+\.\d+$/,
    resolve: (p) => num(twoRater(cases[p[1] as number], crossKey(cases[p[1] as number], String(p[2]))).table[p[4] as number][p[5] as number]),
  },
  {
    match: /^cases\.\d+\.crosscheck[^.]*\.[a-z_0-9]+$/,
    resolve: (p) => {
      const c = cases[p[1] as number];
      const r = twoRater(c, crossKey(c, String(p[2]))) as Record<string, unknown>;
      const key = String(p[3]);
      if (!(key in r)) throw new Error(`no crosscheck for ${key}`);
      return num(r[key] as number | null);
    },
  },
  {
    match: /^cases\.\d+\.note$/,
    resolve: (p) => {
      const c = cases[p[1] as number];
      if (c.id === "one_rater_constant_other_varies") {
        return assert(() => {
          const r = cohenKappa(twoRater(c).table);
          expect(r.value).toBe(0);
          expect(r.se).toBe(0);
          expect(r.se0).toBe(0);
          expect(r.ci_wald?.degenerate).toBe(true);
          expect([r.ci_wald?.lower, r.ci_wald?.upper]).toEqual([0, 0]);
          expect(r.z).toBeNull();
          expect(r.z_reason).toBe("se_zero");
          expect(r.flags).toEqual(["degenerate_ci", "z_undefined"]);
        });
      }
      if (c.id === "rater_never_uses_a_category_and_declared_unused_categories") {
        return assert(() => {
          const q3 = twoRater(c, ["c1", "c2", "c3"]);
          const q6 = twoRater(c, ["c1", "c2", "c3", "c4", "c5", "c6"]);
          for (const k of ["po", "pe", "kappa", "ase_fce", "ase_h0", "scott_pi", "krippendorff_alpha_nominal"] as const) {
            expect(q6[k]).toBeCloseTo(q3[k] as number, 12);
          }
          expect(q6.gwet_ac1_q_declared).not.toBeCloseTo(q3.gwet_ac1_q_declared as number, 3);
          expect(q6.pabak_bp_q_declared).not.toBeCloseTo(q3.pabak_bp_q_declared as number, 3);
        });
      }
      if (c.id === "missing_label_in_pair") {
        return assert(() => {
          // alpha keeps partially rated units (1 value: unpairable); generalised AC1 keeps them for π_k
          const units = transpose([c.rater_a!, c.rater_b!]);
          const alpha = krippendorffAlphaRatings(units, c.categories!);
          expect(alpha.n).toBe(2);
          expect(alpha.n_units_dropped).toBe(2);
          const ac1 = gwetAC1Raw(ratingCounts(units, c.categories!));
          expect(ac1.n).toBe(4);
          expect(ac1.n_pairable).toBe(2);
        });
      }
      throw new Error(`note of ${c.id} has no check`);
    },
  },
  {
    match: /^cases\.\d+\.bug_to_catch$/,
    resolve: (p) =>
      assert(() => {
        const c = cases[p[1] as number];
        // an index built from rater A alone has no "w": rater B's labels cannot be encoded on it
        const fromA = [...new Set(c.rater_a as string[])].sort();
        expect(() => encodeLabels(c.rater_b as string[], fromA)).toThrow(/outside the declared categories/);
        // the declared set (here equal to the sorted union) gives the published table
        expect(twoRater(c).table).toEqual((c.crosscheck as { table: number[][] }).table);
      }),
  },
];

// expected.reason / expected.policy prose of specific cases is routed through stringExpectation; make sure the
// generic expected resolver sees `reason` first as comment (handled inside) — nothing else to configure.
void byId;
vectorSuite(file, resolvers);
