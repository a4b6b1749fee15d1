/**
 * The population a sample was drawn from when `sample --where` restricted it (design.json `where`), as
 * `import-annotations` records it on every human-label row (`sample_where`), so that `estimate` and `agree --human`
 * know the design's population from the label file alone.
 */
import type { WhereStatement } from "./where.js";

/** `sample_where` of a human-label row: the filter text, its clauses (field -> values) and N, the trajectories it kept. */
export interface SampleWhere {
  filter: string;
  clauses: Record<string, string[]>;
  /** The trajectories the filter kept when the sample was drawn (the design's population size). */
  N: number;
}

/** The `sample_where` to record from a design's `where` statement (src/store/where.ts). */
export function sampleWhereOf(s: WhereStatement): SampleWhere {
  return { filter: s.filter, clauses: s.clauses, N: s.kept };
}

/**
 * A row's field that holds a JSON value: the value itself, or its JSON text (a CSV cell).
 * @returns `{value}`; undefined when absent (undefined, null, ""); a message naming `field` when the text is not JSON.
 */
export function jsonCell(v: unknown, field: string): { value: unknown } | undefined | string {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") return { value: v };
  try {
    return { value: JSON.parse(v) };
  } catch {
    return `${field} is not JSON: ${JSON.stringify(v.slice(0, 60))}`;
  }
}

/**
 * Read a row's `sample_where` (an object, or its JSON text in a CSV cell).
 * @returns the value, undefined when absent (null, "", missing), or a message naming the field and what is wrong.
 */
export function readSampleWhere(v: unknown): SampleWhere | undefined | string {
  const cell = jsonCell(v, "sample_where");
  if (cell === undefined || typeof cell === "string") return cell;
  const o = cell.value;
  const shape = "{filter: string, clauses: {field: [values]}, N: number}";
  const got = (x: unknown) => (Array.isArray(x) ? "an array" : x === null ? "null" : typeof x === "object" ? "an object" : JSON.stringify(x));
  if (!o || typeof o !== "object" || Array.isArray(o)) return `sample_where must be an object ${shape}, got ${got(o)}`;
  const { filter, clauses, N } = o as Record<string, unknown>;
  if (typeof filter !== "string") return `sample_where.filter must be a string, got ${got(filter)}`;
  if (typeof N !== "number" || !(N > 0)) return `sample_where.N must be a number > 0, got ${got(N)}`;
  if (!clauses || typeof clauses !== "object" || Array.isArray(clauses)) return `sample_where.clauses must be an object {field: [values]}, got ${got(clauses)}`;
  const cl: Record<string, string[]> = {};
  for (const [k, vals] of Object.entries(clauses as Record<string, unknown>)) {
    if (!Array.isArray(vals) || !vals.every((x) => typeof x === "string")) return `sample_where.clauses.${k} must be a list of strings, got ${got(vals)}`;
    cl[k] = vals as string[];
  }
  return { filter, clauses: cl, N };
}
