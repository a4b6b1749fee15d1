/**
 * A trajectory as HTML with every judge's evidence in place: verified quotes highlighted where they occur (one
 * colour per judge, several judges on the same text shown together), unverified quotes listed under the message
 * they cite and marked as unverified, with the closest existing text when the verifier found one.
 *
 * Quotes are located by the verifier's own locator (`findQuoteSpan`, `../evidence/verify.ts`, DESIGN section 2):
 * the quote is un-escaped (`unneutralize`, with the nonce of the prompt the judge saw, recorded on its verdict)
 * and normalized, searched in the normalized text of the part, and the match is mapped back to the original text,
 * so the highlight covers the original characters (curly quotes, line breaks and all). All text is HTML-escaped.
 */
import type { Bucket, Message, Trajectory, Verdict, VerifiedQuote } from "../types.js";
import { EVIDENCE_KINDS } from "../rubric/buckets.js";
import { harnessNote, renderToolCall, renderToolDefinition, textPartText, trajectoryParts, trajectoryTools } from "../serialize/parts.js";
import { evidenceContext, type EvidenceContext } from "../evidence/context.js";
import { findQuoteSpan } from "../evidence/verify.js";
import { escapeAttr, escapeHtml, escapeText, judgeClass } from "./escape.js";
import { DisplayBudget, displayRanges, omittedMarker, visibleParts } from "../serialize/display-cut.js";

/** A located quote: original-text offsets `[start, end)` in one part. */
export interface QuoteLocation {
  /** -1 for a tool description (see `tool_index`). */
  message_index: number;
  /** Set when the quote lies in a tool description (the agent's tool list). */
  tool_index?: number;
  /** Set when the quote lies in a tool call part (`name(arguments)`). */
  tool_call_index?: number;
  /** Set when the quote lies in the message's harness note (its provider's or harness's `error`), not its text. */
  note?: true;
  start: number;
  end: number;
}

/**
 * Where a quote occurs in a text, in original offsets (first occurrence): `findQuoteSpan` (`../evidence/verify.ts`,
 * the one quote locator, the verifier's own matching) over a context holding this one text.
 * @param nonce the nonce of the prompt the judge saw (its escapes in the quote are undone, as the verifier did).
 * @returns `{start, end}` or null when the quote (tried un-escaped and as given) does not occur or is empty.
 */
export function findInText(text: string, quote: string, nonce?: string): { start: number; end: number } | null {
  const t = { id: "", source: { format: "", path: "" }, injections: {}, messages: [] } as unknown as Trajectory;
  const ctx = evidenceContext(t, { parts: [{ message_index: 0, kind: "assistant_text", text }], nonce: validNonce(nonce) });
  return findQuoteSpan(quote, 0, ctx);
}

/** A verdict's recorded nonce when it has the form `evidenceContext` accepts (else none: escapes stay). */
function validNonce(n: unknown): string | undefined {
  return typeof n === "string" && /^[A-Za-z0-9]{6,64}$/.test(n) ? n : undefined;
}

/**
 * Locate a verified quote in a trajectory: in the tool description it verified in (`corrected_tool_index`, else
 * `tool_index`), or in the message it verified in (`corrected_index` when the verifier
 * corrected the citation, else `message_index`), trying the cited tool call first, then the parts of the kinds
 * the bucket allows, then any part of that message. Matching is the verifier's (`findQuoteSpan`).
 * @param ctx the evidence context to search (default `evidenceContext(t)`); give the verdict's nonce in it
 *   (`verdict.nonce`) so a quote of nonce-escaped text is found as the verifier found it.
 * @returns the location, or null when the quote is not verified or cannot be found.
 */
export function locateQuote(t: Trajectory, q: VerifiedQuote, bucket: Bucket, ctx: EvidenceContext = evidenceContext(t)): QuoteLocation | null {
  if (!q.verified) return null;
  const idx = ctx.parts.map((p, i) => ({ p, i }));
  const ti = q.corrected_tool_index ?? q.tool_index;
  if (ti !== undefined && q.corrected_index === undefined) {
    // A tool description (cited by tool_index, or found in exactly one by the verifier).
    const x = idx.find(({ p }) => p.kind === "tool_description" && p.tool_index === ti);
    const r = x ? findQuoteSpan(q.quote, x.i, ctx) : null;
    return r ? { message_index: -1, tool_index: ti, ...r } : null;
  }
  const mi = q.corrected_index ?? q.message_index;
  const parts = idx.filter(({ p }) => p.message_index === mi && p.kind !== "tool_description");
  const allowed = EVIDENCE_KINDS[bucket] ?? [];
  const order = [
    ...parts.filter(({ p }) => q.tool_call_index !== undefined && p.tool_call_index === q.tool_call_index),
    ...parts.filter(({ p }) => allowed.includes(p.kind)),
    ...parts,
  ];
  for (const { p, i } of order) {
    const r = findQuoteSpan(q.quote, i, ctx);
    if (r) return { message_index: mi, ...(p.tool_call_index !== undefined ? { tool_call_index: p.tool_call_index } : {}), ...(p.kind === "harness_note" ? { note: true } : {}), ...r };
  }
  return null;
}

