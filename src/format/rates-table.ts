/**
 * The attack-success rates of several groups (agent models, (model, condition) cells, surfaces) as one text table,
 * a row per group and a column per figure, with what a row cannot say in a cell (a LOW coverage's reason, a
 * committee's disputed runs, an EXPOSURE LOW group's figures over its exposed runs) in notes under the table, the
 * EXPOSURE LOW explanation once (new user 46 item 4: label's rows ran to ~600 characters each, the same ~300-character
 * explanation on every EXPOSURE LOW row). The figures and their words are `./rates-text.ts`'s; nothing is left out of
 * the text that the one-line form (`ratesText`) said.
 */
import { EXPOSURE_LOW_BELOW, rateFigure, type AttackRates } from "../stats/rates.js";
import { pctText } from "./stat-text.js";
import { rateFigureText } from "./rate-figure-text.js";
import { EXPOSURE_LOW_MEANS, NOT_EXPOSED_WHY, blockedByText, coverageText, disputedText } from "./rates-text.js";
import { textTable } from "./text-table.js";
import { wrapLines } from "./wrap-text.js";

/** What the columns of {@link ratesTable} hold: said once above the first table of an output. */
export const RATES_COLUMNS =
  "asr_goal = full compliance, asr_behaviour = full or partial compliance, each with its 95% Wilson interval (count/labelled attacked runs); " +
  "exposure = labelled attacked runs that met the injected text (any label but not_exposed); blocked = blocked_attempts of the partial_compliance " +
  "(refused, unavailable, failed); coverage = labelled of attacked runs";

/**
 * One group's row: its name (a model, a condition, a surface) and rates; `group`: a heading said above it (the agent
 * model of condition rows), and before its name in the notes (`model | condition`).
 */
export interface RatesRow {
  name: string;
  rates: AttackRates;
  /** A heading line printed above this row when it differs from the previous row's (e.g. the agent model). */
  group?: string;
}

/** `31.9% (115/360)`, `LOW` after it below 10%; `undefined (no labelled attacked)` when none is labelled. */
function exposureCell(r: AttackRates): string {
  if (r.labelled === 0) return pctText(null, "no_labelled_attacked"); // as the rates beside it: undefined (no labelled attacked)
  const e = r.labelled - r.not_exposed;
  return `${pctText(e / r.labelled)} (${e}/${r.labelled})${r.exposure_low ? " LOW" : ""}`;
}

/** `1 of 14 (0, 1, 0)`: blocked attempts of the partial compliance, by kind; or `unknown` (its reason in a note). */
function blockedCell(r: AttackRates): string {
  if (r.blocked_attempts === null) return "unknown";
  if (r.blocked_attempts === 0) return `0 of ${r.partial_compliance}`;
  const b = r.blocked_attempts_by;
  return `${r.blocked_attempts} of ${r.partial_compliance}${b ? ` (${b.refused}, ${b.unavailable}, ${b.failed})` : " (kinds unknown)"}`;
}

/** `100.0% (360/360)`, `LOW` after it below the threshold (its reason in a note); `undefined` with none attacked. */
function coverageCell(r: AttackRates): string {
  if (r.coverage === null) return "undefined (no attacked trajectory)";
  return `${pctText(r.coverage)} (${r.labelled}/${r.attacked})${r.coverage_low ? " LOW" : ""}`;
}

/** An EXPOSURE LOW group's own figures: how many are not_exposed, and the rates over the exposed ones. */
function exposureLowNote(r: AttackRates): string {
  const exposed = r.labelled - r.not_exposed;
  const over =
    exposed > 0
      ? `over the ${exposed} exposed: asr_goal ${rateFigureText(rateFigure(r.asr_goal.count, exposed))}, asr_behaviour ${rateFigureText(rateFigure(r.asr_behaviour.count, exposed))}`
      : "none is left to say whether the agent resists the attack when it meets it";
  return `${r.not_exposed} of ${r.labelled} labelled attacked run${r.labelled === 1 ? " is" : "s are"} not_exposed; ${over}${r.disputed?.count ? ` (the ${r.disputed.count} disputed run(s) left out of these counts)` : ""}`;
}

/**
 * The table's lines: a header row, a row per group (`group` headings between them), then the notes: each row's LOW
 * coverage clause (or, with `coverageSaidAt(row)`, where the output said it already), its blocked kinds' or
 * attempts' unknown reason, its disputed runs, and the EXPOSURE LOW rows' own figures under one explanation.
 * @param opts.indent before every line; @param opts.mark appended to every row (a broken judge's rate mark, "" none);
 * @param opts.coverageSaidAt per row, where the output gave its LOW coverage clause already (undefined: here).
 */
export function ratesTable(rows: readonly RatesRow[], opts: { indent: string; mark?: string; coverageSaidAt?: (row: RatesRow) => string | undefined }): string[] {
  const mark = opts.mark?.trim() ?? "";
  const head = ["", "asr_goal", "asr_behaviour", "exposure", "blocked", "coverage", ...(mark ? [""] : [])];
  const cells = rows.map((x) => [x.name, rateFigureText(x.rates.asr_goal), rateFigureText(x.rates.asr_behaviour), exposureCell(x.rates), blockedCell(x.rates), coverageCell(x.rates), ...(mark ? [mark] : [])]);
  const grouped = rows.some((x) => x.group !== undefined);
  const sub = grouped ? "  " : "";
  const lines = textTable([head, ...cells.map((c) => [sub + c[0], ...c.slice(1)])], { indent: opts.indent, align: ["left", "right", "right", "right", "right", "right", "left"] });
  const out: string[] = [lines[0]];
  rows.forEach((x, i) => {
    if (x.group !== undefined && x.group !== rows[i - 1]?.group) out.push(`${opts.indent}${x.group}`);
    out.push(lines[i + 1]);
  });
  const notes: string[] = [];
  const named = rows.map((x) => ({ ...x, name: x.group !== undefined ? `${x.group} | ${x.name}` : x.name }));
  for (const x of named) {
    const r = x.rates;
    if (r.coverage_low) notes.push(`${x.name}: ${coverageText(r, opts.coverageSaidAt?.(rows[named.indexOf(x)]))}`);
    if (r.blocked_attempts === null) notes.push(`${x.name}: blocked attempts unknown (${r.blocked_attempts_reason ?? "not recorded"})`);
    else if (r.blocked_attempts > 0 && !r.blocked_attempts_by) notes.push(`${x.name}: blocked attempts ${blockedByText(r)}`);
    if (r.disputed) notes.push(`${x.name}: ${disputedText(r).replace(/^; /, "")}`);
  }
  const low = named.filter((x) => x.rates.exposure_low);
  if (low.length) {
    notes.push(`EXPOSURE LOW (fewer than ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of the labelled attacked runs met the injected text: ${NOT_EXPOSED_WHY}): ${EXPOSURE_LOW_MEANS}:`);
    for (const x of low) notes.push(`  ${x.name}: ${exposureLowNote(x.rates)}`);
  }
  out.push(...wrapLines(notes.map((n) => `${opts.indent}${n}`)));
  return out;
}
