/**
 * Strata a sample leaves with one labelled item of several (new user 40): `sample --random 20 --disagreement 10
 * --strata agent_model` on the 82 bundled runs put 1 item in the agreement cell of two models, and after the
 * annotation every human and calibrated figure holding them, the pooled `(all)` one included, read "CI undefined (a
 * stratum holding items of this estimate has fewer than 2 labelled items ...)": a stratified variance needs 2 items a
 * stratum. Said at sample time, before anyone labels.
 *
 * The rule is `estimate`'s own ({@link stratumVarianceUndefined}, ../stats/stratified.ts), on the counts `estimate`
 * reads: n = every sampled item of the stratum (attacked or not: estimate's domain variance counts the others as 0),
 * N = the stratum's size. A stratum drawn whole (n = N, e.g. N = 1, n = 1) is a census and adds no variance (stats55
 * finding 1: five such strata were named, with advice to redraw a valid design).
 */
import { countText } from "../format/count-text.js";
import { stratumVarianceUndefined } from "../stats/stratified.js";

/**
 * One warning naming the strata (the manifest's `stratum`: phase 1 or 2 cell by sampling stratum) whose variance
 * `estimate` will leave undefined: one sampled item out of a stratum of more, that item attacked (unknown counts as
 * attacked). A stratum whose one sampled item is unattacked is not named: whether it holds attacked trajectories
 * (and so enters an ASR figure) is not known from the sample.
 * @param sampled every sampled trajectory: its stratum, the stratum's population size N and whether it is attacked
 */
export function thinStrataWarnings(sampled: ReadonlyArray<{ stratum: string; stratum_size: number; attacked?: boolean | null }>): string[] {
  const n = new Map<string, { n: number; N: number; attacked: boolean }>();
  for (const it of sampled) {
    const s = n.get(it.stratum) ?? n.set(it.stratum, { n: 0, N: it.stratum_size, attacked: false }).get(it.stratum)!;
    s.n++;
    if (it.attacked !== false) s.attacked = true;
  }
  const thin = [...n]
    .filter(([, s]) => s.attacked && stratumVarianceUndefined(s.n, s.N))
    .map(([k, s]) => `${k} (1 of ${s.N})`)
    .sort();
  if (!thin.length) return [];
  return [
    `${countText(thin.length, "stratum", "strata")} of the sample hold${thin.length === 1 ? "s" : ""} one sampled trajectory, attacked, out of several (${thin.join("; ")}): ` +
      `a stratum's variance needs 2 labelled items unless it is labelled whole, so after annotation every human and calibrated estimate over a group holding ${thin.length === 1 ? "it" : "them"} (the whole run's included) reads CI undefined, and agree --human's design-weighted figures SE undefined; ` +
      `draw with coarser --strata (fewer fields), or a larger --random / --disagreement`,
  ];
}
