/**
 * The warnings `compare` and `estimate --table` print about the figures the report shows too (review 16 item 4: a
 * report must carry every warning the CLI prints for the same figures): the report's ASR by condition, attack and
 * surface is `compare --by FIELD --all-cells` (every cell kept; named so in each warning, with `./cells-note.ts`'s
 * note where compare's default, like for like, prints other figures), whose warnings (models run on different task sets,
 * conditions covering different cells, a cell's coverage low, utility over other suites than the attack rates, a
 * model's rates by attack pooling its defenses) are taken from `compareConditions` itself (no bootstrap: the report
 * shows no interval of it); and one model and condition pooled from several run folders (`runFolderWarnings`),
 * which `estimate --table` and `compare` print over the same rows.
 */
import type { Observations } from "../compare/data.js";
import { compareConditions } from "../compare/index.js";
import { runFolderWarnings } from "../run/pooled-folders.js";
import { cellsNote } from "./cells-note.js";
import type { TrajectoryIndexRow } from "../store/records.js";

/**
 * Taps the report's per-field observations (`conditionViewsOf` of `./data.ts` asks for each field once) to collect
 * `compare`'s warnings over them as each field is built, so no field's observations are kept or built twice (at 1M a
 * field's observations are one object per attacked trajectory: three kept at once would pass the report's memory).
 * @returns `tap(observationsOf)` (the same observations, warnings noted on the way) and `warnings(have)`: the pooled
 *   run folders' and the tapped fields' warnings, each once, those already in `have` left out, named by the command
 *   and field they come from (`compare --by attack: ...`).
 * @param ownMix the report's paper table is `--own-mix` (each row over every attacked run), not like for like: the
 *   cells note says which (./cells-note.ts).
 */
export function cliWarnings(rows: { values(): Iterable<TrajectoryIndexRow> }, ownMix = false): {
  tap: (observationsOf: (field: string) => Observations) => (field: string) => Observations;
  warnings: (have: readonly string[]) => string[];
} {
  const found: string[] = [];
  const tap = (observationsOf: (field: string) => Observations) => (field: string) => {
    const obs = observationsOf(field);
    // the same fields as the views (./condition-views.ts): two values or more among the attacked runs, labelled or not
    if (new Set([...obs.observations, ...(obs.unlabelled ?? [])].map((x) => x.condition)).size < 2) return obs;
    let ws: string[];
    try {
      ws = compareConditions(obs, { bootstrap: { B: 0, seed: 1 }, index: rows, cells: "all" }).warnings;
    } catch (e) {
      ws = [`compare --by ${field} could not be computed for its warnings: ${(e as Error).message}`];
    }
    // the report keeps every cell: its figures are compare --all-cells's, and so are these warnings' counts (named so:
    // compare's default drops the cells not every condition covers and counts what is left, review 17 item 2)
    for (const w of ws) found.push(`compare --by ${field} --all-cells: ${w.replace(/^--all-cells: /, "")}`);
    const note = cellsNote(obs, ownMix); // where compare's default prints other figures, which and why
    if (note) found.push(note);
    return obs;
  };
  const warnings = (have: readonly string[]) => {
    const out: string[] = [];
    const seen = new Set(have);
    for (const w of [...runFolderWarnings(rows.values()), ...found]) {
      if (!seen.has(w)) out.push(w);
      seen.add(w);
    }
    return out;
  };
  return { tap, warnings };
}
