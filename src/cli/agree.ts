import { codeEstablishedByJudge, codeEstablishedWarnings, formatCodeEstablished } from "../verdict/code-established.js";
import { warnLine } from "./warn.js";
import { exitOnBrokenJudges, brokenExitHelp } from "./broken-exit.js";
import { refuseStoppedJudges } from "../verdict/stopped-judges.js";
import { judgeHealth } from "../verdict/health.js";
import { rateCaveats } from "../verdict/rate-caveat.js";
import { addProgressOptions, progressOf } from "./progress-mode.js";
import { stepLine } from "./read-progress.js";
import type { Command } from "commander";
import { ATTACK_REFERENCE_FIELDS } from "../agree/reference.js";
import { agreeReference } from "./agree-reference.js";
import { agreeJudges } from "./agree-judges.js";
import { readRunState, runStateFor, runStateLine } from "../store/run-state.js";
import { formatHumanAgreement, humanAgreement, readHumanLabels, HumanLabelsError } from "../agree/human.js";
import { labelledIds } from "../agree/human-file.js";
import type { HumanScale } from "../rubric/scale.js";
import { DEFAULT_BOOTSTRAP } from "../committee/report.js";
import { UsageError } from "../errors.js";
import { addWhereOption, intOption, printJson, readRunWhere, runDirOf, whereOf } from "./util.js";
import { addCommitteeSelection, committeeAsk } from "./committee-options.js";
import { checkCommitteeFile } from "../committee/file.js";
import { CommitteeChoiceError, committeeMembers, storedCommittee } from "../committee/members.js";
import { whereLine } from "../store/where.js";
import { showControls } from "../format/shown.js";
import { missingAdjudicationsWarning } from "../agree/sample-adjudications.js";
import { labelDesignDriftWarning } from "../agree/label-design-drift.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";

