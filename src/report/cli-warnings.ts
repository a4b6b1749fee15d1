/**
 * The warnings `compare` and `estimate --table` print about the figures the report shows too (review 16 item 4: a
 * report must carry every warning the CLI prints for the same figures): the report's ASR by condition, attack and
 * surface is `compare --by FIELD --all-cells` (every cell kept), whose warnings (models run on different task sets,
 * conditions covering different cells, a cell's coverage low, utility over other suites than the attack rates, a
 * model's rates by attack pooling its defenses) are taken from `compareConditions` itself (no bootstrap: the report
 * shows no interval of it); and one model and condition pooled from several run folders (`runFolderWarnings`),
 * which `estimate --table` and `compare` print over the same rows.
 */
import type { Observations } from "../compare/data.js";
import { compareConditions } from "../compare/index.js";
import { runFolderWarnings } from "../run/pooled-folders.js";
import type { TrajectoryIndexRow } from "../store/records.js";

/** The fields the report shows rates by (`conditionViewsOf` of `./data.ts`). */
const FIELDS = ["condition", "attack", "surface"] as const;

/**
 * The CLI's warnings over the report's figures (module docstring), each once, those already in `have` left out.
 * @param observationsOf the observations of a field, as the report's condition views read them.
 * @param rows the run's index rows (kept by `--where`), iterable more than once.
 * @param have the report's warnings so far (not repeated).
 * @returns warnings naming the command and field they come from (`compare --by attack: ...`).
 */
export function cliWarnings(observationsOf: (field: string) => Observations, rows: { values(): Iterable<TrajectoryIndexRow> }, have: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set(have);
  const add = (w: string) => {
    if (!seen.has(w)) out.push(w);
    seen.add(w);
  };
  for (const w of runFolderWarnings(rows.values())) add(w);
  for (const field of FIELDS) {
    const obs = observationsOf(field);
    if (new Set(obs.observations.map((x) => x.condition)).size < 2) continue;
    let warnings: string[];
    try {
      warnings = compareConditions(obs, { bootstrap: { B: 0, seed: 1 }, index: rows, cells: "all" }).warnings;
    } catch (e) {
      warnings = [`compare --by ${field} could not be computed for its warnings: ${(e as Error).message}`];
    }
    // the report keeps every cell: compare's --all-cells wording names the option the report has no need of
    for (const w of warnings) add(`compare --by ${field}: ${w.replace(/^--all-cells: /, "")}`);
  }
  return out;
}
