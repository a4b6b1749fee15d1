/**
 * The report's committee (new user 30): one member set for every section — the committee verdicts, its rates and
 * label counts, the judges' agreement among its members (Fleiss, not unanimous), its row against the humans and the
 * benchmark, the disagreement list and, with `--committee`, the paper table — resolved by `committeeMembers`
 * (../committee/members.ts): committee.jsonl's members when it is current, `--exclude-judge`'s, or every judge.
 */
import path from "node:path";
import { committeeMembers, committeeName, storedCommittee, type CommitteeMembers } from "../committee/members.js";
import type { SourceChoice } from "../estimate/source.js";
import { healthWarnings } from "../verdict/health.js";
import type { CommitteeReport } from "../committee/report.js";

/** What the report does with its committee. */
export interface ReportCommittee {
  /** The members, quorum, basis and whether the stored file holds exactly them. */
  m: CommitteeMembers;
  /** `ReportOptions.source` with the stored committee attached (a committee choice), for the paper table. */
  source: SourceChoice | undefined;
  /** The page's warnings about the committee (a stale file, another selection than the stored one). */
  warnings: string[];
  /** The committee report must be computed apart from the all-judge one: some judge is left out, or another quorum. */
  apart: boolean;
}

/**
 * Resolve the report's committee.
 * @param runJudges every judge with a verdict in the run; @param cf the committee file as read (null: none).
 * @param stale its check's `stale` list (null without a file); @param source the report's `--judge`/`--committee` choice.
 * @param defaultQuorum the all-judge committee report's quorum (2).
 * @throws CommitteeChoiceError for an unknown judge to leave out.
 */
export function reportCommittee(
  runJudges: readonly string[],
  cf: { file: string; judges: readonly string[]; excluded_judges: readonly string[] | null; quorum: number | null } | null,
  stale: readonly string[] | null,
  source: SourceChoice | undefined,
  run: string,
  defaultQuorum: number,
): ReportCommittee {
  const stored = cf ? storedCommittee(cf, stale ?? []) : null;
  const ask = source?.kind === "committee" ? { exclude: source.exclude, quorum: source.quorum } : {};
  const m = committeeMembers(runJudges, stored, ask, run);
  const warnings: string[] = [];
  // a stale file: said as the report has always said it, with the committee computed in its place named
  if (stored?.stale.length)
    warnings.push(`${path.basename(stored.file)} is not used: ${stored.stale.join("; ")}; the ${committeeName(m)} below is computed from the current verdicts (run ipi-judge committee again to rebuild the file)`);
  else warnings.push(...m.warnings);
  return { m, source: source?.kind === "committee" ? { ...source, stored } : source, warnings, apart: m.left_out.length > 0 || m.quorum !== defaultQuorum };
}

/**
 * The committee report's warnings as the page shows them: the "left out of the committee: X (--exclude-judge)"
 * line said by the file's own note instead when the members are the file's.
 */
export function committeeWarnings(warnings: readonly string[], m: CommitteeMembers): string[] {
  return m.basis === "committee_file" ? warnings.filter((w) => !w.startsWith("left out of the committee: ")) : [...warnings];
}

/**
 * The committee reports the page needs: every judge's (`cr`: the per-judge figures, each judge's health) and the
 * committee's own (`crc`: its verdicts, its members' agreement), and the page's first warnings (the committee's, and
 * the health of a judge left out of it; one judge: its health only). Computed once (new-user pass: a committee other
 * than every judge built the whole committee report twice, a real cost at 1M trajectories): the committee's report
 * with `everyJudge`, whose `every_judge` gives `cr` its judges and per-judge figures (the health is every judge's in
 * any committee report); `cr` is `crc` itself when the committee is every judge with the default quorum.
 * @param figs the committee report of the run leaving out `excludeJudges`, with `quorum`, with every judge's figures
 *   when `everyJudge` (`committeeReport` or `committeeReportColumns`).
 */
export function committeeFigures<C>(
  figs: (excludeJudges?: string[], quorum?: number, everyJudge?: boolean) => { report: CommitteeReport; committee: C },
  rc: ReportCommittee,
): { cr: CommitteeReport; crc: CommitteeReport; computed: C; multi: boolean; warnings: string[] } {
  const { report: crc, committee: computed } = rc.apart ? figs(rc.m.left_out, rc.m.quorum, true) : figs();
  const every = crc.every_judge;
  if (rc.apart && !every) throw new Error("committeeFigures: the committee report gave no every_judge figures (everyJudge asked for)");
  const cr: CommitteeReport = rc.apart && every ? { ...crc, judges: every.judges, per_judge: every.per_judge } : crc;
  const multi = rc.m.members.length >= 2;
  const outHealth = healthWarnings(cr.judge_health.filter((h) => rc.m.left_out.includes(h.judge_id)));
  return { cr, crc, computed, multi, warnings: multi ? [...committeeWarnings(crc.warnings, rc.m), ...outHealth] : healthWarnings(cr.judge_health) };
}
