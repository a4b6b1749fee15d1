/**
 * The caveats `agree --reference security` gives beside its agreements with the benchmark's verdict, for the other
 * outputs that print those agreements (the report: new user 25 found its kappas without them): denial-of-service
 * attacks pooled (`./dos-attacks.ts`), EXPOSURE LOW groups pooled (`./exposure-groups.ts`), and labels set by code
 * rather than the judge's findings (`../verdict/code-established.ts`).
 */
import type { Verdict } from "../types.js";
import { codeEstablishedByJudge, codeEstablishedWarnings } from "../verdict/code-established.js";
import { countAttacks, dosAttackWarning } from "./dos-attacks.js";
import { pooledExposureLowWarnings } from "./exposure-groups.js";

/**
 * The caveats, in `agree`'s order; `[]` when none applies.
 * @param used the repeat-0 verdicts compared (attacked, with a benchmark `security` verdict, no agent error);
 *   iterated twice (an array, or an iterable that walks them again each time: the report's column path).
 * @param rows every index row of the run (the attacks counted over the attacked ones).
 * @param judges the judges compared, in output order.
 * @param rowOf the index row of a verdict's trajectory (`k`: its position in `used`), when the verdicts do not carry
 *   `agent_model` / `condition`; asked for each verdict as the walk reaches it (before the next is taken), so an
 *   iterable may answer with the row of the verdict it yielded last.
 */
export function referenceCaveats(
  used: Iterable<Verdict>,
  rows: Iterable<{ attacked?: boolean; attack?: string }>,
  judges: readonly string[],
  rowOf?: (v: Verdict, k: number) => { agent_model?: string; condition?: string } | undefined,
): string[] {
  const at = countAttacks(rows);
  const dos = dosAttackWarning(at.byAttack, at.attacked);
  return [...(dos ? [dos] : []), ...pooledExposureLowWarnings(used, judges, rowOf), ...codeEstablishedWarnings(codeEstablishedByJudge(used, judges), "agreement with the reference")];
}
