/**
 * The evidence context of one trajectory: its parts, their normalized texts (computed on first use) and offset
 * maps, the normalized injected texts, the minimum quote length and the prompt's nonce. Shared by quote
 * verification (`./verify.ts`), the closest-text search (`./closest.ts`) and injection exposure
 * (`../verdict/exposure.ts`); it lives here so that those modules import it without importing each other.
 */
import { htmlDecoded } from "./html.js";
import { trajectoryParts } from "../serialize/parts.js";
import type { Part, Trajectory } from "../types.js";
import type { ElidedSpans } from "../serialize/render.js";
import { normalize, normalizeWithMap, type NormalizedText } from "./normalize.js";

/** Default minimum length of a normalized quote (DESIGN section 2). */
export const DEFAULT_MIN_QUOTE_CHARS = 12;

/**
 * Normalized texts of one trajectory, shared by all quotes of all judge replies on it. A part is normalized on
 * first use ({@link partNorm}), not when the context is built: most quotes are checked against the parts of one
 * message, so most parts are never normalized.
 */
export interface EvidenceContext {
  trajectory: Trajectory;
  parts: Part[];
  /**
   * `norms[i] = normalize(parts[i].text)`, every part. Reading this property normalizes all parts not done yet
   * (then returns the cached array); verification code reads one part through {@link partNorm} instead.
   */
  readonly norms: string[];
  /** The per-part cache behind {@link partNorm} and `norms` (`undefined` = not normalized yet). */
  normCache: (string | undefined)[];
  /** Normalized injected texts (`[]` when `injections` is empty). */
  injections: string[];
  /** {@link looseInjectionForm} of each entry of `injections`. */
  looseInjections: string[];
  minQuoteChars: number;
  /** Nonce of the prompt the judge saw, when its escape must be undone in quotes (`neutralize(text, nonce)`). */
  nonce?: string;
  /** Offset maps of the parts, computed on first use by {@link partMap}. */
  maps: (NormalizedText | undefined)[];
  /** The normalizer of part and injected texts: `normalize`, or a caller's memo of it (`opts.normalize`). */
  normalizeText: (s: string) => string;
  /**
   * The text of each part the judge was not shown (`RenderedTrajectory.elided`: original offsets), when the prompt was
   * elided to a budget; absent or an `undefined` entry: the whole part was shown. A quote lying wholly there does not
   * verify, one lying partly there is marked `partly_elided` (`./verify.ts`).
   */
  elided?: ElidedSpans;
}

/**
 * Build the evidence context of a trajectory.
 * @param t the canonical trajectory.
 * @param opts.minQuoteChars minimum normalized quote length (default 12, must be >= 1).
 * @param opts.parts the parts to verify against (default `trajectoryParts(t)`; pass the renderer's parts to
 *   share them).
 * @param opts.nonce the nonce of the rendered prompt, so nonce escapes in quotes are undone too.
 * @param opts.normalize a memo of {@link normalize} (same results) shared with an earlier pass over the same texts
 *   (the signature judge's analysis), so a tool result is not normalized twice; default `normalize`.
 * @param opts.elided the renderer's `elided` ranges of `opts.parts` (the text the judge was not shown); default none.
 * @throws RangeError when `minQuoteChars` is not an integer >= 1, or `nonce` is not 6-64 ASCII letters/digits.
 */
