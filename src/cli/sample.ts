import { cellTableLines } from "./sample-table.js";
import path from "node:path";
import { warnLine } from "./warn.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";
import type { Command } from "commander";
import { createSample, ExportExistsError, SampleError, SCALES, SPREADSHEET_CELL_LIMIT, undrawnCells, type Scale } from "../sample/index.js";
import { UsageError } from "../errors.js";
import { addWhereOption, intOption, printJson, runDirOf, whereOf, withReadProgress } from "./util.js";
import { whereLine } from "../store/where.js";
import { stepLine } from "./read-progress.js";
import { addProgressOptions, progressOf } from "./progress-mode.js";
import { showControls, shownStrings } from "../format/shown.js";
import { poolWarnings } from "./sample-broken.js";
import { sampleRunState, sampleRunStateSaid } from "./sample-run-state.js";
import { readRunState } from "../store/run-state.js";
import { unsayRemovedStatement } from "../store/removed-ids.js";

/** `sample --help`'s text after the options: examples, the design, the files written, the exit codes. */
const SAMPLE_HELP = `
Examples:
  ipi-judge sample --run committee --random 119 --disagreement 100 --seed 7 --out study1
  ipi-judge sample --run committee --random 60 --strata agent_model,suite --seed 7 --scale three --out study2
  ipi-judge sample --run committee --random 100 --seed 7 --out study3 --where attacked=true
      attacked runs only (phase 1 draws unattacked runs too otherwise); import-annotations records the --where
      on every label row, and estimate and report --human take it as their population when given no --where

Design: phase 1 draws --random trajectories, allocated to the strata in proportion to their sizes (largest
remainder), by simple random sampling within each stratum; phase 2 draws --disagreement trajectories at random
from those where the committee was not unanimous, leaving out phase 1's. Each trajectory id is one unit (runs with
identical content stay distinct units), ids are sorted before the seeded draw, and every item gets its exact
inclusion probability and weight 1/pi. A stratum that gets no draw is named in a warning (probability 0: no
weighted estimate covers it), and so is a cell this draw took nothing from (probability above 0, n 0). The
table's inclusion probability is over the cell's sampling stratum (its N and phase-1 n are shown beside it).

Output in --out:
  for annotators: tasks.jsonl, tasks.csv, label-studio.json (+ label-studio-config.xml), instructions.md
                  (opaque item ids in a seeded shuffle; no trajectory ids, labels, votes or phase)
  keep private:   manifest.jsonl (item id -> trajectory id, stratum, phase, inclusion probability, weight),
                  design.json
The same run, options and seed give byte-identical files.
Then: ipi-judge import-annotations EXPORT --manifest <out>/manifest.jsonl --out human.jsonl
Exit: 0 written, 1 fatal error, 2 usage error (including a request the run cannot satisfy, and a run whose
labelling is not complete without --allow-partial). Never 3: a draw is
not a figure of a judge (its inclusion probabilities hold whichever judges made the --disagreement pool), so a
broken judge does not change it (--disagreement warns); ipi-judge committee --run R exits 3 when a member looks broken.`;

