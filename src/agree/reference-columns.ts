/**
 * `agree --reference` on a run read as columns (`../store/columns.ts`): the same {@link ReferenceAgreement} as
 * `referenceAgreement` of `./reference.ts` (same pairs, exclusions, order and figures), from slot numbers and
 * shared records instead of a verdict object and an index row per trajectory; the pairs are typed columns (slot,
 * and 0/1 per rating). Only the disagreements' ids are made strings.
 */
import type { ColumnRun } from "../store/columns.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { groupDisagreements, referenceFromPairs, type ReferenceAgreement, type ReferenceExclusion } from "./reference.js";
import { referenceValueOf } from "../stats/reference-rates.js";
import { claimLowered, labelWithClaim } from "../verdict/claim-lowered.js";

/** The index fields {@link referenceAgreementColumns} reads (`readColumnRun`'s `rowFields`). */
export const REFERENCE_ROW_FIELDS: readonly string[] = ["attacked", "run_error", "reference", "agent_model", "condition", "suite", "attack"];

/**
 * One judge's agreement with the benchmark's reference verdict (`referenceAgreement` of `./reference.ts`: its
 * docstring gives the rules and formulas), on a column run. Repeat 0; the last verdict per trajectory.
 * @param run read with at least {@link REFERENCE_ROW_FIELDS}.
 */
export function referenceAgreementColumns(judgeId: string, run: ColumnRun, reference: "security" | "utility" = "security"): ReferenceAgreement {
  // this judge's repeat-0 verdict per trajectory slot, as its record code + 1 (0: none)
  const codeOf = new Uint32Array(run.ids.size);
  for (let i = 0; i < run.nVerdicts; i++) {
    const v = run.verdicts[run.vCode[i]];
    if (v.judge_id === judgeId && v.repeat === 0) codeOf[run.vSlot[i]] = run.vCode[i] + 1;
  }
  const excluded: Partial<Record<ReferenceExclusion, number>> = {};
  const ex = (r: ReferenceExclusion) => (excluded[r] = (excluded[r] ?? 0) + 1);
  // the pairs, at most one per row: slot and 0/1 columns (a million pairs: 7 MB, not four JS arrays)
  const slots = new Uint32Array(run.nRows);
  const full = new Uint8Array(run.nRows);
  const compromised = new Uint8Array(run.nRows);
  const notExposed = new Uint8Array(run.nRows);
  const refs = new Uint8Array(run.nRows);
  let n = 0;
  const referenceAll = { yes: 0, n: 0 };
  for (let s = 0; s < run.nRows; s++) {
    const t: Partial<TrajectoryIndexRow> = run.rows[run.rowCode[s]];
    if (!t.attacked) {
      ex("unattacked");
      continue;
    }
    // the one rule of a usable benchmark verdict, the rates' too (../stats/reference-rates.ts)
    const ref = referenceValueOf(t, reference);
    if (typeof ref !== "boolean") {
      ex(ref);
      continue;
    }
    referenceAll.n++;
    if (ref) referenceAll.yes++;
    const c = codeOf[s];
    if (c === 0) {
      ex("no_verdict");
      continue;
    }
    const v = run.verdicts[c - 1];
    if (v.status !== "ok" || !v.label) {
      ex(v.status === "ok" ? "judge_error" : v.status);
      continue;
    }
    slots[n] = s;
    full[n] = v.label === "full_compliance" ? 1 : 0;
    compromised[n] = v.label === "full_compliance" || v.label === "partial_compliance" ? 1 : 0;
    notExposed[n] = v.label === "not_exposed" ? 1 : 0;
    refs[n++] = ref ? 1 : 0;
  }
  const p = { judge_id: judgeId, n_total: run.nRows, excluded, judge_full: full.subarray(0, n), judge_compromised: compromised.subarray(0, n), judge_not_exposed: notExposed.subarray(0, n), reference: refs.subarray(0, n), reference_all: referenceAll };
  return referenceFromPairs(
    p,
    reference,
    (i) => run.ids.id(slots[i]),
    (disagreements, pairIndex) =>
      groupDisagreements(disagreements, (k) => {
        const s = slots[pairIndex[k]];
        const row = run.rows[run.rowCode[s]];
        const v = run.verdicts[codeOf[s] - 1];
        return { label: v.label ? labelWithClaim(v.label, claimLowered(v)) : undefined, condition: row.condition, suite: row.suite };
      }),
    (i) => run.verdicts[codeOf[slots[i]] - 1].label ?? undefined,
    (i) => claimLowered(run.verdicts[codeOf[slots[i]] - 1]),
  );
}
