import fs from "node:fs";
import { drawnText, drawnWarning } from "../agree/drawn-items.js";
import { humanScope, humanScopeText } from "../report/human-scope.js";
import { CommitteeChoiceError, committeeName } from "../committee/members.js";
import { warnLine } from "./warn.js";
import { stateWarns, type RunState } from "../store/run-state.js";
import { showControls } from "../format/shown.js";
import { exitOnBrokenJudges, brokenExitHelp } from "./broken-exit.js";
import { withStoppedJudges } from "./stopped-exit.js";
import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { EstimateError } from "../estimate/run.js";
import { addJudgeChoiceOptions, judgeChoice } from "./estimate.js";
import { whereLine } from "../store/where.js";
import { addWhereOption, whereOf, intOption, printJson, runDirOf, withReadProgress } from "./util.js";
import { stepLine } from "./read-progress.js";
import { addProgressOptions, progressOf } from "./progress-mode.js";
import { fullGc, heapGcTrigger } from "../io/heap-gc.js";
import { healthWarnings } from "../verdict/health.js";
import { itemsPopulationText } from "../report/items-text.js";
import { missingAdjudicationsWarning } from "../agree/sample-adjudications.js";
import { labelDesignDriftWarning } from "../agree/label-design-drift.js";
import { calibratedAllLine } from "../report/calibrated-all-html.js";
import { goalAboveLines } from "../report/goal-above-line.js";
import { applySampleWhere } from "./sample-where-default.js";
import { footnoteLines } from "../estimate/table-marks.js";
import { tableMarksJson } from "../report/table-marks-html.js";
import { conditionsOverJson } from "../report/condition-views.js";

/**
 * Why every judge of the run is behind report's figures (said after its exit code 3): the page shows each judge's
 * rates, agreement and health, and the committee's; `--judge` / `--committee` choose only the paper table's source.
 */
export const REPORT_BEHIND = "the page shows every judge's figures and the committee's; --judge and --committee choose the paper table's source only";

