/**
 * The two-phase annotation design: proportional allocation of the random part to strata, and the exact
 * first-order inclusion probability of every trajectory.
 *
 * Design (issue "human annotation samples"; `test/data/vectors/NOTES.md` §7.1 "Design", variant "S2 drawn from
 * D∖S1"):
 * - Phase 1 (S1): n1 trajectories, allocated to the sampling strata g in proportion to their sizes N_g by the
 *   largest-remainder (Hamilton) method, then a simple random sample without replacement (SRS) of n_g in each
 *   stratum.
 * - Phase 2 (S2): an SRS of n2 from the committee-disagreement pool D minus the trajectories S1 drew
 *   (D∖S1); when D∖S1 holds fewer than n2 (only with `--allow-short`), all of D∖S1 is taken.
 *
 * Inclusion probabilities (derived here; the single-stratum case is test/data/vectors/NOTES.md §7.1 "Design" (its
 * table)):
 * - a trajectory outside D in stratum h: π = n_h/N_h (SRS within the stratum).
 * - a trajectory i in D, in stratum h: π_i = n_h/N_h + (1 − n_h/N_h) · E[min(1, n2/(N_D − X'_h))], where X'_h
 *   is the number of OTHER D trajectories S1 drew, given that S1 did not draw i:
 *   X'_h = Y_h + Σ_{g≠h} X_g, with X_g ~ Hypergeometric(N_g, D_g, n_g) independent across strata (SRS within each
 *   stratum) and Y_h ~ Hypergeometric(N_h − 1, D_h − 1, n_h) (stratum h with i removed). Given S1 (and i ∉ S1),
 *   S2 is an SRS of min(n2, N_D − X') from the N_D − X' trajectories of D∖S1, so i is in it with probability
 *   min(1, n2/(N_D − X')). The expectation is computed exactly by convolving the hypergeometric distributions.
 * - With one stratum and n2 ≤ N_D − min(n1, N_D) (never short), this equals the formula of
 *   test/data/vectors/NOTES.md §7.1 "Design", π_D = n1/N + n2/N_D: D's trajectories are exchangeable and the
 *   expected number sampled in D is n1·N_D/N + n2. (`test/sample/design.test.ts` checks it, and the general formula
 *   by exact enumeration.) With several strata, that closed form is no longer exact (strata with different D_g/N_g
 *   give their D members different chances in phase 2), which is why the convolution is used.
 *
 * Weights: the Horvitz–Thompson weight w_i = 1/π_i (Horvitz & Thompson 1952, JASA 47:663–685); the Hájek mean
 * Σ w_i y_i / Σ w_i and the post-stratified weights N_h/n_h are computed downstream (src/stats/weighted.ts).
 * Hypergeometric pmf: P(X = x) = C(K, x) C(N − K, n − x) / C(N, n), x = max(0, n − N + K) .. min(n, K).
 */

/** A sampling stratum with its phase-1 allocation: N trajectories, of which N_D are in the disagreement pool D. */
export interface DesignStratum {
  key: string;
  N: number;
  N_D: number;
  /** Phase-1 sample size n_h (0 <= n_h <= N). */
  n1: number;
}

/** Inclusion probabilities of one sampling stratum: outside D, and in D (`null` when the stratum has no D member). */
export interface StratumInclusion {
  key: string;
  /** π of a trajectory outside D: n_h/N_h. */
  pi_other: number;
  /** π of a trajectory in D (module docstring), or null when N_D = 0. */
  pi_disagreement: number | null;
}

function checkCount(v: number, name: string): void {
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
}

/**
 * Largest-remainder (Hamilton) proportional allocation of n to strata of sizes N_h: each stratum gets
 * ⌊n·N_h/N⌋, and the seats left go one each to the strata with the largest remainders (n·N_h mod N, compared
 * exactly in integers); ties go to the larger stratum, then to the smaller key (code-unit order). Deterministic,
 * so n_h (and π) is fixed by the design, not by the draw. With n <= N, n_h <= N_h always.
 * @param sizes strata `{key, N}` (keys unique, N >= 0).
 * @param n total sample size, 0 <= n <= Σ N.
 * @returns key -> n_h, Σ n_h = n.
 * @throws RangeError on negative or non-integer sizes, duplicate keys, or n > Σ N.
 */
export function largestRemainderAllocation(sizes: readonly { key: string; N: number }[], n: number): Map<string, number> {
  checkCount(n, "n");
  const seen = new Set<string>();
  let total = 0;
  for (const s of sizes) {
    checkCount(s.N, `N of stratum ${JSON.stringify(s.key)}`);
    if (seen.has(s.key)) throw new RangeError(`duplicate stratum key ${JSON.stringify(s.key)}`);
    seen.add(s.key);
    total += s.N;
  }
  if (n > total) throw new RangeError(`cannot allocate ${n} draws to strata holding ${total} trajectories`);
  const out = new Map<string, number>();
  if (total === 0) {
    for (const s of sizes) out.set(s.key, 0);
    return out;
  }
  if (!Number.isSafeInteger(n * total)) throw new RangeError("allocation: n·N exceeds exact integer range");
  const rows = sizes.map((s) => ({ key: s.key, N: s.N, base: Math.floor((n * s.N) / total), rem: (n * s.N) % total }));
  let left = n - rows.reduce((a, r) => a + r.base, 0);
  const order = [...rows].sort((a, b) => b.rem - a.rem || b.N - a.N || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const r of order) {
    if (left <= 0) break;
    if (r.rem > 0) {
      r.base++;
      left--;
    }
  }
  for (const r of rows) out.set(r.key, r.base);
  return out;
}

