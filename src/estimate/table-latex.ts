/**
 * The paper table as a LaTeX `booktabs` tabular (`estimate --table --latex`, the file meant for a paper): what the text
 * table says, in the rendered table, not only in `%` comments (break52 #4, #9: a row cut to shared cells, the
 * footnote marks' texts and an UNSTABLE figure were said in comment lines alone, so a pasted table showed 49.8% as a
 * model's no_defense ASR, marks that pointed at nothing, and `59.3 [CI n/a]` as a plain number).
 *
 * - A row whose rates are over part of its runs (like for like: the cells all its model's conditions ran) carries
 *   `$^\parallel$` on its n; the rendered note names each such row's population (the text table's `over` column).
 * - Every mark's text (a, b ... of rows not like for like, †, ‡, °, ⋆, §, ∥, △) is a rendered note under the
 *   tabular (`\par` lines in `\footnotesize`), as well as the `%` comment lines kept for scripts.
 * - A value with no interval whose reason is known (`ci_reason`: UNSTABLE in the text) reads
 *   `{\scriptsize UNSTABLE} 59.3 {\scriptsize [no CI]}$^\triangle$`, the note giving the reason.
 */
import { COVERAGE_LOW_BELOW, EXPOSURE_LOW_BELOW } from "../stats/rates.js";
import { EXPOSURE_LOW_MEANS } from "../format/rates-text.js";
import { NO_INTERVAL_MARK, reasonText } from "../format/stat-text.js";
import { weightCheckText } from "./weight-check.js";
import { SMALL_COUNT_BELOW } from "../stats/small-count.js";
import { blockedLatexCell } from "./table-blocked.js";
import { exposureMarked, HEURISTIC_KEYS } from "./table-exposure.js";
import { JUDGE_KEYS } from "./table-caveat-text.js";
import { EXACT_MARK } from "./table-calibrated-notes.js";
import { TIES_OUTSIDE_NOTE } from "./tie-bound.js";
import { allCells, allRowLatex, allRowLines } from "./table-all.js";
import { OWN_MIX, overLatexLines, populationText } from "./table-population.js";
import { anyRunError, insertCountColumns, latexCountLegend, LATEX_COUNT_TITLES } from "./table-row-counts.js";
import { marksLatex } from "./table-marks.js";
import { latexNotes } from "./table-latex-notes.js";
import { columns, counted, hasConditions, latexEscape, pct, withheld, type CellValue, type PaperTable } from "./table.js";
import { COUNT_LEGEND, countedKey, countLatex } from "./table-counts.js";

/** The mark of a row whose rates are over part of its runs (on its n). */
const CUT_MARK = "$^\\parallel$";
/** The mark of a value with no interval (UNSTABLE). */
const UNSTABLE_MARK = "$^\\triangle$";
/** The mark of a calibrated figure outside every reading of its row's annotator ties (./tie-bound.ts). */
const TIES_MARK = "$^\\sharp$";

const oneLine = (s: string) => s.replace(/[\r\n]/g, " ");

/** One rendered note line: its mark (LaTeX) and its text (plain, escaped here). */
function noteLine(mark: string, text: string): string {
  // "--" kept two hyphens (TeX would set an en dash in a flag's name: --own-mix)
  return `\\noindent ${mark ? `${mark} ` : ""}${latexEscape(oneLine(text)).replace(/--/g, "-{}-")}\\par`;
}

/**
 * The table as LaTeX (module docstring; needs `\usepackage{booktabs}`): percentages with 95% intervals,
 * `undefined$^\dagger$` for undefined cells, a low-coverage rate as `n/a$^\ddagger$` (or, with `--allow-low-coverage`,
 * its number with `$^\ddagger$`); every mark's text rendered under the tabular and kept in a comment line.
 */