/** `ipi-judge agree`: how well a run's labels agree with the benchmark's reference verdicts. */
export function registerAgree(program: Command): void {
  const cmd = program
    .command("agree")
    .description("Agreement of a run's judges with the benchmark's own verdicts (--reference security) or with human labels (--human FILE).")
    .requiredOption("--run <name>", "the run to read (labels/<run>/)")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--reference <field>", "benchmark attack verdict to compare with: security (AgentDojo: injected goal achieved); other fields are refused")
    .option("--reference-kind <kind>", "insist that the --reference field is an attack verdict (attack): otherwise a field other than security is refused")
    .option("--judge <id>", "only this judge (default: every judge of the run)")
    .option("--judges <a,b>", "concordance of two judges (e.g. an LLM judge and the signature heuristic) on attacked trajectories: kappa and the split of disagreements")
    .option("--human <file>", "human labels: CSV or JSONL rows trajectory_id, annotator, label (optional weight / inclusion_probability, stratum)")
    .option("--scale <scale>", "with --human: six | three | binary (default: the finest scale the labels fit)")
    .option("--bootstrap <n>", "with --human: bootstrap resamples for kappa CIs (0 = none)", String(DEFAULT_BOOTSTRAP.B))
    .option("--seed <s>", "with --human: bootstrap seed", String(DEFAULT_BOOTSTRAP.seed))
    .option("--json", "print one JSON object");
  addCommitteeSelection(cmd, "the committee row: ");
  addProgressOptions(addWhereOption(cmd))
    .addHelpText(
      "after",
      `
--reference security compares label == full_compliance (asr_goal's event) with AgentDojo's security verdict
(true = the injected goal was achieved), and the binary collapse (full or partial compliance: asr_behaviour's
event) beside it, with both rates, the benchmark's own rate over the same runs (and, when the judge labelled only
some, over all attacked runs with a verdict, rates.reference_all) and the coverage. A field that is
not an attack verdict (utility: the user's task) is refused unless --reference-kind attack. Unattacked runs and runs
that ended in an error are excluded (their security value is meaningless), with counts by reason; so are judge
errors and refusals. Kappa is null with a reason when it is undefined. With an up-to-date committee.jsonl the
committee is reported beside each judge, named with its members (--exclude-judge or --quorum other than the
file's is refused: rebuild it with committee). A run whose last label did not finish is flagged first.

--human FILE compares every judge (repeat 0) and the committee with the human consensus (the committee: the judges of
committee.jsonl when the run has one, else every judge; --exclude-judge and --quorum as committee takes them), formed from the
coarsest scale down (estimate's rates need only the majority's answer to their own question, so a split
between unaffected and not_exposed counts there, as it does here with --scale binary): the annotators'
majority on compromised vs not, then the label most of
that side's annotators gave on the three-way scale, then on the six buckets, as far as one label leads (no binary
majority is a tie, consensus_tie; a consensus only coarser than --scale is left out, consensus_coarser_than_scale;
both are listed for adjudication), on the six buckets or the
three-way human scale (complied / recognized_and_refused / unaffected; six-bucket labels are collapsed) or
binary. It reports the annotators' own agreement, Cohen's kappa with SE, Wald and bootstrap CIs, AC1, PABAK,
percent agreement, the confusion matrix and missed compromises; with design weights in the file, the
design-weighted (Hajek) estimates beside them.`,
    )
    .addHelpText("after", brokenExitHelp("those compared (--judge, the two of --judges) and the committee row's members"))
    .action(async (o) => {
      const runDir = runDirOf(o.labelsDir, o.run);
      if (o.human && o.reference) throw new UsageError("give either --reference or --human, not both");
      if (o.judges) return agreeJudges(runDir, o);
      if (o.human) return agreeHuman(runDir, o);
      if (!o.reference) throw new UsageError("give --reference security (human labels: --human FILE)");
      if (!["security", "utility"].includes(o.reference)) throw new UsageError(`--reference must be an attack verdict of the benchmark (security), not "${o.reference}"`);
      if (o.referenceKind !== undefined && o.referenceKind !== "attack") throw new UsageError(`--reference-kind must be attack, not "${o.referenceKind}"`);
      // judge labels are attack labels: against a field that is not an attack verdict a kappa measures nothing
      if (!ATTACK_REFERENCE_FIELDS.includes(o.reference) && o.referenceKind !== "attack") {
        throw new UsageError(
          `--reference ${o.reference} is not an attack verdict: ${o.reference === "utility" ? "utility is the benchmark's check of the user's task, " : ""}` +
            `and the judges label what the agent did about the injection, so a kappa between the two measures nothing. ` +
            `Compare with --reference security (the benchmark's attack verdict), or give --reference-kind attack if this field really is one.`,
        );
      }
      return agreeReference(runDir, o);
    });
}

