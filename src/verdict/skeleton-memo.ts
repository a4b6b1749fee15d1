/**
 * The skeletons of received texts kept across trajectories, for the code's exposure test (`./exposure.ts`): a tool
 * result's skeleton (its letters and digits after HTML and string escapes are undone), and per injected text's
 * windows whether one of them occurs in it. Why (issue 26, session 54): AgentDojo runs share their tool results across
 * thousands of runs (80% of the 11,384-run corpus's tool results are a text seen before), and the exposure test
 * reduced every part of every trajectory to its skeleton again and searched it again: ~8% of the signature judge's
 * CPU (`skeletonOfNorm` and the window search under `injectionExposure`).
 *
 * Every value is exactly what the function it stands for returns on the same input (the skeleton function is passed
 * in; a window search's answer is a pure function of the two strings): a cached entry is never different from one
 * built anew, so verdicts do not depend on what the cache holds.
 *
 * Bounded per thread: at most {@link SKELETON_MEMO_MAX_TEXTS} texts and {@link SKELETON_MEMO_MAX_CHARS} characters
 * (the normalized text it is keyed by, often the same string the signature judge's own memo holds, and its skeleton),
 * least recently used evicted first; a text shorter than {@link SKELETON_MEMO_MIN_CHARS} or longer than an eighth of
 * the budget is computed each time and not kept.
 */

/** A normalized text's skeleton and what was searched in it. */
export interface TextSkeleton {
  /** The skeleton (`skeletonOfNorm(norm)`). */
  readonly skel: string;
  /**
   * Per injected text's window list (the memoized array itself, `./exposure.ts` `injectedWindowsOf`): whether one of
   * its windows occurs in `skel`, once asked for.
   */
  found?: Map<readonly string[], boolean>;
}

/** Most texts held. */
export const SKELETON_MEMO_MAX_TEXTS = 2048;
/** Most characters held (keys and skeletons: ~4-8 MB per thread that verifies). */
export const SKELETON_MEMO_MAX_CHARS = 4 * 1024 * 1024;
/** Texts shorter than this are not cached (cheaper to reduce than to look up). */
export const SKELETON_MEMO_MIN_CHARS = 64;

/** Most window lists whose answer one entry keeps. */
const MAX_FOUND = 16;

/**
 * `f` (a normalized text's skeleton) memoized as above.
 * @param f the skeleton of a normalized text (pure). @returns a function giving `{skel: f(norm)}`, with its search
 *   results when kept.
 */
export function skeletonMemo(f: (norm: string) => string): (norm: string) => TextSkeleton {
  const entries = new Map<string, TextSkeleton>();
  let held = 0;
  return (norm: string): TextSkeleton => {
    if (norm.length < SKELETON_MEMO_MIN_CHARS || norm.length > SKELETON_MEMO_MAX_CHARS / 8) return { skel: f(norm) };
    let e = entries.get(norm);
    if (e !== undefined) {
      // most recently used last
      entries.delete(norm);
      entries.set(norm, e);
      return e;
    }
    e = { skel: f(norm) };
    entries.set(norm, e);
    held += norm.length + e.skel.length;
    while (entries.size > SKELETON_MEMO_MAX_TEXTS || held > SKELETON_MEMO_MAX_CHARS) {
      const [k, old] = entries.entries().next().value as [string, TextSkeleton];
      entries.delete(k);
      held -= k.length + old.skel.length;
    }
    return e;
  };
}

/**
 * Whether one of `windows` occurs in the text's skeleton: `windows.some((w) => t.skel.includes(w))`, kept on `t`.
 * @param t an entry of {@link skeletonMemo}; @param windows an injected text's windows (the same array for the same text).
 */
export function holdsWindow(t: TextSkeleton, windows: readonly string[]): boolean {
  let r = t.found?.get(windows);
  if (r === undefined) {
    r = windows.some((w) => t.skel.includes(w));
    // bounded: an injected text too long for its own memo comes with a new array each time
    if ((t.found ??= new Map()).size < MAX_FOUND) t.found.set(windows, r);
  }
  return r;
}
