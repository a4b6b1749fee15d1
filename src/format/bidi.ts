/**
 * Bidirectional-text controls in untrusted text, made visible. Shared by the renderers for judges and humans
 * (`../serialize/render.ts`, `../serialize/render-human.ts`), ingest (`../ingest/attacked.ts`), the run summary, the view and the HTML report's escaping (`../report/escape.ts`), so the report does not import the
 * judge renderer.
 */

/**
 * Bidirectional-text control characters: embeddings and overrides U+202A-202E, isolates U+2066-2069, the
 * marks U+200E/U+200F and the Arabic letter mark U+061C (Unicode UAX #9, "Explicit Directional Formatting
 * Characters" and "Implicit Directional Marks").
 */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * `text` with every bidi control ({@link BIDI_CONTROLS}) shown as a visible, inert marker such as `⟨U+202E⟩`, so
 * an untrusted text cannot reorder what follows it or hide what it says. Other characters are unchanged.
 */
export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, codePointMarker);
}

/** The visible marker of one code point: `⟨U+202E⟩` (at least four hex digits, upper case). */
export function codePointMarker(c: string): string {
  return `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/** A bidi control, or a literal `⟨` that starts `⟨U+` (it would read as the start of a marker). */
const SHOWN_EXACTLY = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]|⟨(?=U\+)/g;

/**
 * {@link showBidiControls} made one to one, for the view, where a shown text is also a key (an id in a link, a
 * facet value in a filter): a literal `⟨` followed by `U+` is shown as its own marker `⟨U+27E8⟩`, so the text
 * `⟨U+202E⟩` typed in data never shows like a real U+202E (red team 30 M1: two ids differing only so showed the
 * same and both links opened one of them). {@link restoreBidiControls} is its exact inverse.
 */
export function showBidiControlsExactly(text: string): string {
  return text.replace(SHOWN_EXACTLY, codePointMarker);
}

/**
 * The inverse of {@link showBidiControlsExactly} (and of {@link showBidiControls} on a text holding no literal
 * `⟨U+`): each marker of a bidi control (`⟨U+202E⟩`, only the code points of {@link BIDI_CONTROLS}) turned back into
 * the control and `⟨U+27E8⟩` back into `⟨`, left to right, so a text copied from a page showing markers (an
 * annotator's selection) can be matched against the original, and a shown id is looked up exactly.
 */
export function restoreBidiControls(text: string): string {
  return text.replace(/⟨U\+(202[A-E]|206[6-9]|200E|200F|061C|27E8)⟩/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
