/**
 * What the signature judge derives from an injected text alone, built once per distinct text and shared by every
 * trajectory that carries it (issue 26: the same few hundred injected texts recur across a corpus of tens of
 * thousands of runs, and their gram tables, normalized forms and parsed goals were rebuilt for every tool result of
 * every trajectory).
 *
 * The cache is bounded: at most {@link MAX_TABLES} texts and {@link MAX_TABLE_CHARS} characters of them (least
 * recently used evicted first); a text longer than a quarter of the character budget is never cached (its tables
 * are built for the call and dropped). Everything here is pure: a cached entry is exactly what would be built anew.
 */
import { parseGoal, type Goal } from "./goals.js";
import { distinctGrams, gramIndex, looseFromNorm, norm, type DistinctGrams, type GramIndex } from "./text.js";
import { SAMPLE_GRAM } from "./sampled.js";

/** Gram length of the exposure mask (`scanExposure`: chunks of >= 16 characters in common are blanked). */
export const MASK_GRAM = 16;
/** Gram length of the exposure quote (`exposureQuote`: MIN_QUOTE of `./exposure.ts`). */
export const QUOTE_GRAM = 12;
/** Gram length of the injected chunks masked in call arguments (`maskInjectedArgs`). */
export const ARGS_GRAM = 24;

/** Most injected texts kept. */
export const MAX_TABLES = 512;
/**
 * Most characters of injected text kept. Built in full, an entry's tables take ~234 bytes per character of its text
 * (measured: 405 distinct AgentDojo injections of 405 characters on average, ~94 KB each), so the cache stays under
 * ~30 MB in each thread that judges. Runs read in path order meet the same injections one after another, so a
 * corpus with more distinct texts than fit still finds most of them here.
 */
export const MAX_TABLE_CHARS = 128 * 1024;

/** The tables of one injected text; every field is built on first use. */
export interface InjectionTables {
  /** The injected text as recorded (raw). */
  readonly text: string;
  /** `norm(text)`. */
  readonly norm: string;
  /** `loose(text)` (`./text.ts`). */
  readonly loose: string;
  /** Gram length of the exposure test: min(40, ceil(0.8 * loose.length)). */
  readonly exposureGram: number;
  /** `distinctGrams(loose, exposureGram)`: is (a chunk of) the text in a tool result or description. */
  readonly exposureGrams: DistinctGrams;
  /** `distinctGrams(norm, MASK_GRAM)`: blanks the text out of a tool result. */
  readonly maskGrams: DistinctGrams;
  /** `gramIndex(norm, QUOTE_GRAM)`: the exposure quote. */
  readonly quoteIndex: GramIndex;
  /** `gramIndex(norm, ARGS_GRAM)`: injected chunks copied into call arguments. */
  readonly argsIndex: GramIndex;
  /** `parseGoal(text)`, frozen (shared by every trajectory: never modify it). */
  readonly goal: Goal;
  /**
   * The forms of the goal's quoted and strong values, in the goal's order (`analyze`: chunks of the injected text
   * that are one of them are not masked in call arguments), frozen (shared: never modify it).
   */
  readonly protectedForms: readonly string[];
  /** `gramIndex(norm, SAMPLE_GRAM)`: the mask and the exposure quote, from sampled positions (`./sampled.ts`). */
  readonly normSample: GramIndex;
  /** `gramIndex(loose, SAMPLE_GRAM)`: the exposure test, from sampled positions (`./sampled.ts`). */
  readonly looseSample: GramIndex;
}

class Tables implements InjectionTables {
  private n?: string;
  private l?: string;
  private eg?: DistinctGrams;
  private mg?: DistinctGrams;
  private qi?: GramIndex;
  private ai?: GramIndex;
  private g?: Goal;
  private pf?: readonly string[];
  private ns?: GramIndex;
  private ls?: GramIndex;
  constructor(readonly text: string) {}
  get norm(): string {
    return (this.n ??= norm(this.text));
  }
  get loose(): string {
    return (this.l ??= looseFromNorm(this.norm));
  }
  get exposureGram(): number {
    return Math.min(40, Math.ceil(0.8 * this.loose.length));
  }
  get exposureGrams(): DistinctGrams {
    return (this.eg ??= distinctGrams(this.loose, this.exposureGram));
  }
  get maskGrams(): DistinctGrams {
    return (this.mg ??= distinctGrams(this.norm, MASK_GRAM));
  }
  get quoteIndex(): GramIndex {
    return (this.qi ??= gramIndex(this.norm, QUOTE_GRAM));
  }
  get argsIndex(): GramIndex {
    return (this.ai ??= gramIndex(this.norm, ARGS_GRAM));
  }
  get goal(): Goal {
    return (this.g ??= goalOf(this.text));
  }
  get protectedForms(): readonly string[] {
    return (this.pf ??= Object.freeze(this.goal.values.filter((v) => v.kind === "quoted" || v.strong).flatMap((v) => v.forms)));
  }
  get normSample(): GramIndex {
    return (this.ns ??= gramIndex(this.norm, SAMPLE_GRAM));
  }
  get looseSample(): GramIndex {
    return (this.ls ??= gramIndex(this.loose, SAMPLE_GRAM));
  }
}

/** Most goals kept by {@link goalOf}, and most characters of their texts. */
export const MAX_GOALS = 2048;
export const MAX_GOAL_CHARS = 512 * 1024;
const goals = new Map<string, Goal>();
let goalChars = 0;

/**
 * `parseGoal(text)`, frozen, kept beyond its tables (a goal is small next to its gram tables, which the cache above
 * evicts: a corpus with more injected texts than fit parsed them again, 2-5% of the analysis, and each new goal's values
 * missed the per-value records of `./memo.ts`). At most {@link MAX_GOALS} goals and {@link MAX_GOAL_CHARS} characters of
 * text, the oldest dropped first; a text longer than a quarter of the tables' budget is parsed each time.
 */
function goalOf(text: string): Goal {
  let g = goals.get(text);
  if (g !== undefined) return g;
  g = deepFreeze(parseGoal(text));
  if (text.length > MAX_TABLE_CHARS / 4) return g;
  goals.set(text, g);
  goalChars += text.length;
  while (goals.size > MAX_GOALS || goalChars > MAX_GOAL_CHARS) {
    const k = goals.keys().next().value as string;
    goals.delete(k);
    goalChars -= k.length;
  }
  return g;
}

function deepFreeze<T>(x: T): T {
  if (x && typeof x === "object" && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x as object)) deepFreeze(v);
  }
  return x;
}

const cache = new Map<string, Tables>();
let cachedChars = 0;

/**
 * The tables of an injected text, from the cache (moved to most recently used) or built and cached.
 * @param text an injected text (raw)
 * @returns its {@link InjectionTables}; never throws (fields are built lazily, each as its builder would).
 */
export function injectionTables(text: string): InjectionTables {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const t = new Tables(text);
  if (text.length > MAX_TABLE_CHARS / 4) return t;
  cache.set(text, t);
  cachedChars += text.length;
  for (const [k] of cache) {
    if (cache.size <= MAX_TABLES && cachedChars <= MAX_TABLE_CHARS) break;
    cache.delete(k);
    cachedChars -= k.length;
  }
  return t;
}

/** Empty the cache (tests). */
export function clearInjectionTables(): void {
  cache.clear();
  cachedChars = 0;
  goals.clear();
  goalChars = 0;
}
