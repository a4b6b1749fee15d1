/**
 * Whether two JSON values would give the same `JSON.stringify` text, found without building it (issue 26: the run
 * store codes each verdict's and index row's "shape" by its JSON text, and most lines have the shape of the line
 * before). Conservative: true only when the texts are surely equal (same keys in the same order, equal primitive
 * values, the same recursively); a NaN, or a field undefined on one side only, gives false (the caller then builds
 * the text), never a wrong true.
 */

/**
 * True when `JSON.stringify(a) === JSON.stringify(b)` surely holds for these plain JSON values (objects, arrays,
 * strings, numbers, booleans, null; undefined as a field value); false when it does not or may not.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const arr = Array.isArray(a);
  if (arr !== Array.isArray(b)) return false;
  if (arr) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!sameJson(x[i], y[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i] || !sameJson(x[ka[i]], y[ka[i]])) return false;
  return true;
}
