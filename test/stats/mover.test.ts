/**
 * MOVER-Wilson interval of a linear combination of independent binomial proportions (src/stats/mover.ts; Zou, Huang &
 * Zhang 2009), against a hand computation, and with a zero count (statistics audit 33, M1: a 0/n own-family cell gave
 * the item bootstrap a zero-width side).
 */
import { describe, expect, it } from "vitest";
import { moverWilson, wilsonInterval } from "../../src/stats/index.js";

describe("moverWilson", () => {
  it("matches a hand computation: 0.5 · 3/10 − 0.5 · 1/20", () => {
    // Wilson 95% (z = 1.959964): 3/10 -> [0.107791, 0.603222]; 1/20 -> [0.008881, 0.236131].
    // L = 0.15 − 0.025 = 0.125
    // lower = L − sqrt(0.25 (0.3 − 0.107791)² + 0.25 (0.236131 − 0.05)²)   (c < 0: the other's UPPER side) = −0.0087806
    // upper = L + sqrt(0.25 (0.603222 − 0.3)² + 0.25 (0.05 − 0.008881)²)   (c < 0: the other's LOWER side) = 0.2779986
    const m = moverWilson([{ c: 0.5, x: 3, n: 10 }, { c: -0.5, x: 1, n: 20 }]);
    expect(wilsonInterval(0.3, 10).lower).toBeCloseTo(0.107791, 6);
    expect(m.estimate).toBeCloseTo(0.125, 12);
    expect(m.lower).toBeCloseTo(-0.0087806, 6);
    expect(m.upper).toBeCloseTo(0.2779986, 6);
    expect(m).toMatchObject({ level: 0.95, method: "mover_wilson" });
  });

  it("a zero count keeps its one-sided Wilson width: 0/132 − 157/4434 (run dyn, stubB's exposed stratum)", () => {
    // Wilson: 0/132 -> [0, 0.028279]; 157/4434 -> [0.030358, 0.041263]. L = −0.035408.
    // lower = L − sqrt(0² + (0.041263 − 0.035408)²) = −0.041263 (the zero cell has no room below 0)
    // upper = L + sqrt(0.028279² + (0.035408 − 0.030358)²) = −0.006682 (the zero cell's upper side is not 0)
    const m = moverWilson([{ c: 1, x: 0, n: 132 }, { c: -1, x: 157, n: 4434 }]);
    expect(m.estimate).toBeCloseTo(-0.0354082, 6);
    expect(m.lower).toBeCloseTo(-0.0412626, 6);
    expect(m.upper).toBeCloseTo(-0.0066818, 6);
    // all cells 0/n: the estimate 0 with a width from the Wilson upper limits alone, never a zero-width interval
    const z = moverWilson([{ c: 1, x: 0, n: 10 }, { c: -1, x: 0, n: 10 }]);
    expect(z.estimate).toBe(0);
    expect(z.upper).toBeCloseTo(wilsonInterval(0, 10).upper, 12);
    expect(z.lower).toBeCloseTo(-wilsonInterval(0, 10).upper, 12);
  });

  it("a zero coefficient adds nothing; bad input throws", () => {
    const a = moverWilson([{ c: 1, x: 3, n: 10 }]);
    const b = moverWilson([{ c: 1, x: 3, n: 10 }, { c: 0, x: 1, n: 2 }]);
    expect(b).toEqual(a);
    expect(a.lower).toBeCloseTo(wilsonInterval(0.3, 10).lower, 12);
    expect(a.upper).toBeCloseTo(wilsonInterval(0.3, 10).upper, 12);
    expect(() => moverWilson([])).toThrow(/no term/);
    expect(() => moverWilson([{ c: 1, x: 1, n: 0 }])).toThrow(/n > 0/);
    expect(() => moverWilson([{ c: 1, x: 3, n: 2 }])).toThrow(/n > 0/);
  });
});
