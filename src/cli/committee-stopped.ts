/**
 * Committee's side of `../verdict/stopped-judges.ts` (task s41 #1): a judge of the run stopped before it stored any
 * verdict (401, Ctrl-C, `--max-cost`, a failure, crashes) beside judges that did. Before, `committee` formed the
 * committee of the others with warnings and exit 0: with one other, a 1-judge "committee" whose labels, agreement
 * and leniency were not the committee labelled; with more, another committee than asked (members, quorum). Now the
 * judges of the committee are the run's (its last label invocation's and every configured one, `runJudgeIds`) but
 * those left out with `--exclude-judge`, and one of them stopped with no verdict is the stopped-judge exit 3 naming
 * it and why; `--exclude-judge ID` is the way to form the committee of the others, said in the message (taken for
 * such a judge though it has no verdict to leave out: {@link withVerdicts}).
 */
import { runJudgeIds } from "../verdict/stopped-judges.js";
import { quoted } from "../format/quote-name.js";

/** The judges a committee of the run is asked for: the run's judges (`runJudgeIds`) but those left out. */
export function committeeJudges(runDir: string, excluded: readonly string[]): string[] {
  return runJudgeIds(runDir).filter((id) => !excluded.includes(id));
}

/**
 * The message's other way out: leave the stopped judges out, saying what committee the rest makes.
 * @param stopped the stopped judges' ids; @param members the judges with verdicts that are not left out.
 */
export function committeeWithout(stopped: readonly string[], members: readonly string[]): string {
  const flags = stopped.map((id) => `--exclude-judge ${id}`).join(" ");
  const rest = members.length >= 2 ? `the committee of the other ${members.length} judges (${members.join(", ")})` : `judge ${quoted(members[0])} alone, which is no committee (a committee needs at least two judges)`;
  return `add ${flags} for ${rest}`;
}

/**
 * The `--exclude-judge` ids the committee's report is to leave out: those with verdicts, and those the run does not
 * know (the report refuses them by name); a judge of the run with no verdict (the stopped one the refusal names) has
 * nothing to leave out, so excluding it is taken, not "no judge X in run" (the message's own way out).
 * @param excluded the `--exclude-judge` ids; @param withVerdict the judges with a verdict in the run.
 */
export function withVerdicts(runDir: string, excluded: readonly string[], withVerdict: ReadonlySet<string>): string[] {
  const known = new Set(runJudgeIds(runDir));
  return excluded.filter((id) => withVerdict.has(id) || !known.has(id));
}
