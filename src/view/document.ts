/**
 * A trajectory as the view's page draws it: its parts (tool descriptions, message texts, tool calls) cut into
 * plain-text segments, each segment naming the highlights that cover it (a judge's verified quote, located by
 * the verifier's own locator `findQuoteSpan` of src/evidence/verify.ts; injected text where it occurs
 * verbatim). The page puts each segment in the DOM as a text node (`textContent`), never as markup, so nothing
 * in a trajectory is ever interpreted as HTML.
 */
import type { Bucket, Part, Trajectory, Verdict, VerifiedQuote } from "../types.js";
import { EVIDENCE_KINDS } from "../rubric/buckets.js";
import { trajectoryParts, trajectoryTools } from "../serialize/parts.js";
import { showBidiControlsExactly } from "../format/bidi.js";
import { evidenceContext, type EvidenceContext } from "../evidence/context.js";
import { findQuoteSpan } from "../evidence/verify.js";
import { injectionsIn } from "../sample/export.js";
import { DisplayBudget, displayRanges, omittedMarker, visibleParts } from "../serialize/display-cut.js";

/** A run of a part's text and the highlights covering it (`q<n>`: quote n of `quotes`; `inj`: injected text). */
export interface Segment {
  text: string;
  marks?: string[];
  /** Set on the marker standing for a stretch of a long text left out (`text` says how many characters). */
  omitted?: number;
}

/** One part of the trajectory, cut into segments. */
export interface DocPart {
  kind: Part["kind"];
  message_index: number;
  tool_call_index?: number;
  tool_index?: number;
  segments: Segment[];
  /** Placeholders of the injections this part carries (verbatim or re-encoded, as the annotation export marks them). */
  injected: string[];
}

/** A quote of a verdict, with where it was highlighted (or why not). */
export interface DocQuote {
  n: number;
  judge_id: string;
  bucket: Bucket;
  holds: boolean;
  quote: VerifiedQuote;
  /** Index into `parts` where the quote is highlighted; null when it is not (unverified, or not located). */
  part: number | null;
  why?: string;
}

/** The page's model of one trajectory. */
export interface TrajectoryDoc {
  id: string;
  injections: Record<string, string>;
  tools: Array<{ index: number; name: string; part: number }>;
  messages: Array<{ index: number; role: string; tool_name?: string; tool_call_id?: string; parts: number[] }>;
  parts: DocPart[];
  quotes: DocQuote[];
}

/**
 * Where a verified quote lies: the part it verified in (the corrected place when the verifier corrected the
 * citation), trying the cited tool call first, then parts of the kinds its bucket allows, then the rest of that
 * message; each tried with `findQuoteSpan`, the verifier's locator.
 * @returns the part index and span, or null.
 */
export function locate(q: VerifiedQuote, bucket: Bucket, ctx: EvidenceContext): { part: number; start: number; end: number } | null {
  const ti = q.corrected_tool_index ?? q.tool_index;
  const candidates: number[] = [];
  if (ti !== undefined && ti !== null && q.corrected_index === undefined) {
    ctx.parts.forEach((p, i) => {
      if (p.kind === "tool_description" && p.tool_index === ti) candidates.push(i);
    });
  } else {
    const mi = q.corrected_index ?? q.message_index;
    const allowed = EVIDENCE_KINDS[bucket] ?? [];
    const inMsg = ctx.parts.map((p, i) => ({ p, i })).filter((x) => x.p.message_index === mi && x.p.kind !== "tool_description");
    const order = [
      ...inMsg.filter((x) => q.tool_call_index !== undefined && x.p.tool_call_index === q.tool_call_index),
      ...inMsg.filter((x) => allowed.includes(x.p.kind)),
      ...inMsg,
    ];
    for (const x of order) if (!candidates.includes(x.i)) candidates.push(x.i);
  }
  for (const i of candidates) {
    const span = typeof q.quote === "string" ? findQuoteSpan(q.quote, i, ctx) : null;
    if (span && span.end > span.start) return { part: i, ...span };
  }
  return null;
}

/** Cut `text` at every span boundary; each segment lists the marks covering it; bidi controls made visible. */
export function segmentText(text: string, spans: ReadonlyArray<{ start: number; end: number; mark: string }>): Segment[] {
  if (spans.length === 0) return [{ text: showBidiControlsExactly(text) }];
  const cuts = new Set<number>([0, text.length]);
  for (const s of spans) {
    cuts.add(Math.max(0, Math.min(text.length, s.start)));
    cuts.add(Math.max(0, Math.min(text.length, s.end)));
  }
  const pts = [...cuts].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < pts.length; i++) {
    const [a, b] = [pts[i], pts[i + 1]];
    if (a === b) continue;
    const marks = [...new Set(spans.filter((s) => s.start <= a && s.end >= b).map((s) => s.mark))];
    out.push(marks.length ? { text: showBidiControlsExactly(text.slice(a, b)), marks } : { text: showBidiControlsExactly(text.slice(a, b)) });
  }
  return out;
}

/**
 * {@link segmentText} of `text` cut to `cap` characters for display (`../serialize/display-cut.ts`: head, tail and a
 * window at each quote mark `q<n>`), each left-out stretch one segment `{text: marker, omitted: n}`.
 * @returns the segments and the quote marks of which nothing is shown.
 */
