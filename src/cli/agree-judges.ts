/**
 * The `--judges A,B` path of `ipi-judge agree` (`./agree.ts` registers the command): two judges' concordance on the
 * binary collapse over the attacked trajectories, their code-established labels and health.
 *
 * The run is read as columns (`../store/columns.ts`), `--where` applied to its row slots (`../store/where-columns.ts`),
 * and the figures come from `judgeConcordanceColumns` (a million trajectories in bounded memory: issue 26): the
 * same output as the object path (`judgeConcordance` over `readRunWhere`; test/agree/concordance-columns.test.ts).
 */
import { wrapText } from "../format/wrap-text.js";
import { codeEstablishedByJudge, codeEstablishedWarnings, formatCodeEstablished } from "../verdict/code-established.js";
import { warnLine } from "./warn.js";
import { exitOnBrokenJudges } from "./broken-exit.js";
import { refuseStoppedJudges } from "../verdict/stopped-judges.js";
import { judgeHealth, type JudgeHealth } from "../verdict/health.js";
import { rateCaveats } from "../verdict/rate-caveat.js";
import { toolArgumentsWarnings } from "../verdict/tool-arguments-health.js";
import { evidenceUnrelatedWarnings } from "../verdict/evidence-unrelated-health.js";
import { elidedPromptWarnings } from "../verdict/label-rests-health.js";
import { inUserTaskWarnings } from "../verdict/evidence-in-user-task-health.js";
import { injectedValueWarnings } from "../verdict/injected-value-health.js";
import { progressOf } from "./progress-mode.js";
import { stepLine } from "./read-progress.js";
import { readRunState, runStateFor, runStateLine } from "../store/run-state.js";
import { formatJudgeConcordance, type JudgeConcordance } from "../agree/pairwise.js";
import { judgeConcordanceColumns } from "../agree/concordance-columns.js";
import { REFERENCE_ROW_FIELDS } from "../agree/reference-columns.js";
import { eachVerdictRecord, readColumnRun } from "../store/columns.js";
import { readCommitteeColumns } from "../committee/file-columns.js";
import { UsageError } from "../errors.js";
import { intOption, printJson, warnWhere, whereOf, withReadProgress } from "./util.js";
import { restrictColumns, whereRowFields } from "../store/where-columns.js";
import { whereLine, type WhereStatement } from "../store/where.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";
import type { Verdict } from "../types.js";
import type { BootstrapSettings } from "../agree/pairwise.js";

/** What the `--judges` path reads of a run, from columns or from objects. */
interface JudgesSource {
  /** judges with verdicts, sorted */
  judges: string[];
  /** attacked trajectories (the status line) */
  nAttacked: number;
  /** the concordance, and the repeat-0 verdicts of the attacked trajectories both judges labelled (in order) */
  concordance(pair: [string, string], bootstrap: BootstrapSettings): { c: JudgeConcordance; bothRepeat0: Iterable<Verdict> };
  /** every judge's health over every current verdict */
  health(): JudgeHealth[];
  where: WhereStatement | null;
}

/** The run as columns (`--where`: its kept rows, `restrictColumns` of ../store/where-columns.ts). */
async function judgesSource(runDir: string, o: { where?: string[]; run: string; progress?: string; progressInterval?: string }): Promise<JudgesSource> {
  const f = whereOf(o);
  const read = await withReadProgress(progressOf(o), async (progress) => {
    const run = await readColumnRun(runDir, { rowFields: whereRowFields(REFERENCE_ROW_FIELDS, f), progress });
    await readCommitteeColumns(runDir, run); // its journal notes, as the object path reads it
    return run;
  });
  const kept = f ? restrictColumns(read, f, o.run) : null;
  if (kept) warnWhere(kept.warnings);
  const run = kept ? kept.run : read;
  let nAttacked = 0;
  for (let s = 0; s < run.nRows; s++) if (run.rows[run.rowCode[s]].attacked) nAttacked++;
  return {
    judges: [...new Set(run.verdicts.map((v) => v.judge_id))].sort(),
    nAttacked,
    concordance: (pair, bootstrap) => {
      const { concordance, both } = judgeConcordanceColumns(run, pair, { bootstrap });
      return { c: concordance, bothRepeat0: eachVerdictRecord(run, (i, v) => v.repeat === 0 && run.vSlot[i] < run.nRows && both[run.vSlot[i]] === 1) };
    },
    health: () =>
      judgeHealth(eachVerdictRecord(run), {
        rowOf: (_v, k) => (run.vSlot[k] < run.nRows ? run.rows[run.rowCode[run.vSlot[k]]] : undefined),
        idOf: (_v, k) => run.ids.id(run.vSlot[k]),
      }),
    where: kept ? kept.statement : null,
  };
}

