/**
 * Untrusted names made one visible line for text output. The names printed by `label`, `compare`, `agree`,
 * `estimate` and `committee` (agent model, condition, suite, attack, judge id) come from the run files, and a value
 * holding a line break started a line of its own in the text (red team 25 L5: a condition `x\nWARNING: ...` printed
 * a forged line), or reordered what followed it with a bidi override (U+202E). `--json` keeps the values as they are.
 */
import { showBidiControls } from "./bidi.js";

/**
 * C0 controls (line feed, carriage return, tab, escape, ...), DEL, C1 controls (U+0085 next line among them) and the
 * Unicode line and paragraph separators U+2028/U+2029: the characters that break a line or drive a terminal.
 */
const LINE_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * `text` with every line-breaking or terminal control character ({@link LINE_CONTROLS}) and every bidi control
 * (`./bidi.ts`) shown as a visible, inert marker such as `⟨U+000A⟩`; other characters unchanged. For one line of
 * text output that embeds untrusted values (a warning, a name).
 */
export function showControls(text: string): string {
  LINE_CONTROLS.lastIndex = 0;
  const shown = LINE_CONTROLS.test(text) ? text.replace(LINE_CONTROLS, marker) : text;
  return showBidiControls(shown);
}

function marker(c: string): string {
  return `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/** Every control {@link showControls} shows: {@link LINE_CONTROLS} and the bidi controls of `./bidi.ts`. */
const ALL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * `text` with every control {@link showControls} shows written `[U+001B]` (ASCII only): for outputs whose readers
 * cannot take the `⟨⟩` markers, the LaTeX table (new user 26: a model name's ESC, BEL and U+202E reached the `.tex` raw,
 * which breaks compilation or reorders the line in an editor).
 */
export function asciiControls(text: string): string {
  return text.replace(ALL_CONTROLS, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}]`);
}

/**
 * A copy of a result for a text formatter with every string in it, values and object keys alike, passed through
 * {@link showControls}, so no name can break or reorder a line of the text. Plain objects (null-prototype ones too)
 * and arrays are copied; anything else (numbers, booleans, null, class instances such as a `Map`, whose keys and
 * values are not shown this way) is kept as it is. The formatters print
 * names from anywhere in their results (rows, warnings built from names, keys of per-model records), so the whole
 * result is shown this way, not one field at a time. Results hold no line breaks of their own (warnings and notes
 * are one line each).
 * @param value a JSON-like result (`CompareResult`, `RunSummary`, ...).
 * @returns the copy (the same value when it holds no string to change).
 */
export function shownStrings<T>(value: T): T {
  return shown(value) as T;
}

function shown(v: unknown): unknown {
  if (typeof v === "string") return showControls(v);
  if (Array.isArray(v)) return v.map(shown);
  // plain records, null-prototype ones too (records keyed by values from the run files are built that way)
  const proto = v !== null && typeof v === "object" ? Object.getPrototypeOf(v) : undefined;
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    const rec = v as Record<string, unknown>;
    for (const k of Object.keys(rec)) out[showControls(k)] = shown(rec[k]);
    return out;
  }
  return v;
}
