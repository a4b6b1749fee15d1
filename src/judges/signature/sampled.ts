/**
 * Common substrings of an injected text and a tool result found from sampled positions of the result (issue 26: the
 * exposure scan rolled a hash over every position of every tool result once per injected text and gram length, two to
 * three passes of ~15 ns a character on the 2-core machine, a third of the signature worker's CPU).
 *
 * The injected text `a` is indexed once (every `q`-gram, `gramIndex` of `./text.ts`, kept in `./tables.ts`); the
 * other text `b` is hashed only at positions `0, k, 2k, ...` with `k = m - q + 1`. Exact, not a heuristic: a common
 * substring of `m` or more units `b[j, j + m)` contains a sampled position `p` in `[j, j + k)`, and the `q`-gram at `p`
 * ends by `j + m`, so it is a gram of `a` on the same diagonal; extending that gram left and right while `a` and `b`
 * agree gives the maximal common run through it. Every maximal run of `m` or more units is found this way (each once:
 * a sample inside a run already found on its diagonal is passed over), and nothing else is reported. So the functions
 * here return exactly what their rolling counterparts in `./text.ts` return (`shareRun`, `maskCommon`,
 * `commonChunks`), reading about `q / k` of the characters of `b` instead of two per position.
 */
import { commonChunks, CHUNK_WORK_FACTOR, maskCommon, sameWindow, shareRun, windowHash, type Chunk, type DistinctGrams, type GramIndex } from "./text.js";

/** Gram length of the sampled indexes of injected texts (`./tables.ts`): shorter than every gram length they serve. */
export const SAMPLE_GRAM = 8;

/**
 * Most work (chain entries looked at, known runs compared, units compared while extending) of one {@link sampledRuns},
 * as a multiple of `|a| + |b|`: past it the texts are adversarially repetitive (a gram of `a` at thousands of
 * positions) and the caller's rolling counterpart answers instead (linear, or capped as it is).
 */
export const SAMPLED_WORK_FACTOR = 8;

/** Scratch of {@link sampledRuns}: the diagonals and ends of the runs it holds (one scan at a time on a thread). */
const DIAG: number[] = [];
const END: number[] = [];

/**
 * Call `visit(aStart, bStart, length)` once for every maximal common run of `idx.a` and `b` of at least `m` units
 * (maximal on its diagonal: it cannot be extended left or right), in increasing order of the first sampled position
 * inside it; stop when `visit` returns true. Requires `m >= idx.m >= 1`.
 * @returns false when it gave up at {@link SAMPLED_WORK_FACTOR} (some runs may not have been visited), else true.
 */
function sampledRuns(idx: GramIndex, b: string, m: number, visit: (aStart: number, bStart: number, length: number) => boolean | void): boolean {
  const a = idx.a;
  const q = idx.m;
  const k = m - q + 1;
  const words = idx.filter.words;
  const fm = idx.filter.mask;
  // runs found so far that reach past the current sample: diagonal (aStart - bStart) and end in `b`, the first `held`
  // of the module's scratch arrays (never shrunk: `visit` calls no other scan)
  const diag = DIAG;
  const end = END;
  let held = 0;
  let work = SAMPLED_WORK_FACTOR * (a.length + b.length) + 4096;
  for (let p = 0; p + q <= b.length; p += k) {
    if (held > 0) {
      let inside = false;
      // drop the runs that end by p, in place (their order kept; `splice` made an array per run dropped)
      let w = 0;
      for (let r = 0; r < held; r++) {
        if (end[r] <= p) continue;
        if (p + q <= end[r] && idx.single[p + diag[r]] === 1) inside = true;
        diag[w] = diag[r];
        end[w] = end[r];
        w++;
      }
      held = w;
      // The gram at p lies in a run found on diagonal d, so it is `a`'s gram at p + d, and no other position of `a`
      // has its hash: its only candidate is that run (issue 26: the injected text inside a tool result was a hash and
      // a look-up per sample).
      if (inside) continue;
    }
    const h = windowHash(b, p, q);
    if (((words[(h >>> 5) & fm] >>> (h & 31)) & 1) === 0) continue;
    const f = idx.first.get(h);
    if (f === undefined) continue;
    for (let i = f; i !== -1; i = idx.next[i]) {
      work -= 1 + held;
      if (work < 0) return false;
      const d = i - p;
      let known = false; // inside a run already found on this diagonal: the same maximal run
      for (let r = 0; r < held; r++) {
        if (diag[r] === d) {
          known = true;
          break;
        }
      }
      if (known) continue;
      if (!sameWindow(a, i, b, p, q)) continue; // hash collision
      let l = 0;
      while (i - l > 0 && p - l > 0 && a.charCodeAt(i - l - 1) === b.charCodeAt(p - l - 1)) l++;
      let e = q;
      while (i + e < a.length && p + e < b.length && a.charCodeAt(i + e) === b.charCodeAt(p + e)) e++;
      work -= l + e;
      diag[held] = d;
      end[held] = p + e;
      held++;
      if (l + e >= m && visit(i - l, p - l, l + e)) return true;
    }
  }
  return true;
}

/**
 * `shareRun(idx.a, b, m, pre)` (`./text.ts`): whether `idx.a` and `b` share a substring of at least `m` units.
 * @param idx `gramIndex(a, q)` (`q <= m`)
 * @param pre the grams of `a` for the rolling form, should it answer (built when absent)
 * @throws RangeError when `m < idx.m`.
 */
