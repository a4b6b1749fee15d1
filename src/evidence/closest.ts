/**
 * Closest existing text for a quote that failed verification, shown to the judge in retry feedback and kept
 * in the verdict record (`closest: {text, similarity}`).
 *
 * Search, on normalized texts (`./normalize.ts`), over the parts of the allowed kinds:
 * 1. anchors: up to {@link MAX_GRAMS} character n-grams of the quote (n = clamp(len/3, 3, 8)), spread over
 *    the quote; every occurrence of a gram in a part votes for the window start `position - offset in quote`
 *    (bucketed by a quarter of the quote length). Frequent grams (more than {@link MAX_OCCURRENCES} hits in all
 *    parts) do not vote unless no rarer gram exists, so common words cannot flood the vote;
 * 2. the {@link MAX_WINDOWS} best-voted windows (or, with no anchor at all, up to that many windows spread
 *    evenly over the parts) are scored with Levenshtein distance (fastest-levenshtein `distance`);
 * 3. the best few are refined by moving their start and end (coarse steps, then single characters) while the
 *    distance drops.
 * Similarity = 1 - distance / max(quote length, window length), in [0, 1] (1 = identical after normalizing).
 * A quote longer than {@link MAX_CLOSEST_CHARS} is matched (and its similarity measured) by its head only.
 * The returned text is the original (un-normalized) text of the window, through the part's offset map.
 */
import { distance } from "fastest-levenshtein";
import type { PartKind } from "../types.js";
import { unneutralize } from "../serialize/untrusted.js";
import { normalize, originalSlice, originalSpan } from "./normalize.js";
import { partMap, type EvidenceContext } from "./context.js";

export const MAX_GRAMS = 24;
export const MAX_OCCURRENCES = 400;
export const MAX_WINDOWS = 48;
/**
 * Quotes longer than this (normalized characters) are matched by their first this-many characters: Levenshtein
 * distance is quadratic (fastest-levenshtein: ~0.2 ms at 500 characters, ~11 ms at 2,000, ~0.8 s at 10,000).
 */
export const MAX_CLOSEST_CHARS = 500;
/**
 * Parts longer than this (UTF-16 units) get no full offset map for the returned text (`originalSpan` maps only
 * the blocks around the window): a map costs two JS numbers per character, ~1 GB for a 30 MB tool result.
 */
export const LONG_PART_CHARS = 1 << 20;

/** The closest text found, with where it is. */
export interface ClosestText {
  /** Original text of the window (as stored in the trajectory, before normalizing). */
  text: string;
  /** 1 - Levenshtein distance / max(length) of the normalized quote and window, in [0, 1]. */
  similarity: number;
  /** -1 for a tool description (see `tool_index`). */
  message_index: number;
  tool_call_index?: number;
  /** Set when the text is in a tool description: its position in `Trajectory.tools`. */
  tool_index?: number;
}

interface Win {
  part: number;
  start: number;
  end: number;
  d: number;
}

/**
 * Find the existing text closest to a quote.
 * @param quote the quote as the judge wrote it (escapes are undone and it is normalized here).
 * @param ctx evidence context of the trajectory.
 * @param allowed part kinds to search (default: all kinds).
 * @param accept optional filter on a window's normalized text (e.g. "lies within the injected content"); only
 *   accepted windows are returned.
 * @returns the closest window, or `null` when the quote normalizes to "", no part of an allowed kind has text,
 *   or no window is accepted.
 *   Deterministic; cost is bounded by the caps above plus one `indexOf` scan per gram over the parts.
 */