/** One highlight: a span of a part and who quoted it for which bucket. */
interface Span {
  start: number;
  end: number;
  judge: number;
  judgeId: string;
  bucket: Bucket;
  /** What to list under the message when the span lies outside the shown part of a cut text. */
  listed?: Listed;
  /** Appended to the highlight's title (e.g. that the quote is only partly shown). */
  note?: string;
}

/**
 * Render a text with highlighted spans. Overlapping spans split the text at every boundary; a segment covered
 * by several judges carries each judge's class and lists them all in its title. The whole text is one isolated
 * `<bdi>` span (segments are not isolated one by one, so the text's own direction runs on across highlights);
 * bidi controls show as markers (`escapeText`).
 */
export function renderHighlighted(text: string, spans: readonly Span[]): string {
  if (spans.length === 0) return escapeHtml(text);
  return `<bdi>${highlightedSegments(text, spans)}</bdi>`;
}

/**
 * {@link renderHighlighted} of a text cut to `cap` characters for display (`../serialize/display-cut.ts`: head,
 * tail and a window at each highlight; each left-out stretch a visible marker saying how many characters it holds).
 * A highlight is drawn where its shown characters are (its title says when it is only partly shown).
 * @returns the HTML, the spans of which nothing is shown (the caller lists them as outside the shown part), and
 *   whether the text was cut.
 */
export function renderHighlightedCut(text: string, spans: readonly Span[], cap: number): { html: string; hidden: Span[]; cut: boolean } {
  const ranges = displayRanges(text, cap, spans);
  if (ranges.length === 1 && ranges[0].start === 0 && ranges[0].end === text.length) return { html: renderHighlighted(text, spans), hidden: [], cut: false };
  const hidden = spans.filter((s) => visibleParts(s, ranges).length === 0);
  let out = "";
  let at = 0;
  for (const r of ranges) {
    if (r.start > at) out += `<span class="cut">${omittedMarker(r.start - at)}</span>`;
    const inside: Span[] = [];
    for (const s of spans) {
      for (const v of visibleParts(s, [r])) {
        const partly = v.start > s.start || v.end < s.end;
        inside.push({ ...s, start: v.start - r.start, end: v.end - r.start, ...(partly ? { note: "only partly shown: the text is cut for display" } : {}) });
      }
    }
    out += inside.length ? highlightedSegments(text.slice(r.start, r.end), inside) : escapeText(text.slice(r.start, r.end));
    at = r.end;
  }
  if (at < text.length) out += `<span class="cut">${omittedMarker(text.length - at)}</span>`;
  return { html: `<bdi>${out}</bdi>`, hidden, cut: true };
}

function highlightedSegments(text: string, spans: readonly Span[]): string {
  const cuts = new Set<number>([0, text.length]);
  for (const s of spans) {
    cuts.add(Math.max(0, Math.min(text.length, s.start)));
    cuts.add(Math.max(0, Math.min(text.length, s.end)));
  }
  const pts = [...cuts].sort((a, b) => a - b);
  let out = "";
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i];
    const b = pts[i + 1];
    if (a === b) continue;
    const seg = escapeText(text.slice(a, b));
    const cover = spans.filter((s) => s.start <= a && s.end >= b);
    if (cover.length === 0) {
      out += seg;
      continue;
    }
    const judges = [...new Set(cover.map((s) => s.judge))].sort((x, y) => x - y);
    const title = cover.map((s) => `${s.judgeId}: ${s.bucket}${s.note ? ` (${s.note})` : ""}`).filter((v, k, arr) => arr.indexOf(v) === k).join("; ");
    const cls = ["q", ...judges.map(judgeClass), judges.length > 1 ? "multi" : ""].filter(Boolean).join(" ");
    out += `<mark class="${cls}" title="${escapeAttr(title)}">${seg}</mark>`;
  }
  return out;
}

