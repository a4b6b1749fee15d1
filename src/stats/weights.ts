/**
 * Agreement weights for weighted kappa over the declared category order (test/data/vectors/NOTES.md §0 "Notation and
 * conventions", §9.1 "Library-semantics differences, item 1").
 *
 * Sources: Cohen J (1968) Psychol Bull 70:213–220 (weighted kappa); Cicchetti DV, Allison T (1971)
 * Am J EEG Technol 11:101–109 (linear weights); Fleiss JL, Cohen J (1973) Educ Psychol Meas 33:613–619
 * (quadratic weights); R package irr `kappa2` (numeric weight vectors indexed by |i − j|).
 */

/** Agreement weights: a named scheme or a q × q matrix with w_ii = 1 and 0 <= w_ij <= 1. */
export type WeightSpec = "unweighted" | "linear" | "quadratic" | readonly (readonly number[])[];

/**
 * Agreement weight matrix over q categories in declared order (test/data/vectors/NOTES.md §0 "Notation and
 * conventions").
 * - unweighted: w_ij = δ_ij
 * - linear (Cicchetti–Allison): w_ij = 1 − |i−j|/(q−1)
 * - quadratic (Fleiss–Cohen): w_ij = 1 − (i−j)²/(q−1)²
 * @throws Error when q < 1, or q < 2 for linear/quadratic (division by q − 1 = 0).
 */
export function agreementWeights(q: number, kind: "unweighted" | "linear" | "quadratic"): number[][] {
  if (!Number.isInteger(q) || q < 1) throw new Error(`agreementWeights: q must be a positive integer, got ${q}`);
  if (kind !== "unweighted" && q < 2) throw new Error(`agreementWeights: ${kind} weights need at least 2 categories (divide by q - 1)`);
  const w: number[][] = [];
  for (let i = 0; i < q; i++) {
    const row: number[] = [];
    for (let j = 0; j < q; j++) {
      if (kind === "unweighted") row.push(i === j ? 1 : 0);
      else if (kind === "linear") row.push(1 - Math.abs(i - j) / (q - 1));
      else row.push(1 - ((i - j) * (i - j)) / ((q - 1) * (q - 1)));
    }
    w.push(row);
  }
  return w;
}

/**
 * R `irr::kappa2` numeric weights: a vector v of disagreement scores indexed by |i − j| (so v[0] is the
 * diagonal), rescaled to agreement weights w_ij = 1 − (v[|i−j|] − min v)/(max v − min v) (test/data/vectors/NOTES.md
 * §9.1 "Library-semantics differences, item 1").
 * @param v disagreement scores, length q (the number of table levels).
 * @throws Error when v is empty, not finite, or constant (max = min).
 */
export function weightsFromDistances(v: readonly number[]): number[][] {
  if (v.length === 0) throw new Error("weightsFromDistances: empty vector");
  if (!v.every(Number.isFinite)) throw new Error("weightsFromDistances: non-finite value");
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  if (hi === lo) throw new Error("weightsFromDistances: constant vector gives no agreement scale");
  const q = v.length;
  return Array.from({ length: q }, (_, i) => Array.from({ length: q }, (_, j) => 1 - (v[Math.abs(i - j)] - lo) / (hi - lo)));
}

/** Resolve a weight spec to a validated q × q matrix. @throws Error on a bad matrix or q < 2 with named non-identity weights. */
export function resolveWeights(spec: WeightSpec | undefined, q: number): number[][] {
  if (spec === undefined || typeof spec === "string") return agreementWeights(q, spec ?? "unweighted");
  if (spec.length !== q || spec.some((r) => r.length !== q)) throw new Error(`weights: expected a ${q} x ${q} matrix`);
  for (let i = 0; i < q; i++) {
    for (let j = 0; j < q; j++) {
      const x = spec[i][j];
      if (!Number.isFinite(x) || x < 0 || x > 1) throw new Error(`weights: w[${i}][${j}] = ${x} is outside [0, 1]`);
      if (i === j && x !== 1) throw new Error(`weights: diagonal w[${i}][${i}] must be 1, got ${x}`);
    }
  }
  return spec.map((r) => [...r]);
}
