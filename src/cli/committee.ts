import fs from "node:fs";
import { warnLine } from "./warn.js";
import { exitOnBrokenJudges, brokenExitHelp } from "./broken-exit.js";
import { refuseStoppedJudges, whyJudgesStopped } from "../verdict/stopped-judges.js";
import { committeeJudges, committeeWithout, withVerdicts } from "./committee-stopped.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";
import path from "node:path";
import type { Command } from "commander";
import { readColumnRun } from "../store/columns.js";
import { loadJudgesConfig } from "../config/judges.js";
import { DEFAULT_BOOTSTRAP, formatCommitteeReport } from "../committee/report.js";
import { COMMITTEE_ROW_FIELDS, committeeReportColumns } from "../committee/report-columns.js";
import { writeCommitteeColumns } from "../committee/file.js";
import { stepLine } from "./read-progress.js";
import { addProgressOptions, progressOf } from "./progress-mode.js";
import { poolingOf } from "../format/pooled-text.js";
import { fullGc, heapGcTrigger } from "../io/heap-gc.js";
import { readRunState } from "../store/run-state.js";
import { UsageError } from "../errors.js";
import { intOption, printJson, runDirOf, withReadProgress } from "./util.js";

/** `ipi-judge committee`: committee verdicts, per-judge figures, agreement, leniency and test-retest of a run. */
export function registerCommittee(program: Command): void {
  const cmd = program
    .command("committee")
    .description("Combine a run's judges into committee verdicts (labels/<run>/committee.jsonl) and report their agreement, self-family leniency and test-retest.")
    .requiredOption("--run <name>", "the run to read (labels/<run>/)")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--quorum <n>", "fewest valid votes for a committee label", "2")
    .option("--judges <file>", "judges config whose `families` map overrides the built-in agent-family table")
    .option("--bootstrap <n>", "bootstrap resamples for CIs (0 = none)", String(DEFAULT_BOOTSTRAP.B))
    .option("--seed <s>", "bootstrap seed", String(DEFAULT_BOOTSTRAP.seed))
    .option("--exclude-judge <id>", "leave a judge out of the committee (repeatable), e.g. one flagged as looking broken", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--json", "print one JSON object");
  addProgressOptions(cmd)
    .addHelpText(
      "after",
      `
Committee label: a bucket with a strict majority of the valid votes; otherwise the binary majority
(compromised = full or partial compliance) decides and the label is the most-voted bucket on that side
(ties broken by precedence); an exact binary tie is "disputed"; fewer valid votes than --quorum is
"no_quorum". Judge errors, refusals and unverified verdicts are not votes. A judge that looks broken (most
verdicts downgraded, errors or unverified after 50 verdicts, quotes that rarely verify, or no usable verdict) is
named in the warnings; --exclude-judge ID leaves it out. Votes use repeat 0; with label --repeats K the
report adds each judge's test-retest agreement.`,
    )
    .addHelpText("after", brokenExitHelp("the committee's members, every judge of the run but one left out with --exclude-judge (one of them stopped before its first verdict: exit 3 at once, even beside working judges)"))
    .action(async (o) => {
      const runDir = runDirOf(o.labelsDir, o.run);
      const quorum = intOption(o.quorum, "--quorum", 1);
      const B = intOption(o.bootstrap, "--bootstrap", 0);
      const seed = intOption(o.seed, "--seed", 0);
      const families = o.judges ? loadJudgesConfig(o.judges, { checkKeys: false }).families : {};
      // the judges store.json names already tell a quorum no trajectory can reach: refused before the verdicts are read
      // (new user 48: 11 s of reading a one-judge run, then the refusal), unless one of them stopped (exit 3 below)
      const asked = committeeJudges(runDir, o.excludeJudge);
      if (asked.length > 0 && quorum > asked.length && !asked.some((j) => whyJudgesStopped(runDir).has(j))) throw new UsageError(quorumText(quorum, asked));
      const run = await withReadProgress(progressOf(o), (progress) => readColumnRun(runDir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [], progress }));
      const show = progressOf(o);
      const runJudges = new Set<string>();
      for (let i = 0; i < run.nVerdicts; i++) runJudges.add(run.verdicts[run.vCode[i]].judge_id);
      const members = [...runJudges].filter((j) => !(o.excludeJudge as string[]).includes(j));
      if (members.length === 0) {
        // no judge to combine: never a committee file of 0 judges read later as a result (its quorum warning misled).
        // The judges stopped before storing a verdict: exit 3 naming each and why (../verdict/stopped-judges.ts)
        refuseStoppedJudges("committee", runDir, o.run, null, runJudges);
        if (runJudges.size === 0) throw new Error(`run ${o.run} has no verdicts: no committee to form (${path.join(runDir, "committee.jsonl")} not written)`);
        throw new UsageError(`--exclude-judge leaves out every judge of run ${o.run} (${[...runJudges].sort().join(", ")}): no committee to form (committee.jsonl not written)`);
      }
      // a judge of the run stopped before its first verdict beside working ones (task s41 #1): the committee of the
      // others is not the one labelled (a 1-judge "committee", or other members, quorum and agreement): exit 3 naming
      // it, as every figure command does, unless left out with --exclude-judge
      refuseStoppedJudges("committee", runDir, o.run, committeeJudges(runDir, o.excludeJudge), runJudges, undefined, {
        asked: "of the committee",
        also: (stopped) => committeeWithout(stopped, members),
      });
      // a quorum no trajectory can reach: a file of no_quorum lines only, which every reader then explains away (new
      // user 44: exit 0 and 10,018 no_quorum lines for a one-judge run at the default --quorum 2)
      if (quorum > members.length) throw new UsageError(quorumText(quorum, members));
      let built: ReturnType<typeof committeeReportColumns>;
      const what = `the committee of ${run.nRows.toLocaleString("en-US")} trajectories (${run.nVerdicts.toLocaleString("en-US")} verdicts; bootstrap ${B})`;
      let step = stepLine(what, show);
      // between the analysis steps, a full collection when the heap has grown enough (label's rule): each step leaves
      // arrays of a million entries behind, which V8 would otherwise let pile up (1M: peak RSS 560 MB without it)
      const gcFn = fullGc();
      const gc = gcFn ? heapGcTrigger(gcFn) : undefined;
      const onStep = (s: string) => {
        gc?.check();
        step.done();
        step = stepLine(`${what}: ${s}`, show);
      };
      try {
        built = committeeReportColumns(run, { run: o.run, quorum, families, bootstrap: { B, seed }, excludeJudges: withVerdicts(runDir, o.excludeJudge, runJudges), runState: readRunState(runDir), step: onStep });
      } catch (e) {
        if (e instanceof RangeError && /^no judge /.test(e.message)) throw new UsageError(`--exclude-judge: ${e.message}`);
        throw e;
      } finally {
        step.done();
      }
      const { report, committee } = built;
      const file = path.join(runDir, "committee.jsonl");
      const writing = stepLine(`writing ${path.basename(file)}`, show);
      writeCommitteeColumns(file, committee, (s) => run.ids.id(s), { judges: report.judges.map((j) => j.id), runJudges: [...runJudges], quorum });
      writing.done();
      // warnings go to stderr in both modes, once (the text report says how many, not each again); --json: the
      // journal lines skipped too, and the report's `warnings`
      if (o.json) report.warnings.push(...takeJournalWarnings());
      for (const w of report.warnings) warnLine(w);
      // the committee's rates and agreement are one figure over every model and defense of the run: said in one line
      const pooling = poolingOf(
        (function* () {
          for (let slot = 0; slot < run.nRows; slot++) yield run.rows[run.rowCode[slot]];
        })(),
        "the committee's rates and agreement figures",
      );
      if (o.json) printJson({ ...report, pooling, committee_file: file });
      else {
        // after the report's first line ("committee of run R: ...")
        const text = formatCommitteeReport(report, { warningsSaid: "on stderr (ipi-judge: warning: ...)" });
        const nl = text.indexOf("\n") < 0 ? text.length : text.indexOf("\n");
        process.stdout.write(`${text.slice(0, nl)}\n${pooling.text}${text.slice(nl)}\n\ncommittee verdicts written to ${path.resolve(file)}\n`);
      }
      // a member that looks broken: exit 3, as label (a judge left out with --exclude-judge: warned, not a failure)
      await exitOnBrokenJudges("committee", report.judge_health, report.judges.map((j) => j.id), runDir);
    });
}

/** The refusal of a quorum more than the committee's judges: every trajectory would be no_quorum. */
function quorumText(quorum: number, members: readonly string[]): string {
  return (
    `--quorum ${quorum} is more than the ${members.length} judge(s) of the committee (${[...members].sort().join(", ")}): every trajectory would be no_quorum; ` +
    `give --quorum ${members.length}${members.length > 1 ? " or less" : ""}${members.length === 1 ? " (a committee of one judge needs --quorum 1, and is no committee: its figures are that judge's)" : ""} (committee.jsonl not written)`
  );
}
