/**
 * Groups a sample leaves under estimate's minimum (new-user report 31, L6): `sample --random 65 --disagreement 20
 * --strata agent_model,condition` had left 5 of 9 defenses under 10 sampled trajectories, and `estimate --by
 * condition` said "undefined (too few labelled ...)" only after the annotation work was done. At sample time, per
 * grouping an estimate would use (the full `--strata` combination, and each of its fields alone), the groups whose
 * sampled attacked trajectories (both phases; unattacked ones are in no ASR group) are under
 * {@link DEFAULT_MIN_SAMPLED}, how many more would reach it, and about the `--random` at which proportional
 * allocation alone gives each group that many (none for a group whose population is smaller than the minimum).
 */
import { DEFAULT_MIN_SAMPLED } from "../stats/min-sampled.js";
import { countText } from "../format/count-text.js";
import { largestRemainderAllocation } from "./design.js";
import { ALL_STRATUM } from "./population.js";

/** What {@link minLabelledWarnings} reads of a drawn sample. */
export interface MinLabelledInput {
  /** The `--strata` fields, in order (empty: one stratum, `all`). */
  strata: readonly string[];
  /** Phase 1's strata: key (`field=value,...`) and population size. */
  allocation: ReadonlyArray<{ sampling_stratum: string; N: number }>;
  /** The `--random` asked for. */
  random: number;
  /** Every sampled trajectory: its sampling stratum and whether it is attacked (unknown counts as attacked). */
  sampled: ReadonlyArray<{ sampling_stratum: string; attacked?: boolean | null }>;
  /** The minimum (default {@link DEFAULT_MIN_SAMPLED}). */
  min?: number;
}

/**
 * The values of a sampling stratum key `f1=v1,f2=v2,...` by field, read with the fields known in order (a value
 * holding `,f2=` would be misread; no run field does in practice).
 */
function keyValues(key: string, fields: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  let rest = key;
  for (let i = fields.length - 1; i >= 0; i--) {
    const tag = `${i === 0 ? "" : ","}${fields[i]}=`;
    const at = i === 0 ? (rest.startsWith(tag) ? 0 : -1) : rest.lastIndexOf(tag);
    if (at < 0) return new Map(fields.map((f) => [f, key]));
    out.set(fields[i], rest.slice(at + tag.length));
    rest = rest.slice(0, at);
  }
  return out;
}

/**
 * The smallest `--random` (at most the population) whose proportional allocation gives each group of `need` about
 * `min` attacked draws in phase 1 (its draws times the group's attacked share in this sample), or null.
 */
function randomReaching(allocation: MinLabelledInput["allocation"], groupOf: (key: string) => string, need: ReadonlyMap<string, number>, min: number): number | null {
  const total = allocation.reduce((a, s) => a + s.N, 0);
  const sizes = allocation.map((s) => ({ key: s.sampling_stratum, N: s.N }));
  const ok = (n: number) => {
    const per = new Map<string, number>();
    for (const [k, v] of largestRemainderAllocation(sizes, n)) per.set(groupOf(k), (per.get(groupOf(k)) ?? 0) + v);
    return [...need].every(([g, share]) => (per.get(g) ?? 0) * share >= min);
  };
  if (!ok(total)) return null;
  let [lo, hi] = [0, total];
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** One warning per grouping with groups under the minimum (module docstring), or none. */
export function minLabelledWarnings(o: MinLabelledInput): string[] {
  const min = o.min ?? DEFAULT_MIN_SAMPLED;
  const fields = o.strata;
  const groupings: string[][] = fields.length === 0 ? [[]] : fields.length === 1 ? [[...fields]] : [[...fields], ...fields.map((f) => [f])];
  const values = new Map(o.allocation.map((s) => [s.sampling_stratum, fields.length ? keyValues(s.sampling_stratum, fields) : new Map<string, string>()]));
  const out: string[] = [];
  for (const g of groupings) {
    const groupOf = (key: string) => (g.length === 0 ? ALL_STRATUM : g.map((f) => `${f}=${values.get(key)?.get(f) ?? key}`).join(","));
    const size = new Map<string, number>();
    for (const s of o.allocation) size.set(groupOf(s.sampling_stratum), (size.get(groupOf(s.sampling_stratum)) ?? 0) + s.N);
    const [got, drawn] = [new Map<string, number>(), new Map<string, number>()];
    for (const it of o.sampled) {
      const k = groupOf(it.sampling_stratum);
      drawn.set(k, (drawn.get(k) ?? 0) + 1);
      if (it.attacked !== false) got.set(k, (got.get(k) ?? 0) + 1);
    }
    const under = [...size.keys()].sort().filter((k) => (got.get(k) ?? 0) < min);
    if (!under.length) continue;
    // a group's attacked share in this sample (1 when nothing was drawn from it); none attacked: no --random helps
    const share = (k: string) => (drawn.get(k) ? (got.get(k) ?? 0) / drawn.get(k)! : 1);
    const reachable = new Map(under.filter((k) => size.get(k)! >= min && share(k) > 0).map((k) => [k, share(k)]));
    const small = under.filter((k) => !reachable.has(k));
    const more = [...reachable.keys()].reduce((a, k) => a + min - (got.get(k) ?? 0), 0);
    const r = reachable.size ? randomReaching(o.allocation, groupOf, reachable, min) : null;
    const by = g.join(",");
    const head = g.length
      ? `by ${by}, ${under.length} of ${countText(size.size, "group")} get fewer than ${min} sampled attacked trajectories`
      : `the sample holds ${got.get(ALL_STRATUM) ?? 0} attacked trajectories, fewer than ${min}`;
    const fix = reachable.size
      ? `; ${more} more sampled attacked trajectories${g.length ? ` in ${reachable.size === under.length ? "them" : "those that can"} (${min} - n each)` : ""} would reach it` +
        (r !== null && r > o.random ? `: about --random ${r} (instead of ${o.random}) gives ${g.length ? "each" : "it"} ${min} in phase 1 alone (proportional allocation, at the attacked share drawn now)` : "") +
        (g.length ? ", or sample them apart" : "")
      : "";
    const none = small.length ? `; ${small.length} cannot: ${small.map((k) => `${k} (${size.get(k)} trajectories, ${got.get(k) ?? 0} of ${drawn.get(k) ?? 0} drawn attacked)`).join("; ")}; group coarser, or lower --min-sampled` : "";
    out.push(
      `${head}, the fewest estimate's default --min-sampled takes for a human or calibrated estimate (after annotation, estimate${g.length ? ` --by ${by}` : ""} would say undefined: too few labelled)` +
        (g.length ? `: ${under.map((k) => `${k} ${got.get(k) ?? 0}`).join("; ")}` : "") +
        fix +
        none,
    );
  }
  return out;
}