export function tableLatex(t: PaperTable, opts: { where?: string } = {}): string {
  const cols = columns(t);
  const conds = hasConditions(t);
  const undefinedCells: string[] = []; // never a bare "n/a" (README): marked, each reason in a note
  const undefinedBy = new Map<string, string[]>(); // the rendered note: each reason once, with its cells
  const unstable: string[] = []; // a value with no interval: where and why
  const undefinedCell = (where: string, reason: string) => {
    const why = reasonText(reason);
    undefinedCells.push(`${where}: ${why}`);
    undefinedBy.set(why, [...(undefinedBy.get(why) ?? []), where]);
    return "undefined$^\\dagger$";
  };
  const cell = (p: CellValue, where: string, rowN?: number) => {
    if (!p || p.value === null) return undefinedCell(where, p?.reason ?? "no_value");
    const mark = countLatex(p, rowN) + (p.coverage_low ? "$^\\ddagger$" : ""); // its x/n when over fewer than the row's n (./table-counts.ts)
    if (withheld(t, p)) return "n/a$^\\ddagger$"; // no number, so no count
    // a figure outside its ties' readings is marked whatever its interval (fixa54: an UNSTABLE one had no mark, where the
    // text and CSV notes name it); an exact bound (ci_method) on an interval only
    const ties = p.human_ties?.calibrated_outside ? TIES_MARK : "";
    if (p.ci95) return `${pct(p.value)} {\\scriptsize [${pct(p.ci95.lower)}, ${pct(p.ci95.upper)}]}${p.ci_method ? "$^\\S$" : ""}${ties}${mark}`;
    if (p.ci_reason) {
      // UNSTABLE, as the text prints it: never a plain number (break52 #9)
      unstable.push(`${where}: ${reasonText(p.ci_reason)}${weightCheckText(p.weight_check)}`); // with its heaviest item's share (./weight-check.ts)
      return `{\\scriptsize UNSTABLE} ${pct(p.value)} {\\scriptsize [no CI]}${UNSTABLE_MARK}${ties}${mark}`;
    }
    return `${pct(p.value)} {\\scriptsize [CI n/a]}${ties}${mark}`; // a bare number would read as certain
  };
  const L: string[] = [];
  for (const n of t.notes) L.push(`% ${oneLine(n)}`);
  L[0] = `% ipi-judge estimate --table, run ${oneLine(t.run)}: ${oneLine(t.notes[0])}`;
  L.splice(1, 0, `% ${oneLine(populationText(t.population ?? OWN_MIX)).replace("[a], [b]", "$^{\\mathrm{a}}$, $^{\\mathrm{b}}$")}`);
  const head = ["Model", ...(conds ? ["Condition"] : []), "$n$", ...cols.map((c) => c.latex), "Blocked"];
  const cut = t.rows.filter((r) => (r.n_attacked_left_out ?? 0) > 0 || (r.n_unattacked_left_out ?? 0) > 0);
  const rowName = (r: PaperTable["rows"][number]) => `${r.agent_model}${conds ? ` | ${r.condition}` : ""}`;
  // every note rendered, numbered, its number on the rows it names (./table-latex-notes.ts); the legends of (x/n) and
  // of the count columns with them (break53 #10, newuser53 #1: comment lines only, lost in the compiled table)
  const legends = [...latexCountLegend(anyRunError(t.rows)), ...(counted(t, cols) ? [`% ${COUNT_LEGEND}`] : [])].map((l) => l.replace(/^% /, "").replace(/\$n\$/g, "n"));
  const numbered = latexNotes([...(opts.where ? [opts.where] : []), populationText(t.population ?? OWN_MIX), ...t.notes, ...legends], t.rows, conds);
  const body = t.rows.map((r, i) => [`${latexEscape(r.agent_model)}${conds ? "" : marksLatex(r) + numbered.rowMarks[i]}`, ...(conds ? [`${latexEscape(r.condition ?? "")}${marksLatex(r)}${numbered.rowMarks[i]}`] : []), String(r.n_attacked) + (cut.includes(r) ? CUT_MARK : ""), ...cols.map((c) => cell(c.get(r), `${rowName(r)} ${c.latex}`, countedKey(c.key) ? r.n_attacked : undefined) + (exposureMarked(r, c.key) ? "$^\\circ$" : "") + (t.rate_caveats?.length && JUDGE_KEYS.has(c.key) ? "$^\\star$" : "") + (t.heuristic_rate_caveats?.length && HEURISTIC_KEYS.has(c.key) ? "$^{\\star\\star}$" : "")), blockedLatexCell(r) ?? undefinedCell(`${rowName(r)} Blocked`, r.judge_blocked_attempts_reason ?? "no_attacked_trajectories")]);
  // estimate's (all) group (./table-all.ts), its pooling and notes in comment lines under the table
  const all = t.calibrated_all ? [allRowLatex(t.calibrated_all, cols, conds, cell, t.calibrated_all.n_population)] : [];
  const errors = insertCountColumns(head, body, all, t.rows, conds ? 2 : 1, LATEX_COUNT_TITLES); // utility's n; runs that ended in an error
  const line = (cells: string[]) => `${cells.join(" & ")} \\\\`;
  L.push(`\\begin{tabular}{l${conds ? "l" : ""}${"r".repeat(head.length - (conds ? 2 : 1))}}`, "\\toprule", line(head), "\\midrule", ...body.map(line), ...all.flatMap((a) => ["\\midrule", line(a)]));
  L.push("\\bottomrule");
  L.push("\\end{tabular}");
  L.push(...overLatexLines(t.rows)); // what each row is over: all runs, or the shared cells (./table-population.ts)
  L.push(...latexCountLegend(errors), ...(counted(t, cols) ? [`% ${COUNT_LEGEND}`] : []));
  // the marks' texts: each rendered under the table (`notes`) and in a comment line (`L`), as before
  const notes: string[] = [...numbered.lines];
  const both = (mark: string, text: string) => {
    L.push(`% ${mark ? `${mark} ` : ""}${oneLine(text)}`);
    notes.push(noteLine(mark, text));
  };
  if (cut.length) notes.push(noteLine(CUT_MARK, `rows over part of their runs (like for like: the cells all their model's conditions ran, and utility on those cells' user tasks; --own-mix gives every run): ${cut.map((r) => `${rowName(r)}: n ${r.n_attacked.toLocaleString("en-US")}, ${r.over}`).join("; ")}`));
  for (const f of t.mix_footnotes ?? []) both(`$^{\\mathrm{${f.mark}}}$`, f.text);
  for (const l of allRowLines(t.calibrated_all)) both("", l.trim());
  if (t.rows.some((r) => (r.judge_blocked_attempts ?? 0) > 0)) L.push("% Blocked: blocked/partial compliance (refused/unavailable/failed): see the blocked note above");
  const allCellsOf = allCells(t.calibrated_all);
  if (t.rows.some((r) => cols.some((c) => c.get(r)?.coverage_low))) {
    both("$^\\ddagger$", `coverage below ${Math.round(100 * COVERAGE_LOW_BELOW)}%: the rate is over a subset of the attacked runs that may be biased${t.allow_low_coverage ? "" : "; no number printed (--allow-low-coverage prints it)"}`);
  }
  if (t.rows.some((r) => r.judge_exposure_low || r.heuristic_exposure_low)) both("$^\\circ$", `exposure below ${Math.round(100 * EXPOSURE_LOW_BELOW)}%: ${EXPOSURE_LOW_MEANS} (see the EXPOSURE LOW note above)`);
  if (undefinedCells.length) {
    L.push(`% $^\\dagger$ undefined: ${oneLine(undefinedCells.join("; "))}`);
    notes.push(noteLine("$^\\dagger$", `undefined: ${[...undefinedBy].map(([why, cells]) => `${cells.join(", ")}: ${why}`).join("; ")}`));
  }
  if (unstable.length) both(UNSTABLE_MARK, `${NO_INTERVAL_MARK}: ${unstable.join("; ")}`);
  for (const [m, cs] of [["$^\\star$", t.rate_caveats], ["$^{\\star\\star}$", t.heuristic_rate_caveats]] as const)
    if (cs?.length) both(m, cs.map((c) => c.message).join("; "));
  if (t.rows.some((r) => cols.some((c) => c.get(r)?.ci95 && c.get(r)?.ci_method)) || allCellsOf.some((c) => c.ci95 && c.ci_method)) {
    both("$^\\S$", `exact interval: the group's labelled items had the same human-minus-judge difference within each stratum (SE 0), and the interval is the estimate ± the two-sided Clopper-Pearson bound on the share that would differ, 0 seen; or they showed fewer than ${SMALL_COUNT_BELOW} effective disagreements, and the interval is the union of the t interval and an exact small-count one (see the ${EXACT_MARK} note above)`);
  }
  const offTies = t.notes.find((n) => n.startsWith(`WARNING: ${TIES_OUTSIDE_NOTE}`)); // rendered, not a comment only (break53 #3)
  if (offTies) notes.push(noteLine(TIES_MARK, offTies.replace(/^WARNING: /, "")));
  if (notes.length) L.push("{\\footnotesize\\par\\smallskip", ...notes, "}");
  return L.join("\n") + "\n";
}
