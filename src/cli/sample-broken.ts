/**
 * `sample --disagreement`'s warning when the committee behind its pool has broken members (out50): a member that
 * failed, crashed or was stopped on many items casts no vote there, so "the committee was not unanimous" is said by
 * the members that voted, and where fewer than the quorum voted the item is in no pool at all (stratum U). The sample's
 * weights stay right for the pool it drew (its inclusion probabilities hold whichever judges made it); what the pool
 * means is what moved, so it is a warning, not exit 3. Names and reasons are those of `committee` and `estimate`
 * (`brokenJudge`, `crashBroken` of ../verdict/broken-judge.ts), over the run's `summary.json` (its last label run's
 * whole-run health and crash counts: a sample's `--where` is not applied to them, said in the warning).
 */
import fs from "node:fs";
import path from "node:path";
import { brokenJudge, crashBroken, type BrokenJudge } from "../verdict/broken-judge.js";
import type { JudgeHealth } from "../verdict/health.js";
import { storedJudgeCrashes } from "../store/stored-crashes.js";
import { quoted } from "../format/quote-name.js";

/**
 * The broken members of the committee whose disagreements made the pool, from `<runDir>/summary.json`.
 * @param members the committee's judges (`SampleDesign.committee.members`).
 * @returns each broken member and why, in `members` order; [] when none is, or the summary is missing or unreadable.
 */
export function brokenMembers(runDir: string, members: readonly string[]): BrokenJudge[] {
  let s: unknown;
  try {
    s = JSON.parse(fs.readFileSync(path.join(runDir, "summary.json"), "utf8"));
  } catch {
    return [];
  }
  const judges = (s as { judges?: unknown })?.judges;
  const health = new Map<string, JudgeHealth>();
  if (Array.isArray(judges)) for (const j of judges) if (typeof j?.judge_id === "string" && j.health && typeof j.health === "object") health.set(j.judge_id, { ...j.health, judge_id: j.judge_id });
  const crashes = storedJudgeCrashes(runDir);
  const out: BrokenJudge[] = [];
  for (const m of members) {
    const h = health.get(m);
    const b = (h ? brokenJudge(h) : null) ?? crashBroken(m, crashes.get(m));
    if (b) out.push(b);
  }
  return out;
}

/**
 * The warning (module docstring), or null when no member is broken.
 * @param committee the committee's name as commands print it (`committee (a, b, c; quorum 2)`).
 */
export function brokenPoolWarning(committee: string, broken: readonly BrokenJudge[]): string | null {
  if (!broken.length) return null;
  const named = broken.map((b) => `judge ${quoted(b.judge_id)}: ${b.why}`).join("; ");
  return (
    `the --disagreement pool is the items where the ${committee} was not unanimous, and ${broken.length === 1 ? "a member looks" : `${broken.length} members look`} broken over the run (${named}; as summary.json counts it): ` +
    `a member that failed or was stopped on an item casts no vote there, so the pool holds the disagreements of the members that did vote, and an item with fewer valid votes than the quorum is in no pool (stratum U). ` +
    `The sample's weights stay right for the pool drawn; for a pool of the working judges, run committee --exclude-judge <id> and sample again`
  );
}

/**
 * The warnings of `sample --disagreement` about its pool's committee: {@link brokenPoolWarning} of its broken members.
 * @param committee the design's committee (`SampleDesign.committee`); undefined (no committee, or no phase 2): none.
 */
export function poolWarnings(runDir: string, committee: { name: string; members: string[] } | undefined): string[] {
  const w = committee ? brokenPoolWarning(committee.name, brokenMembers(runDir, committee.members)) : null;
  return w ? [w] : [];
}