/** A quote that could not be highlighted in place, listed under its message. */
interface Listed {
  judge: number;
  judgeId: string;
  bucket: Bucket;
  holds: boolean;
  quote: VerifiedQuote;
  /**
   * `unverified` (the verifier rejected it), `not_located` (verified, but not found again for display),
   * `not_checked` (the source changed since labelling: the quote is not looked for in the new text) or
   * `not_shown` (verified and located, in a stretch of a long text left out of the page).
   */
  kind: "unverified" | "not_located" | "not_checked" | "not_shown";
  /** For `not_shown`: where the quote lies in its text (original offsets) and that text's length. */
  at?: { start: number; end: number; length: number };
}

function roleLabel(m: Message): string {
  if (m.role === "tool") return `tool result${m.tool_name ? ` · ${m.tool_name}` : ""}`;
  return m.role;
}

/** One quote listed under its message (not highlighted in place), saying why. */
function li(x: Listed): string {
  const closest = x.quote.closest
    ? `<div class="closest">closest existing text (similarity ${x.quote.closest.similarity.toFixed(2)}${
        x.quote.closest.tool_index !== undefined
          ? `, tool description ${x.quote.closest.tool_index}`
          : x.quote.closest.message_index !== undefined
            ? `, message ${x.quote.closest.message_index}`
            : ""
      }): <q>${escapeHtml(x.quote.closest.text)}</q></div>`
    : "";
  const why =
    x.kind === "unverified"
      ? `unverified${x.quote.reason ? `: ${escapeHtml(x.quote.reason)}` : ""}`
      : x.kind === "not_checked"
        ? "not checked against this text: the source changed since labelling"
        : x.kind === "not_shown"
          ? `verified, at characters ${x.at?.start ?? "?"} to ${x.at?.end ?? "?"} of this ${x.at?.length ?? "?"}-character text, outside the part the page shows`
          : "verified, not located for display";
  const badge = x.kind === "unverified" ? "✗ unverified" : x.kind === "not_checked" ? "? source changed" : x.kind === "not_shown" ? "✓ verified, not shown" : "✓ verified";
  return (
    `<li class="${x.kind} ${judgeClass(x.judge)}"><span class="badge ${x.kind}">${badge}</span> ` +
    `<b>${escapeHtml(x.judgeId)}</b> (${escapeHtml(x.bucket)}${x.holds ? "" : ", finding does not hold"}), cites ${x.quote.tool_index !== undefined ? `tool description ${escapeHtml(x.quote.tool_index)}` : `message ${escapeHtml(x.quote.message_index)}`}` +
    `${x.quote.tool_call_index !== undefined ? ` call ${escapeHtml(x.quote.tool_call_index)}` : ""}: <q>${escapeHtml(x.quote.quote)}</q> <span class="why">(${why})</span>${closest}</li>`
  );
}

/** Figures of one rendered trajectory (for tests and the item header). */
export interface HighlightStats {
  highlighted: number;
  unverified: number;
  not_located: number;
  /** Quotes listed without being looked for (`{ locate: false }`). */
  not_checked: number;
  /** Verified quotes located in a stretch of a long text the page leaves out (listed under their message). */
  not_shown: number;
  /** Parts cut for display (their left-out stretches marked in place). */
  parts_cut: number;
}

/**
 * Render a trajectory with the evidence of several judges' verdicts.
 * @param t the trajectory (re-read from its source).
 * @param verdicts one verdict per judge (repeat 0); `judgeOrder` gives each judge's colour slot.
 * @param opts.locate false when the trajectory is not the text the judges saw (its source changed since
 *   labelling): no quote is highlighted or called verified; each is listed under the message it cites as
 *   "not checked against this text". Default true.
 * @param opts.budgetChars characters of the trajectory's texts shown in all (`../serialize/display-cut.ts`
 *   `DISPLAY_ITEM_CHARS` by default; each part at most `DISPLAY_PART_CHARS`): a longer text is cut, each left-out
 *   stretch marked with how many characters it holds; a quote located in a left-out stretch is listed under its
 *   message as outside the shown part (`not_shown`), with its offsets.
 * @returns the HTML of the messages and the counts of highlighted, unverified, unlocated and unchecked quotes.
 */
