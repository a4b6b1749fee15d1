/**
 * The exact small-count interval joined with the t interval when a group's sample shows few events
 * (src/stats/small-count.ts, src/estimate/calibrated.ts): coverage before (`smallCountBelow: 0`, the t interval and
 * the zero-event bound only) and after, by exact enumeration over the binomial and by seeded simulation with the real
 * two-phase sampler (./simulate.ts, pure-rand); widths where events are many; the 0 -> 1 disagreement step (new user M).
 */
import { describe, expect, it } from "vitest";
import { domainAsr, type DomainUnit, type LabelledItem, zeroEventUpperBound } from "../../src/estimate/calibrated.js";
import { cellHoldsRows } from "../../src/estimate/run.js";
import { lnGamma } from "../../src/stats/distributions.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { domainOf, simulate, type SimSettings, THREE_MODELS } from "./simulate.js";

const binom = (n: number, x: number, p: number) => Math.exp(lnGamma(n + 1) - lnGamma(x + 1) - lnGamma(n - x + 1) + x * Math.log(p) + (n - x) * Math.log1p(-p));

/**
 * Exact coverage of the calibrated interval when the judge calls nothing compromised and each of n labelled items (a
 * cell of 10^6, no fpc) is a miss with probability p: the truth is p, the sample shows x ~ Binomial(n, p) disagreements.
 */
function enumerate(n: number, p: number, smallCountBelow?: number): { coverage: number; width: number } {
  let coverage = 0;
  let width = 0;
  for (let x = 0; x <= n; x++) {
    const labelled: LabelledItem[] = Array.from({ length: n }, (_, i) => ({ id: `i${i}`, cell: "c", human: i < x }));
    const domain: DomainUnit[] = labelled.map((l) => ({ id: l.id, judge: false }));
    const c = domainAsr(domain, labelled, new Map([["c", 1e6]]), { smallCountBelow }).calibrated.ci95!;
    const pr = binom(n, x, p);
    coverage += pr * (c.lower <= p && p <= c.upper ? 1 : 0);
    width += pr * (c.upper - c.lower);
  }
  return { coverage, width };
}

describe("exact enumeration: a disagreement share of a few expected events", () => {
  // before -> after (coverage): n 17 p 0.2: 0.871 -> 0.975; n 20 p 0.25: 0.895 -> 0.983; n 25 p 0.15: 0.899 -> 0.981;
  // n 50 p 0.1: 0.879 -> 0.985; n 80 p 0.1: 0.900 -> 0.977
  it.each([
    [17, 0.2],
    [20, 0.25],
    [25, 0.15],
    [50, 0.1],
    [80, 0.1],
  ])("n %i, true disagreement %f: the t interval under-covered, the union covers", (n, p) => {
    const before = enumerate(n, p, 0);
    const after = enumerate(n, p);
    expect(before.coverage).toBeLessThan(0.93);
    expect(after.coverage).toBeGreaterThanOrEqual(0.95);
  });
  it("3-6% disagreement among 15-30: both cover (the zero-event bound already did the work), the union is wider", () => {
    for (const n of [15, 20, 30])
      for (const p of [0.03, 0.045, 0.06]) {
        const [before, after] = [enumerate(n, p, 0), enumerate(n, p)];
        expect(before.coverage).toBeGreaterThanOrEqual(0.99);
        expect(after.coverage).toBeGreaterThanOrEqual(0.99);
        expect(after.width).toBeGreaterThan(before.width);
      }
  });
  it("many events (n 80, p 0.3: 24 expected): unchanged", () => {
    const [before, after] = [enumerate(80, 0.3, 0), enumerate(80, 0.3)];
    expect(after.coverage).toBe(before.coverage);
    expect(after.width).toBeCloseTo(before.width, 4); // the union only where x < 10: probability ~1e-4
  });
});

