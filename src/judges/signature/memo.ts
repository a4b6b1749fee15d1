/**
 * What the signature judge derives from one text of a trajectory (a tool result, a system prompt, a user's request),
 * kept across trajectories: its normalized form, its loose form, and, per injected text, what the exposure scan found
 * in it (issue 26: AgentDojo runs share their tool results and prompts across thousands of runs, 80% of the tool
 * results of the 11,384-run corpus are a text seen before, and each was normalized, loosened and scanned again).
 *
 * Every value here is exactly what the function it stands for returns on the same input (`norm`, `looseFromNorm`, the
 * exposure test, the mask, the quote of `./exposure.ts`): a cached entry is never different from one built anew, so
 * verdicts do not depend on what the cache holds.
 *
 * Bounded: at most {@link MEMO_MAX_TEXTS} texts and {@link MEMO_MAX_CHARS} characters held (the text, its forms, the
 * masked copies and quotes that differ from the normalized form), least recently used evicted first; a text shorter
 * than {@link MEMO_MIN_CHARS} (cheaper to normalize than to look up) or longer than an eighth of the character budget
 * is never cached.
 */
/** What the exposure scan found of one injected text in one tool result (`scanExposure`, `./exposure.ts`). */
export interface InjectionInResult {
  /** The injected text (or a long chunk of it) is in the result (the exposure test). */
  found: boolean;
  /** `maskCommon(injection norm, result norm, MASK_GRAM)`: the normalized result with this injection's chunks blanked (the same string as `norm` when none). */
  masked: string;
  /** `exposureQuote(result, result norm, injection)`, once asked for (undefined: not computed yet). */
  quote?: string | null;
  /**
   * `valueIn(masked, v)` (`./values.ts`) by value of the injection's goal, once asked for (`analyze`'s standings); keyed by
   * the `AttackerValue` object itself (typed `object` here: `./values.ts` imports `./text.ts`, which imports this module).
   */
  values?: Map<object, boolean>;
}

/** One text's memo entry. */
export interface TextMemo {
  /** `norm(text)`. */
  readonly norm: string;
  /** `looseFromNorm(norm)`, once asked for. */
  loose?: string;
  /** `PENDING_RE.test(norm)` (`./calls.ts`: the result says the action waits for a verification), once asked for. */
  pending?: boolean;
  /**
   * `mayHoldWrittenEmail(norm)` (`./addresses.ts`: a spelled or bracketed "at"/"dot" that may be part of a written-out
   * address), once asked for. A masked copy holds one only if `norm` does (blanking writes U+0000 only).
   */
  written?: boolean;
  /** Per injected text (raw), once scanned. */
  injections?: Map<string, InjectionInResult>;
}

/** Most texts held. */
export const MEMO_MAX_TEXTS = 2048;
/**
 * Most characters held (texts and their derived strings). Most tool results are ASCII (one byte a character in V8),
 * so ~8-16 MB per thread that judges. Measured on the 11,384 AgentDojo runs in path order: the scan's hit rate is
 * 56% with 2,048 texts and 8 Mi characters against 57% unbounded (texts seen again are seen again soon).
 */
export const MEMO_MAX_CHARS = 8 * 1024 * 1024;
/** Texts shorter than this are not cached. */
export const MEMO_MIN_CHARS = 64;

const entries = new Map<string, TextMemo>();
let heldChars = 0;

function charsOf(text: string, e: TextMemo): number {
  let n = text.length + (e.norm === text ? 0 : e.norm.length) + (e.loose?.length ?? 0);
  // `forEach`, not `for...of` over entries: no [key, value] pair per entry (it runs twice per scan of a text)
  e.injections?.forEach((r, inj) => {
    n += recordChars(e, inj, r);
  });
  return n;
}

/** Whether `text` may be cached (its length within the bounds). */
export function memoizable(text: string): boolean {
  return text.length >= MEMO_MIN_CHARS && text.length <= MEMO_MAX_CHARS / 8;
}

/** The entry of `text` when held (no change to the recency order), else undefined. */
export function peekText(text: string): TextMemo | undefined {
  return text.length >= MEMO_MIN_CHARS ? entries.get(text) : undefined;
}

/**
 * The entry of `text`, moved to most recently used; built with `normOf(text)` and held when absent (when
 * {@link memoizable}; otherwise a fresh entry that is not held).
 */
export function textMemo(text: string, normOf: (s: string) => string): TextMemo {
  const hit = entries.get(text);
  if (hit) {
    entries.delete(text);
    entries.set(text, hit);
    return hit;
  }
  const e: TextMemo = { norm: normOf(text) };
  if (!memoizable(text)) return e;
  entries.set(text, e);
  heldChars += charsOf(text, e);
  evict();
  return e;
}

/** Account for strings added to a held entry (`before` is its {@link grown} count before the change). */
export function grew(text: string, e: TextMemo, before: number): void {
  if (entries.get(text) !== e) return;
  heldChars += charsOf(text, e) - before;
  evict();
}

/** The characters an entry holds now (for {@link grew}). */
export function grown(text: string, e: TextMemo): number {
  return entries.get(text) === e ? charsOf(text, e) : 0;
}

/**
 * Account for `chars` characters added to the entry of `text` (`e`): what {@link grew} counts, given by the caller that
 * knows it (the exposure scan adds a loose form and one record per injected text: counting all of the entry twice per
 * record was 2% of the analysis, issue 26). `chars` must be exactly the change of the entry's count.
 */
export function added(text: string, e: TextMemo, chars: number): void {
  if (entries.get(text) !== e) return;
  heldChars += chars;
  evict();
}

/** The characters a record adds to its entry (what {@link charsOf} counts for it). */
export function recordChars(e: TextMemo, inj: string, r: InjectionInResult): number {
  return inj.length + (r.masked === e.norm ? 0 : r.masked.length) + (r.quote?.length ?? 0);
}

function evict(): void {
  if (entries.size <= MEMO_MAX_TEXTS && heldChars <= MEMO_MAX_CHARS) return;
  for (const [k, e] of entries) {
    if (entries.size <= MEMO_MAX_TEXTS && heldChars <= MEMO_MAX_CHARS) break;
    entries.delete(k);
    heldChars -= charsOf(k, e);
  }
}

/** Empty the memo (tests). */
export function clearTextMemo(): void {
  entries.clear();
  heldChars = 0;
}