export function sampledShare(idx: GramIndex, b: string, m: number, pre?: DistinctGrams): boolean {
  if (m < idx.m) throw new RangeError(`sampledShare: gram ${m} below the index's ${idx.m}`);
  if (idx.a.length < m || b.length < m) return false;
  let found = false;
  if (!sampledRuns(idx, b, m, () => (found = true))) return shareRun(idx.a, b, m, pre);
  return found;
}

/**
 * `maskCommon(idx.a, b, m, pre)` (`./text.ts`): `b` itself when no substring of `m` or more units is in common, else `b`
 * with every position covered by one replaced by U+0000.
 * @param pre the grams of `a` for the rolling form, should it answer (built when absent)
 * @throws RangeError when `m < idx.m`.
 */
export function sampledMask(idx: GramIndex, b: string, m: number, pre?: DistinctGrams): string {
  return sampledMaskRuns(idx, b, m, pre).masked;
}

/**
 * {@link sampledMask} with the maximal common runs it blanked: every maximal common chunk of at least `m` units
 * (`commonChunks(idx.a, b, m)` without its work cap, in no particular order; {@link byLength} sorts them as it does),
 * or null when the rolling form made the mask (the work bound: the runs are not known then).
 * @throws RangeError when `m < idx.m`.
 */
export function sampledMaskRuns(idx: GramIndex, b: string, m: number, pre?: DistinctGrams): { masked: string; runs: Chunk[] | null } {
  if (m < idx.m) throw new RangeError(`sampledMask: gram ${m} below the index's ${idx.m}`);
  const runs: Chunk[] = [];
  if (idx.a.length < m || b.length < m) return { masked: b, runs };
  const whole = sampledRuns(idx, b, m, (aStart, bStart, length) => {
    runs.push({ aStart, bStart, length });
  });
  return whole ? { masked: maskRuns(b, runs), runs } : { masked: maskCommon(idx.a, b, m, pre), runs: null };
}

/** `b` with the `b`-side span of every run replaced by U+0000 (`b` itself when there is none). */
function maskRuns(b: string, runs: Chunk[]): string {
  if (runs.length === 0) return b;
  const spans = runs.map((r): [number, number] => [r.bStart, r.bStart + r.length]);
  spans.sort((x, y) => x[0] - y[0]);
  let out = "";
  let from = 0;
  let s = spans[0][0];
  let e = spans[0][1];
  const flush = () => {
    out += b.slice(from, s) + "\u0000".repeat(e - s);
    from = e;
  };
  for (let r = 1; r < spans.length; r++) {
    if (spans[r][0] <= e) e = Math.max(e, spans[r][1]);
    else {
      flush();
      s = spans[r][0];
      e = spans[r][1];
    }
  }
  flush();
  return out + b.slice(from);
}

/**
 * `commonChunks(idx.a, b, minLen, pre)` (`./text.ts`): every maximal common chunk of at least `minLen` units, sorted by
 * decreasing length (ties in order of their start in `b`, then in `a`, as `commonChunks` finds them). When the work
 * `commonChunks` does might reach its cap (`CHUNK_WORK_FACTOR`: adversarially repetitive texts), `commonChunks` itself
 * answers, so the result is its result in every case.
 * @param pre `gramIndex(idx.a, minLen)` for that fallback (built when absent)
 * @throws RangeError when `minLen < idx.m`.
 */
export function sampledChunks(idx: GramIndex, b: string, minLen: number, pre?: GramIndex): Chunk[] {
  if (minLen < idx.m) throw new RangeError(`sampledChunks: gram ${minLen} below the index's ${idx.m}`);
  const a = idx.a;
  const out: Chunk[] = [];
  if (a.length < minLen || b.length < minLen) return out;
  const cap = CHUNK_WORK_FACTOR * (a.length + b.length) + 1e6;
  const windows = b.length - minLen + 1;
  // `commonChunks` spends at most one step per chain entry of each window plus the length of each chunk it reports
  const chain = pre && pre.a === a && pre.m === minLen ? pre.maxChain : a.length;
  let reported = 0;
  const whole = sampledRuns(idx, b, minLen, (aStart, bStart, length) => {
    out.push({ aStart, bStart, length });
    reported += length;
  });
  if (!whole || windows * Math.max(1, chain) + reported >= cap) return commonChunks(a, b, minLen, pre);
  return byLength(out);
}

/** Chunks in `commonChunks`' order: decreasing length, then increasing start in `b`, then in `a` (sorted in place). */
export function byLength(chunks: Chunk[]): Chunk[] {
  return chunks.sort((x, y) => y.length - x.length || x.bStart - y.bStart || x.aStart - y.aStart);
}

/**
 * Whether `commonChunks(pre.a, b, pre.m, pre)` is sure not to reach its work cap when its chunks of `long` units or
 * more are `runs`: it walks at most `pre.maxChain` chain entries per window and reports each chunk once (its length
 * added), and there are at most `maxChain` chunks, each shorter than `long`, starting at one window of `b`.
 */
export function chunksUncapped(pre: GramIndex, b: string, long: number, runs: Chunk[]): boolean {
  const windows = Math.max(0, b.length - pre.m + 1);
  let reported = 0;
  for (const r of runs) reported += r.length;
  return windows * Math.max(1, pre.maxChain) * (long + 1) + reported < CHUNK_WORK_FACTOR * (pre.a.length + b.length) + 1e6;
}
