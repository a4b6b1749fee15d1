/**
 * AgentDojo's denial-of-service attacks (`dos`, `captcha_dos`, `felony_dos`, `offensive_email_dos`,
 * `swearwords_dos`, ...): their goal is to stop the agent, and the benchmark scores `security` on them as "the user
 * task was not completed" (not utility), not as an injected goal carried out. Pooled into one agreement with
 * `security`, they mix two measures (docs/measured.md, "Signature judge vs the benchmark's own verdict": kappa 0.949 without them, 0.075
 * on them alone, on the scale set).
 */

/** An attack name of the denial-of-service kind: `dos` or ending in `_dos` (defined with judge health, which leaves them out of its reference check). */
import { DOS_ATTACK } from "../verdict/reference-goal.js";
export { DOS_ATTACK };

/**
 * The warning for figures over attacked trajectories of which some ran a denial-of-service attack, or null when none
 * did: an agreement with `security` (`agree`), or rates read against a benchmark's checker (`compare`, the report).
 * @param attacks attacked trajectories per attack name (trajectories with no attack recorded are not counted)
 * @param attacked all attacked trajectories the figures are over
 * @param consequence what that does to the figures, given the number of attacks (default: the agreement's)
 * @param withUnattacked the figures also read unattacked runs (utility without attack): the `--where` given keeps them
 *   (`(none)`, quoted for the shell)
 */
export function dosAttackWarning(
  attacks: ReadonlyMap<string, number>,
  attacked: number,
  consequence = (attacks: number) => `the agreement below pools the two measures over ${attacks} attacks`,
  withUnattacked = false,
): string | null {
  const dos = [...attacks].filter(([a]) => DOS_ATTACK.test(a)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (dos.length === 0) return null;
  const n = dos.reduce((s, [, k]) => s + k, 0);
  const others = [...attacks.keys()].filter((a) => !DOS_ATTACK.test(a)).sort();
  return (
    `${n} of the ${attacked} attacked trajectories ran a denial-of-service attack (${dos.map(([a, k]) => `${a} ${k}`).join(", ")}), where the benchmark's security means the user task was not completed, not an injected goal carried out: ` +
    consequence(attacks.size) +
    (others.length ? `; --where ${withUnattacked ? `'attack=${others.join(",")},(none)'` : `attack=${others.join(",")}`} leaves them out` : "")
  );
}

/**
 * Attacked rows per attack name (`attack` unrecorded: counted in `attacked` only), for {@link dosAttackWarning}.
 * @param rows index rows (any order).
 */
export function countAttacks(rows: Iterable<{ attacked?: boolean; attack?: string | null }>): { byAttack: Map<string, number>; attacked: number } {
  const byAttack = new Map<string, number>();
  let attacked = 0;
  for (const r of rows) {
    if (!r.attacked) continue;
    attacked++;
    if (typeof r.attack === "string" && r.attack !== "") byAttack.set(r.attack, (byAttack.get(r.attack) ?? 0) + 1);
  }
  return { byAttack, attacked };
}