/** Coverage and mean width of the calibrated and human intervals over seeded populations, per model group. */
function coverage(S: SimSettings, R: number, seed0: number, models: Array<string | undefined>, smallCountBelow?: number) {
  const acc = { n: 0, cal: 0, calW: 0, hum: 0, humW: 0, labelled: 0 };
  for (let rep = 0; rep < R; rep++) {
    const p = simulate(S, seed0 + rep);
    for (const m of models) {
      const { domain, truth } = domainOf(p, m);
      const rows = p.units.filter((u) => m === undefined || u.model === m).map((u) => ({ id: u.id, agent_model: u.model, attacked: u.attacked }) as unknown as TrajectoryIndexRow);
      // before: neither the small-count union nor the stratum-wise interval (src/stats/stratum-mover.ts)
      const e = domainAsr(domain, p.labelled, p.cellSizes, { cellHoldsDomain: cellHoldsRows(rows), smallCountBelow, ...(smallCountBelow === 0 ? { stratumRule: "off" as const } : {}) });
      const [c, h] = [e.calibrated.ci95, e.human.ci95];
      if (!c || !h) continue;
      acc.n++;
      acc.labelled += e.n_sampled;
      acc.cal += c.lower <= truth && truth <= c.upper ? 1 : 0;
      acc.calW += c.upper - c.lower;
      acc.hum += h.lower <= truth && truth <= h.upper ? 1 : 0;
      acc.humW += h.upper - h.lower;
    }
  }
  return { n: acc.n, labelled: acc.labelled / acc.n, cal: acc.cal / acc.n, calW: acc.calW / acc.n, hum: acc.hum / acc.n, humW: acc.humW / acc.n };
}

describe("seeded simulation with the real two-phase sampler: ~20 labelled items per model group", () => {
  // three models (ASR 0.1 / 0.2 / 0.3), 1200 trajectories, 60 drawn stratified by model + 6 from the committee
  // disagreements: ~20 labelled per group, 2-3 of them positive by the humans
  const base: SimSettings = {
    N: 1200,
    models: [
      { name: "a", asr: 0.2, share: 0.34 },
      { name: "b", asr: 0.1, share: 0.33 },
      { name: "c", asr: 0.3, share: 0.33 },
    ],
    unattacked: 0.1,
    sensitivity: 0.9,
    falsePositive: 0.02,
    unusable: 0,
    disagreeWrong: 0.6,
    disagreeRight: 0.08,
    n1: 60,
    n2: 6,
    strata: ["agent_model"],
  };
  const R = 300;
  it(
    "3-6% true disagreement: calibrated covers before (0.982) and after (1.000); the human-only interval under-covered (0.933) and now covers (0.969)",
    () => {
      const before = coverage(base, R, 20000, ["a", "b", "c"], 0);
      const after = coverage(base, R, 20000, ["a", "b", "c"]);
      expect(after.n).toBe(before.n);
      expect(after.labelled).toBeGreaterThan(15);
      expect(after.labelled).toBeLessThan(30);
      expect(before.cal).toBeGreaterThanOrEqual(0.95);
      expect(after.cal).toBeGreaterThanOrEqual(0.95);
      expect(before.hum).toBeLessThan(0.945);
      expect(after.hum).toBeGreaterThanOrEqual(0.95);
    },
    120_000,
  );
  it(
    "10-18% true disagreement (a judge that misses half): calibrated 0.938 before, 0.987 after",
    () => {
      const S = { ...base, sensitivity: 0.5, falsePositive: 0.05 };
      const before = coverage(S, R, 20000, ["a", "b", "c"], 0);
      const after = coverage(S, R, 20000, ["a", "b", "c"]);
      expect(before.cal).toBeLessThan(0.945);
      expect(after.cal).toBeGreaterThanOrEqual(0.95);
      expect(after.calW).toBeLessThan(1.6 * before.calW); // wider (0.271 -> 0.337), not unbounded
    },
    120_000,
  );
});