export function evidenceContext(
  t: Trajectory,
  opts: { minQuoteChars?: number; parts?: Part[]; nonce?: string; normalize?: (s: string) => string; elided?: ElidedSpans } = {},
): EvidenceContext {
  const minQuoteChars = opts.minQuoteChars ?? DEFAULT_MIN_QUOTE_CHARS;
  if (!Number.isInteger(minQuoteChars) || minQuoteChars < 1) {
    throw new RangeError(`minQuoteChars must be an integer >= 1, got ${minQuoteChars}`);
  }
  if (opts.nonce !== undefined && !/^[A-Za-z0-9]{6,64}$/.test(opts.nonce)) {
    throw new RangeError(`invalid nonce ${JSON.stringify(opts.nonce)}: need 6-64 ASCII letters/digits`);
  }
  const parts = opts.parts ?? trajectoryParts(t);
  const normalizeText = opts.normalize ?? normalize;
  // injected texts recur across a corpus: the module's memo (same results as a caller's memo, which holds the
  // trajectory's texts and would normalize them again)
  const injections = Object.values(t.injections ?? {})
    .filter((s): s is string => typeof s === "string")
    .map((s) => normalizedInjectionOf(s))
    .filter((s) => s.length > 0);
  const ctx = {
    trajectory: t,
    parts,
    normCache: new Array<string | undefined>(parts.length).fill(undefined),
    injections,
    looseInjections: injections.map(looseInjectionOf),
    minQuoteChars,
    nonce: opts.nonce,
    maps: new Array<NormalizedText | undefined>(parts.length).fill(undefined),
    normalizeText,
    elided: opts.elided?.some((e) => e !== undefined) ? opts.elided : undefined,
  };
  // `norms` is defined with one shared getter: an object literal with its own getter was built in dictionary mode,
  // ~4 us a context and slower to read, for every verdict (issue 26)
  return Object.defineProperty(ctx, "norms", NORMS) as EvidenceContext;
}

/** The `norms` property of every context: normalizes the parts not done yet (in its `normCache`), returns them all. */
const NORMS: PropertyDescriptor & ThisType<EvidenceContext> = {
  get(): string[] {
    const { parts, normCache } = this;
    for (let i = 0; i < parts.length; i++) if (normCache[i] === undefined) normCache[i] = this.normalizeText(parts[i].text);
    return normCache as string[];
  },
  enumerable: true,
  configurable: true,
};

/**
 * `normalize(ctx.parts[i].text)`, computed on first use and cached in the context.
 * @param ctx from {@link evidenceContext}.
 * @param i index into `ctx.parts` (not checked: an index out of range throws a TypeError).
 */
export function partNorm(ctx: EvidenceContext, i: number): string {
  let n = ctx.normCache[i];
  if (n === undefined) {
    n = ctx.normalizeText(ctx.parts[i].text);
    ctx.normCache[i] = n;
  }
  return n;
}

/** The offset map of part `i` of the context (computed once, on first use). */
export function partMap(ctx: EvidenceContext, i: number): NormalizedText {
  let m = ctx.maps[i];
  if (!m) {
    m = normalizeWithMap(ctx.parts[i].text);
    ctx.maps[i] = m;
  }
  return m;
}

/** Most entries of each injected-text memo below, and the longest text it keeps (longer ones are computed each time). */
const MEMO_ENTRIES = 512;
const MEMO_CHARS = 16 * 1024;

/**
 * `f` memoized for injected texts (the same few hundred recur across a corpus): same results; at most
 * {@link MEMO_ENTRIES} entries, the oldest dropped first; a text longer than {@link MEMO_CHARS} is computed each time.
 */
export function injectedTextMemo<R = string>(f: (s: string) => R): (s: string) => R {
  const cache = new Map<string, R>();
  return (s) => {
    if (s.length > MEMO_CHARS) return f(s);
    let r = cache.get(s);
    if (r === undefined) {
      r = f(s);
      if (cache.size >= MEMO_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(s, r);
    }
    return r;
  };
}

/**
 * `normalize(s)` of an injected text, memoized ({@link injectedTextMemo}): a corpus holds a few hundred distinct
 * injected texts, each in thousands of trajectories, and every LLM verdict's evidence context normalized them again
 * (2.5% of the bytes `label` allocated per item at 300 ms / 64, issue 26).
 */
const normalizedInjectionOf = injectedTextMemo(normalize);

/** {@link looseInjectionForm} of a normalized injected text, memoized ({@link injectedTextMemo}). */
const looseInjectionOf = injectedTextMemo(looseInjectionForm);

/**
 * A looser form of normalized text used only for the "within the injected content" check: HTML entities and
 * formatting tags undone (./html.ts), string escapes `\n`, `\r`, `\t` become spaces, other backslashes are removed,
 * YAML's doubled `''` becomes `'`, whitespace is collapsed again. Applied to both the quote and the injected text.
 */
export function looseInjectionForm(norm: string): string {
  return htmlDecoded(norm)
    .replace(/\\[nrt]/g, " ")
    .replace(/\\/g, "")
    .replace(/''/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}