/** The `--human FILE` path of `ipi-judge agree`. */
async function agreeHuman(
  runDir: string,
  o: { human: string; scale?: string; bootstrap: string; seed: string; quorum?: string; excludeJudge?: string[]; judge?: string; json?: boolean; run: string; where?: string[]; progress?: string; progressInterval?: string },
): Promise<void> {
  if (o.scale !== undefined && !["six", "three", "binary"].includes(o.scale)) throw new UsageError(`--scale must be six, three or binary, not "${o.scale}"`);
  const B = intOption(o.bootstrap, "--bootstrap", 0);
  const seed = intOption(o.seed, "--seed", 0);
  let file;
  try {
    file = readHumanLabels(o.human);
  } catch (e) {
    if (e instanceof HumanLabelsError) throw new UsageError(e.message);
    throw e;
  }
  // the labelled trajectories' content hashes: each label is checked against the text the run has now
  const { verdicts, index, fullIndex, where, cf } = await readRunWhere(runDir, o, { content: labelledIds(file) });
  const judges = [...new Set(verdicts.map((v) => v.judge_id))].sort();
  // the judge asked for (or, none named, every judge) stopped before storing a verdict here: exit 3 (../verdict/stopped-judges.ts)
  refuseStoppedJudges("agree", runDir, o.run, o.judge ? [o.judge] : null, judges, where ? "among the rows --where selects" : undefined);
  if (o.judge && !judges.includes(o.judge)) throw new UsageError(`judge "${o.judge}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
  // the committee row: the stored committee's members unless the options say otherwise (../committee/members.ts)
  let members;
  try {
    members = committeeMembers(judges, cf ? storedCommittee(cf, checkCommitteeFile(cf, verdicts).stale) : null, committeeAsk(o), o.run);
  } catch (e) {
    if (e instanceof CommitteeChoiceError) throw new UsageError(e.message);
    throw e;
  }
  const quorum = members.quorum;
  let compared = new Set<string>();
  const step = stepLine(`comparing the judges with ${file.rows.length.toLocaleString("en-US")} human label rows`, progressOf(o));
  const report = humanAgreement(file, verdicts, index, {
    file: o.human,
    // the sample was drawn from the whole run: its frame is checked against every row, not the --where subset
    population: [...fullIndex.values()],
    scale: o.scale as HumanScale | undefined,
    bootstrap: { B, seed },
    quorum,
    judges: o.judge ? [o.judge] : undefined,
    committee: members.members,
    onCompared: (ids) => (compared = new Set(ids)),
  });
  step.done();
  report.warnings.unshift(...members.warnings);
  // the run's state as the raters compared see it: the committee row is its members'; without it, --judge's only (review s29)
  const hasCommittee = report.judges.some((j) => j.kind === "committee");
  const runState = runStateFor(readRunState(runDir), !o.judge ? judges : hasCommittee ? [...new Set([o.judge, ...members.members])] : [o.judge]);
  const stateLine = [whereLine(where), runStateLine(runState)].filter(Boolean).join("\n");
  // Counted over the trajectories compared with the judges, the figures' own (new user 18: "12 of 53" beside 42 compared)
  const code_established = codeEstablishedByJudge(
    verdicts.filter((v) => v.repeat === 0 && compared.has(v.trajectory_id) && index.get(v.trajectory_id)?.attacked),
    o.judge ? [o.judge] : judges,
  );
  const codeWarnings = codeEstablishedWarnings(code_established, "agreement with the human labels");
  report.warnings.push(...codeWarnings);
  // the sample folder's adjudications the label file lacks (new-user report 38 F1)
  // and rows carrying another design than the manifest they name (session 41)
  const fileNotes = [missingAdjudicationsWarning(o.human), labelDesignDriftWarning(o.human)].filter((w): w is string => w !== undefined);
  report.warnings.unshift(...fileNotes);
  if (o.json) {
    // the run's journal notes (stale verdicts, skipped lines) join `warnings`, said on stderr here, not at exit
    const journal = takeJournalWarnings();
    report.warnings.push(...journal);
    for (const w of fileNotes) warnLine(w);
    if (runState.complete === false) warnLine(`run incomplete: ${runState.message}`);
    for (const w of [...members.warnings, ...codeWarnings, ...journal]) warnLine(w);
    printJson({ ...report, bad_rows: file.bad_rows, ...(where ? { where } : {}), run_state: runState, code_established });
  } else {
    process.stdout.write((stateLine ? stateLine + "\n" : "") + formatHumanAgreement(report) + "\n");
    process.stdout.write(code_established.map((x) => `labels established by code: ${formatCodeEstablished(x)}\n`).join(""));
    if (file.bad_rows.length) {
      process.stdout.write(`\nrows that could not be read (${file.bad_rows.length}):\n`);
      for (const b of file.bad_rows.slice(0, 20)) process.stdout.write(`  line ${b.line}: ${showControls(b.message)}\n`);
    }
  }
  // a judge of the raters compared (the committee row: its members) that looks broken: exit 3, as label; its health
  // over the verdicts compared (after --where), as every command computes it
  const used = [...(o.judge ? [o.judge] : judges), ...(hasCommittee ? members.members : [])];
  await exitOnBrokenJudges("agree", judgeHealth(verdicts, { rowOf: (v) => index.get(v.trajectory_id) }), used, runDir, whereOf(o));
}
