/**
 * Strata a sample leaves with one attacked trajectory (new user 40): `sample --random 20 --disagreement 10 --strata
 * agent_model` on the 82 bundled runs put 1 item in the agreement cell of two models, and after the annotation every
 * human and calibrated figure holding them, the pooled `(all)` one included, read "CI undefined (a stratum holding
 * items of this estimate has fewer than 2 labelled items ...)": a stratified variance needs 2 items a stratum. Said at
 * sample time, before anyone labels.
 */
import { countText } from "../format/count-text.js";

/**
 * One warning naming the strata (the manifest's `stratum`: phase 1 or 2 cell by sampling stratum) holding exactly one
 * sampled attacked trajectory (unknown counts as attacked; a stratum with none is in no ASR figure), or none.
 * @param sampled every sampled trajectory: its stratum and whether it is attacked
 */
export function thinStrataWarnings(sampled: ReadonlyArray<{ stratum: string; attacked?: boolean | null }>): string[] {
  const n = new Map<string, number>();
  for (const it of sampled) if (it.attacked !== false) n.set(it.stratum, (n.get(it.stratum) ?? 0) + 1);
  const thin = [...n].filter(([, k]) => k === 1).map(([s]) => s).sort();
  if (!thin.length) return [];
  return [
    `${countText(thin.length, "stratum", "strata")} of the sample hold${thin.length === 1 ? "s" : ""} one sampled attacked trajectory (${thin.join("; ")}): ` +
      `a stratum's variance needs 2, so after annotation every human and calibrated estimate over a group holding ${thin.length === 1 ? "it" : "them"} (the whole run's included) reads CI undefined, and agree --human's design-weighted figures SE undefined; ` +
      `draw with coarser --strata (fewer fields), or a larger --random / --disagreement`,
  ];
}
