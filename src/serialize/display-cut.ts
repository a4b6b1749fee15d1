/**
 * Long texts cut for people to read (red team 30 H1): the HTML report and the view's item page show at most a
 * budget of characters of each part of a trajectory (a message text, a tool call, a tool description), the rest
 * replaced by a visible marker saying how many characters were left out, as the judge's view does
 * (`./render.ts` `elisionMarker`). A 51 MB tool result of 17 million U+202E, each shown as a marker, had made the
 * report page longer than V8's longest string (`Invalid string length`, the whole command aborted); a 21 MB one a
 * 92 MB page.
 *
 * What is kept: the head and the tail of the text and, when highlights are given (a judge's verified quotes), a
 * window around the start of each of the first {@link MAX_FOCUS} of them, so a quote in the middle of a long text
 * is still shown in place. Windows are cut between code points (never inside a surrogate pair). A highlight
 * outside every window is reported by the caller as outside the shown part, never placed elsewhere.
 */

/** The most characters of one part shown in the report or the view (head, tail and highlight windows). */
export const DISPLAY_PART_CHARS = 20_000;
/** The most characters of one trajectory's parts shown together (each part still gets {@link DISPLAY_MIN_PART_CHARS}). */
export const DISPLAY_ITEM_CHARS = 400_000;
/** The least a part is cut to when the item's budget is spent. */
export const DISPLAY_MIN_PART_CHARS = 1_000;
/** Highlights that get a window of their own in a cut text (the first ones by position). */
export const MAX_FOCUS = 8;

/** A half-open range `[start, end)` of original-text offsets (UTF-16 code units). */
export interface TextRange {
  start: number;
  end: number;
}

/** `n` with en-US thousands separators. */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** The marker standing for `n` characters left out of a displayed text, e.g. `[... 17,000,000 characters not shown by ipi-judge ...]`. */
export function omittedMarker(n: number): string {
  return `[... ${thousands(n)} character${n === 1 ? "" : "s"} not shown by ipi-judge ...]`;
}

/** `i` moved back off the low half of a surrogate pair, so a cut there never splits a character. */
function safe(text: string, i: number): number {
  if (i <= 0 || i >= text.length) return Math.max(0, Math.min(text.length, i));
  const hi = text.charCodeAt(i - 1);
  const lo = text.charCodeAt(i);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff ? i - 1 : i;
}

/**
 * The ranges of `text` to show within `cap` characters: the whole text when it fits; else the head, the tail and a
 * window around the start of each of the first {@link MAX_FOCUS} `focus` ranges, `cap / (2 + windows)` characters
 * each, merged where they touch. The kept total is at most `cap` plus a few characters of surrogate rounding.
 * @param cap characters to show (>= 1).
 * @param focus ranges to keep in view (original offsets), e.g. highlights; any order.
 * @returns the kept ranges in order, disjoint and non-adjacent.
 */
export function displayRanges(text: string, cap: number, focus: readonly TextRange[] = []): TextRange[] {
  const L = text.length;
  if (L <= cap) return [{ start: 0, end: L }];
  const starts = [...new Set(focus.map((f) => Math.max(0, Math.min(L, f.start))))].sort((a, b) => a - b).slice(0, MAX_FOCUS);
  const w = Math.max(1, Math.floor(cap / (2 + starts.length)));
  const raw: TextRange[] = [{ start: 0, end: w }, { start: L - w, end: L }];
  // a window starts a little before its highlight, so the text leading into the quote is shown with it
  for (const s of starts) {
    const a = Math.max(0, Math.min(L - w, s - Math.floor(w / 8)));
    raw.push({ start: a, end: a + w });
  }
  raw.sort((x, y) => x.start - y.start);
  const out: TextRange[] = [];
  for (const r of raw) {
    const start = safe(text, r.start);
    const end = safe(text, r.end);
    const last = out[out.length - 1];
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else if (end > start) out.push({ start, end });
  }
  return out;
}

/** The parts of `span` inside the kept `ranges` (empty when none of it is shown). */
export function visibleParts(span: TextRange, ranges: readonly TextRange[]): TextRange[] {
  const out: TextRange[] = [];
  for (const r of ranges) {
    const start = Math.max(span.start, r.start);
    const end = Math.min(span.end, r.end);
    if (end > start) out.push({ start, end });
  }
  return out;
}

/**
 * A budget of displayed characters shared by the parts of one trajectory: each part gets at most
 * {@link DISPLAY_PART_CHARS}, and at least {@link DISPLAY_MIN_PART_CHARS} once the item's budget is spent.
 */
export class DisplayBudget {
  private left: number;
  constructor(total: number = DISPLAY_ITEM_CHARS) {
    this.left = total;
  }
  /** The cap for the next part of `length` characters, charged to the budget. */
  take(length: number): number {
    const cap = Math.min(DISPLAY_PART_CHARS, Math.max(DISPLAY_MIN_PART_CHARS, this.left));
    this.left -= Math.min(length, cap);
    return cap;
  }
}

/**
 * A short label (a chart's axis value, legend entry or tooltip; new-user pass: a 200,000-character model name made a
 * 7 MB report, repeated in every chart's marks and aria-labels): `text` itself when it has at most `max` characters,
 * else its head and tail around {@link omittedMarker} (`gpt-xxxx[... 199,900 characters not shown by ipi-judge
 * ...]xxxx`), cut between code points. Two long texts that share their head and tail and length cut alike: a caller
 * that must keep labels apart makes them distinct (`../report/chart-labels.ts`).
 * @param max characters of the text kept (>= 2), the marker not counted.
 */
export function cutLabel(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = safe(text, Math.ceil((2 * max) / 3));
  const tail = safe(text, text.length - (max - head));
  return `${text.slice(0, head)}${omittedMarker(tail - head)}${text.slice(tail)}`;
}

/**
 * Most characters of a name (a tool, model, judge or file name from the run files) shown in a heading or a table cell
 * of markdown and the HTML report, as the report's charts cut their labels ({@link cutLabel}, `../report/chart-labels.ts`):
 * a 300,000-character tool name made one heading of the annotators' markdown that long.
 */
export const NAME_DISPLAY_CHARS = 120;

/** `name` for display only: itself, or its head and tail around {@link omittedMarker} ({@link cutLabel}); the full name stays in the data. */
export function displayName(name: string): string {
  return cutLabel(name, NAME_DISPLAY_CHARS);
}