/** ln(k!) for k = 0..n, by cumulative sums of ln i. */
function lnFactorials(n: number): Float64Array {
  const f = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) f[i] = f[i - 1] + Math.log(i);
  return f;
}

/**
 * Hypergeometric distribution: draws n without replacement from N items of which K are marked; X = marked drawn.
 * @returns `{min, p}` with p[j] = P(X = min + j) for X = max(0, n − N + K) .. min(n, K) (normalised to sum 1).
 * @throws RangeError unless 0 <= K <= N and 0 <= n <= N (integers).
 */
export function hypergeometricPmf(N: number, K: number, n: number): { min: number; p: Float64Array } {
  checkCount(N, "N");
  checkCount(K, "K");
  checkCount(n, "n");
  if (K > N || n > N) throw new RangeError(`hypergeometric: need K <= N and n <= N (N=${N}, K=${K}, n=${n})`);
  const lo = Math.max(0, n - (N - K));
  const hi = Math.min(n, K);
  const lf = lnFactorials(N);
  const lnC = (a: number, b: number) => lf[a] - lf[b] - lf[a - b];
  const logs = new Float64Array(hi - lo + 1);
  let max = -Infinity;
  for (let x = lo; x <= hi; x++) {
    const v = lnC(K, x) + lnC(N - K, n - x);
    logs[x - lo] = v;
    if (v > max) max = v;
  }
  const p = new Float64Array(hi - lo + 1);
  let s = 0;
  for (let j = 0; j < p.length; j++) {
    p[j] = Math.exp(logs[j] - max);
    s += p[j];
  }
  for (let j = 0; j < p.length; j++) p[j] /= s;
  return { min: lo, p };
}

/** Distribution of a sum of independent integer variables, each `{min, p}` as from {@link hypergeometricPmf}. */
export function convolve(a: { min: number; p: Float64Array }, b: { min: number; p: Float64Array }): { min: number; p: Float64Array } {
  const p = new Float64Array(a.p.length + b.p.length - 1);
  for (let i = 0; i < a.p.length; i++) {
    if (a.p[i] === 0) continue;
    for (let j = 0; j < b.p.length; j++) p[i + j] += a.p[i] * b.p[j];
  }
  return { min: a.min + b.min, p };
}

const POINT_ZERO = { min: 0, p: Float64Array.of(1) };

/**
 * Exact first-order inclusion probabilities of the two-phase design (module docstring), per sampling stratum.
 * @param strata every sampling stratum with its size N, disagreement count N_D and phase-1 size n1.
 * @param n2 requested phase-2 size (0 when there is no phase 2).
 * @returns one {@link StratumInclusion} per stratum, in the order given.
 * @throws RangeError on bad counts (N_D > N, n1 > N, negative or non-integer values) or n2 > Σ N_D.
 */
export function twoPhaseInclusion(strata: readonly DesignStratum[], n2: number): StratumInclusion[] {
  checkCount(n2, "n2");
  let ND = 0;
  for (const s of strata) {
    checkCount(s.N, `N of stratum ${JSON.stringify(s.key)}`);
    checkCount(s.N_D, `N_D of stratum ${JSON.stringify(s.key)}`);
    checkCount(s.n1, `n1 of stratum ${JSON.stringify(s.key)}`);
    if (s.N_D > s.N || s.n1 > s.N) throw new RangeError(`stratum ${JSON.stringify(s.key)}: need N_D <= N and n1 <= N`);
    ND += s.N_D;
  }
  if (n2 > ND) throw new RangeError(`n2 = ${n2} exceeds the disagreement pool (${ND})`);
  // X_g for each stratum; prefix/suffix convolutions give Σ_{g≠h} X_g for every h in O(G·L²).
  const X = strata.map((s) => (s.N_D > 0 && n2 > 0 ? hypergeometricPmf(s.N, s.N_D, s.n1) : POINT_ZERO));
  const prefix: { min: number; p: Float64Array }[] = [POINT_ZERO];
  for (let i = 0; i < X.length; i++) prefix.push(convolve(prefix[i], X[i]));
  const suffix: { min: number; p: Float64Array }[] = new Array(X.length + 1);
  suffix[X.length] = POINT_ZERO;
  for (let i = X.length - 1; i >= 0; i--) suffix[i] = convolve(X[i], suffix[i + 1]);
  return strata.map((s, h) => {
    const p1 = s.N === 0 ? 0 : s.n1 / s.N;
    if (s.N_D === 0) return { key: s.key, pi_other: p1, pi_disagreement: null };
    if (n2 === 0 || s.n1 === s.N) return { key: s.key, pi_other: p1, pi_disagreement: p1 };
    const Y = hypergeometricPmf(s.N - 1, s.N_D - 1, s.n1);
    const dist = convolve(convolve(prefix[h], suffix[h + 1]), Y);
    let e = 0;
    for (let j = 0; j < dist.p.length; j++) {
      if (dist.p[j] === 0) continue;
      const pool = ND - (dist.min + j); // D∖S1 (contains i itself, so >= 1)
      e += dist.p[j] * Math.min(1, n2 / pool);
    }
    return { key: s.key, pi_other: p1, pi_disagreement: Math.min(1, p1 + (1 - p1) * e) };
  });
}

/**
 * Horvitz–Thompson weight 1/π (Horvitz & Thompson 1952).
 * @throws RangeError when π is not in (0, 1] (a sampled item always has π > 0).
 */
export function designWeight(pi: number): number {
  if (!(pi > 0 && pi <= 1)) throw new RangeError(`inclusion probability ${pi} is not in (0, 1]`);
  return 1 / pi;
}