/** The `--judges A,B` path of `ipi-judge agree`: two judges' concordance on the binary collapse. */
export async function agreeJudges(runDir: string, o: { judges: string; bootstrap: string; seed: string; json?: boolean; run: string; where?: string[]; progress?: string; progressInterval?: string }): Promise<void> {
  const pair = o.judges.split(",").map((s) => s.trim()).filter(Boolean) as [string, string];
  if (pair.length !== 2 || pair[0] === pair[1]) throw new UsageError(`--judges takes two different judge ids, e.g. --judges gpt,signature (got "${o.judges}")`);
  const B = intOption(o.bootstrap, "--bootstrap", 0);
  const seed = intOption(o.seed, "--seed", 0);
  const src = await judgesSource(runDir, o);
  const { judges, where } = src;
  refuseStoppedJudges("agree", runDir, o.run, pair, judges, where ? "among the rows --where selects" : undefined); // a stopped judge of the pair: exit 3
  for (const j of pair) if (!judges.includes(j)) throw new UsageError(`judge "${j}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
  // a status line for the analysis after the read (a minute and more at 1M: issue 26, session 41)
  const step = stepLine(`comparing ${pair[0]} and ${pair[1]} over ${src.nAttacked.toLocaleString("en-US")} attacked trajectories`, progressOf(o));
  const { c, bothRepeat0 } = src.concordance(pair, { B, seed });
  const code_established = codeEstablishedByJudge(bothRepeat0, pair);
  // a broken judge's rates are marked and said once, as every command says them (new user 18: --judges never did)
  const health = src.health();
  const caveats = rateCaveats(health, pair);
  step.done();
  if (caveats.length) c.rate_caveats = caveats;
  // and the pair's successes on calls whose arguments are not valid JSON (../verdict/tool-arguments-health.ts)
  const warnings = [...caveats.map((x) => x.message), ...toolArgumentsWarnings(health, pair), ...evidenceUnrelatedWarnings(health, pair), ...elidedPromptWarnings(health, pair), ...inUserTaskWarnings(health, pair), ...injectedValueWarnings(health, pair), ...codeEstablishedWarnings(code_established, "the judges' concordance")];
  // --json: the run's journal notes (lines skipped, verdicts left out as made on an older text) join `warnings`,
  // said on stderr here and not again at exit (text mode: main says them at the end; verifier 37 V2.2)
  if (o.json) warnings.push(...takeJournalWarnings());
  for (const w of warnings) warnLine(w);
  // how the run's labelling ended, and the two judges' mixed configurations (review s29: this path said neither)
  const runState = runStateFor(readRunState(runDir), pair);
  const stateLine = runStateLine(runState);
  if (o.json) {
    if (runState.complete === false) warnLine(`run incomplete: ${runState.message}`);
    for (const w of runState.mixed_configurations) warnLine(w);
    if (runState.input_errors) warnLine(runState.input_errors);
    printJson({ ...c, ...(where ? { where } : {}), code_established, warnings, run_state: runState });
  } else {
    const head = [whereLine(where), stateLine].filter(Boolean).join("\n");
    process.stdout.write(wrapText((head ? head + "\n" : "") + formatJudgeConcordance(c) + "\n" + code_established.map((x) => `labels established by code: ${formatCodeEstablished(x)}\n`).join(""))); // lines broken for a reader (../format/wrap-text.ts)
  }
  // one of the two judges looks broken: exit 3, as label (./broken-exit.ts)
  await exitOnBrokenJudges("agree", health, pair, runDir, whereOf(o));
}
