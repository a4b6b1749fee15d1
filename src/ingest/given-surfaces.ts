/**
 * The surfaces an input gives (`surfaces: {placeholder: surface}` in chat JSONL, `metadata.surfaces` in an Inspect
 * sample), read the same way by every format that takes them (DESIGN section 3: a surface belongs to the injection
 * of the same placeholder).
 *
 * New user 35: `injections: {p: ...}, surfaces: {q: "web_page"}` made a phantom surface row `tool_output+web_page`
 * (q's surface joined p's located one), and `surfaces: {p: "webpage "}` was stored untrimmed, a surface of its own.
 * Now: values are trimmed; a key that names no injection placeholder is ignored with a warning naming the file, line
 * and key (when the item records injections at all: an item that records no injected text may still say where its
 * attack was placed, as VIGIL does); a name outside {@link KNOWN_SURFACES} is kept but warned about, with the known
 * name it looks like when there is one.
 */
import { KNOWN_SURFACES, type Surface } from "../types.js";
import type { ItemWarning } from "./warnings.js";

/** Kind of the warning for a `surfaces` key that names no injection placeholder. */
export const SURFACE_KEY_UNMATCHED = "surface_key_unmatched";
/** Kind of the warning for a surface name ipi-judge does not know. */
export const SURFACE_NAME_UNKNOWN = "surface_name_unknown";

/** The form two surface names are compared in for a suggestion: lower case letters and digits only. */
const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");

/** The known surface a name looks like (`webpage`, `Web-Page` -> `web_page`), else undefined. */
export function knownSurfaceLike(name: string): string | undefined {
  const k = squash(name);
  return KNOWN_SURFACES.find((s) => squash(s) === k);
}

/**
 * Read a given `surfaces` object (module docstring).
 * @param obj the object as the input holds it; @param injections the item's injections (placeholder -> text);
 * @param field how the input names the object (`surfaces`, `metadata.surfaces`); @param scope the file the warnings
 *   are aggregated under; @param item the item (`file:line`, or `file sample id`) named as their example.
 * @returns the surfaces kept (absent when none) and the warnings.
 */
export function givenSurfaces(
  obj: Record<string, unknown>,
  injections: Readonly<Record<string, unknown>>,
  field: string,
  scope: string,
  item: string,
): { surfaces?: Record<string, Surface>; warnings: ItemWarning[] } {
  const placeholders = Object.keys(injections);
  const surfaces: Record<string, Surface> = {};
  const warnings: ItemWarning[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v !== "string" || v.trim() === "") continue;
    const name = v.trim();
    if (placeholders.length > 0 && !placeholders.includes(k)) {
      warnings.push({
        kind: SURFACE_KEY_UNMATCHED,
        scope,
        variant: k,
        message:
          `${scope}: ${field} key ${JSON.stringify(k)} names no injection placeholder (injections: ${placeholders.map((p) => JSON.stringify(p)).join(", ")}): ` +
          `its surface ${JSON.stringify(name)} is ignored (a surface belongs to the injection of the same key; rename the key to the placeholder it is for)`,
        item,
      });
      continue;
    }
    surfaces[k] = name;
    if (!KNOWN_SURFACES.includes(name)) {
      const like = knownSurfaceLike(name);
      warnings.push({
        kind: SURFACE_NAME_UNKNOWN,
        scope,
        variant: name,
        message:
          `${scope}: ${field}.${k} is ${JSON.stringify(name)}, not a surface name ipi-judge knows (${KNOWN_SURFACES.join(", ")}): kept as a surface of its own` +
          (like !== undefined ? `; did you mean ${like}? (written so, its runs join the ${like} row)` : " (a finer read surface is fine if meant; a misspelling makes a row of its own)"),
        item,
      });
    }
  }
  return { ...(Object.keys(surfaces).length > 0 ? { surfaces } : {}), warnings };
}
