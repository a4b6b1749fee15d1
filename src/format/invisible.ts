/**
 * Invisible characters in names people type (annotators, adjudicators), made visible: bidi controls
 * (./bidi.ts) and every default-ignorable code point (zero-width space U+200B, joiners U+200C/U+200D, word joiner
 * U+2060, BOM U+FEFF, soft hyphen U+00AD, variation selectors, ...) shown as `⟨U+200B⟩` markers (red team 35b F3:
 * `alice` and `ali\u200bce` printed the same and counted as two annotators).
 */

import { codePointMarker } from "./bidi.js";

/** A bidi control or default-ignorable code point, or a literal `⟨` that starts `⟨U+` (it would read as a marker). */
const INVISIBLE = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]|\p{Default_Ignorable_Code_Point}|⟨(?=U\+)/gu;

/**
 * `text` with every invisible character shown as a marker such as `⟨U+200B⟩`, one to one (a literal `⟨U+` shows
 * as `⟨U+27E8⟩U+`, as ./bidi.ts `showBidiControlsExactly` does), so two names that differ only by one show apart.
 */
export function showInvisibleExactly(text: string): string {
  return text.replace(INVISIBLE, codePointMarker);
}
