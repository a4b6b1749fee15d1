/**
 * Two judges' concordance (`agree --judges A,B`) from a run read as columns (`../store/columns.ts`): per trajectory
 * slot the index of each judge's latest repeat-0 verdict (an Int32Array each), the attacked slots in order, and
 * the slots both judges labelled; no verdict object, no id string per trajectory (issue 26: the object path kept
 * ~0.5 GB live at a million trajectories). The figures are `judgeConcordance`'s (`./pairwise.ts`), through
 * {@link judgeConcordanceOver}; test/agree/concordance-columns.test.ts pins the two paths equal.
 */
import type { ColumnRun } from "../store/columns.js";
import { judgeConcordanceOver, type BootstrapSettings, type JudgeConcordance } from "./pairwise.js";

/** What {@link judgeConcordanceColumns} returns: the figures and, per slot, whether both judges labelled it. */
export interface ColumnConcordance {
  concordance: JudgeConcordance;
  /** per trajectory slot: 1 when it is attacked and both judges' latest repeat-0 verdicts are ok with a label */
  both: Uint8Array;
}

/**
 * `judgeConcordance` over a column run: the attacked trajectories in slot order (the index's order), each judge's
 * latest repeat-0 verdict on each (the last stored wins, as `repeatZeroByJudge`).
 * @param run read with at least the row field `attacked`.
 */
export function judgeConcordanceColumns(run: ColumnRun, judges: [string, string], opts: { bootstrap?: BootstrapSettings } = {}): ColumnConcordance {
  const at = [new Int32Array(run.nRows).fill(-1), new Int32Array(run.nRows).fill(-1)];
  for (let i = 0; i < run.nVerdicts; i++) {
    const slot = run.vSlot[i];
    if (slot >= run.nRows) continue; // no index row: never attacked
    const v = run.verdicts[run.vCode[i]];
    if (v.repeat !== 0) continue;
    if (v.judge_id === judges[0]) at[0][slot] = i;
    else if (v.judge_id === judges[1]) at[1][slot] = i;
  }
  let n = 0;
  for (let s = 0; s < run.nRows; s++) if (run.rows[run.rowCode[s]].attacked) n++;
  const attacked = new Uint32Array(n);
  for (let s = 0, k = 0; s < run.nRows; s++) if (run.rows[run.rowCode[s]].attacked) attacked[k++] = s;
  const verdictAt = (k: number, side: 0 | 1) => {
    const i = at[side][attacked[k]];
    return i < 0 ? undefined : run.verdicts[run.vCode[i]];
  };
  const concordance = judgeConcordanceOver(n, (k) => run.ids.id(attacked[k]), verdictAt, judges, opts);
  const both = new Uint8Array(run.nRows);
  const labelled = (v: { status: string; label: string | null } | undefined) => v !== undefined && v.status === "ok" && !!v.label;
  for (let k = 0; k < n; k++) if (labelled(verdictAt(k, 0)) && labelled(verdictAt(k, 1))) both[attacked[k]] = 1;
  return { concordance, both };
}
