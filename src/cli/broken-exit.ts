/**
 * The exit code of a command whose figures use a broken judge (`../verdict/broken-judge.ts`): said on stderr naming
 * each judge and why, and exit 3 (`EXIT.brokenJudge`), as `label` does for a judge of its invocation. Its output
 * (text or `--json`) is printed whole first: the exit code is the signal. A code already set (an error) stands.
 */
import { EXIT } from "../errors.js";
import type { JudgeHealth } from "../verdict/health.js";
import { brokenJudges, withCrashBroken, type BrokenJudge } from "../verdict/broken-judge.js";
import { showControls } from "../format/shown.js";
import { storedJudgeCrashes, type StoredCrashes } from "../store/stored-crashes.js";
import { warnLine } from "./warn.js";
import { crashesWhere } from "./crashes-where.js";
import type { WhereFilter } from "../store/where.js";
import { quoted } from "../format/quote-name.js";

/**
 * Say the broken judges behind `command`'s figures and set exit code 3; a broken judge of the run the figures do
 * not use is a warning line only.
 * @param command the command's name for the message, e.g. "agree".
 * @param health the judges' health the command computed (over the verdicts its figures are of).
 * @param used the judges behind its figures.
 * @param runDir the run: its stored judge crashes count too (`../store/stored-crashes.ts`).
 * @param where the command's `--where`: the crashes counted are those among the rows it selects (`./crashes-where.ts`),
 *   as the health is computed over them; without it, the run's (summary.json's whole-run counts).
 * @param crashes {@link judgeCrashesOf}'s answer when the caller has it already (its figures file used it).
 * @param behind why these judges are behind the figures, given the broken ones among them: said after the exit code
 *   when the command's choice of judge does not narrow them (report: `--judge` picks the paper table's judge, the
 *   page shows every judge's figures; new user 49 #4: estimate --judge X exited 0, report --judge X 3, and nothing
 *   said why); undefined: nothing said.
 */
export async function exitOnBrokenJudges(
  command: string,
  health: readonly JudgeHealth[],
  used: Iterable<string>,
  runDir: string,
  where?: WhereFilter | null,
  crashes?: ReadonlyMap<string, StoredCrashes>,
  behind?: (broken: readonly BrokenJudge[]) => string | undefined,
): Promise<void> {
  sayBrokenJudges(command, brokenJudges(health, used, crashes ?? (await judgeCrashesOf(runDir, where))), where, behind);
}

/**
 * The run's stored crashes as a figure command weighs them: narrowed to the rows `where` selects when given
 * (`./crashes-where.ts`), else the whole run's (summary.json). One count for the exit code and for a figures file's
 * `judge_caveat` (task s41 #2: compare's and estimate's CSV counted the whole run's while the exit counted the rows
 * `--where` selects, so a CSV named a judge broken that the exit did not, or the reverse).
 */
export async function judgeCrashesOf(runDir: string, where: WhereFilter | null | undefined): Promise<ReadonlyMap<string, StoredCrashes>> {
  const whole = storedJudgeCrashes(runDir);
  return where && whole.size ? crashesWhere(runDir, where, whole) : whole;
}

/**
 * Broken judges as said with `where`: a crash reason counted over the rows it selects says so ("..., among the rows
 * --where selects"), on stderr and in a figures file's `judge_caveat` alike.
 */
export function whereScoped(list: readonly BrokenJudge[], where: WhereFilter | null | undefined): BrokenJudge[] {
  return list.map((j) => (where && j.why.startsWith("it crashed on ") ? { ...j, why: `${j.why}, among the rows --where selects` } : j));
}

/**
 * {@link exitOnBrokenJudges} from the split `brokenJudges` made without crashes (a report that carries it, as
 * estimate's): the run's stored crashes are added here (`withCrashBroken`).
 * @param used the judges behind the figures; @param runDir the run; @param where its `--where` (as {@link exitOnBrokenJudges}).
 */
export async function sayBrokenJudgesOf(
  command: string,
  b: { used: readonly BrokenJudge[]; other: readonly BrokenJudge[] },
  used: Iterable<string>,
  runDir: string,
  where?: WhereFilter | null,
  crashes?: ReadonlyMap<string, StoredCrashes>,
): Promise<void> {
  sayBrokenJudges(command, withCrashBroken(b, used, crashes ?? (await judgeCrashesOf(runDir, where))), where);
}

/**
 * Say a split of broken judges (the used ones: exit 3; the others: a warning each); crashes under `where` are said as
 * the selected rows'; `behind` (why the used ones are behind the figures) in brackets after the exit code.
 */
function sayBrokenJudges(command: string, split: { used: readonly BrokenJudge[]; other: readonly BrokenJudge[] }, where?: WhereFilter | null, behind?: (broken: readonly BrokenJudge[]) => string | undefined): void {
  const b = { used: whereScoped(split.used, where), other: whereScoped(split.other, where) };
  for (const o of b.other) warnLine(`judge ${quoted(o.judge_id)} of the run looks broken (${o.why}), but the figures of ${command} here do not use it: not this command's failure`);
  if (!b.used.length) return;
  const why = behind?.(b.used);
  const named = b.used.map((j) => `${showControls(j.judge_id)}: ${showControls(j.why)}`).join("; ");
  process.stderr.write(`ipi-judge: ${command} finished, but its figures use ${b.used.length === 1 ? "a judge that looks" : "judges that look"} broken (${named}): exit code ${EXIT.brokenJudge}${why ? ` (${why})` : ""}\n`);
  if (!process.exitCode) process.exitCode = EXIT.brokenJudge;
}

/**
 * The exit-code paragraph of a command's `--help` that applies the rule (one text for every such command).
 * @param behind which judges are behind this command's figures, e.g. "the judges compared".
 */
export function brokenExitHelp(behind: string): string {
  return `
Exit codes: 0 done; 1 fatal error; 2 usage or configuration error; 3 done, with the whole output (--json too),
but a judge behind its figures looks broken, as label exits 3: its rates carry a caveat ([JUDGE X LOOKS BROKEN],
or STOPPED: no usable verdict), most of its verdicts are judge errors or refusals, or it crashed on most
trajectories (errors.jsonl judge_crash, as the run's summary.json counts them; with --where, among the rows it
selects); stderr names it and why.
The judges behind its figures: ${behind}.
Also 3, at once, when the judge asked for (none named: every judge of the run) stored no verdict there because
it was stopped (a fatal error, Ctrl-C, --max-cost, crashes): no figures; stderr names it and why.
A broken judge of the run that these figures do not use is a warning, not exit 3.`;
}
