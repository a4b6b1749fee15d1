/**
 * Design cells the draw left empty by chance (new user 47: `sample` listed `D|...,suite=travel  N 1  n 0  pi 0.833`
 * and said nothing, though docs/sample.md promised a warning for a stratum that gets no draw). The design's own
 * warning (./sample.ts `uncovered`) covers the cells that *cannot* be drawn (inclusion probability 0: proportional
 * allocation gave their sampling stratum no phase-1 draw); a cell with π > 0 can still get no item in one draw:
 * a disagreement cell phase 2's random take passed over, or the agreement (A) or unmatched (U) part of a sampling
 * stratum that phase 1's simple random sample missed. Either way no item of the cell is in the sample: after
 * annotation no label row carries it, so estimate's human and calibrated figures and agree --human's
 * design-weighted ones (post-stratified over the cells the label file holds) do not represent its N trajectories,
 * and no labelling can fill it. Said at draw time, once, with every such cell named (up to a limit) and counted.
 */
import type { SampleDesign } from "./sample.js";

/** A cell the draw took nothing from although its inclusion probability is above 0. */
export interface UndrawnCell {
  stratum: string;
  N: number;
  inclusion_probability: number;
}

/** The cells with N > 0, n = 0 and π > 0 (those with π = 0 are `design.uncovered`), in the design's cell order. */
export function undrawnCells(design: Pick<SampleDesign, "cells">): UndrawnCell[] {
  return design.cells
    .filter((c) => c.N > 0 && c.n === 0 && c.inclusion_probability > 0)
    .map((c) => ({ stratum: c.stratum, N: c.N, inclusion_probability: c.inclusion_probability }));
}

/**
 * The warning naming {@link undrawnCells}; null when there are none.
 * @param shown at most this many cells are named (the rest counted).
 */
export function undrawnCellsWarning(cells: readonly UndrawnCell[], shown = 6): string | null {
  if (cells.length === 0) return null;
  const N = cells.reduce((t, c) => t + c.N, 0);
  const named = cells.slice(0, shown).map((c) => `${c.stratum} (N ${c.N}, inclusion probability ${c.inclusion_probability.toFixed(6)})`);
  const more = cells.length > shown ? `, and ${cells.length - shown} more` : "";
  const one = cells.length === 1;
  return (
    `${cells.length} ${one ? "cell" : "cells"} of the design got no draw (n 0) though ${one ? "its" : "their"} inclusion probability is above 0: ${named.join("; ")}${more}: ` +
    `the sample holds no item of ${one ? "it" : "them"}, so after annotation estimate's human and calibrated figures and agree --human's design-weighted ones do not represent ${one ? "its" : "their"} ${N} ${N === 1 ? "trajectory" : "trajectories"}, and no labelling can change that; ` +
    `draw again with coarser --strata (fewer fields) or a larger --random / --disagreement, or accept the gap and report it (drawing again with another seed until every cell gets an item would make the written inclusion probabilities wrong)`
  );
}
