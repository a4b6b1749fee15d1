import { describe, expect, it } from "vitest";
import {
  binomialDeviance,
  interactionDesign,
  interactionLRT,
  logisticIRLS,
  qrPivoted,
  qrSolve,
  type FactorRow,
} from "../../src/compare/logistic.js";

/** UC Berkeley graduate admissions 1973 (R `datasets::UCBAdmissions`): dept, male admitted/rejected, female admitted/rejected. */
const UCB: Array<[string, number, number, number, number]> = [
  ["A", 512, 313, 89, 19],
  ["B", 353, 207, 17, 8],
  ["C", 120, 205, 202, 391],
  ["D", 138, 279, 131, 244],
  ["E", 53, 138, 94, 299],
  ["F", 22, 351, 24, 317],
];

/** One row per applicant: model = gender, condition = department (one suite, one injection task). */
function ucbRows(): FactorRow[] {
  const rows: FactorRow[] = [];
  const push = (model: string, condition: string, y: boolean, k: number) => {
    for (let i = 0; i < k; i++) rows.push({ model, condition, suite: "s", injection_task: "s/i", y });
  };
  for (const [d, ma, mr, fa, fr] of UCB) {
    push("Male", d, true, ma);
    push("Male", d, false, mr);
    push("Female", d, true, fa);
    push("Female", d, false, fr);
  }
  return rows;
}

describe("pivoted QR", () => {
  it("solves a full-rank least-squares problem exactly", () => {
    // A = [[1,0],[1,1],[1,2]] (column-major), b = [1,2,4]: normal equations give x = [5/6, 3/2]
    const A = Float64Array.from([1, 1, 1, 0, 1, 2]);
    const f = qrPivoted(A, 3, 2);
    expect(f.rank).toBe(2);
    const x = qrSolve(f, Float64Array.from([1, 2, 4]));
    expect(x[0]).toBeCloseTo(5 / 6, 12);
    expect(x[1]).toBeCloseTo(1.5, 12);
  });

  it("finds the rank of a matrix with an aliased column and gives it a zero coefficient", () => {
    // columns: intercept, d1, d2 = intercept - d1 (aliased), rows 4
    const c0 = [1, 1, 1, 1];
    const c1 = [1, 1, 0, 0];
    const c2 = [0, 0, 1, 1];
    const f = qrPivoted(Float64Array.from([...c0, ...c1, ...c2]), 4, 3);
    expect(f.rank).toBe(2);
    const x = qrSolve(f, Float64Array.from([3, 3, 1, 1]));
    // fitted values must be exact whatever column is dropped
    const fit = [0, 1, 2, 3].map((i) => c0[i] * x[0] + c1[i] * x[1] + c2[i] * x[2]);
    fit.forEach((v, i) => expect(v).toBeCloseTo([3, 3, 1, 1][i], 12));
    expect(x.filter((v) => v === 0)).toHaveLength(1);
  });

  it("gives rank 0 for a zero matrix", () => {
    expect(qrPivoted(new Float64Array(6), 3, 2).rank).toBe(0);
  });
});

