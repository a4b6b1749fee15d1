/**
 * Is the manifest still the design that drew the sample? (session 41). `import-annotations` copies each item's
 * stratum, stratum size N_h and inclusion probability π from the manifest onto the label rows, and `estimate` and
 * `agree --human` weight by them: a manifest edited by hand (an item moved to another stratum, a π or N_h changed, an
 * item added or removed) would give an estimate on a design that never drew the sample, with no word. The manifest's
 * header records the design (`design.cells`: each cell's N, n and π; `design.population.N`); its rows are checked
 * against it, and refused, naming the item, when they contradict it ({@link manifestDesignProblems}):
 * - an item in a stratum the design does not have, or whose `stratum_size`, `inclusion_probability`,
 *   `sampling_stratum` or `committee_stratum` is not its cell's; a `weight` that is not 1/π;
 * - a cell holding another number of items than the design drew (n), or cells that do not add up to N;
 * - phase 1 against its allocation: π = n_h/N_h in each sampling stratum (the n_h items' 1/π sum to N_h), n_h
 *   phase-1 items, each item outside the disagreement stratum at that π (phase 2's random take per cell makes a
 *   cell's own sum an estimate of its size, not its size: not checked);
 * - one trajectory under two item ids (a unit sampled twice).
 * A manifest without a recorded design (an earlier version, or one written by hand) gets the checks its rows allow:
 * one N_h and one π per stratum, and no trajectory twice.
 * After the import, a stratum with no labelled item left (none labelled, or none drawn) is named ({@link emptyStrataWarning}):
 * the label file holds no row of it, so the human and calibrated estimates do not represent its trajectories.
 */
import type { Manifest } from "./import.js";
import type { ManifestRow } from "./export.js";

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
const what = (r: ManifestRow) => `item ${r.item_id} (trajectory ${r.trajectory_id})`;

/**
 * Problems every manifest is checked for: one item per trajectory, weight = 1/π; and, when `withinStrata` (no
 * recorded design to check each row against), one N_h and one π per stratum.
 */
function rowProblems(rows: readonly ManifestRow[], withinStrata: boolean): string[] {
  const out: string[] = [];
  const first = new Map<string, ManifestRow>();
  const byTrajectory = new Map<string, ManifestRow>();
  for (const r of rows) {
    const t = byTrajectory.get(r.trajectory_id);
    if (t) out.push(`${what(r)}: the same trajectory as item ${t.item_id}: a unit of the population is sampled once`);
    else byTrajectory.set(r.trajectory_id, r);
    if (!close(r.weight * r.inclusion_probability, 1)) out.push(`${what(r)}: weight ${r.weight} is not 1/inclusion_probability (${r.inclusion_probability})`);
    const f = first.get(r.stratum);
    if (!withinStrata) continue;
    if (!f) {
      first.set(r.stratum, r);
      continue;
    }
    if (r.stratum_size !== f.stratum_size) out.push(`${what(r)}: stratum ${r.stratum} of size ${r.stratum_size}, item ${f.item_id} says ${f.stratum_size}`);
    if (!close(r.inclusion_probability, f.inclusion_probability))
      out.push(`${what(r)}: inclusion_probability ${r.inclusion_probability} in stratum ${r.stratum}, item ${f.item_id} has ${f.inclusion_probability} (one design cell, one probability)`);
  }
  return out;
}

/**
 * Where the manifest's rows contradict its recorded design (module docstring); [] when they agree or no design is
 * recorded beyond what the rows allow.
 * @param file the manifest's name, for the messages.
 */
