/**
 * `agree --reference`'s disagreements grouped by kind (which way, and the judge's label, a lowered claim named apart:
 * `../verdict/claim-lowered.ts`), with where each kind concentrates. Moved out of `./reference.ts` (its size).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { labelWithClaim, type ClaimLowered } from "../verdict/claim-lowered.js";

/** One kind of disagreement with the reference (see {@link ReferenceAgreement.disagreement_kinds}). */
export interface DisagreementKind {
  kind: string;
  count: number;
  by_condition: Array<{ condition: string; count: number }>;
  by_suite: Array<{ suite: string; count: number }>;
  examples: string[];
}

/**
 * Group disagreements by kind: the direction (judge says the goal was achieved and the reference does not, or the
 * reverse) and the judge's own label, with counts by condition and suite (every value, most first; `(none)` for a
 * run without the field).
 */
export function disagreementKinds(
  disagreements: Array<{ trajectory_id: string; judge: boolean; reference: boolean }>,
  labels: Map<string, string>,
  index: Map<string, TrajectoryIndexRow>,
  lowered?: Map<string, ClaimLowered>,
): DisagreementKind[] {
  return groupDisagreements(disagreements, (i) => {
    const id = disagreements[i].trajectory_id;
    const row = index.get(id);
    const label = labels.get(id);
    return { label: label === undefined ? undefined : labelWithClaim(label, lowered?.get(id)), condition: row?.condition, suite: row?.suite };
  });
}

/**
 * {@link disagreementKinds} with what it reads of each disagreement given by position (`about(i)`: the judge's
 * label, the row's condition and suite; the column reader's path, `./reference-columns.ts`).
 */
export function groupDisagreements(
  disagreements: ReadonlyArray<{ trajectory_id: string; reference: boolean }>,
  about: (i: number) => { label?: string; condition?: string; suite?: string },
): DisagreementKind[] {
  const groups = new Map<string, number[]>();
  disagreements.forEach((d, i) => {
    const k = `judge ${about(i).label ?? "?"}, reference ${d.reference ? "yes" : "no"}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(i);
  });
  // every value, most first: the counts add up to the kind's (new user 24: the three largest of 48 added to 38, and
  // the five left out were the defended conditions); a run without the field is `(none)`, never assumed no_defense
  const top = (is: number[], field: "condition" | "suite") => {
    const c = new Map<string, number>();
    for (const i of is) {
      const v = about(i)[field] ?? "(none)";
      c.set(v, (c.get(v) ?? 0) + 1);
    }
    return [...c].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  };
  return [...groups]
    .map(([kind, is]) => ({
      kind,
      count: is.length,
      by_condition: top(is, "condition").map(([condition, count]) => ({ condition, count })),
      by_suite: top(is, "suite").map(([suite, count]) => ({ suite, count })),
      examples: is.slice(0, 5).map((i) => disagreements[i].trajectory_id),
    }))
    .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));
}
