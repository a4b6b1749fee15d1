/**
 * The crude leniency figures' bootstrap draws the counts of the items' six kinds (own family or not × judge − others)
 * from a multinomial instead of drawing n items (session 39: O(B·n) -> O(n + B·6)). Same distribution, not the same
 * stream: checked by seeded comparisons of the interval over many seeds and of the replicates' distributions against
 * the item bootstrap (`bootstrapItems`) over the same items.
 */
import { describe, expect, it } from "vitest";
import { bootstrapCounts, bootstrapItems } from "../../src/stats/bootstrap.js";
import { diffOfKinds, gapOfKinds, itemKinds } from "../../src/committee/leniency.js";
import { stratItem, type StratItem } from "../../src/committee/leniency-strata.js";

/** Own-family mean difference minus other-family, over items (what the item bootstrap computed before). */
function gapOfItems(items: readonly StratItem[]): number | null {
  let dOwn = 0, nOwn = 0, dOther = 0, nOther = 0;
  for (const x of items) {
    if (x.own) {
      dOwn += x.judge - x.others;
      nOwn++;
    } else {
      dOther += x.judge - x.others;
      nOther++;
    }
  }
  return nOwn === 0 || nOther === 0 ? null : dOwn / nOwn - dOther / nOther;
}
const diffOfItems = (items: readonly StratItem[]) => (items.length ? items.reduce((s, x) => s + x.judge - x.others, 0) / items.length : null);

/** A deterministic mix of items: a sparse own family (a resample may lack it: undefined replicates too). */
function items(nOwn: number, nOther: number): StratItem[] {
  const out: StratItem[] = [];
  for (let i = 0; i < nOwn + nOther; i++) {
    const own = i < nOwn;
    const stratum = i % 7 === 0 ? 3 : i % 3 === 0 ? 0 : 1; // compromised (others 1), not_exposed, exposed
    out.push(stratItem(own ? i % 5 === 0 : i % 4 === 0, stratum, own));
  }
  return out;
}

/** Two-sample Kolmogorov–Smirnov statistic of sorted arrays. */
function ks(a: readonly number[], b: readonly number[]): number {
  let i = 0, j = 0, d = 0;
  while (i < a.length && j < b.length) {
    const x = Math.min(a[i], b[j]);
    while (i < a.length && a[i] <= x) i++;
    while (j < b.length && b[j] <= x) j++;
    d = Math.max(d, Math.abs(i / a.length - j / b.length));
  }
  return d;
}

describe("crude leniency: the counts bootstrap has the item bootstrap's distribution", () => {
  const xs = items(12, 240);
  it("the point figures over the counts equal those over the items", () => {
    expect(gapOfKinds(itemKinds(xs))).toBeCloseTo(gapOfItems(xs)!, 12);
    expect(diffOfKinds(itemKinds(xs))).toBeCloseTo(diffOfItems(xs)!, 12);
    expect(gapOfKinds(itemKinds(items(0, 5)))).toBeNull();
    expect(diffOfKinds(new Float64Array(6))).toBeNull();
  });
  it("replicates: the two distributions agree (KS at B 20000 each), the undefined share too", () => {
    const B = 20000;
    const a = bootstrapItems(xs, gapOfItems, { B, seed: 11, keepReplicates: true });
    const b = bootstrapCounts(itemKinds(xs), gapOfKinds, { B, seed: 12, keepReplicates: true });
    // critical value of the two-sample KS at alpha 0.001: 1.95 sqrt(2/B) (discrete atoms: conservative)
    expect(ks(a.replicates!, b.replicates!)).toBeLessThan(1.95 * Math.sqrt(2 / B));
    // a resample without an own-family item is undefined: P = (240/252)^252, about 4.6e-6 here; both say none or few
    expect(Math.abs(a.undefined_resamples - b.undefined_resamples)).toBeLessThanOrEqual(3);
    const c = bootstrapItems(xs, diffOfItems, { B, seed: 13, keepReplicates: true });
    const d = bootstrapCounts(itemKinds(xs), diffOfKinds, { B, seed: 14, keepReplicates: true });
    expect(ks(c.replicates!, d.replicates!)).toBeLessThan(1.95 * Math.sqrt(2 / B));
  });
  it("the 95% interval over 150 seeds: mean bounds agree within 4 standard errors", () => {
    const R = 150;
    const B = 1000;
    const bounds = (f: (seed: number) => { lower: number | null; upper: number | null }) => {
      const lo: number[] = [], up: number[] = [];
      for (let s = 0; s < R; s++) {
        const r = f(1000 + s);
        lo.push(r.lower!);
        up.push(r.upper!);
      }
      const m = (v: number[]) => v.reduce((t, x) => t + x, 0) / v.length;
      const sd = (v: number[]) => Math.sqrt(v.reduce((t, x) => t + (x - m(v)) ** 2, 0) / (v.length - 1));
      return { lo: m(lo), up: m(up), seLo: sd(lo) / Math.sqrt(R), seUp: sd(up) / Math.sqrt(R) };
    };
    const kinds = itemKinds(xs);
    const a = bounds((seed) => bootstrapItems(xs, gapOfItems, { B, seed }));
    const b = bounds((seed) => bootstrapCounts(kinds, gapOfKinds, { B, seed: seed + 50_000 }));
    expect(Math.abs(a.lo - b.lo), JSON.stringify({ a, b })).toBeLessThan(4 * Math.hypot(a.seLo, b.seLo));
    expect(Math.abs(a.up - b.up), JSON.stringify({ a, b })).toBeLessThan(4 * Math.hypot(a.seUp, b.seUp));
  }, 60_000);
  it("bootstrapCounts: empty input and bad counts", () => {
    expect(bootstrapCounts([0, 0], () => 1, { B: 10, seed: 1 }).reason).toBe("empty_input");
    expect(() => bootstrapCounts([1.5], () => 1, { B: 10, seed: 1 })).toThrow(/not a non-negative integer/);
    expect(bootstrapCounts([3, 2], (c) => c[0] / (c[0] + c[1]), { B: 10, seed: 1 }).resampling).toBe("multinomial");
  });
});
