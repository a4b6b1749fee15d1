import path from "node:path";
import fs from "node:fs";
import type { Command } from "commander";
import { readTrajectoryIndex, readVerdicts } from "../store/run-store.js";
import { formatReferenceAgreement, referenceAgreement } from "../agree/reference.js";
import { UsageError } from "./errors.js";
import { printJson } from "./util.js";

/** `ipi-judge agree`: how well a run's labels agree with the benchmark's reference verdicts. */
export function registerAgree(program: Command): void {
  program
    .command("agree")
    .description("Agreement of a run's judges with the benchmark's own verdicts (--reference security) or with human labels (--human FILE).")
    .requiredOption("--run <name>", "the run to read (labels/<run>/)")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--reference <field>", "benchmark verdict to compare with: security (AgentDojo: injected goal achieved)")
    .option("--judge <id>", "only this judge (default: every judge of the run)")
    .option("--json", "print one JSON object")
    .addHelpText(
      "after",
      `
--reference security compares label == full_compliance with AgentDojo's security verdict (true = the injected
goal was achieved), and the binary collapse (full or partial compliance) beside it. Unattacked runs and runs
that ended in an error are excluded (their security value is meaningless), with counts by reason; so are judge
errors and refusals. Kappa is null with a reason when it is undefined.`,
    )
    .action(async (o) => {
      const runDir = path.resolve(o.labelsDir, o.run);
      if (!fs.existsSync(path.join(runDir, "verdicts.jsonl"))) {
        throw new UsageError(`no run "${o.run}" in ${o.labelsDir} (expected ${path.join(runDir, "verdicts.jsonl")}); run ipi-judge label first`);
      }
      if (!o.reference) throw new UsageError("give --reference security (human labels: --human FILE)");
      if (!["security", "utility"].includes(o.reference)) throw new UsageError(`--reference must be security or utility, not "${o.reference}"`);
      const [verdicts, index] = await Promise.all([readVerdicts(runDir), readTrajectoryIndex(runDir)]);
      let judges = [...new Set(verdicts.map((v) => v.judge_id))].sort();
      if (o.judge) {
        if (!judges.includes(o.judge)) throw new UsageError(`judge "${o.judge}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
        judges = [o.judge];
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
