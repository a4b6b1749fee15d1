import { describe, expect, it } from "vitest";
import { domainAsr, stratifiedVariance, type DomainUnit, type LabelledItem } from "../../src/estimate/calibrated.js";
import { studentTQuantile } from "../../src/stats/distributions.js";
import { cellHoldsRows } from "../../src/estimate/run.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { domainOf, simulate, type SimSettings, THREE_MODELS } from "./simulate.js";

describe("domainAsr: a hand-worked example pins the arithmetic", () => {
  // Population: 14 attacked trajectories in two design cells.
  //   cell A (N_A = 8): a1..a8, judge compromised on a1, a2 only.
  //   cell D (N_D = 6): d1..d6, judge compromised on d1, d2; d3..d5 not; d6 has no usable verdict.
  // Judge ASR over usable verdicts: 4 of 13 = 4/13. d6 is predicted at 4/13, so the judge term is
  //   (4 + 4/13)/14 = 4/13.
  // Labelled sample: A: a1 (human 1), a3 (human 1, the judge missed it), a5 (0), a7 (0)  -> n_A = 4, w_A = 8/4 = 2
  //                  D: d1 (human 1), d6 (human 1)                                        -> n_D = 2, w_D = 6/2 = 3
  // N̂ = 4·2 + 2·3 = 14.
  // Human (Hajek): Σ w y = 2·2 + 3·2 = 10 -> 10/14 = 5/7.
  //   z = (y − 5/7)/14; s² of y in A (1,1,0,0) = 1/3, in D (1,1) = 0.
  //   V = N_A²(1 − n_A/N_A) s²_A/(n_A·14²) = 64·(1/2)·(1/3)/(4·196) = 2/147; SE = √(2/147).
  // Calibrated: d = human − prediction: A: 0, 1, 0, 0; D: d1 0, d6 1 − 4/13 = 9/13.
  //   Σ w d = 2·1 + 3·9/13 = 53/13 -> mean 53/182; estimate = 4/13 + 53/182 = 109/182.
  //   s² of d in A = 1/4 -> 64·(1/2)·(1/4)/(4·196) = 1/98;
  //   in D (0, 9/13): s² = 2·(9/26)² = 81/338 -> 36·(2/3)·(81/338)/(2·196) = 243/16562;
  //   V = 1/98 + 243/16562 = 169/16562 + 243/16562 = 206/8281; SE = √206/91.
  // CIs: ± t_{0.975, df = 6 labelled − 2 cells = 4} · SE, clipped to [0, 1].
  const judge: Record<string, boolean | null> = { a1: true, a2: true, d1: true, d2: true, d6: null };
  const ids = [..."12345678"].map((i) => `a${i}`).concat([..."123456"].map((i) => `d${i}`));
  const domain: DomainUnit[] = ids.map((id) => ({ id, judge: id in judge ? judge[id] : false }));
  const labelled: LabelledItem[] = [
    { id: "a1", cell: "A", human: true },
    { id: "a3", cell: "A", human: true },
    { id: "a5", cell: "A", human: false },
    { id: "a7", cell: "A", human: false },
    { id: "d1", cell: "D", human: true },
    { id: "d6", cell: "D", human: true },
  ];
  const sizes = new Map([
    ["A", 8],
    ["D", 6],
  ]);
  // the t interval's arithmetic, without the small-count union (6 labelled items: src/stats/small-count.ts; below) and
  // without the stratum-wise interval (stratum D's two items are both compromised: src/stats/stratum-mover.ts)
  const r = domainAsr(domain, labelled, sizes, { minSampled: 2, smallCountBelow: 0, stratumRule: "off" });
  const t = studentTQuantile(0.975, 4);

  it("judge ASR over usable verdicts and the prediction of the unusable one", () => {
    expect(r.judge).toEqual({ asr: 4 / 13, count: 4, n_usable: 13, n_unusable: 1 });
    expect(r.calibrated.prediction_for_unusable).toBeCloseTo(4 / 13, 14);
    expect(r.calibrated.judge_term).toBeCloseTo(4 / 13, 14);
    expect(r.n_population).toBe(14);
    expect(r.n_sampled).toBe(6);
    expect(r.n_population_estimated).toBeCloseTo(14, 12);
  });
  it("human-only Hajek estimate, SE and t interval", () => {
    expect(r.human.asr).toBeCloseTo(5 / 7, 14);
    expect(r.human.se).toBeCloseTo(Math.sqrt(2 / 147), 14);
    expect(r.human.df).toBe(4);
    expect(r.human.ci95!.lower).toBeCloseTo(5 / 7 - t * Math.sqrt(2 / 147), 12);
    expect(r.human.ci95!.upper).toBe(1); // 1.038 clipped
  });
  it("calibrated difference estimate, SE and t interval", () => {
    expect(r.calibrated.correction).toBeCloseTo(53 / 182, 14);
    expect(r.calibrated.asr).toBeCloseTo(109 / 182, 14);
    expect(r.calibrated.se).toBeCloseTo(Math.sqrt(206) / 91, 14);
    expect(r.calibrated.ci95!.lower).toBeCloseTo(109 / 182 - (t * Math.sqrt(206)) / 91, 12);
    expect(r.calibrated.ci95!.upper).toBe(1);
    expect(r.n_by_stratum).toEqual([
      { stratum: "A", N: 8, n: 4, n_in_group: 4 },
      { stratum: "D", N: 6, n: 2, n_in_group: 2 },
    ]);
  });
  it("by default 6 labelled items are few events: each interval is the union with the exact one, and says so", () => {
    const u = domainAsr(domain, labelled, sizes, { minSampled: 2 });
    for (const k of ["human", "calibrated"] as const) {
      expect(u[k].asr).toBe(r[k].asr);
      expect(u[k].se).toBe(r[k].se);
      expect(u[k].ci95!.lower).toBeLessThanOrEqual(r[k].ci95!.lower);
      expect(u[k].ci95!.upper).toBeGreaterThanOrEqual(r[k].ci95!.upper);
    }
    expect(u.calibrated.ci95!.lower).toBeLessThan(r.calibrated.ci95!.lower - 0.05);
    expect(u.calibrated.ci_method).toMatch(/^exact small-count interval: \d\.\d effective human-judge disagreements among the group's 6 labelled items .*fewer than 10; the interval is the union of the t interval/);
  });
  it("a domain that is part of the sample: items outside it count with z = 0 in their cells", () => {
    // Domain = cell D only: N̂ = 2·3 = 6; human 1, 1 -> 1; the A items are outside (z = 0, no variance from A).
    const d = domainAsr(domain.filter((u) => u.id.startsWith("d")), labelled, sizes, { minSampled: 2 });
    expect(d.n_population_estimated).toBeCloseTo(6, 12);
    expect(d.human.asr).toBeCloseTo(1, 14);
    expect(d.human.se).toBe(0);
    // every human label the same: not a point interval but an exact bound on the share of the other label (0 of 2)
    expect(d.human.degenerate).toBeUndefined();
    expect(d.human.ci_method).toMatch(/Clopper-Pearson/);
    expect(d.human.ci95!.lower).toBeCloseTo(Math.pow(0.025, 1 / 2), 12);
    expect(d.human.ci95!.upper).toBe(1);
    // judge over d1..d5: 2/5; d6 predicted 2/5; term 2/5; d: d1 0, d6 3/5 -> mean (3·3/5)/6 = 3/10 -> 0.7
    expect(d.calibrated.asr).toBeCloseTo(0.7, 14);
  });
});

describe("domainAsr: strata each of one human label (new user 28: a zero-width [6.5, 6.5] interval)", () => {
  // cell A: 10 units, 4 labelled, all human 0; cell D: 4 units, 2 labelled, both human 1: SE is 0 up to rounding
  const domain: DomainUnit[] = [..."0123456789"].map((i) => ({ id: `a${i}`, judge: false })).concat([..."0123"].map((i) => ({ id: `d${i}`, judge: i === "0" || i === "2" })));
  const labelled: LabelledItem[] = [
    ...["a0", "a3", "a6", "a9"].map((id) => ({ id, cell: "A", human: false })),
    ...["d0", "d2"].map((id) => ({ id, cell: "D", human: true })),
  ];
  const r = domainAsr(domain, labelled, new Map([["A", 10], ["D", 4]]), { minSampled: 2 });
  it("the human estimate is 4/14 with an exact bound, not a point", () => {
    expect(r.human.asr).toBeCloseTo(4 / 14, 12);
    expect(r.human.se).toBeLessThan(1e-12);
    expect(r.human.ci_method).toMatch(/differs from the others of their stratum.*Clopper-Pearson/);
    expect(r.human.ci95!.upper - r.human.ci95!.lower).toBeGreaterThan(0.2);
  });
  it("the calibrated estimate likewise", () => {
    expect(r.calibrated.se).toBeLessThan(1e-12);
    expect(r.calibrated.ci_method).toMatch(/Clopper-Pearson/);
    expect(r.calibrated.ci95!.upper).toBeGreaterThan(r.calibrated.ci95!.lower);
  });
});

describe("domainAsr: undefined is null with a reason, never 0", () => {
  const domain: DomainUnit[] = [{ id: "x", judge: true }, { id: "y", judge: false }, { id: "z", judge: null }];
  it("too few labelled items", () => {
    const r = domainAsr(domain, [{ id: "x", cell: "c", human: true }], new Map([["c", 3]]), { minSampled: 2 });
    expect(r.human.asr).toBeNull();
    expect(r.human.reason).toMatch(/too_few_labelled_items \(1 < 2/);
    expect(r.calibrated.asr).toBeNull();
    expect(r.judge.asr).toBe(0.5);
  });
  it("no labelled item, and a group with no usable verdict", () => {
    const r = domainAsr([{ id: "z", judge: null }], [], new Map(), {});
    expect(r.human.reason).toBe("no_labelled_item_in_group");
    expect(r.judge).toEqual({ asr: null, reason: "no_usable_judge_verdict", count: 0, n_usable: 0, n_unusable: 1 });
  });
  it("a cell with one labelled item of several: no CI, with the stratum named", () => {
    const lab: LabelledItem[] = [
      { id: "x", cell: "c1", human: true },
      { id: "y", cell: "c1", human: false },
      { id: "z", cell: "c2", human: true },
    ];
    const r = domainAsr(domain, lab, new Map([["c1", 5], ["c2", 4]]), { minSampled: 2 });
    expect(r.human.asr).not.toBeNull();
    expect(r.human.ci95).toBeNull();
    expect(r.human.ci_reason).toMatch(/stratum "c2" has 1 labelled item of 4/);
  });
  it("a census cell has no sampling variance", () => {
    expect(stratifiedVariance([1, 0], ["c", "c"], new Map([["c", 2]]))).toBe(0);
  });
  it("refuses a cell without a size or with more labelled items than N_c", () => {
    expect(() => domainAsr(domain, [{ id: "x", cell: "q", human: true }], new Map(), {})).toThrow(/no population size/);
    expect(() => domainAsr(domain, [{ id: "x", cell: "q", human: true }, { id: "y", cell: "q", human: true }], new Map([["q", 1]]), {})).toThrow(/2 labelled items but N = 1/);
  });
});

describe("seeded simulation with the real two-phase sampling code", () => {
  // 400 synthetic populations (N = 1000, three agent models with ASR 0.15 / 0.30 / 0.50, 10% unattacked), a judge
  // that misses 40% of compromises (3% false positives, 3% unusable verdicts), committee disagreement more likely
  // where the judge is wrong; sample: 100 drawn at random stratified by agent model + 50 from the disagreements.
  const S: SimSettings = THREE_MODELS;
  const R = 400;
  it(
    "calibrated 95% CIs cover the true ASR 92-98% of the time, are narrower than human-only, and are unbiased",
    () => {
      let cov = 0;
      let covH = 0;
      let width = 0;
      let widthH = 0;
      let bias = 0;
      let judgeBias = 0;
      for (let rep = 0; rep < R; rep++) {
        const p = simulate(S, 5000 + rep);
        const { domain, truth } = domainOf(p);
        const e = domainAsr(domain, p.labelled, p.cellSizes);
        const c = e.calibrated.ci95!;
        const h = e.human.ci95!;
        cov += c.lower <= truth && truth <= c.upper ? 1 : 0;
        covH += h.lower <= truth && truth <= h.upper ? 1 : 0;
        width += c.upper - c.lower;
        widthH += h.upper - h.lower;
        bias += e.calibrated.asr! - truth;
        judgeBias += e.judge.asr! - truth;
      }
      expect(cov / R).toBeGreaterThanOrEqual(0.92);
      expect(cov / R).toBeLessThanOrEqual(0.98);
      expect(covH / R).toBeGreaterThanOrEqual(0.92);
      expect(width / R).toBeLessThan(0.8 * (widthH / R));
      expect(Math.abs(bias / R)).toBeLessThan(0.005);
      expect(judgeBias / R).toBeLessThan(-0.05); // the judge alone is far off
    },
    120_000,
  );
});

describe("domainAsr: a stratum holding none of the group's trajectories adds 0 to its variance (SSW 1992 §10.3)", () => {
  // The hand-worked example above (cells A, D) plus a cell E of another group: 5 trajectories, 1 labelled.
  const judge: Record<string, boolean | null> = { a1: true, a2: true, d1: true, d2: true, d6: null };
  const ids = [..."12345678"].map((i) => `a${i}`).concat([..."123456"].map((i) => `d${i}`));
  const domain: DomainUnit[] = ids.map((id) => ({ id, judge: id in judge ? judge[id] : false }));
  const base: LabelledItem[] = [
    { id: "a1", cell: "A", human: true },
    { id: "a3", cell: "A", human: true },
    { id: "a5", cell: "A", human: false },
    { id: "a7", cell: "A", human: false },
    { id: "d1", cell: "D", human: true },
    { id: "d6", cell: "D", human: true },
  ];
  const withE = [...base, { id: "e1", cell: "E", human: true }];
  const sizes = new Map([
    ["A", 8],
    ["D", 6],
    ["E", 5],
  ]);
  const without = domainAsr(domain, base, sizes, { minSampled: 2 });

  it("E certainly holds none of the group: the CI is the one computed without E", () => {
    const r = domainAsr(domain, withE, sizes, { minSampled: 2, cellHoldsDomain: (c) => c !== "E" });
    expect(r.human.se).toBeCloseTo(Math.sqrt(2 / 147), 14); // the hand-worked values
    expect(r.calibrated.se).toBeCloseTo(Math.sqrt(206) / 91, 14);
    expect(r.human.ci95).toEqual(without.human.ci95);
    expect(r.calibrated.ci95).toEqual(without.calibrated.ci95);
    expect(r.calibrated.asr).toBe(without.calibrated.asr);
    expect(r.human.df).toBe(4);
  });
  it("E may hold trajectories of the group (none labelled): the variance is unknown, the stratum is named", () => {
    for (const opts of [{}, { cellHoldsDomain: () => true }]) {
      const r = domainAsr(domain, withE, sizes, { minSampled: 2, ...opts });
      expect(r.human.asr).toBeCloseTo(5 / 7, 14);
      expect(r.human.ci95).toBeNull();
      expect(r.human.se).toBeNull();
      expect(r.calibrated.ci95).toBeNull();
      expect(r.calibrated.ci_reason).toBe('stratum_n_lt_2 (stratum "E" has 1 labelled item of 5 and may hold trajectories of the group)');
    }
  });
  it("a one-item cell holding a labelled item of the group stays undefined even if the caller says it holds none", () => {
    const lab: LabelledItem[] = [...base, { id: "d2", cell: "E", human: true }];
    const r = domainAsr(domain, lab, sizes, { minSampled: 2, cellHoldsDomain: (c) => c !== "E" });
    expect(r.human.ci95).toBeNull();
    expect(r.human.ci_reason).toMatch(/^stratum_n_lt_2 \(stratum "E" has 1 labelled item of 5 and holds labelled trajectories of the group\)$/);
  });
  it("stratifiedVariance: an empty cell adds exactly 0, and refuses a non-zero z there", () => {
    const N = new Map([
      ["h", 10],
      ["e", 7],
    ]);
    const v = stratifiedVariance([1, 0, 0], ["h", "h", "e"], N, { emptyCells: new Set(["e"]) });
    expect(v).toBe(stratifiedVariance([1, 0], ["h", "h"], N));
    expect(stratifiedVariance([1, 0, 0], ["h", "h", "e"], N)).toEqual({ reason: "stratum_n_lt_2", stratum: "e", n: 1, N: 7 });
    expect(() => stratifiedVariance([1, 0, 2], ["h", "h", "e"], N, { emptyCells: new Set(["e"]) })).toThrow(/non-zero z/);
  });
});

describe("seeded simulation: per-model groups with a thin stratum of another model", () => {
  // Four models, one tiny (d: ~2% of trajectories), sample stratified by agent model: d's strata often hold one
  // labelled item (about 1 seed in 7). 300 + 60 labelled: ~100 per group (with ~35 per group the per-group
  // calibrated CIs cover ~90% with or without model d: small-domain under-coverage of the Wald-t interval). Groups a, b, c must still get an interval, and it must cover ~95%.
  const S: SimSettings = {
    N: 1000,
    models: [
      { name: "a", asr: 0.15, share: 0.4 },
      { name: "b", asr: 0.3, share: 0.33 },
      { name: "c", asr: 0.5, share: 0.25 },
      { name: "d", asr: 0.4, share: 0.02 },
    ],
    unattacked: 0.1,
    sensitivity: 0.6,
    falsePositive: 0.03,
    unusable: 0.03,
    disagreeWrong: 0.6,
    disagreeRight: 0.08,
    n1: 300,
    n2: 60,
    strata: ["agent_model"],
  };
  const R = 300;
  it(
    "calibrated CIs of a, b, c defined on every seed and covering 92-98%; without the rule many would be undefined",
    () => {
      let cov = 0;
      let covH = 0;
      let n = 0;
      let thin = 0;
      for (let rep = 0; rep < R; rep++) {
        const p = simulate(S, 9000 + rep);
        for (const m of ["a", "b", "c"]) {
          const { domain, truth } = domainOf(p, m);
          const rows = p.units.filter((u) => u.model === m).map((u) => ({ id: u.id, agent_model: u.model, attacked: u.attacked }) as unknown as TrajectoryIndexRow);
          const e = domainAsr(domain, p.labelled, p.cellSizes, { cellHoldsDomain: cellHoldsRows(rows) });
          const c = e.calibrated.ci95!;
          const h = e.human.ci95!;
          expect(c, `seed ${9000 + rep} model ${m}: ${e.calibrated.ci_reason}`).not.toBeNull();
          n++;
          cov += c.lower <= truth && truth <= c.upper ? 1 : 0;
          covH += h.lower <= truth && truth <= h.upper ? 1 : 0;
          if (domainAsr(domain, p.labelled, p.cellSizes).calibrated.ci95 === null) thin++;
        }
      }
      expect(cov / n).toBeGreaterThanOrEqual(0.92);
      expect(cov / n).toBeLessThanOrEqual(0.98);
      expect(covH / n).toBeGreaterThanOrEqual(0.92);
      expect(thin / n).toBeGreaterThan(0.1); // the case of the report is common, not contrived
    },
    120_000,
  );
});

describe("cellHoldsRows: which design cells may hold a group's trajectories", () => {
  const row = (agent_model: string, suite: string) => ({ id: `${agent_model}-${suite}`, agent_model, suite, attacked: true }) as unknown as TrajectoryIndexRow;
  const holds = cellHoldsRows([row("gpt-4o", "slack"), row("gpt-4o", "travel")]);
  it("reads the sampling stratum of `sample`'s cell keys, with or without the committee part", () => {
    expect(holds("A|agent_model=gpt-4o,suite=slack")).toBe(true);
    expect(holds("D|agent_model=gpt-4o,suite=travel")).toBe(true);
    expect(holds("A|agent_model=claude-3-5-sonnet-20240620,suite=slack")).toBe(false);
    expect(holds("A|agent_model=gpt-4o,suite=banking")).toBe(false);
    expect(holds("suite=slack")).toBe(true);
    expect(holds("suite=workspace")).toBe(false);
  });
  it("a cell without --strata or of unknown form may hold any trajectory", () => {
    expect(holds("A")).toBe(true);
    expect(holds("all")).toBe(true);
    expect(holds("custom-cell")).toBe(true);
    expect(cellHoldsRows([])("A")).toBe(false);
  });
});

describe("a calibrated estimate clipped at 0 names its unclipped value (audit 35 M1)", () => {
  // 10 units in one cell, the judge says compromised on 2 (judge term 0.2); both labelled ones the judge called
  // compromised are not, by the humans: correction -0.4 (w = 10/4 = 2.5 over 4 labelled: d = -1, -1, 0, 0) -> -0.2
  const domain: DomainUnit[] = [..."0123456789"].map((i) => ({ id: `u${i}`, judge: i === "0" || i === "1" }));
  const labelled: LabelledItem[] = ["u0", "u1", "u2", "u3"].map((id) => ({ id, cell: "A", human: false }));
  const r = domainAsr(domain, labelled, new Map([["A", 10]]), { minSampled: 2, smallCountBelow: 0 });
  it("asr 0, asr_unclipped -0.3 (judge term 0.2 + correction -0.5); the text says it and what to pool", async () => {
    expect(r.calibrated.asr).toBe(0);
    expect(r.calibrated.asr_unclipped).toBeCloseTo(r.calibrated.judge_term! + r.calibrated.correction!, 14);
    expect(r.calibrated.asr_unclipped).toBeLessThan(0);
    // an estimate inside [0, 1] carries no such field
    expect(r.human.asr_unclipped).toBeUndefined();
  });
});
