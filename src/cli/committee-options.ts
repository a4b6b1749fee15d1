/**
 * The committee's member selection as every command that uses a committee takes it, the same names as `committee`:
 * `--exclude-judge ID` (repeatable) and `--quorum N` (`../committee/members.ts` resolves them against the run and
 * its committee.jsonl).
 */
import type { Command } from "commander";
import { intOption } from "./util.js";
import { UsageError } from "../errors.js";
import { CommitteeChoiceError, otherThanStored, type StoredCommittee } from "../committee/members.js";

/**
 * Add the committee's member selection, as `committee` takes it: `--exclude-judge ID` (repeatable) and `--quorum N`
 * without a default (not given: the stored committee's, else 2; `../committee/members.ts`). Read back with
 * {@link committeeAsk}.
 * @param prefix the help text's prefix (e.g. "with --committee: ").
 */
export function addCommitteeSelection(cmd: Command, prefix = ""): Command {
  return cmd
    .option("--exclude-judge <id>", `${prefix}leave a judge out of the committee (repeatable), as committee --exclude-judge (default: those committee.jsonl left out)`, (v: string, acc: string[] = []) => [...acc, v])
    .option("--quorum <n>", `${prefix}votes needed (default: committee.jsonl's quorum, else 2)`);
}

/**
 * The committee selection of a command's options: `{exclude, quorum}` (each undefined when not given).
 * @throws UsageError for a bad --quorum.
 */
export function committeeAsk(o: { excludeJudge?: unknown; quorum?: unknown }): { exclude?: string[]; quorum?: number } {
  return {
    ...(Array.isArray(o.excludeJudge) && o.excludeJudge.length ? { exclude: o.excludeJudge as string[] } : {}),
    ...(o.quorum !== undefined ? { quorum: intOption(o.quorum, "--quorum", 1) } : {}),
  };
}

/**
 * Refuse a committee selection (--exclude-judge, --quorum) other than the stored committee.jsonl's, for a command
 * that reads the committee's rows from the file (`compare --committee`, `agree --reference`; new user 30).
 * @param command the command named in the message, e.g. "compare --committee".
 * @throws UsageError naming both committees and the `committee` command that stores the one asked for, or a bad
 *   selection (`CommitteeChoiceError`).
 */
export function refuseOtherThanStored(
  runJudges: readonly string[],
  stored: Omit<StoredCommittee, "stale">,
  o: { run: string; excludeJudge?: unknown; quorum?: unknown },
  command: string,
): void {
  let why: string | null;
  try {
    why = otherThanStored(runJudges, stored, committeeAsk(o), o.run, command);
  } catch (e) {
    if (e instanceof CommitteeChoiceError) throw new UsageError(e.message);
    throw e;
  }
  if (why) throw new UsageError(why);
}