export function manifestDesignProblems(m: Manifest, file: string): string[] {
  const cells = m.header.design?.cells;
  const recorded = Array.isArray(cells) && cells.length > 0;
  // with a recorded design each row is checked against its cell, which names the edited row, not its neighbours
  const out = rowProblems(m.rows, !recorded).map((p) => `${file}: ${p}`);
  if (!recorded) return out;
  const cellOf = new Map(cells.map((c) => [c.stratum, c]));
  const count = new Map<string, number>();
  for (const r of m.rows) {
    const c = cellOf.get(r.stratum);
    count.set(r.stratum, (count.get(r.stratum) ?? 0) + 1);
    if (!c) {
      out.push(`${file}: ${what(r)} is in stratum ${r.stratum}, which the sample's design (design.cells) does not have`);
      continue;
    }
    const diff = [
      r.stratum_size !== c.N ? `stratum_size ${r.stratum_size}, the design's N ${c.N}` : "",
      !close(r.inclusion_probability, c.inclusion_probability) ? `inclusion_probability ${r.inclusion_probability}, the design's ${c.inclusion_probability}` : "",
      r.sampling_stratum !== c.sampling_stratum ? `sampling_stratum ${r.sampling_stratum}, the design's ${c.sampling_stratum}` : "",
      (r.committee_stratum ?? null) !== (c.committee_stratum ?? null) ? `committee_stratum ${r.committee_stratum}, the design's ${c.committee_stratum}` : "",
    ].filter(Boolean);
    if (diff.length) out.push(`${file}: ${what(r)} in stratum ${r.stratum}: ${diff.join("; ")}`);
  }
  for (const c of cells) {
    const k = count.get(c.stratum) ?? 0;
    if (k !== c.n) out.push(`${file}: stratum ${c.stratum}: ${k} items, the design drew ${c.n}`);
  }
  out.push(...phaseOneProblems(m, file));
  const N = m.header.design?.population?.N;
  const total = cells.reduce((t, c) => t + c.N, 0);
  if (typeof N === "number" && total !== N) out.push(`${file}: the design's strata hold ${total} trajectories, its population N ${N}`);
  return out;
}

/**
 * Phase 1 against its allocation (design.phase1.allocation): π = n_h/N_h in each sampling stratum (so the n_h items'
 * 1/π sum to N_h), n_h phase-1 items in the manifest, and each item outside the disagreement stratum at that π.
 */
function phaseOneProblems(m: Manifest, file: string): string[] {
  const alloc = m.header.design?.phase1?.allocation;
  if (!Array.isArray(alloc)) return [];
  const out: string[] = [];
  const of = new Map(alloc.map((a) => [a.sampling_stratum, a]));
  const drawn = new Map<string, number>();
  for (const r of m.rows) {
    if (r.phase === 1) drawn.set(r.sampling_stratum, (drawn.get(r.sampling_stratum) ?? 0) + 1);
    const a = of.get(r.sampling_stratum);
    if (!a) out.push(`${file}: ${what(r)} is in sampling stratum ${r.sampling_stratum}, which phase 1's allocation does not have`);
    else {
      // outside the disagreement stratum phase 1 alone drew it; inside, phase 1 or 2 (pi_disagreement)
      const pi = r.committee_stratum === "D" ? a.pi_disagreement : a.pi;
      if (typeof pi === "number" && !close(r.inclusion_probability, pi)) out.push(`${file}: ${what(r)}: inclusion_probability ${r.inclusion_probability}, the design drew it at ${pi} (sampling stratum ${a.sampling_stratum}${r.committee_stratum === "D" ? ", disagreement" : ""})`);
    }
  }
  for (const a of alloc) {
    // a stratum phase 1 gave no draw has pi 0 (sample warned of it): nothing to sum
    if (a.N > 0 && (a.n === 0 ? a.pi !== 0 : !close(a.n / a.pi, a.N))) out.push(`${file}: sampling stratum ${a.sampling_stratum}: ${a.n} items of probability ${a.pi} sum to ${(a.n / a.pi).toFixed(2)}, not its size ${a.N}`);
    const k = drawn.get(a.sampling_stratum) ?? 0;
    if (k !== a.n) out.push(`${file}: sampling stratum ${a.sampling_stratum}: ${k} phase-1 items, phase 1 drew ${a.n}`);
  }
  return out;
}