describe("logistic regression by IRLS", () => {
  it("fits the UCB admissions main-effects model: residual deviance 20.204 on 5 df (R glm, Agresti 2013)", () => {
    const d = interactionDesign(ucbRows(), false);
    expect(d.design.n).toBe(12);
    const f = logisticIRLS(d.design, d.successes, d.trials);
    expect(f.converged).toBe(true);
    expect(f.rank).toBe(7);
    expect(f.deviance).toBeCloseTo(20.204275327, 6);
    // gender coefficient (Male vs Female reference) = -0.0999 in R's glm(Admit ~ Gender + Dept) with Female as
    // the reference level: log odds ratio of admission for men, adjusted for department
    const g = f.coefficients[d.design.names.indexOf("model=Male")];
    expect(g).toBeCloseTo(-0.09987, 4);
  });

  it("a saturated model has deviance 0 and reproduces the observed proportions", () => {
    const d = interactionDesign(ucbRows(), true);
    const f = logisticIRLS(d.design, d.successes, d.trials);
    expect(f.deviance).toBeLessThan(1e-9);
    d.successes.forEach((y, i) => expect(f.fitted[i]).toBeCloseTo(y / d.trials[i], 9));
  });

  it("binomial deviance uses 0 log 0 = 0", () => {
    expect(binomialDeviance([0, 5], [5, 5], [0.5, 0.5])).toBeCloseTo(2 * (5 * Math.log(2) + 5 * Math.log(2)), 12);
  });

  it("rejects bad counts", () => {
    const d = interactionDesign(ucbRows(), false);
    expect(() => logisticIRLS(d.design, d.successes.map((y, i) => (i === 0 ? d.trials[0] + 1 : y)), d.trials)).toThrow(/successes/);
    expect(() => logisticIRLS(d.design, [1], [2])).toThrow(/design rows/);
  });

  it("converges in deviance under complete separation and flags fitted probabilities at 0 or 1", () => {
    const rows: FactorRow[] = [];
    for (const m of ["a", "b"]) {
      for (const c of ["x", "y"]) {
        for (let i = 0; i < 10; i++) rows.push({ model: m, condition: c, suite: "s", injection_task: "s/i", y: m === "a" ? i < 5 : c === "x" });
      }
    }
    const t = interactionLRT(rows);
    // full model is saturated: deviance 0; reduced model deviance is finite
    expect(t.full.deviance).toBeLessThan(1e-6);
    expect(t.flags).toContain("fitted_probabilities_0_or_1");
    expect(t.df).toBe(1);
    expect(t.statistic).toBeGreaterThan(0);
    expect(Number.isFinite(t.statistic!)).toBe(true);
  });
});

describe("likelihood-ratio test of the model x condition interaction", () => {
  it("UCB admissions, gender x department: G2 = 20.204, df 5, p = 0.001144", () => {
    const t = interactionLRT(ucbRows());
    expect(t.n).toBe(4526);
    expect(t.patterns).toBe(12);
    expect(t.df).toBe(5);
    expect(t.statistic).toBeCloseTo(20.204275327, 6);
    expect(t.p_value).toBeCloseTo(0.0011440784514, 8);
    expect(t.levels).toEqual({ model: 2, suite: 1, injection_task: 1, condition: 6 });
  });

  it("matches an independent maximum-likelihood fit on an unbalanced design with nested injection tasks and an empty model x condition cell", () => {
    // Reference: scipy BFGS on a full-rank column subset of the same treatment-coded design (values below).
    const models = ["M1", "M2", "M3"];
    const conds = ["c1", "c2", "c3"];
    const suites: Record<string, string[]> = { s1: ["s1/i1", "s1/i2"], s2: ["s2/i1", "s2/i2", "s2/i3"] };
    const rows: FactorRow[] = [];
    models.forEach((m, mi) =>
      conds.forEach((c, ci) => {
        if (m === "M3" && c === "c3") return;
        for (const [s, injs] of Object.entries(suites)) {
          injs.forEach((inj, ii) => {
            const n = 8 + ((mi * 7 + ci * 5 + ii * 3) % 5);
            const y = (mi * 3 + ci * 2 + ii + (s === "s2" ? 1 : 0) + mi * ci * 2) % (n + 1);
            for (let k = 0; k < n; k++) rows.push({ model: m, condition: c, suite: s, injection_task: inj, y: k < y });
          });
        }
      }),
    );
    const t = interactionLRT(rows);
    expect(t.reduced.rank).toBe(9); // suite is aliased with the suite-qualified injection tasks
    expect(t.full.rank).toBe(12); // M3 x c3 has no data: 3 estimable interaction columns, not 4
    expect(t.df).toBe(3);
    expect(t.reduced.deviance).toBeCloseTo(144.03021229918426, 5);
    expect(t.full.deviance).toBeCloseTo(103.32872417925336, 5);
    expect(t.statistic).toBeCloseTo(40.7014881199309, 5);
    expect(t.p_value! / 7.565394099550236e-9).toBeCloseTo(1, 4);
  });

  it("is untestable (null with a reason) without two models under two conditions", () => {
    const rows: FactorRow[] = [
      { model: "a", condition: "x", suite: "s", injection_task: "i", y: true },
      { model: "a", condition: "y", suite: "s", injection_task: "i", y: false },
      { model: "b", condition: "x", suite: "s", injection_task: "i", y: false },
    ];
    const t = interactionLRT(rows);
    expect(t.statistic).toBeNull();
    expect(t.p_value).toBeNull();
    expect(t.reason).toBe("no_interaction_df");
    expect(interactionLRT([]).reason).toBe("empty_input");
  });
});