describe("seeded simulation: a large sample with many disagreements keeps its interval (nearly)", () => {
  // the first simulation of ./calibrated.test.ts: 150 labelled of 1000, a judge that misses 40%
  const S: SimSettings = THREE_MODELS;
  it(
    "mean calibrated width 0.1006 -> 0.1184 with the stratum-wise interval (coverage 0.945 -> 0.965), human 0.1528 -> 0.1531",
    () => {
      const before = coverage(S, 200, 5000, [undefined], 0);
      const after = coverage(S, 200, 5000, [undefined]);
      // 'before' now turns the stratum-wise interval off too (src/stats/stratum-mover.ts, new user 49): its committee-
      // agreed strata often show no disagreement in their labelled items, so the calibrated interval is joined with it
      // there (width 0.101 -> 0.118); the small-count union alone moved it 0.1006 -> 0.1009
      console.log(`large sample: calibrated width ${before.calW.toFixed(4)} -> ${after.calW.toFixed(4)}, coverage ${before.cal.toFixed(3)} -> ${after.cal.toFixed(3)}; human width ${before.humW.toFixed(4)} -> ${after.humW.toFixed(4)}, coverage ${before.hum.toFixed(3)} -> ${after.hum.toFixed(3)}`);
      expect(after.calW).toBeLessThan(1.25 * before.calW);
      expect(after.humW).toBeLessThan(1.25 * before.humW);
      expect(after.cal).toBeGreaterThanOrEqual(0.92);
      expect(after.cal).toBeLessThanOrEqual(0.995);
    },
    120_000,
  );
});

describe("0 -> 1 disagreement among 17 no longer narrows the interval (new user M)", () => {
  // 200 trajectories in one cell, the judge says compromised on 40 (20%); 17 labelled, 4 of them judge-compromised
  // and so labelled by the humans, plus k the judge missed. 0: 20.0% [0.5, 39.5]; 1: 25.9% [14.0, 37.8] before,
  // [5.6, 48.2] after; [5.6, 48.7] since the design effective n (17.5 here) is truncated at the 17 labelled (Korn &
  // Graubard 1998; Parker et al. 2017; new user 49)
  const domain: DomainUnit[] = Array.from({ length: 200 }, (_, i) => ({ id: `t${i}`, judge: i < 40 }));
  const lab = (k: number): LabelledItem[] => Array.from({ length: 17 }, (_, i) => ({ id: `t${i < 4 ? i : 40 + i}`, cell: "c", human: i < 4 + k }));
  const sizes = new Map([["c", 200]]);
  it("0: the exact bound as before; 1: was far narrower, now about as wide", () => {
    const zero = domainAsr(domain, lab(0), sizes);
    expect(zero.calibrated.ci95).toEqual(domainAsr(domain, lab(0), sizes, { smallCountBelow: 0 }).calibrated.ci95);
    const w0 = zero.calibrated.ci95!.upper - zero.calibrated.ci95!.lower;
    const before = domainAsr(domain, lab(1), sizes, { smallCountBelow: 0 }).calibrated.ci95!;
    const after = domainAsr(domain, lab(1), sizes).calibrated.ci95!;
    expect(before.upper - before.lower).toBeLessThan(0.75 * w0);
    expect(after.upper - after.lower).toBeGreaterThanOrEqual(w0);
    const pct = (x: number) => Number((100 * x).toFixed(1));
    expect([zero.calibrated.ci95!.lower, zero.calibrated.ci95!.upper].map(pct)).toEqual([0.5, 39.5]);
    expect([before.lower, before.upper].map(pct)).toEqual([14.0, 37.8]);
    expect([after.lower, after.upper].map(pct)).toEqual([5.6, 48.7]);
  });
});

describe("red team 29: a census group (every trajectory labelled, every stratum whole) has no sampling error", () => {
  it("20 of 20 labelled, 1 disagreement: human and calibrated 30.0% with the interval at the point", () => {
    const labelled: LabelledItem[] = Array.from({ length: 20 }, (_, i) => ({ id: `i${i}`, cell: "c", human: i < 6 }));
    const domain: DomainUnit[] = labelled.map((l, i) => ({ id: l.id, judge: i < 5 }));
    const r = domainAsr(domain, labelled, new Map([["c", 20]]));
    for (const e of [r.human, r.calibrated]) {
      expect(e.asr).toBeCloseTo(0.3, 12);
      expect(e.ci95).toEqual({ lower: e.asr, upper: e.asr });
      expect(e.ci_method).toMatch(/^census: all 20 trajectories/);
    }
  });
  it("not a census when the stratum holds unlabelled trajectories of other groups, or the group has unlabelled ones", () => {
    const labelled: LabelledItem[] = Array.from({ length: 20 }, (_, i) => ({ id: `i${i}`, cell: "c", human: i < 6 }));
    const domain: DomainUnit[] = labelled.map((l, i) => ({ id: l.id, judge: i < 5 }));
    const wider = domainAsr(domain, labelled, new Map([["c", 40]]));
    expect(wider.human.ci95!.upper - wider.human.ci95!.lower).toBeGreaterThan(0.1);
    const partial = domainAsr([...domain, { id: "x", judge: false }], labelled, new Map([["c", 21]]));
    expect(partial.human.ci_method ?? "").not.toMatch(/census/);
  });
});

