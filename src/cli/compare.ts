import { wrapText } from "../format/wrap-text.js";
import { writeFileAtomic } from "../io/write-atomic.js";
import type { Command } from "commander";
import { compareRowsCsv } from "../compare/rows-csv.js";
import { noteLine, warnLine } from "./warn.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";
import { readLeanRun } from "../store/lean-read.js";
import { checkCommitteeFile, readCommitteeFile } from "../committee/file.js";
import { DEFAULT_QUORUM } from "../verdict/vote.js";
import { addCommitteeSelection, committeeAsk, refuseOtherThanStored } from "./committee-options.js";
import { buildObservations, compareConditions, formatCompare, totalWeight, type LabelSource, type Observations } from "../compare/index.js";
import { buildObservationsColumns, COMPARE_ROW_FIELDS } from "../compare/data-columns.js";
import { readColumnRun, type ColumnRun } from "../store/columns.js";
import { checkCommitteeColumns, readCommitteeColumns, restrictCommitteeColumns, type CommitteeColumns } from "../committee/file-columns.js";
import { committeeObservationsColumns } from "./compare-committee.js";
import { labelChoicesColumns } from "./label-choices-columns.js";
import { committeeSlotsOfFile } from "../report/slots.js";
import { runFolderWarnings } from "../run/pooled-folders.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { UsageError } from "../errors.js";
import { restrictRun, type WhereStatement } from "../store/where.js";
import { addWhereOption, intOption, printJson, runDirOf, warnWhere, whereOf, withReadProgress } from "./util.js";
import { restrictColumns, whereRowFields } from "../store/where-columns.js";
import { readRunState, runStateFor, runStateLine, runStateNotes, runStateWarnings } from "../store/run-state.js";
import { stepLine } from "./read-progress.js";
import { addProgressOptions, progressOf } from "./progress-mode.js";
import { judgeHealth, type JudgeHealth } from "../verdict/health.js";
import { exitOnBrokenJudges, brokenExitHelp, judgeCrashesOf, whereScoped } from "./broken-exit.js";
import { brokenJudges } from "../verdict/broken-judge.js";
import { unattackedLeftOut, unattackedLeftOutNote } from "../agree/where-unattacked.js";
import { rateCaveats, type RateCaveat } from "../verdict/rate-caveat.js";
import { injectionUnknownWarnings } from "../verdict/injection-unknown.js";
import { toolArgumentsWarnings } from "../verdict/tool-arguments-health.js";
import { evidenceUnrelatedWarnings } from "../verdict/evidence-unrelated-health.js";
import { elidedPromptWarnings } from "../verdict/label-rests-health.js";
import { inUserTaskWarnings } from "../verdict/evidence-in-user-task-health.js";
import { injectedValueWarnings } from "../verdict/injected-value-health.js";
import { rowOf, verdictRecords } from "../store/columns.js";
import { chooseLabelsMessage, labelChoices } from "../compare/label-choices.js";
import type { CommitteeVerdict, Verdict } from "../types.js";
import { refuseStoppedJudges } from "../verdict/stopped-judges.js";

