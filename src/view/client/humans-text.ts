/**
 * The human labels of a trajectory as the run's pages show them (new-user report 38 F7: the trajectory page listed
 * "adjudicated: unaffected" beside alice, bob, carol and dana, like a fifth annotator): the annotators' labels, then
 * the adjudicated label marked as the item's consensus, not one more vote. Annotator names are shown in quotes
 * (JSON-escaped) and the consensus apart from them, in its own element (./humans-node.ts), so no name can imitate it
 * (red team 37c F3: an annotator named `consensus by adjudication` printed exactly like the consensus).
 */

/** The name the adjudicated label goes under (../../agree/adjudicated.ts `RESERVED_ANNOTATOR`, which no annotator may take). */
export const ADJUDICATED = "adjudicated";

/** What the consensus is called on the pages. */
export const CONSENSUS_TEXT = "consensus by adjudication";

/**
 * The two parts of the humans line: the annotators' votes (`"alice": full_compliance, "bob": unaffected`, names quoted,
 * in the order given) and the adjudicated consensus label; each undefined when absent.
 */
export function humansParts(humans: Record<string, string> | undefined): { votes?: string; consensus?: string } {
  if (!humans) return {};
  const votes = Object.entries(humans).filter(([a]) => a !== ADJUDICATED).map(([a, l]) => `${JSON.stringify(a)}: ${l}`).join(", ");
  const adj = humans[ADJUDICATED];
  return { ...(votes ? { votes } : {}), ...(adj !== undefined ? { consensus: adj } : {}) };
}

/**
 * `"alice": full_compliance, "bob": unaffected; consensus by adjudication: unaffected` (a plain-text form, e.g. for a
 * title; the pages draw ./humans-node.ts).
 * @returns undefined when there is no label.
 */
export function humansText(humans: Record<string, string> | undefined): string | undefined {
  const p = humansParts(humans);
  return [p.votes, p.consensus !== undefined ? `${CONSENSUS_TEXT}: ${p.consensus}` : ""].filter(Boolean).join("; ") || undefined;
}
