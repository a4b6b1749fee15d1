/**
 * What the `weight` field of the manifest and of import's rows is (session 39: "1/pi weights in the import do not sum
 * to N"): the item's design weight 1/π as sampled (Horvitz–Thompson; ./design.ts). Over a sample of phase 1 only,
 * with every item labelled, Σ 1/π is N in each sampling stratum (n_h items of weight N_h/n_h); it is not N when
 * - items have no label (nonresponse): the labelled items' weights leave out the unlabelled ones' share;
 * - phase 2 drew disagreements: the number of items phase 2 takes in a stratum is random, so Σ 1/π over the sample is
 *   an unbiased estimate of N_h (E[Σ_{i∈s} 1/π_i] = N_h), not N_h itself.
 * Neither is an error of the weights: the estimators do not rest on them (estimate --human weights each estimation
 * stratum by N_h/n_h over its labelled items, ../estimate/run.ts); import's design-weighted label shares (a check,
 * Hájek Σ w y / Σ w) do, so a stratum with more items unlabelled counts less there.
 * What the check is for: that the labelled items carry the design's weights, i.e. no nonresponse, and weights that are
 * the design's. Of a manifest whose probabilities are the tool's own design's for the allocation it records
 * (./design-fit.ts recomputes them), a sum off N from phase 2 alone is the design working, not a problem: with every
 * item labelled nothing is said (new user 47: `sums ... to 406.04 of 414, not N` on a fully labelled sample of the
 * tool's own draw). Warned: items unlabelled; probabilities that do not fit the recorded design; a manifest recording
 * no design whose sums are not N (a foreign or hand-made file: nothing to check its weights against but N).
 */
import type { Manifest } from "./import.js";
import { designFit } from "./design-fit.js";

/** The sums of the design weights over one sampling stratum. */
export interface StratumWeightSum {
  sampling_stratum: string;
  /** N_h (design.json's phase-1 allocation); null when the manifest's design does not record the stratum. */
  N: number | null;
  /** Items sampled in it (both phases), and Σ 1/π over them. */
  sampled_items: number;
  sampled: number;
  /** Items with a label imported, and Σ 1/π over them. */
  labelled_items: number;
  labelled: number;
}

/** Σ 1/π over the sample and over its labelled items, against N ({@link weightSums}). */
export interface DesignWeightSums {
  /** What `weight` is, in words (the field keeps its name: every reader of the rows knows it by it). */
  weight_is: string;
  /** The population the sample was drawn from (design.json `population.N`); null when not recorded. */
  N: number | null;
  sampled: number;
  labelled: number;
  per_sampling_stratum: StratumWeightSum[];
  /** Why `labelled` is not N: `nonresponse`, `two_phase`; `[]` when it is N (to 1e-9 relative). */
  differs_because: Array<"nonresponse" | "two_phase">;
  /**
   * Whether the items' inclusion probabilities are those the tool's design gives the allocation the manifest records
   * (./design-fit.ts): true, false (`fits_design_problem` says where), null when the manifest records no design.
   */
  fits_design: boolean | null;
  fits_design_problem?: string;
  /**
   * Whether the sums are warned of: items unlabelled, probabilities that do not fit the recorded design, or no recorded
   * design and a sum that is not N. Not for a sum off N from phase 2 alone on the tool's own design.
   */
  warned: boolean;
}

export const WEIGHT_IS =
  "the item's design weight 1/inclusion_probability as sampled (Horvitz-Thompson), not adjusted for items left unlabelled; " +
  "its sum over the sample is N only for a phase-1 sample with every item labelled; estimate --human weights by stratum_size over the labelled items of each stratum instead";

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/**
 * The sums of the design weights (module docstring).
 * @param labelledItems the item ids with a label imported.
 */
