/**
 * The benchmark's own attack verdict beside a group's rates (`reference.security`, DESIGN section 3: true = the
 * injected goal was achieved, the event of `asr_goal`): its rate over the group's labelled attacked runs and over
 * every attacked run of the group with a verdict, so a LOW coverage can say how far the labelled subset differs from
 * the group by the benchmark's own measure (new user 29: on VIGIL the signature judge labels 86 of 433 attacked runs,
 * all 86 goal-achieved by the benchmark, against 257 of the 402 with a verdict).
 *
 * - A run's verdict is usable as `agree --reference` takes it (`referencePairs` of src/agree/reference.ts uses
 *   {@link referenceValueOf}): an attacked run with a boolean `reference.security` and no agent error (`run_error`:
 *   the benchmark's verdict of a run that ended in an error is meaningless). The others are counted by why.
 * - `labelled` = goal-achieved / labelled attacked runs with a usable verdict; `all` = goal-achieved / every
 *   attacked run with a usable verdict, labelled or not (agree's `reference` and `reference_all`).
 * - `subset_differs`: whether `all`'s rate lies outside the 95% Wilson interval of `labelled`. Wilson's interval is
 *   the set of rates p0 the score test does not reject (Wilson 1927), so `true` rejects, at the two-sided 5% level,
 *   that the labelled runs with a verdict are a simple random draw of the group's runs with a verdict whose rate is
 *   p0. The draw is without replacement from a finite group, whose finite-population correction would narrow the
 *   interval: leaving it out makes the test conservative (it says `true` less often than it could). `false` shows no
 *   bias by this one measure, not that there is none. Null with a reason when there is nothing to compare: no
 *   labelled run carries a verdict, or every run that carries one is labelled.
 */
import { rateFigure, type RateFigure } from "./rate-figure.js";

/** An attacked run's benchmark verdict for the rates: the verdict, or why it has none that can be used. */
export type ReferenceValue = boolean | "no_reference" | "run_error";

/**
 * The one rule of a usable benchmark verdict (module docstring): `run_error` when the run ended in an agent error,
 * else its boolean `reference[field]`, else `no_reference`. Whether the run is attacked is the caller's to check.
 */
export function referenceValueOf(row: { run_error?: unknown; reference?: { security?: unknown; utility?: unknown } }, field: "security" | "utility" = "security"): ReferenceValue {
  if (row.run_error) return "run_error";
  const v = row.reference?.[field];
  return typeof v === "boolean" ? v : "no_reference";
}

/** Counts {@link referenceRates} is made of, over one group's attacked runs. */
export interface ReferenceCounts {
  /** Labelled attacked runs with a usable verdict, and of them those it says goal-achieved. */
  labelled_n: number;
  labelled_yes: number;
  /** Labelled attacked runs without a usable verdict. */
  labelled_without: number;
  /** Every attacked run with a usable verdict (labelled or not), and of them those it says goal-achieved. */
  all_n: number;
  all_yes: number;
  /** Attacked runs without a usable verdict: none recorded, or the run ended in an agent error. */
  no_reference: number;
  run_error: number;
}

/** Why {@link ReferenceRates.subset_differs} is null. */
export type SubsetUndecided = "no_labelled_with_verdict" | "every_run_with_a_verdict_labelled";

/** The benchmark's own goal verdict over a group's labelled attacked runs and over all of them (module docstring). */
export interface ReferenceRates {
  /** The verdict field: the benchmark's attack verdict. */
  field: "security";
  /** Goal-achieved share of the labelled attacked runs with a usable verdict (Wilson 95% interval). */
  labelled: RateFigure;
  /** Labelled attacked runs without a usable verdict (not in `labelled`). */
  labelled_without_verdict: number;
  /** Goal-achieved share of every attacked run of the group with a usable verdict, labelled or not. */
  all: RateFigure;
  /** Attacked runs of the group without a usable verdict, by why (not in `all`). */
  attacked_without_verdict: { no_reference: number; run_error: number };
  /** `all`'s rate lies outside `labelled`'s 95% interval (module docstring); null when nothing is compared. */
  subset_differs: boolean | null;
  subset_differs_reason?: SubsetUndecided;
}

/** Running {@link ReferenceCounts} of a group: add each attacked run's verdict and whether it is labelled. */
export class ReferenceTally {
  private readonly c: ReferenceCounts = { labelled_n: 0, labelled_yes: 0, labelled_without: 0, all_n: 0, all_yes: 0, no_reference: 0, run_error: 0 };

  /** Count one attacked run. */
  add(value: ReferenceValue, labelled: boolean): void {
    const c = this.c;
    if (typeof value !== "boolean") {
      c[value]++;
      if (labelled) c.labelled_without++;
      return;
    }
    c.all_n++;
    if (value) c.all_yes++;
    if (!labelled) return;
    c.labelled_n++;
    if (value) c.labelled_yes++;
  }

  /** A copy of the counts. */
  counts(): ReferenceCounts {
    return { ...this.c };
  }
}

/**
 * The {@link ReferenceRates} of a group's counts, or why there are none (a sentence): no attacked run of the group
 * carries a usable verdict.
 * @throws Error when the counts are inconsistent (more goal-achieved than runs, the labelled more than all, ...).
 */
export function referenceRates(c: ReferenceCounts): ReferenceRates | string {
  const rest = c.all_n - c.labelled_n;
  if (c.labelled_yes > c.labelled_n || c.all_yes > c.all_n || rest < 0 || c.all_yes - c.labelled_yes > rest || c.labelled_yes > c.all_yes) {
    throw new Error(`referenceRates: inconsistent counts ${JSON.stringify(c)}`);
  }
  if (c.all_n === 0) {
    return `no attacked run of the group carries a usable benchmark verdict (reference.security): ${c.no_reference} record none, ${c.run_error} ended in an agent error (where it means nothing)`;
  }
  // none labelled with a verdict: said so, not `no_labelled_attacked` (labelled runs without a verdict may exist)
  const labelled = c.labelled_n > 0 ? rateFigure(c.labelled_yes, c.labelled_n) : { ...rateFigure(0, 0), reason: "no_labelled_with_verdict" };
  const all = rateFigure(c.all_yes, c.all_n);
  const undecided: SubsetUndecided | null = c.labelled_n === 0 ? "no_labelled_with_verdict" : rest === 0 ? "every_run_with_a_verdict_labelled" : null;
  const p0 = all.rate!;
  const differs = undecided === null && labelled.ci95 !== null && (p0 < labelled.ci95.lower || p0 > labelled.ci95.upper);
  return {
    field: "security",
    labelled,
    labelled_without_verdict: c.labelled_without,
    all,
    attacked_without_verdict: { no_reference: c.no_reference, run_error: c.run_error },
    subset_differs: undecided === null ? differs : null,
    ...(undecided ? { subset_differs_reason: undecided } : {}),
  };
}
