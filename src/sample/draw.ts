/**
 * Seeded draws for the annotation sample: independent pure-rand `xoroshiro128plus` streams derived from the
 * recorded seed and a stream name, simple random sampling without replacement (partial Fisher–Yates), and a
 * seeded shuffle (Fisher–Yates; Knuth, TAOCP vol. 2, Algorithm 3.4.2P). Indices come from `nextIndex` of
 * src/stats/bootstrap.ts (Lemire's unbiased multiply-shift with rejection), so every subset of size k is equally
 * likely and every permutation is equally likely.
 *
 * Callers sort their items (by trajectory id, code-unit order) before drawing, so the input order of the
 * corpus cannot change the sample.
 */
import { createHash } from "node:crypto";
import prand from "pure-rand";
import { nextIndex } from "../stats/bootstrap.js";

export type Rng = ReturnType<typeof prand.xoroshiro128plus>;

/** The largest population a draw accepts (`nextIndex` is exact below 2^21). */
export const MAX_DRAW_POPULATION = 2 ** 21 - 1;

/**
 * A generator for one named stream of a seed: the xoroshiro128plus state is the first 16 bytes of
 * sha256("ipi-judge/sample\0<seed>\0<stream>") (four signed 32-bit words), so streams of one seed are
 * independent and adding a stream never shifts another.
 * @param seed a non-negative safe integer (the recorded `--seed`).
 * @param stream the stream name, e.g. `phase1`, `phase2`, `shuffle`.
 * @throws RangeError when the seed is not a non-negative safe integer.
 */
export function seededRng(seed: number, stream: string): Rng {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
  const h = createHash("sha256").update(`ipi-judge/sample\0${seed}\0${stream}`, "utf8").digest();
  const state: number[] = [h.readInt32BE(0), h.readInt32BE(4), h.readInt32BE(8), h.readInt32BE(12)];
  if (!state.some((x) => x !== 0)) state[0] = 1; // the all-zero state is a fixed point
  const rng = prand.xoroshiro128plus.fromState(state);
  return rng;
}

function checkSize(n: number): void {
  if (n > MAX_DRAW_POPULATION) throw new RangeError(`cannot draw from ${n} items (at most ${MAX_DRAW_POPULATION})`);
}

/**
 * Simple random sample without replacement of k of the items (partial Fisher–Yates on the index array).
 * @returns the chosen items in their input order (so the output does not depend on the draw order).
 * @throws RangeError when k is not an integer in [0, items.length] or there are too many items.
 */
export function drawWithoutReplacement<T>(rng: Rng, items: ArrayLike<T>, k: number): T[] {
  const n = items.length;
  if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError(`cannot draw ${k} of ${n} items`);
  checkSize(n);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + nextIndex(rng, n - i);
    const t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  return idx
    .slice(0, k)
    .sort((a, b) => a - b)
    .map((i) => items[i]);
}

/**
 * A uniformly random permutation of the items (Fisher–Yates, from the last position down).
 * @returns a new array.
 * @throws RangeError when there are too many items.
 */
export function seededShuffle<T>(rng: Rng, items: readonly T[]): T[] {
  checkSize(items.length);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = nextIndex(rng, i + 1);
    const t = out[i];
    out[i] = out[j];
    out[j] = t;
  }
  return out;
}

/** Compare strings by UTF-16 code units (locale-independent), for sorting ids before a draw. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
