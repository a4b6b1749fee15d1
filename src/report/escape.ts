/**
 * HTML escaping for the report. Everything that comes from a trajectory, a judge or a label file is untrusted
 * (trajectories carry attacks): it only ever enters the page through {@link escapeHtml} (text content),
 * {@link escapeText} (text content inside an element that is itself isolated) or {@link escapeAttr} (quoted
 * attribute values and `<title>`), never as markup, a URL, a style or a script.
 *
 * Bidirectional-text controls (U+202A-202E, U+2066-2069, U+200E/200F, U+061C; src/format/bidi.ts
 * `BIDI_CONTROLS`) never reach the page raw: they are shown as visible, inert markers such as `⟨U+202E⟩`, so a
 * quote starting with a right-to-left override cannot reverse the report's own text after it. Each untrusted
 * text span is also isolated (`<bdi>`), so even implicit right-to-left text (Hebrew, Arabic letters) cannot
 * reorder the neutral characters and numbers of the report's text around it (Unicode UAX #9, isolates).
 */
import { BIDI_CONTROLS, showBidiControls } from "../format/bidi.js";
import { displayName } from "../serialize/display-cut.js";

const MAP: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escapeCore(s: unknown): string {
  if (s === null || s === undefined) return "";
  const str = typeof s === "string" ? s : String(s);
  return str
    .replace(/[&<>"']/g, (c) => MAP[c])
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "\ufffd")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/** The visible marker of a bidi control, e.g. `⟨U+202E⟩` for U+202E. */
export function bidiMarker(c: string): string {
  return `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/**
 * Escape a string for HTML text content without isolating it: `& < > " '` become entities; lone UTF-16
 * surrogates (invalid in HTML) and C0 control characters other than tab, line feed and carriage return become
 * U+FFFD, so the output is always well-formed text; bidi controls become `<span class="ctl">⟨U+202E⟩</span>`.
 * Use it only where the caller isolates the result (e.g. the segments of one highlighted text inside one `<bdi>`).
 * @param s any value; `null`/`undefined` give `""`, other non-strings are `String()`-ed.
 */
export function escapeText(s: unknown): string {
  return escapeCore(s).replace(BIDI_CONTROLS, (c) => `<span class="ctl">${bidiMarker(c)}</span>`);
}

/**
 * Escape an untrusted string for HTML text content as an isolated span: {@link escapeText} inside `<bdi>`
 * (`""` for an empty value).
 * @param s any value; `null`/`undefined` give `""`, other non-strings are `String()`-ed.
 */
export function escapeHtml(s: unknown): string {
  const e = escapeText(s);
  return e === "" ? "" : `<bdi>${e}</bdi>`;
}

/**
 * Escape a string for a double- or single-quoted attribute value or for `<title>` (no markup possible there):
 * as {@link escapeText}, with bidi controls as the plain marker text `⟨U+202E⟩`.
 * @param s any value; `null`/`undefined` give `""`, other non-strings are `String()`-ed.
 */
export function escapeAttr(s: unknown): string {
  return showBidiControls(escapeCore(s));
}

/**
 * The last line of defence for a whole page: any raw bidi control left (e.g. in a chart's SVG text, which Vega
 * escapes but does not filter) becomes its plain marker. The report's own text has none.
 */
export function neutralizeBidi(html: string): string {
  return html.replace(BIDI_CONTROLS, bidiMarker);
}

/** A CSS class-safe token from an index (judges are styled by position, never by their untrusted names). */
export function judgeClass(i: number): string {
  return `j${i % 8}`;
}

/**
 * A name from the run files (model, judge, rater) for a cell of the report: escaped, cut for display as the charts
 * cut their labels (`displayName`), the full name in the `title` attribute (shown on hover) when it was cut.
 */
export function nameHtml(name: unknown): string {
  const s = String(name ?? "");
  const shown = displayName(s);
  return shown === s ? escapeHtml(s) : `<span title="${escapeAttr(s)}">${escapeHtml(shown)}</span>`;
}
