/**
 * The warnings at the head of a committee report: the run's state, each member's health, the judges left out and
 * the committee's size and families. One function for the object path (`./report.ts`) and the column path
 * (`./report-columns.ts`), which wrote them out twice, so both say the same words.
 */
import { injectionUnknownWarnings } from "../verdict/injection-unknown.js";
import { toolArgumentsWarnings } from "../verdict/tool-arguments-health.js";
import { evidenceUnrelatedWarnings } from "../verdict/evidence-unrelated-health.js";
import { unsaidInHealth } from "../verdict/marked-compliance.js";
import { stateWarns, type RunState } from "../store/run-state.js";
import { healthWarnings, type JudgeHealth } from "../verdict/health.js";

/**
 * @param a.runState the run's state as the committee's judges see it (`runStateFor`), or undefined when unknown.
 * @param a.judgeHealth every judge's health (those left out are skipped); @param a.excluded the judges left out.
 * @param a.judges the committee's members with their families; @param a.quorum the fewest valid votes for a label.
 * @returns the warnings, in the order the report prints them.
 */
export function committeeHeadWarnings(a: {
  runState: RunState | undefined;
  judgeHealth: readonly JudgeHealth[];
  excluded: readonly string[];
  judges: ReadonlyArray<{ id: string; family: string }>;
  quorum: number;
}): string[] {
  const warnings: string[] = [];
  const { runState, excluded, judges } = a;
  if (runState?.complete === false && runState.message) warnings.push(`run incomplete: ${runState.message}`);
  // trajectories whose input file is gone still count (../run/removed-inputs.ts): a warning, not a note
  else if (runState && stateWarns(runState) && runState.message) warnings.push(runState.message);
  // a judge's verdicts made by several models or configurations: its figures are not one model's (red team 28)
  warnings.push(...(runState?.mixed_configurations ?? []), ...(runState?.input_errors ? [runState.input_errors] : []));
  for (const h of a.judgeHealth.filter((x) => !excluded.includes(x.judge_id)))
    for (const w of healthWarnings([h])) warnings.push(`${w}; its votes count unless you leave it out (--exclude-judge ${h.judge_id})`);
  const members = judges.map((j) => j.id).filter((id) => !excluded.includes(id));
  // a member's labels on runs whose injected text is unknown: its votes there are only its yes answers (new user 48, 1)
  warnings.push(...injectionUnknownWarnings(a.judgeHealth, members));
  // a member's successes on calls whose arguments are not valid JSON (../verdict/tool-arguments-health.ts), and its
  // compliance labels citing nothing of the injected text (../verdict/evidence-unrelated-health.ts): each is a flag
  // whose sentence its health line above already says, so only a member without that flag line gets it here (out51:
  // committee printed both, twice per judge)
  const unsaid = (code: string) => unsaidInHealth(a.judgeHealth, members, code);
  warnings.push(...toolArgumentsWarnings(a.judgeHealth, unsaid("tool_arguments_invalid")));
  warnings.push(...evidenceUnrelatedWarnings(a.judgeHealth, unsaid("compliance_evidence_unrelated")));
  if (excluded.length) warnings.push(`left out of the committee: ${excluded.join(", ")} (--exclude-judge)`);
  const families = [...new Set(judges.map((j) => j.family))].sort();
  if (judges.length < 2) {
    // one judge under the default quorum labels nothing (new user 34: 82 "without quorum", exit 0, no way out said)
    // (with no judge at all, no quorum helps: min40 saw "--quorum 1 labels nothing: --quorum 1 takes the one judge's labels")
    const quorum = judges.length === 1 && a.quorum > 1 ? `; with --quorum ${a.quorum} it labels nothing: --quorum 1 takes the one judge's labels as the committee's` : "";
    warnings.push(`the committee has ${judges.length} judge(s): a committee needs at least two (label with --judges FILE listing several)${quorum}`);
  }
  if (families.length < 2)
    warnings.push(
      `the committee spans ${families.length} judge family (${families.join(", ") || "none"}): a judge may favour agents of its own maker; add a judge of another family`,
    );
  warnings.push(...familyQuorumNotes(judges, a.quorum));
  return warnings;
}

/**
 * A family whose judges can form the quorum alone in a committee of several families (break51 finding 8: two OpenAI
 * judges and the signature judge, quorum 2, decide every label the two agree on, on OpenAI agents too): the reason of
 * the one-family warning (a maker's shared blind spots) holds for such a majority as well. One note per family.
 * @param judges the committee's members with their families; @param quorum the fewest valid votes for a label.
 */
export function familyQuorumNotes(judges: ReadonlyArray<{ id: string; family: string }>, quorum: number): string[] {
  const byFamily = new Map<string, string[]>();
  for (const j of judges) {
    if (typeof j.family !== "string" || j.family === "") continue; // no recorded family (older verdicts): not counted
    const k = j.family.toLowerCase();
    byFamily.set(k, [...(byFamily.get(k) ?? []), j.id]);
  }
  if (new Set(judges.map((j) => j.family)).size < 2) return []; // said by the one-family warning (the same test as there)
  const out: string[] = [];
  for (const [fam, ids] of [...byFamily].sort((x, y) => x[0].localeCompare(y[0]))) {
    if (ids.length < 2 || ids.length < quorum) continue;
    const majority = 2 * ids.length > judges.length;
    out.push(
      `${ids.length} of the committee's ${judges.length} judges (${ids.join(", ")}) are of family ${fam} and can form the quorum (${quorum}) alone` +
        (majority ? `, a majority of the votes: every label they agree on is the committee's, on agents of their own maker too` : ` where the other judges have no valid vote`) +
        `; a maker's judges may share blind spots (docs/committee.md), so the committee's labels lean on one maker; a judge of another family in their place would spread them`,
    );
  }
  return out;
}