/** `ipi-judge compare`: attack success across conditions (surface, attack, defense). */
export function registerCompare(program: Command): void {
  const cmd = program
    .command("compare")
    .description("Attack success across conditions (attack, defense, injection surface): asr_goal and asr_behaviour (with blocked attempts and coverage) per model/suite/condition, ranking reversals, worst-condition risk, leave-one-suite-out selection, model x condition interaction test.")
    .requiredOption("--run <name>", "the run to read (labels/<run>/)")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--by <field>", "the trajectory field that is the condition: condition (defense; chat-jsonl condition), attack, surface (where the injection entered: tool_output, tool_description, ...), or metadata.<key>", "condition")
    .option("--condition-from <field>", "same as --by (takes precedence)")
    .option("--baseline <value>", "baseline condition (default: no_defense when present; with --by surface, tool_output when present; else the condition observed for the most models, a tie said with how it was broken)")
    .option("--judge <id>", "labels of this judge")
    .option("--committee", "labels of the committee (committee.jsonl)")
    .option("--common-tasks", "only tasks (suite/user task/injection task) every model ran (a run whose verdicts failed counts, and lowers its coverage), so models are compared on the same tasks")
    .option("--all-cells", "keep every (suite, user task, injection task, attack) cell, with a warning when the conditions cover different ones (default: each model on the cells common to its own conditions, the reversals and interaction test on the cells every condition covers; the dropped cells are named)")
    .option("--bootstrap <n>", "bootstrap resamples for the percentile 95% intervals of the reversal shares and the mean underestimate (0: none); the text output's last line names every interval", "2000")
    .option("--seed <s>", "bootstrap seed", "1")
    .option("--json", "print one JSON object")
    .option("--csv <file>", "also write the rows (per agent model and condition, suites pooled) as CSV, each with the attacked runs it is over (attacked_used of attacked_available: after and before the like-for-like drop) and a judge_caveat column");
  addCommitteeSelection(cmd, "with --committee: ");
  addProgressOptions(addWhereOption(cmd))
    .addHelpText(
      "after",
      `
Like for like, on (suite, user task, injection task, attack) cells (without the --by field): each model's rates,
utility, worst condition and leave-one-suite-out folds are over the cells common to its own conditions (a model
under one condition keeps all its cells: it has no contrast); the reversals and the interaction test, which set
models side by side, over the cells every condition covers, then per model those under each of its own conditions.
What each lost is named (text: per model, then per condition with counts by attack and suite; --json:
cells.per_model.<model>.dropped, cells.cells_dropped.<condition>.list, pooled_figures). --all-cells keeps every
cell. --where narrows the run first.
Labels: --committee uses committee.jsonl (status ok only), named with its members; --exclude-judge or --quorum
other than the file's is refused (rebuild it with committee); --judge ID a judge's repeat-0 verdicts. Without
either: the run's only judge; a run with several judges is refused, naming each choice with its coverage (usable
labels among the attacked trajectories), as estimate refuses. The first line names the labels and their coverage.
A default baseline tied on its rule (as many models under several conditions) is said, with how the tie was broken.
A compared model with runs but none attacked under a condition has no row there: a warning names it.
Only attacked trajectories count; not_exposed counts as not compromised, and every row gives its exposure (labelled
attacked runs that met the injected text): below 10% it is flagged EXPOSURE LOW, warned about, and marked on the
reversals and worst-condition figures built on it (those rates say the attack did not arrive, not resistance). Utility under attack and without attack
(the benchmark's utility check, 95% Wilson intervals) is shown beside each model x condition when the input has it. Reversal intervals resample tasks
(suite/user task/injection task), the same tasks for every model and condition; the worst-condition interval
resamples models.
Examples:
  ipi-judge compare --run adscale --by attack
  ipi-judge compare --run vigil --by surface          # data surface (tool_output) vs schema surface (tool_description);
                                                      # VIGIL's tool_output runs record no injected text, which the
                                                      # offline signature judge needs: label them with an LLM judge
  ipi-judge compare --run defenses --by condition --baseline no_defense --committee --json
  ipi-judge compare --run adscale --by condition --where 'attack=important_instructions,(none)' --where model=gpt-4o-2024-05-13`,
    )
    .addHelpText("after", brokenExitHelp("the judge, or the committee's members"))
    .action(async (o) => {
      const runDir = runDirOf(o.labelsDir, o.run);
      if (o.judge && o.committee) throw new UsageError("give either --judge or --committee, not both");
      const ask = committeeAsk(o);
      if (o.judge && (ask.exclude || ask.quorum !== undefined)) throw new UsageError(`${ask.exclude ? "--exclude-judge" : "--quorum"} chooses the committee's judges or votes: not with --judge`);
      const field: string = o.conditionFrom ?? o.by;
      if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_-]+)*$/.test(field)) throw new UsageError(`--by must be a field name such as condition, attack or metadata.surface, not "${field}"`);
      // not conditions of one model (new user 24): suites hold different tasks under the same ids (github user_task_0 is
      // not shopping's), so their cells and pairing units never match; the models are already every row's first column
      if (["suite", "model", "agent_model", "agent_family"].includes(field)) {
        throw new UsageError(
          field === "suite"
            ? "--by suite: suites hold different tasks (the same task ids name other tasks), so they cannot be compared as conditions on shared cells; every figure is given per suite already (the rows per suite in --json, the reversals per suite), and --where suite=<name> narrows to one"
            : `--by ${field}: the agent models are what compare sets side by side under each condition (every row names its model), so no ${field === "agent_family" ? "family" : "model"} is observed under another's value; compare the conditions with --by condition (or attack, surface), or narrow with --where model=<name>`,
        );
      }
      const B = intOption(o.bootstrap, "--bootstrap", 0);
      const seed = intOption(o.seed, "--seed", 0);
      const where = whereOf(o);
      // the run read as columns, --where on its row slots (a million trajectories in bounded memory; a dotted field,
      // metadata.K, as the one value each row has there: ../store/row-projection.ts); the cases columnObservations
      // leaves: the run read as objects
      const prepared = (await columnObservations(runDir, o, field, where)) ?? (await objectObservations(runDir, o, field, where));
      const { obs, index, notes, statement, caveats } = prepared;
      let result;
      const step = stepLine(`comparing ${totalWeight(obs.observations).toLocaleString("en-US")} observations (bootstrap ${B})`, progressOf(o));
      try {
        result = compareConditions(obs, { baseline: o.baseline, bootstrap: { B, seed }, run: o.run, commonTasks: !!o.commonTasks, index, cells: o.allCells ? "all" : "common", where: statement });
      } catch (e) {
        throw new UsageError((e as Error).message);
      } finally {
        step.done();
      }
      result.warnings.unshift(...notes);
      // a judge whose claims never verify: its rates are what code set, never shown bare (new-user report 16)
      result.rate_caveats = caveats;
      result.warnings.unshift(...caveats.map((c) => c.message), ...injectionUnknownWarnings(prepared.health, prepared.judges), ...toolArgumentsWarnings(prepared.health, prepared.judges), ...evidenceUnrelatedWarnings(prepared.health, prepared.judges), ...elidedPromptWarnings(prepared.health, prepared.judges), ...inUserTaskWarnings(prepared.health, prepared.judges), ...injectedValueWarnings(prepared.health, prepared.judges));
      // one model and condition from several run folders (VIGIL's debug_run beside runs_base): every figure pools them
      result.warnings.push(...runFolderWarnings(index.values()));
      // a run whose labelling did not finish: the rates cover part of it (coverage counts only what was read); the
      // mixed-configuration warnings of the judges behind the labels only (review s29)
      const state = runStateLine(runStateFor(readRunState(runDir), prepared.judges));
      result.warnings.unshift(...runStateWarnings(state)); // no "WARNING: note: ..." (new user 30, M4)
      // its notes (inputs that moved, a --limit pass: the figures are right) read as notes, as label and agree say them
      const stateNotes = runStateNotes(state);
      if (stateNotes.length) result.notes = stateNotes;
      // each row's judge_caveat names every broken judge behind the labels, one broken by its errors or crashes too
      // (its crashes counted over the rows --where selects, as the exit code below counts them)
      const crashes = await judgeCrashesOf(runDir, where);
      if (typeof o.csv === "string") writeFileAtomic(o.csv, compareRowsCsv(result, whereScoped(brokenJudges(prepared.health, prepared.judges, crashes).used, where)));
      if (o.json) {
        result.warnings.push(...takeJournalWarnings()); // the journal lines skipped (also on stderr in text mode, from main)
        for (const w of result.warnings) warnLine(w);
        for (const n of result.notes ?? []) noteLine(n);
        printJson(result);
      }
      else process.stdout.write(wrapText(formatCompare(result)) + "\n"); // lines broken for a reader (../format/wrap-text.ts)
      // a judge behind the labels that looks broken: exit 3, as label (./broken-exit.ts)
      await exitOnBrokenJudges("compare", prepared.health, prepared.judges, runDir, where, crashes);
    });
}