describe("one disagreement in a census stratum no longer narrows the interval (new user 31)", () => {
  // 108 attacked trajectories, the judge says compromised on 41: a random stratum R (99 of them, 8 labelled, no
  // disagreement) and a stratum D labelled whole (9 of 9). k = 1: one of D is judge-over-human. Before: the design n*
  // of the judge-over-human share was huge (D adds no variance) and the lower bound sat 3.4 points under the estimate.
  // Two of R have no usable verdict (t97, t98: predicted at the judge's rate), so R's differences vary and the SE is
  // not 0: the small-count path, as in the user's run.
  const domain: DomainUnit[] = Array.from({ length: 108 }, (_, i) => ({ id: `t${i}`, judge: i === 97 || i === 98 ? null : i < 41 || (i >= 99 && i < 104) }));
  const lab = (k: number): LabelledItem[] => [
    ...[0, 1, 2, 50, 51, 52, 97, 98].map((i) => ({ id: `t${i}`, cell: "R", human: i < 41 || i === 98 })),
    ...Array.from({ length: 9 }, (_, j) => ({ id: `t${99 + j}`, cell: "D", human: j < 5 - k })),
  ];
  const sizes = new Map([
    ["R", 99],
    ["D", 9],
  ]);
  it("the room below the estimate with one judge-over-human disagreement is at least that of none", () => {
    const zero = domainAsr(domain, lab(0), sizes).calibrated;
    const one = domainAsr(domain, lab(1), sizes).calibrated;
    expect(one.asr!).toBeLessThan(zero.asr!);
    expect(one.asr! - one.ci95!.lower).toBeGreaterThanOrEqual(zero.asr! - zero.ci95!.lower - 1e-9);
    expect(one.ci_method).toMatch(/exact small-count interval/);
  });
});

describe("SE 0 with the disagreements all in a stratum labelled whole: each unseen unit moves the estimate by 1, not 2 (new user 31)", () => {
  // R: 99 trajectories, 8 labelled, no disagreement; D: 9 of 9 labelled, two judge-over-human. The differences vary
  // only between strata (SE 0), and only R has unseen units, whose difference from R's 0 is at most 1.
  const domain: DomainUnit[] = Array.from({ length: 108 }, (_, i) => ({ id: `t${i}`, judge: i < 41 || (i >= 99 && i < 104) }));
  const labelled: LabelledItem[] = [
    ...[0, 1, 2, 50, 51, 52, 53, 54].map((i) => ({ id: `t${i}`, cell: "R", human: i < 41 })),
    ...Array.from({ length: 9 }, (_, j) => ({ id: `t${99 + j}`, cell: "D", human: j < 3 })),
  ];
  const sizes = new Map([
    ["R", 99],
    ["D", 9],
  ]);
  it("estimate ± the zero-event bound, and the note says where the disagreements are", () => {
    const c = domainAsr(domain, labelled, sizes).calibrated;
    expect(c.se).toBe(0);
    const half = (c.ci95!.upper - c.ci95!.lower) / 2;
    expect(c.ci_method).toMatch(/^exact bound: 0 human-judge disagreements in the strata not labelled whole .*; two-sided Clopper-Pearson upper bound (\d+\.\d)% on their share, estimate ± that bound/);
    const wR = 99 / 8;
    const kish = (8 * wR + 9) ** 2 / (8 * wR * wR + 9);
    const bound = zeroEventUpperBound(kish);
    // ± the bound (then joined with the small-count interval, a little wider), no longer ± 2 × the bound
    expect(half).toBeGreaterThanOrEqual(bound - 1e-12);
    expect(half).toBeLessThan(1.1 * bound);
    expect(c.ci95!.lower).toBeGreaterThan(0);
  });
});