/** `ipi-judge report`: one self-contained HTML report of a run. */
export function registerReport(program: Command): void {
  const cmd = program.command("report");
  addJudgeChoiceOptions(cmd, "of the paper table and its calibrated estimate");
  cmd
    .description("Write one self-contained HTML report of a run: asr_goal and asr_behaviour per agent model and condition, labels, rates and tokens per judge, agreement with humans and the benchmark (heatmaps, kappa forest plot), and the committee's disagreements with each judge's quotes highlighted.")
    .requiredOption("--run <name>", "the run to report (labels/<run>/)")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--human <file>", "human labels (CSV or JSONL: trajectory_id, annotator, label; e.g. the output of import-annotations)")
    .option("--no-sample-population", "with --human: over the whole run, not the population the sample was drawn from (its --where, recorded in the label file and applied when no --where is given)")
    .option("--out <file>", "the HTML file to write", "report.html")
    .option("--max-items <n>", "most trajectories in the disagreement list", "200")
    .option("--bootstrap <n>", "bootstrap resamples for the kappa intervals against humans (0: none)", "2000")
    .option("--seed <s>", "bootstrap seed", "12345")
    .option("--source-root <dir>", "folder that relative trajectory paths of the run are resolved from (default: the current directory, where label ran)")
    .option("--own-mix", "the paper table's rows and the by-condition cells each over every attacked run of its own (unlike rows marked), not the default like for like (each agent model's rows over the cells all its conditions ran), as estimate --table --own-mix")
    .option("--json", "print a JSON summary of what was written");
  addProgressOptions(addWhereOption(cmd))
    .addHelpText(
      "after",
      `
The paper table uses the judge given by --judge ID, or the committee with --committee (as estimate does; default:
the run's only judge). A run with several judges and no choice gets no paper table: its place in the page, and a
warning on stderr, say why and how to choose; the other sections are written (exit 0, or 3 as below). Its rows
are like for like, as estimate --table's: each agent model's rows over the cells all its conditions ran, each row
saying what it is over ("all runs", or the shared cells and what it left out); --own-mix puts each row over all
its own runs. The same holds for the "Attack success by condition" views (and conditions_over in --json): each
agent model's cells over the cells all its values ran, a model whose values share none withheld with why. The
per-judge section ("Attack success per agent model and condition") sets the judges side by side on each row's own
runs, and says so in its heading.
Sections appear when their input exists: the committee needs two or more judges. One committee serves every
section (its verdicts, rates, its members' agreement, its rows against humans and the benchmark, the disagreement
list, the --committee paper table), named with its members: committee.jsonl's judges and quorum when the run has
one (a stale file is said and the committee computed over the same members), else every judge with quorum 2;
--committee --exclude-judge ID / --quorum N choose another (said, beside the stored one). Human comparisons need --human; the benchmark comparison
needs AgentDojo security verdicts. Trajectories in the disagreement list are re-read from their source files.
The page loads nothing from the network; untrusted text is escaped and a Content-Security-Policy blocks
every script but the page's own.
Example:
  ipi-judge report --run committee --human study1/human.jsonl --out report.html`,
    )
    .addHelpText("after", brokenExitHelp(`every judge of the run (${REPORT_BEHIND}), so a broken judge beside a sound --judge X is exit 3 here, where estimate --judge X and compare --judge X exit 0`))
    .action(async (o) => {
      const runDir = runDirOf(o.labelsDir, o.run);
      if (o.human && !fs.existsSync(o.human)) throw new UsageError(`human label file ${o.human} not found`);
      // the sample's recorded population as --where when none is given (./sample-where-default.ts)
      const { labels } = applySampleWhere(o, "report"); // the label file as read there: not read again
      const choice = judgeChoice(o);
      // loaded here, not at start-up: the chart libraries (vega) take ~0.3 s to load, which every other command
      // would pay
      const { writeReport } = await import("../report/index.js");
      // the steps after the read, as --progress says (a status line on a terminal, lines in a log: ./read-progress.ts)
      let step = { done: () => {} };
      // between the steps, a full collection when the heap has grown enough (label's rule, as committee does): the
      // column read and each analysis step leave large arrays that V8 would otherwise let pile up
      const gcFn = fullGc();
      const gc = gcFn ? heapGcTrigger(gcFn) : undefined;
      const showStep = (what: string) => {
        gc?.check();
        step.done();
        step = stepLine(what, progressOf(o));
      };
      // the judge asked for (or, none named, every judge) stopped before storing a verdict: exit 3 (./stopped-exit.ts)
      const asked = o.judge ? [String(o.judge)] : null;
      const res = await withStoppedJudges("report", runDir, o.run, asked, whereOf(o), () => withReadProgress(progressOf(o), (progress) => writeReport({
        source: o.judge || o.committee ? choice : undefined,
        runDir,
        run: o.run,
        humanFile: o.human,
        humanLabels: labels,
        out: o.out,
        maxItems: intOption(o.maxItems, "--max-items", 0),
        bootstrap: { B: intOption(o.bootstrap, "--bootstrap", 0), seed: intOption(o.seed, "--seed", 0) },
        sourceRoot: o.sourceRoot ? path.resolve(o.sourceRoot) : undefined,
        where: whereOf(o),
        ownMix: !!o.ownMix,
        progress,
        step: showStep,
      }).finally(() => step.done()))).catch((e) => {
        // an unusable label file (conflicting labels among them) is refused as agree and estimate refuse it
        if (e instanceof EstimateError || e instanceof CommitteeChoiceError || (e as Error)?.name === "HumanLabelsError") throw new UsageError(e.message);
        throw e;
      });
      const m = res.model;
      // the label file's own notes (adjudications its sample folder holds that it lacks; a recorded sample manifest not
      // found, the file having moved): on the page, and here on stderr and in --json too, as agree and estimate say them
      const labelFileNote = o.human ? [missingAdjudicationsWarning(o.human), labelDesignDriftWarning(o.human), drawnWarning(o.human, m.human?.drawn)].filter(Boolean).join("; ") || undefined : undefined;
      const summary = {
        out: res.out,
        bytes: res.bytes,
        run: m.run,
        ...(m.where ? { where: m.where } : {}),
        trajectories: m.trajectories,
        judges: m.judges.map((j) => j.id),
        committee: m.committee ? m.committee.source : null,
        ...(m.committee ? { committee_members: m.committee.members, committee_quorum: m.committee.quorum } : {}),
        human: m.human ? { file: m.human.file, items: m.human.items, drawn: m.human.drawn ?? null, ...(m.where ? { items_in_where: humanScope(m.human, true).in_where } : {}), consensus: m.human.consensus.n, scale: m.human.scale } : null,
        reference: m.reference ? m.reference.length : 0,
        conditions: m.conditions.map((c) => c.field),
        // what each by-condition cell is over (like for like unless --own-mix: ../report/condition-views.ts), per field
        conditions_over: conditionsOverJson(m.conditions),
        // with its (all) row: the pooled calibrated estimate, estimate's (all) group of each rate (../report/calibrated-all.ts)
        // each row's n and like-for-like marks with their footnotes and population, as the page's table (../report/table-marks-html.ts)
        paper_table: m.paper_table ? { source: m.paper_table.judge, ...tableMarksJson(m.paper_table), ...(m.paper_table.calibrated_all ? { calibrated_all: m.paper_table.calibrated_all } : {}) } : null,
        ...(m.paper_table_reason ? { paper_table_reason: m.paper_table_reason } : {}),
        items: m.items.length,
        items_total: m.items_total,
        ...(m.items_unattacked !== undefined ? { items_unattacked: m.items_unattacked } : {}),
        items_unavailable: m.items.filter((i) => !i.trajectory).length,
        // read but not shown: over the page's budget, or not renderable (red team 30 H1)
        items_not_shown: m.items.filter((i) => i.trajectory_not_shown).map((i) => ({ trajectory_id: i.trajectory_id, reason: i.trajectory_not_shown })),
        judge_health: m.judge_health ?? [],
        run_state: { status: m.run_state.status, complete: m.run_state.complete, message: m.run_state.message, mixed_configurations: m.run_state.mixed_configurations ?? [], ...(m.run_state.input_errors ? { input_errors: m.run_state.input_errors } : {}), ...(m.run_state.removed_moved_only ? { removed_moved_only: true as const } : {}) },
        warnings: labelFileNote && !m.warnings.includes(labelFileNote) ? [labelFileNote, ...m.warnings] : m.warnings,
      };
      if (labelFileNote) warnLine(labelFileNote);
      if (m.run_state.complete === false) warnLine(`run incomplete: ${m.run_state.message}`);
      // trajectories whose input is gone, left out of the report's figures (store/removed-ids.ts): said here too, not only in the HTML
      else sayCompleteState(m.run_state);
      for (const w of [...(m.run_state.mixed_configurations ?? []), ...(m.run_state.input_errors ? [m.run_state.input_errors] : [])]) warnLine(w);
      for (const w of healthWarnings(m.judge_health ?? [])) warnLine(w);
      if (!m.paper_table) warnLine(`paper table left out: ${m.paper_table_reason}`);
      for (const it of m.items) {
        if (!it.trajectory_not_shown) continue;
        const id = it.trajectory_id.length > 200 ? `${it.trajectory_id.slice(0, 200)}... (${it.trajectory_id.length} characters)` : it.trajectory_id;
        warnLine(`the disagreement list shows trajectory ${id} without its text: ${it.trajectory_not_shown}`);
      }
      if (o.json) printJson(summary);
      else {
        process.stdout.write(
          (m.where ? whereLine(m.where) + "\n" : "") +
          // absolute, as `out` in --json: a path relative to the working directory read "../../tmp/r.html" for a file outside it
          `report written to ${res.out} (${(res.bytes / 1024).toFixed(0)} KB): ` +
            `${m.judges.length} judge(s)${m.committee ? `, ${committeeName(m.committee)}` : ""}${m.human ? `, human labels on ${humanScopeText(m.human, !!m.where, path.basename(m.human.file))}${drawnText(m.human.drawn) ? ` (${drawnText(m.human.drawn)})` : ""}` : ""}` +
            `${m.reference ? ", benchmark verdicts" : ""}; ${m.items.length} of ${m.items_total} disagreements listed` +
            `${itemsPopulationText(m) ? ` (${itemsPopulationText(m)})` : ""}` +
            `${summary.items_unavailable ? ` (${summary.items_unavailable} without their trajectory: source not found)` : ""}\n` +
            // the study's headline: the pooled calibrated estimate, as estimate prints its (all) group (new user 45 #7), and its goal-above-behaviour note (newuser55 #3)
            (m.paper_table?.calibrated_all ? `${calibratedAllLine(m.paper_table.calibrated_all)}\n` : "") + goalAboveLines(m.paper_table?.calibrated_all).map((l) => `${l}\n`).join("") +
            // the table's rows that are not like for like, as estimate --table's footnotes (the page marks them)
            footnoteLines(m.paper_table?.mix_footnotes ?? []).map((l) => `paper table ${l}\n`).join(""),
        );
      }
      // the page shows every judge's figures: one that looks broken makes exit 3, as label (the page is written whole);
      // --judge / --committee choose the paper table's source only, so a broken judge outside that choice is said with
      // why it counts (new user 49 #4: estimate --judge X exits 0 on the same run, its figures being X's alone)
      const chosen = o.judge ? [String(o.judge)] : o.committee ? (m.committee?.members ?? []) : null;
      const behind = (broken: readonly { judge_id: string }[]) => (chosen && broken.some((j) => !chosen.includes(j.judge_id)) ? REPORT_BEHIND : undefined);
      await exitOnBrokenJudges("report", m.judge_health ?? [], m.judges.map((j) => j.id), runDir, whereOf(o), undefined, behind);
    });
}

/**
 * On stderr, a complete run's state that the report's page holds among its warnings: removed inputs (not all moved)
 * and an unknown history as a warning; every id left out moved (its content counted under the new id) as a note, as
 * label says it (runs53); nothing otherwise.
 */
function sayCompleteState(s: RunState): void {
  if (!s.message) return;
  if (stateWarns(s)) warnLine(s.message);
  else if (s.removed_moved_only) process.stderr.write(`ipi-judge: note: ${showControls(s.message)}\n`);
}