export function closestMatch(
  quote: string,
  ctx: EvidenceContext,
  allowed?: readonly PartKind[],
  accept?: (normalizedWindow: string) => boolean,
): ClosestText | null {
  const qn = normalize(unneutralize(quote, ctx.nonce)).slice(0, MAX_CLOSEST_CHARS);
  const m = qn.length;
  if (m === 0) return null;
  const kinds = allowed ? new Set(allowed) : null;
  const cand: number[] = [];
  ctx.parts.forEach((p, i) => {
    if ((!kinds || kinds.has(p.kind)) && ctx.norms[i].length > 0) cand.push(i);
  });
  if (cand.length === 0) return null;

  const score = (part: number, start: number, end: number): Win => {
    const text = ctx.norms[part];
    const s = Math.max(0, Math.min(start, text.length));
    const e = Math.max(s, Math.min(end, text.length));
    return { part, start: s, end: e, d: distance(qn, text.slice(s, e)) };
  };
  const better = (a: Win, b: Win): boolean => sim(a) > sim(b) || (sim(a) === sim(b) && a.part < b.part);
  const sim = (w: Win): number => 1 - w.d / Math.max(m, w.end - w.start, 1);

  // 1. Anchor votes.
  const k = Math.max(3, Math.min(8, Math.floor(m / 3)));
  const grams: Array<{ g: string; o: number }> = [];
  if (m <= k) grams.push({ g: qn, o: 0 });
  else {
    const n = Math.min(MAX_GRAMS, m - k + 1);
    const seen = new Set<string>();
    for (let t = 0; t < n; t++) {
      const o = n === 1 ? 0 : Math.round((t * (m - k)) / (n - 1));
      const g = qn.slice(o, o + k);
      if (!seen.has(g)) {
        seen.add(g);
        grams.push({ g, o });
      }
    }
  }
  const hits = grams.map(({ g, o }) => {
    const list: Array<[number, number]> = [];
    for (const part of cand) {
      const text = ctx.norms[part];
      let pos = text.indexOf(g);
      while (pos !== -1 && list.length <= MAX_OCCURRENCES) {
        list.push([part, pos - o]);
        pos = text.indexOf(g, pos + 1);
      }
      if (list.length > MAX_OCCURRENCES) break;
    }
    return list;
  });
  const rare = hits.filter((h) => h.length > 0 && h.length <= MAX_OCCURRENCES);
  const voting = rare.length > 0 ? rare : hits.filter((h) => h.length > 0).sort((a, b) => a.length - b.length).slice(0, 1);
  const bucket = Math.max(1, Math.floor(m / 4));
  const votes = new Map<string, { part: number; start: number; n: number }>();
  for (const list of voting) {
    for (const [part, start0] of list) {
      const start = Math.max(0, start0);
      const key = `${part}:${Math.floor(start / bucket)}`;
      const v = votes.get(key);
      if (v) v.n++;
      else votes.set(key, { part, start, n: 1 });
    }
  }
  let windows: Win[];
  if (votes.size > 0) {
    windows = [...votes.values()]
      .sort((a, b) => b.n - a.n || a.part - b.part || a.start - b.start)
      .slice(0, MAX_WINDOWS)
      .map((v) => score(v.part, v.start, v.start + m));
  } else {
    // No anchor: windows spread evenly over the candidate parts.
    const total = cand.reduce((s, i) => s + ctx.norms[i].length, 0);
    const step = Math.max(Math.ceil(m / 2), Math.ceil(total / MAX_WINDOWS));
    windows = [];
    for (const part of cand) {
      const len = ctx.norms[part].length;
      for (let s = 0; s < Math.max(1, len - m + 1) && windows.length < MAX_WINDOWS * 2; s += step) {
        windows.push(score(part, s, s + m));
      }
    }
  }
  windows.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));

  // 3. Refine the best few (accepted ones, when a filter is given).
  const ok = (w: Win): boolean => !accept || accept(ctx.norms[w.part].slice(w.start, w.end));
  let best: Win | null = null;
  for (const w0 of windows.filter(ok).slice(0, 4)) {
    let w = w0;
    for (let step = Math.max(1, Math.floor(m / 8)); ; step = Math.floor(step / 2)) {
      let moved = true;
      while (moved) {
        moved = false;
        for (const [ds, de] of [[-step, 0], [step, 0], [0, -step], [0, step], [-step, -step], [step, step]]) {
          const c = score(w.part, w.start + ds, w.end + de);
          if (c.end > c.start && better(c, w) && ok(c)) {
            w = c;
            moved = true;
          }
        }
      }
      if (step === 1) break;
    }
    if (!best || better(w, best)) best = w;
  }
  if (!best) return null;
  const p = ctx.parts[best.part];
  // A long part (a tool result of MB) is not given a full offset map: only the blocks around the window are mapped.
  let text: string;
  if (p.text.length <= LONG_PART_CHARS || ctx.maps[best.part]) text = originalSlice(p.text, partMap(ctx, best.part), best.start, best.end);
  else {
    const span = best.end > best.start ? originalSpan(p.text, best.start, best.end) : null;
    text = span ? p.text.slice(span.start, span.end) : "";
  }
  const out: ClosestText = { text, similarity: Math.max(0, Math.min(1, sim(best))), message_index: p.message_index };
  if (p.tool_call_index !== undefined) out.tool_call_index = p.tool_call_index;
  if (p.tool_index !== undefined) out.tool_index = p.tool_index;
  return out;
}
