/**
 * The projection of an index row onto the fields a column reader keeps (`readRows` of `./columns.ts`): top-level
 * fields whole, and dotted paths into the row (`metadata.KEY`, the field of `compare --by metadata.KEY`) as the one
 * value they reach, nested under the same keys, so `conditionValue` (`./row-field.ts`) reads the same value from the
 * projection as from the whole row. A row's metadata holds values unique to each row (`duration`, timestamps): kept
 * whole, a million rows would be a million distinct row records; kept as the one asked value, they are as many as
 * the distinct values.
 */
import type { TrajectoryIndexRow } from "./records.js";

/** The projection of an object or array value: no group value (`conditionValue`), one shared of each kind. */
const NO_OBJECT = Object.freeze({});
const NO_ARRAY = Object.freeze([]);

/** Own property `k` of `o` (a plain parsed object), as `conditionValue` tests it. */
const own = (o: unknown, k: string): boolean => o !== null && typeof o === "object" && !Array.isArray(o) && Object.prototype.hasOwnProperty.call(o, k);

/** Set `o[k] = v` as an own, enumerable property, even for `__proto__` (a key JSON.parse reads as any other). */
const put = (o: Record<string, unknown>, k: string, v: unknown): void => {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
};

/**
 * A projector for `fields`: each top-level field a row has, copied (in the row's key order); then each dotted path
 * the row reaches, its value (a string, number or boolean; anything else, which `conditionValue` reads as no value,
 * as null, but an object or array as an empty one of its kind, which `conditionValue` says as it says the value)
 * under the same nested keys. A dotted path whose first key is also asked whole is read from the whole.
 * @param fields field names and dotted paths (`suite`, `metadata.defense`).
 * @returns a function from a parsed row to its projection (a new object; the row is not changed).
 */
export function rowProjector(fields: readonly string[]): (row: TrajectoryIndexRow) => Partial<TrajectoryIndexRow> {
  const top = new Set(fields.filter((f) => !f.includes(".")));
  const paths = fields.filter((f) => f.includes(".") && !top.has(f.slice(0, f.indexOf(".")))).map((f) => f.split("."));
  return (row) => {
    const r = row as unknown as Record<string, unknown>;
    const p: Record<string, unknown> = {};
    for (const k in r) if (top.has(k)) put(p, k, r[k]);
    for (const path of paths) {
      let cur: unknown = r;
      let ok = true;
      for (const k of path) {
        if (!own(cur, k)) {
          ok = false;
          break;
        }
        cur = (cur as Record<string, unknown>)[k];
      }
      if (!ok) continue;
      // an object or array: one shared empty one of its kind, so conditionValue says it as on the whole row
      // (./group-value-names.ts) without a row record per distinct value
      const leaf = typeof cur === "string" || typeof cur === "number" || typeof cur === "boolean" ? cur : Array.isArray(cur) ? NO_ARRAY : cur !== null && typeof cur === "object" ? NO_OBJECT : null;
      let at = p;
      for (let i = 0; i < path.length - 1; i++) {
        if (!own(at, path[i])) put(at, path[i], {});
        at = at[path[i]] as Record<string, unknown>;
      }
      put(at, path[path.length - 1], leaf);
    }
    return p as Partial<TrajectoryIndexRow>;
  };
}
