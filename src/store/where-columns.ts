/**
 * `--where` on a run read as columns (`./columns.ts`): the same selection as `restrictRun` (`./where.ts`, the one
 * filter of every command) applied to row slots, so the commands after `label` keep a million-trajectory run as
 * columns with `--where` too (issue 26) instead of reading it as objects. The rows kept, the verdicts of those
 * rows only (a verdict without an index row is dropped, as `restrictRun` drops it), the same statement, warnings
 * and refusal (`WhereTally`, `tallied`).
 */
import type { ColumnRun } from "./columns.js";
import { IdTable } from "./id-table.js";
import { IdSubset } from "./id-subset.js";
import { WHERE_FIELDS, WhereTally, tallied, type WhereFilter, type WhereRecord, type WhereStatement } from "./where.js";

/**
 * The row fields a column read needs for a filter: `fields` and, with a filter, every field `--where` can name
 * (the row projections must carry what the filter reads).
 */
export function whereRowFields(fields: readonly string[], f: WhereFilter | null | undefined): string[] {
  return f ? [...new Set([...fields, ...Object.values(WHERE_FIELDS)])] : [...fields];
}

/** What {@link restrictColumns} returns. */
export interface WhereColumns {
  /** the kept rows as slots 0 .. kept-1 (in the run's order), their current verdicts in order, codes renumbered */
  run: ColumnRun;
  statement: WhereStatement;
  /** one per value that matched nothing (`WhereTally`'s) */
  warnings: string[];
  /** per slot of the run read: its slot in `run`, -1 when dropped (rows the filter drops, and slots without a row) */
  slotMap: Int32Array;
}

/**
 * Restrict a column run to the rows a filter keeps (module docstring): what `restrictRun` keeps of the same run
 * read as objects, in the same order. The run must have been read with {@link whereRowFields}. The shared row and
 * verdict records are reused (not copied); only those the kept rows and verdicts use remain, numbered in order of
 * first use (so `run.verdicts` names the judges of the kept verdicts only, as the restricted objects do).
 * @param runName named in the messages (`trajectories of run X`).
 * @param o.view the kept rows' ids as a view on `run`'s id table (`IdSubset` of ./id-subset.ts: 8 bytes per slot,
 *   `run.ids` held as long as the result is), not a table of their own (tens of bytes per id): for a caller that
 *   holds the whole read beside the kept rows anyway (`report --where --human`, `agree --human --where`). Same ids, slots and order either way.
 * @throws UsageError as `restrictRun` when the filter keeps nothing.
 */
export function restrictColumns(run: ColumnRun, f: WhereFilter, runName?: string, o: { view?: boolean } = {}): WhereColumns {
  const tally = new WhereTally(f);
  const slotMap = new Int32Array(run.ids.size).fill(-1);
  const rowCodeAll = new Uint32Array(run.nRows);
  const rowNew = new Map<number, number>();
  const rows: ColumnRun["rows"] = [];
  let nKept = 0;
  for (let s = 0; s < run.nRows; s++) {
    const c = run.rowCode[s];
    if (!tally.add(run.rows[c] as WhereRecord)) continue;
    slotMap[s] = nKept;
    let k = rowNew.get(c);
    if (k === undefined) rowNew.set(c, (k = rows.push(run.rows[c]) - 1));
    rowCodeAll[nKept++] = k;
  }
  const { statement, warnings } = tallied(tally, `trajectories${runName ? ` of run ${runName}` : ""}`);
  const ids = o.view ? keptView(run, slotMap, nKept) : keptTable(run, slotMap, nKept);
  let n = 0;
  for (let i = 0; i < run.nVerdicts; i++) if (slotMap[run.vSlot[i]] >= 0) n++;
  const vSlot = new Uint32Array(n);
  const vCode = new Uint32Array(n);
  const vContent = run.vContent ? new Float64Array(n) : undefined;
  const codeNew = new Map<number, number>();
  const verdicts: ColumnRun["verdicts"] = [];
  for (let i = 0, j = 0; i < run.nVerdicts; i++) {
    const s = slotMap[run.vSlot[i]];
    if (s < 0) continue;
    const c = run.vCode[i];
    let k = codeNew.get(c);
    if (k === undefined) codeNew.set(c, (k = verdicts.push(run.verdicts[c]) - 1));
    vSlot[j] = s;
    vCode[j] = k;
    if (vContent) vContent[j] = run.vContent![i];
    j++;
  }
  const kept: ColumnRun = { ids, nRows: ids.size, rowCode: rowCodeAll.slice(0, nKept), rows, nVerdicts: n, vSlot, vCode, verdicts, ...(vContent ? { vContent } : {}) };
  return { run: kept, statement, warnings, slotMap };
}

/** The kept rows' ids (`slotMap[s]` >= 0, numbered 0 .. nKept-1 in slot order) copied into a table of their own. */
function keptTable(run: ColumnRun, slotMap: Int32Array, nKept: number): IdTable {
  const ids = new IdTable();
  for (let s = 0; s < run.nRows && ids.size < nKept; s++) if (slotMap[s] >= 0) ids.add(run.ids.id(s));
  return ids;
}

/** The kept rows' ids as a view on the run's id table (`IdSubset`). */
function keptView(run: ColumnRun, slotMap: Int32Array, nKept: number): IdSubset {
  const slots = new Uint32Array(nKept);
  for (let s = 0; s < run.nRows; s++) if (slotMap[s] >= 0) slots[slotMap[s]] = s;
  return new IdSubset(run.ids, slots, slotMap);
}
