/**
 * The per-stratum shares of a group's design-weighted estimate, for the stratum-wise MOVER interval
 * (./stratum-mover.ts) that `domainAsr` (../estimate/calibrated.ts) and `agree --human` (../agree/design-stratum-wise.ts) join with their design interval.
 */
import type { StratumShare } from "./stratum-mover.js";

/** What {@link stratumShares} returns: the strata, and how many of those not labelled whole show no variation. */
export interface GroupStrata {
  strata: StratumShare[];
  /** Strata of the group, not labelled whole, whose labelled items of the group all have the same value. */
  unvaried: number;
  /** Strata of the group not labelled whole. */
  sampled: number;
}

/**
 * The group's strata as {@link StratumShare}s: weight N̂_{c,g}/N̂_g = (N_c/n_c)·n_{c,g}/N̂_g, n = n_{c,g}, f = n_c/N_c, and
 * the means over the group's labelled items of the stratum of `u1` (and `u2` for a difference; each in [0, 1]).
 * A stratum is unvaried when `value` (u1 − u2, or u1) is the same on all its labelled items of the group.
 * @param items the group's labelled items (cell and the values), in any order.
 * @param nc labelled items per cell over the whole sample; @param N cell sizes; @param Nhat the group's N̂_g (> 0).
 */
export function stratumShares(
  items: ReadonlyArray<{ cell: string; u1: number; u2?: number }>,
  nc: ReadonlyMap<string, number>,
  N: ReadonlyMap<string, number>,
  Nhat: number,
): GroupStrata {
  const by = new Map<string, { n: number; s1: number; s2: number; lo: number; hi: number; two: boolean }>();
  for (const it of items) {
    const v = it.u1 - (it.u2 ?? 0);
    const g = by.get(it.cell) ?? { n: 0, s1: 0, s2: 0, lo: Infinity, hi: -Infinity, two: it.u2 !== undefined };
    g.n++;
    g.s1 += it.u1;
    g.s2 += it.u2 ?? 0;
    g.lo = Math.min(g.lo, v);
    g.hi = Math.max(g.hi, v);
    by.set(it.cell, g);
  }
  const strata: StratumShare[] = [];
  let unvaried = 0;
  let sampled = 0;
  for (const [c, g] of [...by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const [n, Nc] = [nc.get(c)!, N.get(c)!];
    const f = Math.min(1, n / Nc);
    const flat = g.hi - g.lo < 1e-12;
    if (f < 1) {
      sampled++;
      if (flat) unvaried++;
    }
    strata.push({ weight: ((Nc / n) * g.n) / Nhat, n: g.n, f, p1: g.s1 / g.n, ...(g.two ? { p2: g.s2 / g.n } : {}), unvaried: flat });
  }
  return { strata, unvaried, sampled };
}
