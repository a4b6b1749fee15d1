/**
 * Seeded random generators for property-style tests (pure-rand xoroshiro128+): same seed, same cases.
 */
import { unsafeUniformIntDistribution, xoroshiro128plus, type RandomGenerator } from "pure-rand";

export class Rand {
  private g: RandomGenerator;
  constructor(seed: number) {
    this.g = xoroshiro128plus(seed);
  }
  /** Integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return unsafeUniformIntDistribution(lo, hi, this.g);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)];
  }
  /** A number in [0, 1), in steps of 2^-32. */
  unit(): number {
    return this.int(0, 0xffffffff) / 4294967296;
  }
  bool(p = 0.5): boolean {
    return this.int(0, 999_999) < p * 1_000_000;
  }
}

/** Pieces hostile to normalization and escaping. */
export const HOSTILE_PIECES: readonly string[] = [
  "a", "b", "Z", "Hello", "world", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2003", "\u3000", "\u2028",
  "<", ">", "/", "&", "amp;", "lt;", "&lt;", "&amp;", "&amp;lt;", "&LT;", "#x", ";",
  "untrusted", "UNTRUSTED_trajectory", "message", "Msg", "tool_call", "TOOL_RESULT", "injected", "judge",
  "system", "Instructions", "rubric", "user", "assistant", "prompt", "information",
  "\u2018", "\u2019", "\u201c", "\u201d", "\u201e", "\u2032", "\u2033", "\u2010", "\u2013", "\u2014", "\u2212",
  "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u2026", "...",
  "e\u0301", "\u0301", "\u0308", "\u00e9", "\ufb01", "\u2167", "\uff21", "\uff0d", "\u0130", "\u03a3", "\u00df", "\u1e9e",
  "\uff76", "\uff9e", "\uff9f", "\u1100", "\u1161", "\u11a8", "\uac00", "\u4e2d\u6587", "\ud83d\ude00", "\ud83d",
  "\u2160", "\u00bd", "\u33a1", "\u2474", "x\u0338", "\u212b", "\u1fed", "\u309b",
];

/** A random string of `n` pieces drawn from `pieces`. */
export function randomText(r: Rand, n: number, pieces: readonly string[] = HOSTILE_PIECES): string {
  let s = "";
  for (let i = 0; i < n; i++) s += r.pick(pieces);
  return s;
}

/**
 * A seeded stream of numbers in [0, 1) (`Rand.unit`, pure-rand xoroshiro128+, the generator src/ uses for its
 * bootstrap and sample draws): the one seeded source of the simulation tests, in place of a PRNG written out in each.
 */
export function unitStream(seed: number): () => number {
  const r = new Rand(seed);
  return () => r.unit();
}
