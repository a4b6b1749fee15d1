/**
 * `compare --csv FILE`: the rows of compare (per agent model and condition, suites pooled) as CSV, each with what it
 * is over (session 39: a row over 3 of a model's 67 runs must say so wherever the row goes, not only in the header):
 * the rates with their Wilson intervals and n, the labels' coverage, the exposure, and `runs_used`, `runs_available`,
 * `runs_used_share`, `runs_used_low` (./row-coverage.ts), and `judge_caveat` when the labels' judge looks broken. Undefined values are empty cells with the reason beside.
 */
import { writeCsv } from "../io/csv.js";
import { ALL_SUITES } from "./analysis.js";
import type { CompareResult } from "./result.js";
import { rateCaveatMarker } from "../verdict/rate-caveat.js";

const num = (x: number | null | undefined) => (x === null || x === undefined ? "" : x);

/** The CSV text (RFC 4180, LF row ends): one row per (agent model, condition) of `r.asr`, suites pooled. */
export function compareRowsCsv(r: CompareResult): string {
  const rates = ["asr_goal", "asr_behaviour"] as const;
  const header = ["agent_model", r.condition_field, ...rates.flatMap((k) => [k, `${k}_lower`, `${k}_upper`, `${k}_count`, `${k}_n`, `${k}_reason`]), "attacked", "labelled", "coverage", "coverage_low", "not_exposed", "exposure_low", "runs_used", "runs_available", "runs_used_share", "runs_used_low"];
  // a broken judge's rates are never bare (new-user report 16): its caveat on every row, as estimate --table's CSV
  const caveat = rateCaveatMarker(r.rate_caveats ?? []).trim();
  if (caveat) header.push("judge_caveat");
  const rows: (string | number)[][] = [header];
  for (const c of r.asr.filter((x) => x.suite === ALL_SUITES)) {
    const l = c.like_for_like;
    rows.push([
      c.model,
      c.condition,
      ...rates.flatMap((k) => [num(c[k].rate), num(c[k].ci95?.lower), num(c[k].ci95?.upper), c[k].count, c[k].n, c[k].reason ?? ""]),
      c.attacked,
      c.labelled,
      num(c.coverage),
      String(c.coverage_low),
      c.not_exposed,
      String(c.exposure_low),
      num(l?.used),
      num(l?.available),
      num(l?.share),
      l ? String(l.low) : "",
      ...(caveat ? [caveat] : []),
    ]);
  }
  return writeCsv(rows, { rowEnd: "\n" });
}