export function weightSums(manifest: Manifest, labelledItems: ReadonlySet<string>): DesignWeightSums {
  const design = manifest.header.design;
  const sizes = new Map((design?.phase1?.allocation ?? []).map((a) => [a.sampling_stratum, a.N]));
  const per = new Map<string, StratumWeightSum>();
  let phase2 = false;
  for (const r of manifest.rows) {
    let s = per.get(r.sampling_stratum);
    if (!s) per.set(r.sampling_stratum, (s = { sampling_stratum: r.sampling_stratum, N: sizes.get(r.sampling_stratum) ?? null, sampled_items: 0, sampled: 0, labelled_items: 0, labelled: 0 }));
    s.sampled_items++;
    s.sampled += r.weight;
    if (r.phase === 2) phase2 = true;
    if (labelledItems.has(r.item_id)) {
      s.labelled_items++;
      s.labelled += r.weight;
    }
  }
  const rows = [...per.values()].sort((a, b) => (a.sampling_stratum < b.sampling_stratum ? -1 : a.sampling_stratum > b.sampling_stratum ? 1 : 0));
  const sampled = rows.reduce((t, s) => t + s.sampled, 0);
  const labelled = rows.reduce((t, s) => t + s.labelled, 0);
  const N = typeof design?.population?.N === "number" ? design.population.N : null;
  const because: DesignWeightSums["differs_because"] = [];
  if (N === null || !close(labelled, N) || rows.some((s) => s.N !== null && !close(s.labelled, s.N))) {
    if (rows.some((s) => s.labelled_items < s.sampled_items)) because.push("nonresponse");
    if (phase2) because.push("two_phase");
  }
  const fit = designFit(manifest);
  const warned = because.includes("nonresponse") || fit.fits === false || (fit.fits === null && because.length > 0);
  return {
    weight_is: WEIGHT_IS,
    N,
    sampled,
    labelled,
    per_sampling_stratum: rows,
    differs_because: because,
    fits_design: fit.fits,
    ...(fit.problem ? { fits_design_problem: fit.problem } : {}),
    warned,
  };
}

/** `74.45 of 91`. */
const sumText = (x: number, N: number | null) => `${x.toFixed(2)}${N === null ? "" : ` of ${N}`}`;

/**
 * The warning when the sums point at a problem (`warned`: module docstring), with the sums, why and what it changes;
 * null otherwise (sums equal to N, or off N from phase 2 alone on the tool's own design with every item labelled).
 * @param shown at most this many sampling strata are named (the rest counted).
 */
export function weightSumWarning(w: DesignWeightSums, shown = 6): string | null {
  if (!w.warned) return null;
  const off = w.per_sampling_stratum.filter((s) => s.N === null || !close(s.labelled, s.N));
  const named = off.slice(0, shown).map((s) => `${s.sampling_stratum} ${sumText(s.labelled, s.N)} (${s.labelled_items} of ${s.sampled_items} items labelled)`);
  const more = off.length > shown ? `, and ${off.length - shown} more sampling strata` : "";
  const why = [
    w.differs_because.includes("nonresponse") ? "sampled items have no label (nonresponse): the labelled ones do not carry their weight" : "",
    w.differs_because.includes("two_phase")
      ? `phase 2 took a random number of disagreements from each stratum, so the sum of 1/pi over the sample (${sumText(w.sampled, w.N)} here) estimates N without equalling it`
      : "",
    w.fits_design === false ? `${/phase-[12] item/.test(w.fits_design_problem ?? "") ? "the manifest's rows are not the draw its recorded design made" : "the inclusion probabilities are not those the manifest's recorded design gives"} (${w.fits_design_problem}): the weights do not fit the design that drew the sample` : "",
    w.fits_design === null && w.differs_because.length ? "the manifest records no design to check the weights against (a file of an earlier version, or made by hand)" : "",
  ].filter(Boolean);
  if (w.differs_because.length === 0)
    return `the rows' weight (1/inclusion_probability) sums over the labelled items to ${sumText(w.labelled, w.N)}, but ${why.join("; and ")}: estimates weighted by it would not be the design's`;
  return (
    `the rows' weight (1/inclusion_probability) sums over the labelled items to ${sumText(w.labelled, w.N)}, not N (per sampling stratum: ${named.join("; ")}${more}), because ${why.join("; and ")}: ` +
    `weight is the design weight as sampled, not an estimation weight; estimate --human does not use it (each stratum weighted by stratum_size over its labelled items), ` +
    `the design-weighted label shares below do (a stratum with more items unlabelled counts less in them)`
  );
}