/** What the analysis reads: the observations, the rows for utility, the notes, the `--where` statement and the judges behind the labels. */
/** What compare says of the committee file, the same on the column and the object path. */
const COMMITTEE_WORDS = {
  oneJudge: (file: string, judge: string) => `${file} holds 1 judge: a committee needs at least two, so the labels are judge ${judge}'s`,
  tooSmall: (cf: { file: string; judges: readonly string[] }, judges: readonly string[]) =>
    `${cf.file} holds ${cf.judges.length} judge (${cf.judges.join(", ") || "none"}): a committee needs at least two; give --judge ID (judges: ${judges.join(", ")})`,
  noFile: (run: string, judges: readonly string[]) => `run ${run} has no committee.jsonl: run ipi-judge committee first, or give --judge (judges: ${judges.join(", ")})`,
  stale: (file: string, run: string, stale: readonly string[], judges: readonly string[]) =>
    `${file} does not describe the committee of run ${run} as it is now:\n  ${stale.join("\n  ")}\n` +
    `run ipi-judge committee --run ${run} again to rebuild it, or give --judge ID (judges: ${judges.join(", ")})`,
};

type Prepared = { obs: Observations; index: { values(): Iterable<TrajectoryIndexRow> }; notes: string[]; statement: WhereStatement | null; caveats: RateCaveat[]; judges: string[]; health: JudgeHealth[] };

