/**
 * HTML escaping for the report. Everything that comes from a trajectory, a judge or a label file is untrusted
 * (trajectories carry attacks): it only ever enters the page through {@link escapeHtml}, as text content or as
 * a quoted attribute value, never as markup, a URL, a style or a script.
 */

const MAP: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Escape a string for HTML text content and for double- or single-quoted attribute values: `& < > " '` become
 * entities. Lone UTF-16 surrogates (invalid in HTML) become U+FFFD, and C0 control characters other than tab,
 * line feed and carriage return become U+FFFD too, so the output is always well-formed text.
 * @param s any value; `null`/`undefined` give `""`, other non-strings are `String()`-ed.
 */
export function escapeHtml(s: unknown): string {
  if (s === null || s === undefined) return "";
  const str = typeof s === "string" ? s : String(s);
  return str
    .replace(/[&<>"']/g, (c) => MAP[c])
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "\ufffd")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/** A CSS class-safe token from an index (judges are styled by position, never by their untrusted names). */
export function judgeClass(i: number): string {
  return `j${i % 8}`;
}
