/**
 * How much of what a model ran each row of `compare` rests on (`AsrCell.like_for_like`): the attacked runs (labelled
 * or not) of that model under that condition kept by the like-for-like drop (and `--common-tasks`), of all it has.
 * Session 39: on the shared AgentDojo corpus `--by attack` put Llama-3.3's rates over 3 of its 30 and 3 of its 67
 * runs beside other models' rates over all of theirs, said only in the header; a rate over 3 runs in a row beside
 * rates over 90 is not like for like with them. Every row carries its share (text, --json), and the rows below
 * {@link ROW_COVERAGE_LOW_BELOW} are named in one warning, with their counts.
 */
import { fieldNoun } from "./cells.js";
import { ALL_SUITES, ROW_COVERAGE_LOW_BELOW, type AsrCell, type RowCoverage } from "./analysis.js";

export { ROW_COVERAGE_LOW_BELOW, type RowCoverage };

/** What is counted: an observation or unlabelled item of ./data.ts (each standing for `weight` runs, absent: 1). */
interface Counted {
  model: string;
  condition: string;
  suite: string;
  weight?: number;
}

/**
 * What `like_for_like.used` and `.available` count, in every row's JSON (new user 44 item 9: beside the rates over the
 * labelled runs, a count of all attacked runs must say so).
 */
export const ROW_COVERAGE_POPULATION = "attacked runs (labelled or not) of the model under the condition: used = in the cells compared, available = all of them in the run";

function tally(xs: Iterable<Counted>): Map<string, number> {
  const out = new Map<string, number>();
  const add = (k: string, w: number) => out.set(k, (out.get(k) ?? 0) + w);
  for (const x of xs) {
    const w = x.weight ?? 1;
    // keyed by the values (JSON): the pooled suite is null, which no suite's name can print as (fix50b)
    add(JSON.stringify([x.model, x.condition, x.suite]), w);
    add(JSON.stringify([x.model, x.condition, ALL_SUITES]), w);
  }
  return out;
}

/**
 * Set `like_for_like` on every row (`cells`, per suite and `(all)`).
 * @param all every attacked run of the input (labelled and unlabelled), before any like-for-like drop.
 * @param used those the rows are over (the scope's labelled observations and unlabelled items).
 */
export function setRowCoverage(cells: AsrCell[], all: Iterable<Counted>, used: Iterable<Counted>): void {
  const a = tally(all);
  const u = tally(used);
  for (const c of cells) {
    const k = JSON.stringify([c.model, c.condition, c.suite]);
    const available = a.get(k) ?? 0;
    const n = u.get(k) ?? 0;
    const share = available > 0 ? n / available : null;
    c.like_for_like = { used: n, available, share, low: share !== null && share < ROW_COVERAGE_LOW_BELOW, population: ROW_COVERAGE_POPULATION };
  }
}

/** `3 of 30 (10.0%)`, or with `note` `3 of 30 (10.0%, labelled or not)`. */
export function rowCoverageCounts(r: RowCoverage, note?: string): string {
  const inside = [r.share === null ? "" : `${(100 * r.share).toFixed(1)}%`, note ?? ""].filter(Boolean).join(", ");
  return `${r.used} of ${r.available}${inside ? ` (${inside})` : ""}`;
}

/**
 * The one warning naming every pooled row (`(all)` suites) whose like-for-like share is low, grouped by model, with
 * the count of rows; null when none is.
 * @param field the compared field (`condition`, `attack`, ...), for its noun.
 * @param commonTasks `--common-tasks` was given (it drops runs too).
 */
export function rowCoverageWarning(cells: readonly AsrCell[], field: string, commonTasks = false): string | null {
  const low = cells.filter((c) => c.suite === ALL_SUITES && c.like_for_like?.low);
  if (low.length === 0) return null;
  const byModel = new Map<string, AsrCell[]>();
  for (const c of low) (byModel.get(c.model) ?? byModel.set(c.model, []).get(c.model)!).push(c);
  const one = fieldNoun(field);
  const parts = [...byModel].map(([m, cs]) => `${m}: ${cs.map((c) => `${c.condition} ${rowCoverageCounts(c.like_for_like!)}`).join(", ")}`);
  return (
    `${low.length} row${low.length === 1 ? "" : "s"} of ${byModel.size} agent model${byModel.size === 1 ? "" : "s"} rest on fewer than ` +
    `${Math.round(100 * ROW_COVERAGE_LOW_BELOW)}% of the model's attacked runs under that ${one} (used of available, after the like-for-like drop${commonTasks ? " and --common-tasks" : ""}): ${parts.join("; ")}; ` +
    `their rates are over the few cells the model's own ${fieldNoun(field, 2)} share${commonTasks ? " (on the tasks every model ran)" : ""}, not over what it ran, so set beside rows over most of their runs ` +
    `they do not compare like for like; --where narrows to the ${fieldNoun(field, 2)} run on the same cells, --all-cells keeps every run (and mixes tasks)`
  );
}
