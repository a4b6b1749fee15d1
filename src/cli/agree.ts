import path from "node:path";
import fs from "node:fs";
import type { Command } from "commander";
import { readTrajectoryIndex, readVerdicts } from "../store/run-store.js";
import { formatReferenceAgreement, referenceAgreement } from "../agree/reference.js";
import { formatHumanAgreement, humanAgreement, readHumanLabels, HumanLabelsError, type HumanScale } from "../agree/human.js";
import { DEFAULT_BOOTSTRAP } from "../committee/report.js";
import { formatJudgeConcordance, judgeConcordance } from "../agree/pairwise.js";
import { UsageError } from "./errors.js";
import { intOption, printJson, runDirOf } from "./util.js";

/** `ipi-judge agree`: how well a run's labels agree with the benchmark's reference verdicts. */
export function registerAgree(program: Command): void {
  program
    .command("agree")
    .description("Agreement of a run's judges with the benchmark's own verdicts (--reference security) or with human labels (--human FILE).")
    .requiredOption("--run <name>", "the run to read (labels/<run>/)")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--reference <field>", "benchmark verdict to compare with: security (AgentDojo: injected goal achieved)")
    .option("--judge <id>", "only this judge (default: every judge of the run)")
    .option("--judges <a,b>", "concordance of two judges (e.g. an LLM judge and the signature heuristic) on attacked trajectories: kappa and the split of disagreements")
    .option("--human <file>", "human labels: CSV or JSONL rows trajectory_id, annotator, label (optional weight / inclusion_probability, stratum)")
    .option("--scale <scale>", "with --human: six | three | binary (default: the finest scale the labels fit)")
    .option("--bootstrap <n>", "with --human: bootstrap resamples for kappa CIs (0 = none)", String(DEFAULT_BOOTSTRAP.B))
    .option("--seed <s>", "with --human: bootstrap seed", String(DEFAULT_BOOTSTRAP.seed))
    .option("--quorum <n>", "with --human: committee quorum", "2")
    .option("--json", "print one JSON object")
    .addHelpText(
      "after",
      `
--reference security compares label == full_compliance with AgentDojo's security verdict (true = the injected
goal was achieved), and the binary collapse (full or partial compliance) beside it. Unattacked runs and runs
that ended in an error are excluded (their security value is meaningless), with counts by reason; so are judge
errors and refusals. Kappa is null with a reason when it is undefined.

--human FILE compares every judge (repeat 0) and the committee with the human consensus (the unique most
frequent label per trajectory; ties are listed for adjudication and left out), on the six buckets or the
three-way human scale (complied / recognized_and_refused / unaffected; six-bucket labels are collapsed) or
binary. It reports the annotators' own agreement, Cohen's kappa with SE, Wald and bootstrap CIs, AC1, PABAK,
percent agreement, the confusion matrix and missed compromises; with design weights in the file, the
design-weighted (Hajek) estimates beside them.`,
    )
    .action(async (o) => {
      const runDir = runDirOf(o.labelsDir, o.run);
      if (o.human && o.reference) throw new UsageError("give either --reference or --human, not both");
      if (o.judges) return agreeJudges(runDir, o);
      if (o.human) return agreeHuman(runDir, o);
      if (!o.reference) throw new UsageError("give --reference security (human labels: --human FILE)");
      if (!["security", "utility"].includes(o.reference)) throw new UsageError(`--reference must be security or utility, not "${o.reference}"`);
      const [verdicts, index] = await Promise.all([readVerdicts(runDir), readTrajectoryIndex(runDir)]);
      let judges = [...new Set(verdicts.map((v) => v.judge_id))].sort();
      if (o.judge) {
        if (!judges.includes(o.judge)) throw new UsageError(`judge "${o.judge}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
        judges = [o.judge];
      }
      if (judges.length === 0) {
        // No verdict yet (e.g. every item was bad): say so, with the same shape and kappa null with a reason.
        const none = referenceAgreement("(none)", verdicts, index, o.reference);
        const out = { ...none, judge_id: null, kappa_reason: "no_verdicts" };
        if (o.json) printJson(out);
        else process.stdout.write(`run ${o.run} has no verdicts yet (${index.size} trajectories read; see errors.jsonl): nothing to compare\n`);
        return;
      }
      const results = judges.map((j) => referenceAgreement(j, verdicts, index, o.reference));
      if (o.json) {
        if (results.length === 1) printJson(results[0]);
        else printJson({ ...results[0], per_judge: results });
      } else {
        process.stdout.write(results.map(formatReferenceAgreement).join("\n\n") + "\n");
      }
    });
}

/** The `--judges A,B` path of `ipi-judge agree`: two judges' concordance on the binary collapse. */
async function agreeJudges(runDir: string, o: { judges: string; bootstrap: string; seed: string; json?: boolean; run: string }): Promise<void> {
  const pair = o.judges.split(",").map((s) => s.trim()).filter(Boolean);
  if (pair.length !== 2 || pair[0] === pair[1]) throw new UsageError(`--judges takes two different judge ids, e.g. --judges gpt,signature (got "${o.judges}")`);
  const B = intOption(o.bootstrap, "--bootstrap", 0);
  const seed = intOption(o.seed, "--seed", 0);
  const [verdicts, index] = await Promise.all([readVerdicts(runDir), readTrajectoryIndex(runDir)]);
  const judges = [...new Set(verdicts.map((v) => v.judge_id))].sort();
  for (const j of pair) if (!judges.includes(j)) throw new UsageError(`judge "${j}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
  const attacked = [...index.values()].filter((r) => r.attacked).map((r) => r.id);
  const c = judgeConcordance(verdicts, attacked, pair as [string, string], { bootstrap: { B, seed } });
  if (o.json) printJson(c);
  else process.stdout.write(formatJudgeConcordance(c) + "\n");
}

/** The `--human FILE` path of `ipi-judge agree`. */
async function agreeHuman(
  runDir: string,
  o: { human: string; scale?: string; bootstrap: string; seed: string; quorum: string; judge?: string; json?: boolean; run: string },
): Promise<void> {
  if (o.scale !== undefined && !["six", "three", "binary"].includes(o.scale)) throw new UsageError(`--scale must be six, three or binary, not "${o.scale}"`);
  const B = intOption(o.bootstrap, "--bootstrap", 0);
  const seed = intOption(o.seed, "--seed", 0);
  const quorum = intOption(o.quorum, "--quorum", 1);
  let file;
  try {
    file = readHumanLabels(o.human);
  } catch (e) {
    if (e instanceof HumanLabelsError) throw new UsageError(e.message);
    throw e;
  }
  const [verdicts, index] = await Promise.all([readVerdicts(runDir), readTrajectoryIndex(runDir)]);
  const judges = [...new Set(verdicts.map((v) => v.judge_id))].sort();
  if (o.judge && !judges.includes(o.judge)) throw new UsageError(`judge "${o.judge}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
  const report = humanAgreement(file, verdicts, index, {
    file: o.human,
    scale: o.scale as HumanScale | undefined,
    bootstrap: { B, seed },
    quorum,
    judges: o.judge ? [o.judge] : undefined,
  });
  if (o.json) printJson({ ...report, bad_rows: file.bad_rows });
  else {
    process.stdout.write(formatHumanAgreement(report) + "\n");
    if (file.bad_rows.length) {
      process.stdout.write(`\nrows that could not be read (${file.bad_rows.length}):\n`);
      for (const b of file.bad_rows.slice(0, 20)) process.stdout.write(`  line ${b.line}: ${b.message}\n`);
    }
  }
}