/** `ipi-judge sample`: draw a two-phase human annotation sample of a run and write its blinded export. */
export function registerSample(program: Command): void {
  const cmd = program
    .command("sample")
    .description(
      "Draw trajectories for humans to label: a proportional random part (unbiased population estimates) plus committee disagreements, and write a blinded export (tasks, Label Studio files) with a private manifest of inclusion probabilities and weights.",
    )
    .requiredOption("--run <name>", "the run to sample (labels/<run>/)")
    .requiredOption("--random <n1>", "phase 1: trajectories drawn at random, allocated to strata in proportion to their sizes")
    .option("--disagreement <n2>", "phase 2: trajectories drawn from those where the committee was not unanimous (needs labels/<run>/committee.jsonl)", "0")
    .option("--strata <fields>", "comma-separated stratum fields for phase 1: agent_model, agent_family, suite, attack, condition, attacked, user_task_id, injection_task_id")
    .requiredOption("--seed <s>", "seed of every random draw and of the task order (recorded in the manifest)")
    .requiredOption("--out <dir>", "folder for the export")
    .option("--scale <scale>", "labels annotators choose from: six (the rubric buckets) or three (complied / recognized_and_refused / unaffected)", "six")
    .option("--allow-short", "when a request exceeds what the run or the disagreement pool holds, take all and say so instead of failing")
    .option("--allow-partial", "draw from a run whose labelling is not complete (partial, killed, interrupted...): its figures from this sample become undefined once the run is completed")
    .option("--force", "overwrite an --out folder that holds a different sample (its private manifest is lost)")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--source-root <dir>", "folder that the run's relative trajectory paths are resolved from (default: the current directory, where label ran)")
    .option("--json", "print the summary as one JSON object");
  addProgressOptions(addWhereOption(cmd))
    .addHelpText("after", SAMPLE_HELP)
    .action(async (o) => {
      const random = intOption(o.random, "--random", 0);
      const disagreement = intOption(o.disagreement, "--disagreement", 0);
      const seed = intOption(o.seed, "--seed", 0);
      if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed must be an integer below 2^53, not "${o.seed}"`);
      if (!(SCALES as readonly string[]).includes(o.scale)) throw new UsageError(`--scale must be six or three, not "${o.scale}"`);
      if (random + disagreement === 0) throw new UsageError("nothing to draw: give --random and/or --disagreement above 0");
      const runDir = runDirOf(o.labelsDir, o.run);
      const strata = typeof o.strata === "string" ? o.strata.split(",") : [];
      // an unfinished run: refused, or drawn with --allow-partial and a WARNING on stdout (./sample-run-state.ts)
      const state = readRunState(runDir);
      const partial = sampleRunState(state, o.run, !!o.allowPartial);
      // unread inputs (a warning) and inputs that moved with nothing lost (a note), as the figure commands say them
      const said = sampleRunStateSaid(state, !!partial);
      if (said.unsay) unsayRemovedStatement(runDir); // no moved note: the readers' input_removed statement stands
      let res;
      // the steps after the read, as --progress says (a status line on a terminal, lines in a log: ./read-progress.ts)
      let step = { done: () => {} };
      const showStep = (what: string) => {
        step.done();
        step = stepLine(what, progressOf(o));
      };
      try {
        res = await withReadProgress(progressOf(o), (progress) => createSample({
          runDir,
          run: o.run,
          random,
          disagreement,
          seed,
          strata,
          scale: o.scale as Scale,
          allowShort: !!o.allowShort,
          outDir: path.resolve(o.out),
          force: !!o.force,
          sourceRoot: o.sourceRoot ? path.resolve(o.sourceRoot) : undefined,
          where: whereOf(o),
          progress,
          step: showStep,
        })).finally(() => step.done());
      } catch (e) {
        // impossible requests and an --out folder holding another sample are usage errors (exit 2); unreadable
        // sources (SourceError) and write failures are fatal (exit 1)
        if (e instanceof SampleError || e instanceof ExportExistsError) throw new UsageError(e.message);
        throw e;
      }
      let d = res.design;
      for (const s of d.short) process.stderr.write(`note: ${showControls(s)} (--allow-short)\n`);
      if (o.json) res.warnings.push(...takeJournalWarnings()); // the journal lines skipped (text mode: main says them)
      if (partial) res.warnings.unshift(partial.warning);
      res.warnings.push(...said.warnings);
      res.warnings.push(...poolWarnings(runDir, disagreement > 0 ? d.committee : undefined)); // a broken member behind the pool (./sample-broken.ts)
      for (const w of res.warnings) warnLine(w);
      if (o.json) {
        printJson({
          run: o.run,
          seed,
          scale: o.scale,
          out: res.outDir,
          items: res.items.length,
          phase1: d.phase1.n,
          phase2: d.phase2.n,
          ...(d.where ? { where: d.where } : {}),
          ...(partial ? { run_state: partial.run_state } : {}),
          ...(said.notes.length ? { notes: said.notes } : {}),
          population: d.population.N,
          // the committee whose disagreements are phase 2's pool (null: the run has no committee verdicts)
          committee: d.committee ?? null,
          disagreement_pool: d.population.N_D,
          duplicates_dropped: d.population.duplicates_dropped.length,
          content_twins: d.population.content_twins,
          uncovered: d.uncovered,
          // cells with inclusion probability above 0 that this draw took nothing from (warned)
          undrawn: undrawnCells(d),
          committee_missing: d.population.committee_missing,
          committee_no_quorum: d.population.committee_no_quorum,
          short: d.short,
          long_tasks: res.long_tasks,
          warnings: res.warnings,
          cells: d.cells,
          shared_files: res.shared_files,
          private_files: res.private_files,
        });
        longTasksNote(res.long_tasks);
        return;
      }
      const rel = path.resolve(res.outDir); // absolute: pasted anywhere it names the folder (as label names its run; out50)
      // strata are named by values from the run files (model, condition): one visible line each (../format/shown.ts)
      d = shownStrings(d);
      const lines = [
        ...(partial ? [`WARNING: ${partial.warning}`] : []),
        ...said.notes.map((n) => `note: ${n}`),
        ...(d.where ? [`${whereLine(d.where)}: the population sampled (recorded in design.json)`] : []),
        `sampled ${res.items.length} of ${d.population.N} trajectories of run ${o.run} (seed ${seed}, scale ${o.scale})`,
        `  phase 1 (random, proportional): ${d.phase1.n} over ${d.phase1.allocation.length} ${d.phase1.allocation.length === 1 ? "stratum" : "strata"}`,
        d.population.N_D === null
          ? "  phase 2 (disagreement): none (the run has no committee verdicts)"
          : `  phase 2 (disagreement): ${d.phase2.n} of ${d.phase2.pool_after_phase1} left in the pool of ${d.population.N_D}` +
            ` (trajectories where the ${d.committee?.name ?? "committee"} was not unanimous)`,
      ];
      if (d.population.duplicates_dropped.length) lines.push(`  ${d.population.duplicates_dropped.length} repeated trajectory ids left out (listed in design.json)`);
      if (d.population.content_twins)
        lines.push(`  ${d.population.content_twins} trajectories have the same content as another run (kept: distinct runs are distinct units)`);
      if (d.population.committee_missing) lines.push(`  ${d.population.committee_missing} trajectories have no committee verdict (stratum U, never in phase 2)`);
      if (d.population.committee_no_quorum)
        lines.push(`  ${d.population.committee_no_quorum} trajectories have a committee verdict without quorum (too few valid votes is not a disagreement: stratum U, never in phase 2)`);
      lines.push("", ...cellTableLines(d));
      lines.push("", `written to ${rel}/`, `  give annotators: ${res.shared_files.join(", ")}`, `  keep private:    ${res.private_files.join(", ")}`);
      process.stdout.write(lines.join("\n") + "\n");
      longTasksNote(res.long_tasks); // after the result, which it is a note on (out51: it came first)
    });
}

/** The note on `n` tasks longer than a spreadsheet cell (none when 0), said after the result it is a note on. */
function longTasksNote(n: number): void {
  if (n > 0)
    process.stderr.write(
      `note: ${n} task(s) are longer than ${SPREADSHEET_CELL_LIMIT} characters, the cell limit of Excel and LibreOffice: label those in Label Studio or from tasks.jsonl, not by opening tasks.csv in a spreadsheet\n`,
    );
}
