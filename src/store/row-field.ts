/**
 * One field of a trajectory index row by name or dotted path: the grouping value `compare --by`, `estimate --by`
 * and the report read. Here, beside the row it reads, so `estimate/` does not import `compare/` for it.
 */
import type { TrajectoryIndexRow } from "./records.js";
import { stripInvisible } from "../format/invisible.js";
import { noteNonScalarGroupValue, noteNormalizedGroupValue } from "./group-value-names.js";

/**
 * The value of a condition field on a trajectory index row: a top-level field (`condition`, `attack`,
 * `suite`, `agent_family`, ...) or a path into the row's metadata (`metadata.surface`, `metadata.a.b`).
 * Strings are kept as they are, but a metadata value loses its invisible and control characters as ingest's group
 * names do (`./group-value-names.ts`, said once as `name_normalized`); numbers and booleans are turned into strings;
 * anything else (missing, null, objects, empty strings) gives undefined, an object or array under `metadata` said
 * once per field (`group_value_not_scalar`, ./group-value-names.ts).
 */
export function conditionValue(row: TrajectoryIndexRow, field: string): string | undefined {
  const path = field.split(".");
  let cur: unknown = row;
  for (const k of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  if (typeof cur === "string" && path[0] === "metadata") {
    const clean = stripInvisible(cur);
    if (clean !== cur) noteNormalizedGroupValue(field, cur, clean);
    return clean === "" ? undefined : clean;
  }
  if (typeof cur === "string") return cur === "" ? undefined : cur;
  if (typeof cur === "number" || typeof cur === "boolean") return String(cur);
  if (cur !== null && typeof cur === "object" && path[0] === "metadata") noteNonScalarGroupValue(field, cur);
  return undefined;
}
