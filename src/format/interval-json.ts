/**
 * A statistics interval as every command's `--json` writes it (new-user report 31, L3): an interval whose standard
 * error is 0 (`degenerate` in `../stats/types.ts`: it collapses to a point that measures nothing) is `null` with a
 * sibling `<key>_reason: "se_zero"`, as `agree --reference` writes `kappa_ci95` and as docs/committee.md's "Undefined is
 * written one way everywhere" says; any other interval is written without the `degenerate` flag (always false
 * there). Undefined is not zero: `agreement --json` had written `ci_wald {lower: 1, upper: 1, degenerate: true}`.
 * The statistics library keeps its flag (its callers and test vectors read it); only the JSON output changes.
 */

/** A `../stats/types.ts` `Interval`: numeric bounds, a method and the `degenerate` flag. */
function isStatsInterval(x: unknown): x is { degenerate: boolean } & Record<string, unknown> {
  if (x === null || typeof x !== "object" || Array.isArray(x)) return false;
  const o = x as Record<string, unknown>;
  return typeof o.degenerate === "boolean" && typeof o.lower === "number" && typeof o.upper === "number" && typeof o.method === "string";
}

/** The reason code of an interval left undefined because its standard error is 0 (`../format/stat-text.ts`). */
export const SE_ZERO = "se_zero";

/**
 * `o` with each of its own statistics intervals in JSON form (module docstring): a shallow copy when one changed,
 * else `o` itself. Applied to every object a command writes as JSON (`../io/json-stream.ts` `objects`), so nested
 * intervals are reached as the writer walks down; an existing `<key>_reason` is kept.
 */
export function intervalsForJson(o: object): object {
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(o)) {
    const v = (o as Record<string, unknown>)[k];
    if (!isStatsInterval(v)) continue;
    out ??= { ...(o as Record<string, unknown>) };
    if (v.degenerate) {
      out[k] = null;
      if (out[`${k}_reason`] === undefined) out[`${k}_reason`] = SE_ZERO;
    } else {
      const { degenerate: _, ...rest } = v;
      out[k] = rest;
    }
  }
  return out ?? o;
}
