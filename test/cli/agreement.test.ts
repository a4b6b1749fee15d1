/**
 * `ipi-judge agreement FILE` through the built CLI on published data sets from test/data/vectors: R irr's
 * `anxiety` (two raters, Cohen and weighted kappa), Krippendorff's canonical 4 coders × 12 units with missing
 * values (alpha, irrCAC AC1 and agreement), Fleiss (1971) diagnoses (6 raters, Fleiss' kappa).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { VECTORS } from "../helpers/paths.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-agreement-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const vector = (f: string) => JSON.parse(fs.readFileSync(path.join(VECTORS, f), "utf8"));
const write = (name: string, text: string) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
};
const json = async (args: string[]) => {
  const r = await runCli(["agreement", ...args, "--json"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).not.toMatch(/NaN|Infinity/);
  return JSON.parse(r.stdout);
};

describe("an interval with standard error 0 (new-user report 31, L3)", () => {
  it("is null with reason se_zero in --json, as agree --reference writes kappa_ci95, never bounds [1, 1]", async () => {
    const r = await json([write("diag.json", JSON.stringify({ ratings: [["a", "a"], ["b", "b"], ["a", "a"], ["b", "b"]] }))]);
    expect(r.two_raters.kappa).toMatchObject({ value: 1, se: 0, ci_wald: null, ci_wald_reason: "se_zero" });
    expect(JSON.stringify(r)).not.toMatch(/"degenerate"/);
  });
});

describe("two raters: R irr anxiety (raters 2 and 3)", () => {
  let file: string;
  beforeAll(() => {
    const d = vector("cohen_irr_anxiety.json").data;
    file = write("anxiety.csv", ["rater2,rater3", ...d.anxiety_rater2.map((x: number, i: number) => `${x},${d.anxiety_rater3[i]}`)].join("\n") + "\n");
  });

  it("Cohen's kappa as irr::kappa2 (levels found: 1,2,3,4,6), with SE, both CIs, AC1, PABAK, alpha", async () => {
    const v = vector("cohen_irr_anxiety.json");
    const r = await json([file, "--bootstrap", "500", "--seed", "11"]);
    expect(r.categories).toEqual(["1", "2", "3", "4", "6"]);
    expect(r.categories_source).toBe("found");
    const t = r.two_raters;
    expect(t.confusion.table).toEqual(v.tables["anxiety[,2:3]_levels_1_2_3_4_6"]);
    const unweighted = v.cases.find((c: any) => c.raters === "anxiety[,2:3]" && c.weight === "unweighted");
    expect(t.kappa.value).toBeCloseTo(unweighted.expected.kappa, 6);
    expect(t.kappa.se).toBeCloseTo(unweighted.crosscheck.ase_nonnull_fce, 6);
    expect(t.kappa.ci_wald).not.toBeNull();
    expect(t.kappa.ci_bootstrap).toMatchObject({ B: 500, seed: 11 });
    for (const k of ["ac1", "pabak", "percent_agreement"]) expect(t[k].value).not.toBeNull();
    expect(r.many_raters.alpha.value).not.toBeNull();
    expect(r.notes.join(" ")).toMatch(/declare them/);
  });

  it("--weights linear by level index matches irr's 'equal' weights; declared 1..6 changes only the weighted kappa", async () => {
    const v = vector("cohen_irr_anxiety.json");
    const equal = v.cases.find((c: any) => c.raters === "anxiety[,2:3]" && c.weight === "equal");
    const r = await json([file, "--weights", "linear"]);
    expect(r.two_raters.weighted_kappa.value).toBeCloseTo(equal.expected.kappa, 6);
    const d = await json([file, "--weights", "linear", "--categories", "1,2,3,4,5,6"]);
    expect(d.categories_source).toBe("declared");
    expect(d.two_raters.kappa.value).toBeCloseTo(r.two_raters.kappa.value, 12);
    expect(d.two_raters.weighted_kappa.value).toBeCloseTo(v.derived_declared_scale_1_to_6["anxiety[,2:3]"].linear.kappa, 6);
  });

  it("prints text", async () => {
    const r = await runCli(["agreement", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Cohen's kappa -0\.006/);
    expect(r.stdout).toMatch(/Krippendorff's alpha/);
    // the note names Fleiss' kappa = Scott's pi: its figure is printed too, as --json has it (new user 43)
    const j = await json([file]);
    expect(r.stdout).toContain(`Fleiss' kappa = Scott's pi (items rated by both) ${j.many_raters.fleiss.value.toFixed(3)}`);
  });
});

describe("many raters with missing ratings: Krippendorff's canonical example", () => {
  it("alpha, AC1 and pairwise agreement as published (CSV with empty cells)", async () => {
    const v = vector("krippendorff_canonical_4coders_12units.json");
    const d = v.reliability_data_coders_by_units;
    const coders = Object.keys(d);
    const rows = d.A.map((_: unknown, u: number) => coders.map((c) => (d[c][u] === null ? "" : String(d[c][u]))).join(","));
    const file = write("kripp.csv", [coders.join(","), ...rows].join("\r\n"));
    const r = await json([file, "--bootstrap", "300", "--seed", "5"]);
    expect(r.raters).toEqual(["A", "B", "C", "D"]);
    expect(r.two_raters).toBeUndefined();
    const m = r.many_raters;
    expect(m.alpha.value).toBeCloseTo(v.crosscheck.krippendorff.nominal, 6);
    expect(m.alpha.ci_bootstrap).toMatchObject({ B: 300, seed: 5 });
    expect(m.ac1.value).toBeCloseTo(v.expected.irrCAC_raw.gwet_ac1.coeff, 5);
    expect(m.percent_agreement.value).toBeCloseTo(v.expected.irrCAC_raw.percent_agreement.coeff, 6);
    expect(m.n_pairable).toBe(11);
    expect(m.n_complete).toBe(8);
  });
});

describe("many raters, complete: Fleiss (1971) diagnoses as JSON", () => {
  it("Fleiss' kappa 0.4302445 with declared categories", async () => {
    const v = vector("fleiss_1971_diagnoses.json");
    const file = write("diag.json", JSON.stringify({ categories: [1, 2, 3, 4, 5], ratings: v.raw_subject_by_rater }));
    const r = await json([file]);
    expect(r.categories).toEqual(["1", "2", "3", "4", "5"]);
    expect(r.raters).toHaveLength(6);
    expect(r.many_raters.fleiss.value).toBeCloseTo(v.expected.kappa, 7);
    expect(r.many_raters.fleiss).not.toHaveProperty("p_i");
    expect(r.many_raters.n_complete).toBe(30);
  });
});

describe("bad input", () => {
  it("exits 2 with a message", async () => {
    const one = write("one.csv", "r1\na\nb\n");
    const bad = write("bad.csv", "r1,r2\na,b\nc,\n");
    const junk = write("junk.json", "{ nope");
    for (const [args, msg] of [
      [[one], /at least two raters/],
      [[bad, "--categories", "a,b"], /"c" is not one of the categories/],
      [[junk], /not valid JSON/],
      [[bad, "--weights", "cubic"], /--weights must be/],
      [[path.join(tmp, "none.csv")], /cannot read/],
    ] as const) {
      const r = await runCli(["agreement", ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
  });
});

describe("bootstrap resamples left out as undefined are said in the text, as --json counts them (stats55 finding 3)", () => {
  it("boot3 (x/x 3, y/y, x/y): every bootstrap CI line names its count of undefined resamples, the same as the JSON", async () => {
    const file = write("boot3.csv", "a,b\nx,x\nx,x\nx,x\ny,y\nx,y\n");
    const args = [file, "--bootstrap", "2000", "--seed", "12345"];
    const j = await json(args);
    const r = await runCli(["agreement", ...args]);
    expect(r.code).toBe(0);
    const said = (ci: { undefined_resamples: number }) => `${ci.undefined_resamples} of 2000 resamples (${((100 * ci.undefined_resamples) / 2000).toFixed(1)}%) undefined, left out`;
    // P(undefined) = P(every draw x/x or every draw y/y) = 0.6^5 + 0.2^5 = 0.078: about 156 of 2000
    for (const ci of [j.two_raters.kappa.ci_bootstrap, j.many_raters.alpha.ci_bootstrap, j.many_raters.fleiss.ci_bootstrap]) {
      expect(ci.undefined_resamples).toBeGreaterThan(100);
      expect(ci.undefined_resamples).toBeLessThan(220);
    }
    expect(r.stdout).toContain(`bootstrap CI [0.000, 1.000] (B=2000, seed 12345; ${said(j.two_raters.kappa.ci_bootstrap)})`);
    expect(r.stdout).toMatch(new RegExp(`Krippendorff's alpha \\(nominal\\) .*bootstrap CI \\[[-.0-9]+, 1\\.000\\] \\(${said(j.many_raters.alpha.ci_bootstrap).replace(/[().%]/g, "\\$&")}\\)`));
    expect(r.stdout).toMatch(new RegExp(`Fleiss' kappa = Scott's pi .*bootstrap CI \\[[-.0-9]+, 1\\.000\\] \\(${said(j.many_raters.fleiss.ci_bootstrap).replace(/[().%]/g, "\\$&")}\\)`));
  });
  it("none left out: nothing said", async () => {
    const file = write("boot-none.csv", "a,b\nx,x\ny,y\nx,y\ny,x\nx,x\ny,y\nx,x\ny,y\nx,x\ny,y\nx,x\ny,y\n");
    const r = await runCli(["agreement", file, "--bootstrap", "200", "--seed", "1"]);
    const j = await json([file, "--bootstrap", "200", "--seed", "1"]);
    if (j.two_raters.kappa.ci_bootstrap.undefined_resamples === 0) expect(r.stdout).not.toMatch(/resamples .* undefined/);
  });
});