export function cutSegments(text: string, spans: ReadonlyArray<{ start: number; end: number; mark: string }>, cap: number): { segments: Segment[]; hidden: Set<string> } {
  const ranges = displayRanges(text, cap, spans.filter((s) => s.mark.startsWith("q")));
  if (ranges.length === 1 && ranges[0].start === 0 && ranges[0].end === text.length) return { segments: segmentText(text, spans), hidden: new Set() };
  const segments: Segment[] = [];
  const omitted = (n: number) => segments.push({ text: omittedMarker(n), omitted: n });
  let at = 0;
  for (const r of ranges) {
    if (r.start > at) omitted(r.start - at);
    const inside = spans.flatMap((s) => visibleParts(s, [r]).map((v) => ({ start: v.start - r.start, end: v.end - r.start, mark: s.mark })));
    segments.push(...segmentText(text.slice(r.start, r.end), inside));
    at = r.end;
  }
  if (at < text.length) omitted(text.length - at);
  const shown = new Set(spans.filter((s) => visibleParts(s, ranges).length > 0).map((s) => s.mark));
  return { segments, hidden: new Set(spans.filter((s) => s.mark.startsWith("q") && !shown.has(s.mark)).map((s) => s.mark)) };
}

/** Verbatim occurrences of the injected texts in a part (the page marks them). */
function injectionSpans(text: string, injections: ReadonlyArray<readonly [string, string]>): Array<{ start: number; end: number; mark: string }> {
  const out: Array<{ start: number; end: number; mark: string }> = [];
  for (const [, v] of injections) {
    const needle = v.trim();
    if (needle.length < 12) continue;
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) out.push({ start: at, end: at + needle.length, mark: "inj" });
  }
  return out;
}

/**
 * Build the page's model of a trajectory with the evidence of its verdicts.
 * @param t the trajectory (for an annotator: `blindTrajectory(t, itemId)` of src/sample/export.ts, with no verdicts).
 * @param verdicts the verdicts to show quotes of (any repeats; each quote numbered in order).
 * @param opts.locate false when the trajectory is not the text the judges saw (its source changed): no quote is
 *   highlighted, each says why.
 * @param opts.budgetChars characters of the parts' texts shown in all (`../serialize/display-cut.ts`
 *   `DISPLAY_ITEM_CHARS` by default, each part at most `DISPLAY_PART_CHARS`): a longer text is cut, each left-out
 *   stretch one `omitted` segment; a quote located in a left-out stretch gets `part: null` and a `why` giving its
 *   offsets (red team 30 H1: a 51 MB tool result had made a 400 MB answer).
 */
export function trajectoryDoc(t: Trajectory, verdicts: readonly Verdict[] = [], opts: { locate?: boolean; budgetChars?: number } = {}): TrajectoryDoc {
  const parts = trajectoryParts(t);
  const ctx = evidenceContext(t, { parts });
  const injections = Object.entries(t.injections ?? {}).filter(([, v]) => typeof v === "string" && v.trim() !== "") as Array<[string, string]>;
  const spans: Array<Array<{ start: number; end: number; mark: string }>> = parts.map((p) => injectionSpans(p.text, injections));
  const quotes: DocQuote[] = [];
  for (const v of verdicts) {
    for (const f of Array.isArray(v.findings) ? v.findings : []) {
      for (const q of Array.isArray(f.evidence) ? f.evidence : []) {
        const n = quotes.length;
        const dq: DocQuote = { n, judge_id: v.judge_id, bucket: f.bucket, holds: f.holds, quote: q, part: null };
        if (opts.locate === false) dq.why = "not checked: the source changed since labelling";
        else if (!q?.verified) dq.why = `unverified${q?.reason ? `: ${q.reason}` : ""}`;
        else {
          const at = locate(q, f.bucket, ctx);
          if (at) {
            dq.part = at.part;
            spans[at.part].push({ start: at.start, end: at.end, mark: `q${n}` });
          } else dq.why = "verified, but not located again for display";
        }
        quotes.push(dq);
      }
    }
  }
  const budget = new DisplayBudget(opts.budgetChars);
  const docParts: DocPart[] = parts.map((p, i) => {
    const cut = cutSegments(p.text, spans[i], budget.take(p.text.length));
    for (const mark of cut.hidden) {
      const dq = quotes[Number(mark.slice(1))];
      const s = spans[i].find((x) => x.mark === mark);
      if (!dq || !s) continue;
      dq.part = null;
      dq.why = `verified, at characters ${s.start} to ${s.end} of this ${p.text.length}-character text, outside the part shown (the text is cut for display)`;
    }
    const d: DocPart = { kind: p.kind, message_index: p.message_index, segments: cut.segments, injected: [] };
    if (p.tool_call_index !== undefined) d.tool_call_index = p.tool_call_index;
    if (p.tool_index !== undefined) d.tool_index = p.tool_index;
    if (p.kind === "tool_result" || p.kind === "tool_description") d.injected = injectionsIn(p.text, injections);
    return d;
  });
  const tools = trajectoryTools(t).map((tool, k) => ({
    index: k,
    name: showBidiControlsExactly(String(tool?.name ?? "")),
    part: parts.findIndex((p) => p.kind === "tool_description" && p.tool_index === k),
  }));
  const messages = t.messages.map((m, i) => {
    const out: TrajectoryDoc["messages"][number] = { index: i, role: showBidiControlsExactly(String(m.role)), parts: [] };
    if (m.tool_name) out.tool_name = showBidiControlsExactly(String(m.tool_name));
    if (m.tool_call_id) out.tool_call_id = showBidiControlsExactly(String(m.tool_call_id));
    parts.forEach((p, k) => {
      if (p.message_index === i && p.kind !== "tool_description") out.parts.push(k);
    });
    return out;
  });
  return { id: showBidiControlsExactly(String(t.id)), injections: Object.fromEntries(injections.map(([k, v]) => [showBidiControlsExactly(k), showBidiControlsExactly(v)])), tools, messages, parts: docParts, quotes };
}
