/**
 * Long labels in the report's charts (new-user pass: a 200,000-character model name made a 7 MB page, written again
 * in each chart's axis, legend, every mark's aria-label and tooltip). Every string of a chart's spec longer than
 * {@link CHART_LABEL_CHARS} (the data values, the `sort` orders and colour domains that name them: the spec's own
 * texts are all shorter) is cut as the report cuts long texts (`cutLabel` of ../serialize/display-cut.ts: head,
 * `[... N characters not shown by ipi-judge ...]`, tail). The same text cuts to the same label everywhere in the
 * spec, and two different texts never to one label, nor to a text the spec holds uncut (a second gets ` (2)`, ...):
 * a chart never merges two models.
 */
import { cutLabel } from "../serialize/display-cut.js";

/** The most characters of a label a chart shows (longer: cut with the marker); model names, judge ids and conditions are far shorter. */
export const CHART_LABEL_CHARS = 120;

/**
 * A copy of `spec` (plain JSON: objects, arrays, strings, numbers, booleans, null) with every string longer than
 * `max` cut (module docstring); `spec` itself when none is.
 */
export function cutChartLabels<T>(spec: T, max: number = CHART_LABEL_CHARS): T {
  const cutOf = new Map<string, string>();
  // the short strings are labels too: a cut one never takes one of theirs
  const used = new Set<string>();
  const collect = (x: unknown): void => {
    if (typeof x === "string") {
      if (x.length <= max) used.add(x);
    } else if (Array.isArray(x)) x.forEach(collect);
    else if (x !== null && typeof x === "object") Object.values(x).forEach(collect);
  };
  collect(spec);
  const cut = (s: string): string => {
    let c = cutOf.get(s);
    if (c !== undefined) return c;
    const base = cutLabel(s, max);
    c = base;
    for (let k = 2; used.has(c); k++) c = `${base} (${k})`;
    used.add(c);
    cutOf.set(s, c);
    return c;
  };
  let changed = false;
  const walk = (x: unknown): unknown => {
    if (typeof x === "string") {
      if (x.length <= max) return x;
      changed = true;
      return cut(x);
    }
    if (Array.isArray(x)) return x.map(walk);
    if (x !== null && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
    return x;
  };
  const out = walk(spec) as T;
  return changed ? out : spec;
}
