import { brokenExitHelp } from "./broken-exit.js";
import { addProgressOptions } from "./progress-mode.js";
import type { Command } from "commander";
import { ATTACK_REFERENCE_FIELDS } from "../agree/reference.js";
import { agreeReference } from "./agree-reference.js";
import { agreeJudges } from "./agree-judges.js";
import { agreeHuman } from "./agree-human.js";
import { DEFAULT_BOOTSTRAP } from "../committee/report.js";
import { UsageError } from "../errors.js";
import { addWhereOption, runDirOf } from "./util.js";
import { addCommitteeSelection } from "./committee-options.js";

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