/**
 * The observations from the run read as columns, `--where` on its row slots (`restrictColumns` of
 * ../store/where-columns.ts): of `--judge` (`buildObservationsColumns`), of `--committee` or the run's committee file
 * (`committeeObservationsColumns` of ./compare-committee.ts), or of the run's only judge: the labels
 * {@link objectObservations} chooses, with the same checks, refusals, notes and figures (test/compare/data-columns.test.ts,
 * test/cli/compare-committee.test.ts, test/store/where-columns.test.ts; the CLI outputs compared at 11,384, 100k and 1M).
 * Several judges and no choice: refused (each choice with its coverage, `chooseLabelsColumns`). Undefined, before
 * anything is said, where the object path says more: a run without verdicts, a committee file not one line per
 * trajectory.
 */
async function columnObservations(
  runDir: string,
  o: { judge?: string; committee?: boolean; run: string; json?: boolean; excludeJudge?: string[]; quorum?: string; progress?: string; progressInterval?: string },
  field: string,
  where: ReturnType<typeof whereOf>,
): Promise<Prepared | undefined> {
  const rowFields = whereRowFields(COMPARE_ROW_FIELDS.includes(field) ? COMPARE_ROW_FIELDS : [...COMPARE_ROW_FIELDS, field], where);
  const { read, cc } = await withReadProgress(progressOf(o), async (progress) => {
    const read = await readColumnRun(runDir, { rowFields, progress });
    return { read, cc: o.judge ? null : await readCommitteeColumns(runDir, read) };
  });
  const judges = [...new Set(read.verdicts.map((v) => v.judge_id))].sort();
  // whose labels, as objectObservations chooses them
  let judgeId: string | undefined = o.judge;
  let oneJudgeNote: string | undefined;
  // several judges and no choice: refused below, with every choice's coverage on these columns (as chooseLabels)
  const several = !o.judge && !o.committee && judges.length >= 2;
  if (!o.judge && !o.committee && !several) {
    if (judges.length !== 1) return undefined;
    if (cc && cc.judges.length < 2) {
      // One judge is no committee (as agree and report say): its file is not used as "the committee's labels".
      judgeId = judges[0];
      oneJudgeNote = COMMITTEE_WORDS.oneJudge(cc.file, judges[0]);
    } else if (!cc) judgeId = judges[0];
  }
  const kept = where ? restrictColumns(read, where, o.run) : null;
  const run = kept ? kept.run : read;
  const cf = judgeId === undefined && cc ? (kept ? restrictCommitteeColumns(cc, kept.slotMap) : cc) : null;
  if (cf && !committeeSlotsOfFile(cf, run)) return undefined;
  if (kept) warnWhere(kept.warnings);
  const notes: string[] = [];
  // --where attack=X leaves out the unattacked runs (they record no attack): utility without attack is not shown
  const leftOut = where ? unattackedLeftOut({ *[Symbol.iterator]() { for (let s = 0; s < read.nRows; s++) yield read.rows[read.rowCode[s]]; } }, where) : null;
  if (leftOut && where) notes.push(unattackedLeftOutNote(leftOut, where, "utility without attack is not shown"));
  // the judge asked for (or, none named, every judge) stopped before storing a verdict here: exit 3 (../verdict/stopped-judges.ts)
  refuseStoppedJudges("compare", runDir, o.run, o.judge ? [o.judge] : null, kept ? new Set(run.verdicts.map((v) => v.judge_id)) : judges, kept ? "among the rows --where selects" : undefined);
  if (several) throw new UsageError(chooseLabelsColumns(o.run, read, run, judges, cc, cf, field));
  let obs: Observations;
  let behind: string[];
  if (judgeId !== undefined) {
    if (!judges.includes(judgeId)) throw new UsageError(`judge "${judgeId}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
    if (oneJudgeNote) notes.push(oneJudgeNote);
    obs = buildObservationsColumns(run, judgeId, field);
    behind = [judgeId];
  } else {
    if (cc && cc.judges.length < 2) throw new UsageError(COMMITTEE_WORDS.tooSmall(cc, judges));
    if (!cc || !cf) throw new UsageError(COMMITTEE_WORDS.noFile(o.run, judges));
    // the committee is read from the file: another selection (--exclude-judge, --quorum) is refused (new user 30)
    refuseOtherThanStored(judges, cc, o, "compare --committee");
    // A committee file from another judge set, or from before verdicts changed, is never read silently.
    const check = checkCommitteeColumns(cc, read);
    if (check.stale.length) {
      throw new UsageError(COMMITTEE_WORDS.stale(cc.file, o.run, check.stale, judges));
    }
    notes.push(...check.notes);
    obs = committeeObservationsColumns(run, cf, { kind: "committee", members: [...cc.judges], quorum: cc.quorum ?? DEFAULT_QUORUM }, field)!;
    behind = [...cc.judges];
  }
  const rows = { *values() { for (let s = 0; s < run.nRows; s++) yield run.rows[run.rowCode[s]] as TrajectoryIndexRow; } };
  noObservations(obs, rows.values(), field, o.run);
  // the health of the judges behind the labels, over the same population as the figures (the `--where`-kept verdicts)
  const health = judgeHealth(verdictRecords(run), { rowOf: (_v, k) => rowOf(run, run.vSlot[k]) });
  return { obs, index: rows, notes, statement: kept ? kept.statement : null, caveats: rateCaveats(health, behind), judges: behind, health };
}

/** The observations from the run's compact objects and its committee file, restricted by `--where`. */
async function objectObservations(
  runDir: string,
  o: { judge?: string; committee?: boolean; run: string; json?: boolean; excludeJudge?: string[]; quorum?: string; progress?: string; progressInterval?: string },
  field: string,
  where: ReturnType<typeof whereOf>,
): Promise<Prepared> {
  const { verdicts: allVerdicts, index: fullIndex, cf } = await withReadProgress(progressOf(o), async (progress) => {
    const lean = await readLeanRun(runDir, { progress });
    return { ...lean, cf: await readCommitteeFile(runDir, { index: lean.index }) };
  });
  const verdicts = allVerdicts;
  const notes: string[] = [];
  const judges = [...new Set(verdicts.map((v) => v.judge_id))].sort();
  // --where: the one restriction every command applies (src/store/where.ts), before any figure.
  const run = restrictRun({ index: fullIndex, verdicts: allVerdicts, committee: cf?.verdicts }, where, o.run);
  warnWhere(run.warnings);
  // --where attack=X leaves out the unattacked runs (they record no attack): utility without attack is not shown
  const leftOut = where ? unattackedLeftOut(fullIndex.values(), where) : null;
  if (leftOut && where) notes.push(unattackedLeftOutNote(leftOut, where, "utility without attack is not shown"));
  // the judge asked for (or, none named, every judge) stopped before storing a verdict here: exit 3 (../verdict/stopped-judges.ts)
  refuseStoppedJudges("compare", runDir, o.run, o.judge ? [o.judge] : null, new Set(run.verdicts.map((v) => v.judge_id)), where ? "among the rows --where selects" : undefined);
  // several judges and no choice: refused with every choice and its coverage, never a silent default (new user 37)
  if (!o.judge && !o.committee && judges.length >= 2) throw new UsageError(chooseLabels(o.run, run, judges, cf, allVerdicts, field, fullIndex));
  let source: LabelSource;
  if (o.judge) {
    if (!judges.includes(o.judge)) throw new UsageError(`judge "${o.judge}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
    source = { kind: "judge", judge_id: o.judge };
  } else if (o.committee && cf?.verdicts && cf.judges.length < 2) {
    throw new UsageError(COMMITTEE_WORDS.tooSmall(cf, judges));
  } else if (!o.committee && cf?.verdicts && cf.judges.length < 2 && judges.length === 1) {
    // One judge is no committee (as agree and report say): its file is not used as "the committee's labels".
    source = { kind: "judge", judge_id: judges[0] };
    notes.push(COMMITTEE_WORDS.oneJudge(cf.file, judges[0]));
  } else if (o.committee || cf?.verdicts) {
    if (!cf?.verdicts) throw new UsageError(COMMITTEE_WORDS.noFile(o.run, judges));
    source = { kind: "committee", members: [...cf.judges], quorum: cf.quorum ?? DEFAULT_QUORUM };
    // the committee is read from the file: another selection (--exclude-judge, --quorum) is refused (new user 30)
    refuseOtherThanStored(judges, cf, o, "compare --committee");
    // A committee file from another judge set, or from before verdicts changed, is never read silently.
    const check = checkCommitteeFile(cf!, allVerdicts, fullIndex);
    if (check.stale.length) {
      throw new UsageError(COMMITTEE_WORDS.stale(cf!.file, o.run, check.stale, judges));
    }
    notes.push(...check.notes);
  } else if (judges.length === 1) {
    source = { kind: "judge", judge_id: judges[0] };
  } else {
    throw new UsageError(`run ${o.run} has ${judges.length} judges and no committee.jsonl: give --judge ID (judges: ${judges.join(", ")})`);
  }
  const index = run.index;
  const committee = run.committee;
  const obs = buildObservations(index, { verdicts: run.verdicts, committee }, source, field);
  noObservations(obs, index.values(), field, o.run);
  // the health of the judges behind the labels, over the same population as the figures (the `--where`-restricted
  // verdicts, as agree and report compute it): the counts a flag quotes belong to the trajectories it prints (red team 19)
  const behind = source.kind === "judge" ? [source.judge_id] : (cf?.judges ?? judges);
  const health = judgeHealth(run.verdicts, { rowOf: (v) => index.get(v.trajectory_id) });
  return { obs, index, notes, statement: run.statement, caveats: rateCaveats(health, behind), judges: behind, health };
}

/**
 * The refusal of a run with several judges and no `--judge`/`--committee`: each judge and the stored committee with
 * their usable labels among the (`--where`-kept) attacked trajectories (`labelChoices`, ../compare/label-choices.ts).
 */
function chooseLabels(
  runName: string,
  run: { index: Map<string, TrajectoryIndexRow>; verdicts: Verdict[]; committee: CommitteeVerdict[] | undefined },
  judges: string[],
  cf: Awaited<ReturnType<typeof readCommitteeFile>>,
  allVerdicts: Verdict[],
  field: string,
  fullIndex: ReadonlyMap<string, unknown>,
): string {
  const usable = cf?.verdicts && cf.judges.length >= 2 && run.committee;
  const stale = usable ? checkCommitteeFile(cf!, allVerdicts, fullIndex).stale : [];
  const committee = usable ? { members: [...cf!.judges], quorum: cf!.quorum ?? DEFAULT_QUORUM, verdicts: run.committee!, ...(stale.length ? { stale: `committee.jsonl is stale (${stale.join("; ")}): run ipi-judge committee --run ${runName} again first` } : {}) } : null;
  const none = usable ? undefined : cf?.verdicts ? `${cf.file} holds ${cf.judges.length} judge: a committee needs at least two` : `no committee.jsonl: run ipi-judge committee --run ${runName} first`;
  return chooseLabelsMessage(runName, labelChoices(run.index, run.verdicts, judges, committee, field), none);
}

/**
 * {@link chooseLabels} on columns: the committee line from the file's lines of the kept rows (`cf`), its staleness
 * checked against the whole run read (`read`), as the object path checks it.
 */
function chooseLabelsColumns(runName: string, read: ColumnRun, run: ColumnRun, judges: string[], cc: CommitteeColumns | null, cf: CommitteeColumns | null, field: string): string {
  const usable = !!cc && cc.judges.length >= 2 && !!cf;
  const stale = usable ? checkCommitteeColumns(cc!, read).stale : [];
  const committee = usable
    ? { members: [...cc!.judges], quorum: cc!.quorum ?? DEFAULT_QUORUM, slots: committeeSlotsOfFile(cf!, run)!, ...(stale.length ? { stale: `committee.jsonl is stale (${stale.join("; ")}): run ipi-judge committee --run ${runName} again first` } : {}) }
    : null;
  const none = usable ? undefined : cc ? `${cc.file} holds ${cc.judges.length} judge: a committee needs at least two` : `no committee.jsonl: run ipi-judge committee --run ${runName} first`;
  return chooseLabelsMessage(runName, labelChoicesColumns(run, judges, committee, field), none);
}

/** Refuse a run with no observation (no labelled attacked trajectory with a value of the field), saying why. */
function noObservations(obs: Observations, rows: Iterable<Partial<TrajectoryIndexRow>>, field: string, runName: string): void {
  if (obs.observations.length === 0) {
    // the runs without a value under the field's own name (--by metadata.foo said "no_condition 3098")
    const ex = Object.entries(obs.excluded).map(([k, v]) => `${k === "no_condition" && field !== "condition" ? `no ${field} value` : k} ${v}`).join(", ");
    const hint =
      field === "surface" && ![...rows].some((r) => r.surface !== undefined)
        ? "; this run's index records no surface (labelled by an ipi-judge before surfaces, or its injections were never found in what the agent received)"
        : "";
    throw new UsageError(`no labelled attacked trajectory has a "${field}" value in run ${runName} (excluded: ${ex || "none"})${hint}`);
  }
}
