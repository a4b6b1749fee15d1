/**
 * The distribution functions are stdlib-js wrappers (src/stats/distributions.ts). Reference values are
 * SciPy 1.17 (`scipy.stats.t.ppf`, `norm.ppf`, `chi2.sf`), which agree with R's `qt`, `qnorm`, `pchisq` to
 * double precision. The lower tail of the normal quantile is pinned because stdlib's own `normal-quantile`
 * loses it (erfinv(2p - 1) cancels): it is computed through erfcinv instead.
 */
import { describe, expect, it } from "vitest";
import { gammaQ, normalQuantile, studentTQuantile, studentTUpperTail, incompleteBeta, lnGamma, erfc } from "../../src/stats/distributions.js";

const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe("distributions (stdlib wrappers)", () => {
  it("t quantiles match SciPy to 1e-12 relative, non-integer df and far tails included", () => {
    for (const [p, df, v] of [
      [0.975, 1, 12.706204736174694],
      [0.975, 2.5, 3.5746548420036817],
      [0.995, 30, 2.7499956535672254],
      [1e-12, 3, -10331.108244292487],
      [0.95, 1e5, 1.6448688647849696],
      [0.7, 4, 0.5686490630497045],
    ]) expect(rel(studentTQuantile(p, df), v), `qt(${p}, ${df})`).toBeLessThan(1e-12);
    expect(studentTQuantile(0.5, 7)).toBe(0);
  });
  it("normal quantiles keep the far lower tail (stdlib normal-quantile gave -Infinity at 1e-300)", () => {
    for (const [p, v] of [[1e-300, -37.0470962993612], [1e-20, -9.262340089798409], [0.3, -0.5244005127080409], [1 - 1e-12, 7.0344869100478356]]) {
      expect(rel(normalQuantile(p), v), `qnorm(${p})`).toBeLessThan(1e-12);
    }
  });
  it("upper tails have no cancellation; chi-square tail by gammaQ", () => {
    expect(rel(gammaQ(0.5, 3.84 / 2), 0.05004352124870519)).toBeLessThan(1e-13);
    expect(rel(gammaQ(1.5, 50), 1.5541594313896026e-21)).toBeLessThan(1e-12);
    expect(studentTUpperTail(1e3, 2)).toBeGreaterThan(0);
    expect(studentTUpperTail(Infinity, 3)).toBe(0);
    expect(studentTUpperTail(-Infinity, 3)).toBe(1);
  });
  it("arguments outside the domain throw a RangeError naming the function, never NaN", () => {
    expect(() => studentTQuantile(1, 3)).toThrow(/studentTQuantile: p/);
    expect(() => studentTQuantile(0.5, 0)).toThrow(/df must be > 0/);
    expect(() => studentTUpperTail(NaN, 3)).toThrow(RangeError);
    expect(() => normalQuantile(0)).toThrow(/normalQuantile/);
    expect(() => gammaQ(0, 1)).toThrow(/gammaQ/);
    expect(() => incompleteBeta(1.5, 1, 1)).toThrow(/incompleteBeta/);
    expect(() => lnGamma(-1)).toThrow(/lnGamma/);
    expect(() => erfc(NaN)).toThrow(/erfc/);
  });
});