export function renderTrajectory(
  t: Trajectory,
  verdicts: readonly Verdict[],
  judgeOrder: readonly string[],
  opts: { locate?: boolean; budgetChars?: number } = {},
): { html: string; stats: HighlightStats } {
  const locate = opts.locate !== false;
  const spans = new Map<string, Span[]>();
  const listed = new Map<number, Listed[]>();
  const listedTools = new Map<number, Listed[]>();
  const general: Listed[] = [];
  const stats: HighlightStats = { highlighted: 0, unverified: 0, not_located: 0, not_checked: 0, not_shown: 0, parts_cut: 0 };
  const allParts = trajectoryParts(t);
  for (const v of verdicts) {
    const judge = Math.max(0, judgeOrder.indexOf(v.judge_id));
    // the verifier's context: the same parts, and the nonce of the prompt this judge saw (recorded on the verdict)
    const ctx = locate ? evidenceContext(t, { parts: allParts, nonce: validNonce(v.nonce) }) : undefined;
    for (const f of v.findings ?? []) {
      for (const q of f.evidence ?? []) {
        const loc = ctx ? locateQuote(t, q, f.bucket, ctx) : null;
        if (loc) {
          const k = loc.tool_index !== undefined ? `tool:${loc.tool_index}` : `${loc.message_index}:${loc.tool_call_index ?? (loc.note ? "n" : "t")}`;
          if (!spans.has(k)) spans.set(k, []);
          const listedAs: Listed = { judge, judgeId: v.judge_id, bucket: f.bucket, holds: f.holds, quote: q, kind: "not_shown" };
          spans.get(k)!.push({ start: loc.start, end: loc.end, judge, judgeId: v.judge_id, bucket: f.bucket, listed: listedAs });
          stats.highlighted++;
          continue;
        }
        const kind: Listed["kind"] = !locate ? "not_checked" : q.verified ? "not_located" : "unverified";
        const item: Listed = { judge, judgeId: v.judge_id, bucket: f.bucket, holds: f.holds, quote: q, kind };
        stats[kind]++;
        const mi = q.message_index;
        const ti = q.tool_index;
        if (ti !== undefined && Number.isInteger(ti) && ti >= 0 && ti < trajectoryTools(t).length) {
          if (!listedTools.has(ti)) listedTools.set(ti, []);
          listedTools.get(ti)!.push(item);
        } else if (ti === undefined && Number.isInteger(mi) && mi >= 0 && mi < t.messages.length) {
          if (!listed.has(mi)) listed.set(mi, []);
          listed.get(mi)!.push(item);
        } else general.push(item);
      }
    }
  }
  // each part cut for display within the item's budget; a quote in a left-out stretch is listed under its message
  const budget = new DisplayBudget(opts.budgetChars);
  const shown = (text: string, key: string, into: Listed[]): string => {
    const r = renderHighlightedCut(text, spans.get(key) ?? [], budget.take(text.length));
    if (r.cut) stats.parts_cut++;
    for (const s of r.hidden) {
      if (!s.listed) continue;
      into.push({ ...s.listed, at: { start: s.start, end: s.end, length: text.length } });
      stats.highlighted--;
      stats.not_shown++;
    }
    return r.html;
  };
  const listAt = <K>(m: Map<K, Listed[]>, k: K): Listed[] => m.get(k) ?? m.set(k, []).get(k)!;
  const parts: string[] = [];
  trajectoryTools(t).forEach((tool, k) => {
    const body = [`<pre class="pt">${shown(renderToolDefinition(tool), `tool:${k}`, listAt(listedTools, k))}</pre>`];
    const l = listedTools.get(k);
    if (l?.length) body.push(`<ul class="quotes">${l.map(li).join("")}</ul>`);
    parts.push(`<div class="msg r-tooldef"><div class="mh">tool ${k} · ${escapeHtml(String(tool?.name ?? ""))} (offered to the agent)</div>${body.join("")}</div>`);
  });
  t.messages.forEach((m, i) => {
    const text = textPartText(m);
    const note = harnessNote(m);
    const body: string[] = [];
    if (text !== "" || m.role === "tool") body.push(`<pre class="pt">${shown(text, `${i}:t`, listAt(listed, i))}</pre>`);
    if (note !== "") body.push(`<div class="cl">error recorded by the provider or harness (not the agent's words)</div><pre class="pt">${shown(note, `${i}:n`, listAt(listed, i))}</pre>`);
    (m.tool_calls ?? []).forEach((c, j) => {
      body.push(`<pre class="pc"><span class="cl">call ${j}</span> ${shown(renderToolCall(c), `${i}:${j}`, listAt(listed, i))}</pre>`);
    });
    const l = listed.get(i);
    if (l?.length) body.push(`<ul class="quotes">${l.map(li).join("")}</ul>`);
    parts.push(`<div class="msg r-${/^[a-z]+$/.test(String(m.role)) ? m.role : "other"}"><div class="mh">#${i} ${escapeHtml(roleLabel(m))}</div>${body.join("")}</div>`);
  });
  if (general.length) parts.push(`<div class="msg general"><div class="mh">quotes citing no message of this trajectory</div><ul class="quotes">${general.map(li).join("")}</ul></div>`);
  return { html: `<div class="traj">${parts.join("")}</div>`, stats };
}
