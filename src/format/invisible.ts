/**
 * Invisible characters in names people type (annotators, adjudicators), made visible: bidi controls
 * (./bidi.ts) and every default-ignorable code point (zero-width space U+200B, joiners U+200C/U+200D, word joiner
 * U+2060, BOM U+FEFF, soft hyphen U+00AD, variation selectors, ...) shown as `⟨U+200B⟩` markers (red team 35b F3:
 * `alice` and `ali\u200bce` printed the same and counted as two annotators).
 */

import { BIDI_CONTROLS, codePointMarker } from "./bidi.js";

/** A bidi control or default-ignorable code point, or a literal `⟨` that starts `⟨U+` (it would read as a marker). */
const INVISIBLE = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]|\p{Default_Ignorable_Code_Point}|⟨(?=U\+)/gu;

/**
 * `text` with every invisible character shown as a marker such as `⟨U+200B⟩`, one to one (a literal `⟨U+` shows
 * as `⟨U+27E8⟩U+`, as ./bidi.ts `showBidiControlsExactly` does), so two names that differ only by one show apart.
 */
export function showInvisibleExactly(text: string): string {
  return text.replace(INVISIBLE, codePointMarker);
}

/**
 * Zero-width characters (U+200B-200D zero-width space / non-joiner / joiner, U+2060 word joiner, U+FEFF zero-width
 * no-break space / BOM, U+180E Mongolian vowel separator): invisible in every output, so two values differing
 * only by them print identical.
 */
export const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff\u180e]/g;

/** Other default-ignorable code points (soft hyphen, variation selectors, ...) and NUL: removed from names too. */
const IGNORABLE_OR_NUL = /\p{Default_Ignorable_Code_Point}|\u0000/gu;

/**
 * `value` without zero-width ({@link ZERO_WIDTH}), bidi control characters (`BIDI_CONTROLS`, src/format/bidi.ts),
 * other default-ignorable code points and NUL. The one normalization of every group name at ingest
 * (../ingest/group-names.ts: model, suite, condition, attack, tasks; fixM 5), before the no-attack / no-defense rules (red
 * team 2, finding 4): `"none\u200b"` is `none`, not a second condition that prints like it.
 */
export function stripInvisible(value: string): string {
  return value.replace(ZERO_WIDTH, "").replace(BIDI_CONTROLS, "").replace(IGNORABLE_OR_NUL, "");
}
