import { describe, expect, it } from "vitest";
import { betaQuantile, incompleteBeta } from "../../src/stats/distributions.js";
import { clopperPearson, differenceInterval, needsSmallCountInterval, shareInterval, SMALL_COUNT_BELOW } from "../../src/stats/small-count.js";
import { zeroEventUpperBound } from "../../src/estimate/calibrated.js";

describe("betaQuantile: R's qbeta / scipy.stats.beta.ppf (scipy 1.17.1)", () => {
  // [p, a, b, scipy beta.ppf(p, a, b)]
  const cases: Array<[number, number, number, number]> = [
    [0.025, 1, 17, 0.0014881743912666346],
    [0.975, 2, 16, 0.2868893966672207],
    [0.025, 0.3, 5.7, 5.946701105067978e-7],
    [0.975, 1.3, 4.7, 0.5886859754571752],
    [0.5, 2.5, 3.5, 0.40684494089319373],
    [0.025, 4, 14, 0.06810774043735666],
    [0.975, 5, 13, 0.4989932732045801],
    [1e-6, 0.5, 200, 3.931902619631195e-15],
  ];
  it.each(cases)("qbeta(%f, %f, %f)", (p, a, b, want) => {
    const got = betaQuantile(p, a, b);
    expect(Math.abs(got - want) / want).toBeLessThan(1e-12);
    expect(incompleteBeta(got, a, b)).toBeCloseTo(p, 12);
  });
  it("ends and domain", () => {
    expect(betaQuantile(0, 2, 3)).toBe(0);
    expect(betaQuantile(1, 2, 3)).toBe(1);
    expect(() => betaQuantile(1.5, 2, 3)).toThrow(RangeError);
    expect(() => betaQuantile(0.5, 0, 3)).toThrow(RangeError);
  });
});

describe("clopperPearson: Korn-Graubard 1998 with a non-integer count", () => {
  it("0 events: exactly the closed form the zero-SE case uses", () => {
    for (const n of [4, 12.7, 17, 149.3]) {
      expect(clopperPearson(0, n)).toEqual({ lower: 0, upper: zeroEventUpperBound(n) });
      expect(clopperPearson(n, n)).toEqual({ lower: 1 - zeroEventUpperBound(n), upper: 1 });
    }
  });
  it("integer counts: the textbook Clopper-Pearson interval (1 of 17: [0.00149, 0.28689])", () => {
    const b = clopperPearson(1, 17);
    expect(b.lower).toBeCloseTo(0.0014881743912666346, 14);
    expect(b.upper).toBeCloseTo(0.2868893966672207, 14);
    const c = clopperPearson(4, 17); // beta(4, 14) and beta(5, 13)
    expect(c.lower).toBeCloseTo(0.06810774043735666, 13);
    expect(c.upper).toBeCloseTo(0.4989932732045801, 13);
  });
  it("a non-integer count lies between its neighbours", () => {
    const [a, b, c] = [clopperPearson(1, 17), clopperPearson(1.4, 17), clopperPearson(2, 17)];
    expect(b.lower).toBeGreaterThan(a.lower);
    expect(b.lower).toBeLessThan(c.lower);
    expect(b.upper).toBeGreaterThan(a.upper);
    expect(b.upper).toBeLessThan(c.upper);
  });
});

describe("differenceInterval: MOVER of two exact intervals (Zou & Donner 2008)", () => {
  it("nothing on either side: ± the zero-event bound, as today's zero case", () => {
    expect(differenceInterval(0, 0, 17)).toEqual({ lower: -zeroEventUpperBound(17), upper: zeroEventUpperBound(17) });
  });
  it("nothing on one side: that side's exact bound added in quadrature", () => {
    const d = differenceInterval(1 / 17, 0, 17);
    const b = clopperPearson(1, 17);
    expect(d.upper).toBeCloseTo(b.upper, 14);
    expect(d.lower).toBeCloseTo(1 / 17 - Math.hypot(1 / 17 - b.lower, zeroEventUpperBound(17)), 14);
  });
  it("both sides seen: wider than square-and-add (the multinomial correlation is negative), narrower than the plain sum", () => {
    const [p1, p2, n] = [2 / 20, 1 / 20, 20];
    const [b1, b2] = [clopperPearson(2, n), clopperPearson(1, n)];
    const d = differenceInterval(p1, p2, n);
    expect(d.upper - (p1 - p2)).toBeGreaterThan(Math.hypot(b1.upper - p1, p2 - b2.lower));
    expect(d.upper).toBeLessThan(b1.upper - b2.lower);
    expect(d.lower).toBeGreaterThan(b1.lower - b2.upper);
  });
  it("few events on either tail need it", () => {
    expect(SMALL_COUNT_BELOW).toBe(10);
    expect(needsSmallCountInterval(9.9, 100)).toBe(true);
    expect(needsSmallCountInterval(10, 100)).toBe(false);
    expect(needsSmallCountInterval(95, 100)).toBe(true);
    expect(needsSmallCountInterval(3, 100, 0)).toBe(false);
  });
});

describe("shareInterval: the exact interval never closer than the zero-event bound on the rarer side (new user 31)", () => {
  it("floor 0 is the Clopper-Pearson interval", () => {
    expect(shareInterval(0.1, 30, 0)).toEqual(clopperPearson(3, 30));
    expect(shareInterval(0.9, 30, 0)).toEqual(clopperPearson(27, 30));
  });
  it("an event whose design n* is huge (a census stratum) still leaves the unseen side as wide as the zero case", () => {
    const floor = zeroEventUpperBound(9);
    const cp = clopperPearson(0.0123 * 1e6, 1e6);
    const b = shareInterval(0.0123, 1e6, floor);
    expect(cp.upper - 0.0123).toBeLessThan(0.001);
    expect(b.upper).toBeCloseTo(0.0123 + floor, 12);
    expect(b.lower).toBe(cp.lower); // the seen events are exact: the lower side keeps Clopper-Pearson
  });
  it("the mirror: few non-events widen the lower side; a wide Clopper-Pearson interval is kept as it is", () => {
    const floor = zeroEventUpperBound(9);
    const b = shareInterval(0.99, 1e6, floor);
    expect(b.lower).toBeCloseTo(0.99 - floor, 12);
    expect(b.upper).toBe(clopperPearson(0.99 * 1e6, 1e6).upper);
    expect(shareInterval(1 / 9, 9, floor)).toEqual(clopperPearson(1, 9)); // 1 of 9: 0.111 + 0.336 < CP's 0.482
  });
  it("differenceInterval with the floor: one event no narrower than none", () => {
    const floor = zeroEventUpperBound(9);
    const none = differenceInterval(0, 0, 9, 0.95, 9, floor);
    const one = differenceInterval(0, 0.0123, 9, 0.95, 1e6, floor);
    expect(none.lower).toBeCloseTo(-floor, 12);
    expect(-0.0123 - one.lower).toBeGreaterThanOrEqual(floor - 1e-12);
  });
});
