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
  return text.replace(BIDI_CONTROLS, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

/**
 * The inverse of {@link showBidiControls}: each marker of a bidi control (`⟨U+202E⟩`, only the code points of
 * {@link BIDI_CONTROLS}) turned back into the control, so a text copied from a page showing markers (an
 * annotator's selection) can be matched against the original.
 */
export function restoreBidiControls(text: string): string {
  return text.replace(/⟨U\+(202[A-E]|206[6-9]|200E|200F|061C)⟩/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