/** The sampled strata with no labelled item after an import (JSON `strata_without_labels`). */
export interface StratumWithoutLabels {
  stratum: string;
  /** The stratum's size N_h and the items sampled from it. */
  N: number;
  sampled: number;
}

/** The strata of the design with no labelled item: those whose sampled items all went unlabelled, and those phase 1 drew nothing from. */
export function strataWithoutLabels(m: Manifest, labelledItems: ReadonlySet<string>): StratumWithoutLabels[] {
  const by = new Map<string, { N: number; sampled: number; labelled: number }>();
  for (const r of m.rows) {
    const s = by.get(r.stratum) ?? { N: r.stratum_size, sampled: 0, labelled: 0 };
    s.sampled++;
    if (labelledItems.has(r.item_id)) s.labelled++;
    by.set(r.stratum, s);
  }
  // a cell the design drew nothing from (pi 0; sample warned of it) has no row, and no label either
  for (const c of m.header.design?.cells ?? []) if (!by.has(c.stratum) && c.N > 0) by.set(c.stratum, { N: c.N, sampled: 0, labelled: 0 });
  return [...by]
    .filter(([, s]) => s.labelled === 0)
    .map(([stratum, s]) => ({ stratum, N: s.N, sampled: s.sampled }))
    .sort((a, b) => (a.stratum < b.stratum ? -1 : a.stratum > b.stratum ? 1 : 0));
}

/**
 * The warning naming the sampled strata with no labelled item ({@link strataWithoutLabels}); null when none. The
 * advice fits the cause (new user 47): a stratum with sampled items nobody labelled can still be labelled; a stratum
 * the sample holds no item of (none drawn: inclusion probability 0, or a cell the draw missed, which sample warned of)
 * cannot, so the choice is to draw again with coarser --strata or to accept the gap, named with its trajectories.
 * @param shown at most this many strata are named (the rest counted).
 */
export function emptyStrataWarning(empty: readonly StratumWithoutLabels[], shown = 6): string | null {
  if (empty.length === 0) return null;
  const N = empty.reduce((t, s) => t + s.N, 0);
  const named = empty.slice(0, shown).map((s) => `${s.stratum} (N ${s.N}; ${s.sampled ? `${s.sampled} sampled, none labelled` : "none drawn"})`);
  const more = empty.length > shown ? `, and ${empty.length - shown} more` : "";
  const one = empty.length === 1;
  const trajectories = (n: number) => `${n} ${n === 1 ? "trajectory" : "trajectories"}`;
  const undrawn = empty.filter((s) => s.sampled === 0);
  const unlabelled = empty.filter((s) => s.sampled > 0);
  const advice = [
    unlabelled.length
      ? `${unlabelled.length === empty.length ? "" : `of the ${unlabelled.length} with sampled items: `}label at least one item of each (two, for a standard error), or report the estimate for the other strata only`
      : "",
    undrawn.length
      ? `${undrawn.length === empty.length ? (one ? "it got" : "they got") : `the ${undrawn.length} none drawn from got`} no draw, so the sample holds no item of ${undrawn.length === 1 ? "it" : "them"} and no labelling can fill the gap: ` +
        `draw a new sample with coarser --strata (fewer fields), or accept the gap and report that the human and calibrated figures do not cover the ${trajectories(undrawn.reduce((t, s) => t + s.N, 0))}`
      : "",
  ].filter(Boolean);
  return (
    `strata_without_labels: ${empty.length} ${one ? "stratum of the design has" : "strata of the design have"} no labelled item: ${named.join("; ")}${more}: ` +
    `the label file holds no row of ${one ? "it" : "them"}, so estimate's human and calibrated figures and agree --human's design-weighted ones do not represent ${one ? "its" : "their"} ${trajectories(N)} (the design's inclusion probabilities no longer cover the population); ` +
    advice.join("; ")
  );
}
