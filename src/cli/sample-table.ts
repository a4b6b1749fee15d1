/**
 * `sample`'s stratum table: one line per design cell (committee stratum x sampling stratum) with its N and n, its
 * sampling stratum's N and phase-1 n, and the inclusion probability, the cell's name last. The probability is over
 * the sampling stratum, not the cell (new user 47: `15  2  0.176471  A|...slack` where 0.176 = 3/17, the sampling
 * stratum of 17 holding 2 disagreement items): the sampling stratum's N and phase-1 n stand beside it, so an A or U
 * cell's π reads as phase-1 n / sampling N, and a D cell's as that plus phase 2's chance (src/sample/design.ts).
 */
import { textTable } from "../format/text-table.js";
import type { SampleDesign } from "../sample/index.js";

/** The table's lines (a three-line note, then the header and one row per cell), indented two spaces. */
export function cellTableLines(d: Pick<SampleDesign, "cells" | "phase1">): string[] {
  const alloc = new Map(d.phase1.allocation.map((a) => [a.sampling_stratum, a]));
  const rows = [
    ["N", "n", "sampling N", "phase-1 n", "inclusion probability", "stratum"],
    ...d.cells.map((c) => {
      const a = alloc.get(c.sampling_stratum);
      return [String(c.N), String(c.n), a ? String(a.N) : "?", a ? String(a.n) : "?", c.inclusion_probability.toFixed(6), c.stratum];
    }),
  ];
  return [
    "  N, n: the cell's trajectories and items drawn; sampling N, phase-1 n: its sampling stratum's (the name after A|, D| or U|;",
    "  the whole population without --strata), which the inclusion probability is over: phase-1 n / sampling N outside D,",
    "  plus phase 2's chance in a D cell (design.json formulas)",
    // the stratum's name last: with --strata of several fields it runs past 100 columns (U|agent_model=...,condition=...,
    // suite=...), and last it pushes no count out of line when a terminal wraps it (session 40)
    ...textTable(rows, { align: ["right", "right", "right", "right", "right", "left"], indent: "  ", minWidths: [6, 6] }),
  ];
}
