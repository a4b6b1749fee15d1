/**
 * The human labels of a trajectory as the run's pages show them (new-user report 38 F7: the trajectory page listed
 * "adjudicated: unaffected" beside alice, bob, carol and dana, like a fifth annotator): the annotators' labels, then
 * the adjudicated label marked as the item's consensus, not one more vote.
 */

/** The name the adjudicated label goes under (../../agree/adjudicated.ts `RESERVED_ANNOTATOR`, which no annotator may take). */
export const ADJUDICATED = "adjudicated";

/**
 * `alice: full_compliance, bob: unaffected; consensus by adjudication: unaffected` (annotators in the order given).
 * @returns undefined when there is no label.
 */
export function humansText(humans: Record<string, string> | undefined): string | undefined {
  if (!humans) return undefined;
  const votes = Object.entries(humans).filter(([a]) => a !== ADJUDICATED).map(([a, l]) => `${a}: ${l}`).join(", ");
  const adj = humans[ADJUDICATED];
  const settled = adj !== undefined ? `consensus by adjudication: ${adj}` : "";
  return [votes, settled].filter(Boolean).join("; ") || undefined;
}
