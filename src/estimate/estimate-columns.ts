/**
 * `estimate --human` on a run read as columns (`../store/columns.ts`: ids in an id table, one shared projection per
 * distinct row, one shared slim record per distinct verdict), for runs of a million trajectories in bounded memory
 * (issue 26 point 3): the estimate's view of the run (`EstimateData` of ./estimate-data.ts) made from the columns,
 * with no object or id string per trajectory held. The estimate itself is `estimateOver` of ./run.ts, written once
 * for both reads: the same report as `readLeanRun` + `estimateFromData` (test/estimate/estimate-columns.test.ts).
 *
 * Units are the row slots sorted by id (`IdTable.compare`, code-unit order, as `buildPopulation` sorts ids). A
 * labelled trajectory's content hash is kept from its latest row as the index is read (`onRow`).
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { Verdict } from "../types.js";
import { readColumnRun, type ColumnRun } from "../store/columns.js";
import type { ReadProgress } from "../store/lean-read.js";
import { WHERE_FIELDS } from "../store/where.js";
import { STRATUM_FIELDS } from "../sample/population.js";
import { RUN_FOLDER_FIELD } from "../run/pooled-folders.js";
import { unlabelledCommitteeItem, unusableReason } from "../verdict/vote.js";
import { committeeColumns } from "../committee/report-columns.js";
import { readCommitteeColumns, rep0ByJudge, checkCommitteeColumns } from "../committee/file-columns.js";
import { storedCommittee, type StoredCommittee } from "../committee/members.js";
import { populationRows } from "../agree/human-columns.js";
import { REFERENCE_ROW_FIELDS } from "../agree/reference-columns.js";
import { ColumnIndex } from "../store/column-index.js";
import { sourceHealth } from "./caveats.js";
import type { EstimateData, LabelLookup, UnitLabel } from "./estimate-data.js";
import { committeeUnitLabel, type EstimateSource } from "./source.js";

/** `model` is read as `agent_model` (`groupValue` of ./groups.ts). */
const BY_ALIASES: Record<string, string> = { model: "agent_model" };

/**
 * The index fields the estimate reads: attacked, judge health's (the reference), the sampling strata's fields, every `--where` field (the filter
 * and a sample's recorded filter), agent_model and condition (groups, pooled warnings), run_folder, and the top
 * field of each `--by` (`surface`: the `surfaces` map and `metadata`).
 */
export function estimateRowFields(by: readonly string[] = []): string[] {
  // REFERENCE_ROW_FIELDS: judge health's (reference, run_error, attack: denies_reference_goal, a broken judge's mark)
  const fields = new Set<string>(["attacked", ...REFERENCE_ROW_FIELDS, ...STRATUM_FIELDS, ...Object.values(WHERE_FIELDS), "agent_model", "condition", RUN_FOLDER_FIELD]);
  for (const f of by) {
    if (f === "surface") {
      fields.add("surfaces");
      fields.add("metadata");
    } else fields.add((BY_ALIASES[f] ?? f).split(".")[0]);
  }
  return [...fields];
}

/** A run read as columns for the estimate, with the labelled trajectories' content hashes (latest row's). */
export interface EstimateColumns {
  run: ColumnRun;
  content: Map<string, string>;
}

/**
 * Read a run as columns for `estimate --human` (module docstring).
 * @param labelled the human-labelled trajectory ids (`labelledIds` of ../agree/human-file.ts): their content hashes are kept.
 */
export async function readEstimateColumns(runDir: string, labelled: ReadonlySet<string>, o: { by?: readonly string[]; progress?: ReadProgress } = {}): Promise<EstimateColumns> {
  const content = new Map<string, string>();
  const onRow = (_slot: number, row: TrajectoryIndexRow) => void (labelled.has(row.id) && content.set(row.id, row.content_sha256));
  const run = await readColumnRun(runDir, { rowFields: estimateRowFields(o.by), progress: o.progress, onRow });
  return { run, content };
}

/**
 * The stored committee of a column run (`readStoredCommittee` of ../committee/members.ts on objects): its file read
 * as columns and checked against the run; null without a committee file.
 */
export async function storedCommitteeColumns(runDir: string, run: ColumnRun): Promise<StoredCommittee | null> {
  const cf = await readCommitteeColumns(runDir, run);
  return cf ? storedCommittee(cf, checkCommitteeColumns(cf, run).stale) : null;
}

/** The estimate's view (`EstimateData`) of a column run. */
export function columnEstimateData(cols: EstimateColumns): EstimateData {
  const { run, content } = cols;
  const n = run.nRows;
  const order = new Uint32Array(n);
  for (let s = 0; s < n; s++) order[s] = s;
  order.sort((a, b) => run.ids.compare(a, b));
  const rank = new Uint32Array(n);
  for (let u = 0; u < n; u++) rank[order[u]] = u;
  const row = (u: number) => run.rows[run.rowCode[order[u]]] as TrajectoryIndexRow;
  const unitOf = (id: string) => {
    const s = run.ids.slotOf(id);
    return s >= 0 && s < n ? rank[s] : -1;
  };
  // the rows with their ids, made as read (no million row objects kept): the sample frame's check
  const rowsWithIds = populationRows(new ColumnIndex(run));
  return {
    n,
    duplicatesDropped: 0,
    row,
    unitOf,
    contentOf: (id) => (unitOf(id) >= 0 ? content.get(id) : null),
    rowsWithIds: (us) => slotRows(rowsWithIds, us ? Uint32Array.from(us, (u) => order[u]) : order),
    judges: run.verdicts,
    labels: (source) => columnLabels(run, source, order),
    health: columnHealth(run, n, rank),
  };
}

/**
 * `EstimateData.health` of a column run: `sourceHealth` over the verdicts of the kept units (every verdict without a
 * filter), in storage order, read as they come: no array of a million verdict positions or records (issue 26 point
 * 3: at a million trajectories those, once per rate, were the calibrated estimate's ~48 MiB transient). The kept
 * verdicts' positions, when a filter keeps some, are counted first, then held in one Uint32Array. The figures of a
 * (source, kept) pair are computed once and a copy returned when asked again (`estimate` asks once per rate with the
 * same source and filter; the run's columns do not change).
 * @param n the run's row count (slots 0 .. n-1); `rank[slot]` the slot's unit.
 */
function columnHealth(run: ColumnRun, n: number, rank: Uint32Array): EstimateData["health"] {
  let last: { source: string; kept: Uint8Array | null; result: ReturnType<typeof sourceHealth> } | undefined;
  const keeps = (kept: Uint8Array | null, s: number) => !kept || (s < n && kept[rank[s]] === 1);
  return (source, kept) => {
    const key = JSON.stringify(source);
    if (last && last.source === key && sameMarks(last.kept, kept)) return structuredClone(last.result);
    let at: Uint32Array | null = null;
    let count = run.nVerdicts;
    if (kept) {
      count = 0;
      for (let i = 0; i < run.nVerdicts; i++) if (keeps(kept, run.vSlot[i])) count++;
      at = new Uint32Array(count);
      for (let i = 0, k = 0; i < run.nVerdicts; i++) if (keeps(kept, run.vSlot[i])) at[k++] = i;
    }
    const pos = at ? (k: number) => at![k] : (k: number) => k;
    const records: Iterable<Verdict> = {
      *[Symbol.iterator]() {
        for (let k = 0; k < count; k++) yield run.verdicts[run.vCode[pos(k)]];
      },
    };
    const slotAt = (k: number) => run.vSlot[pos(k)];
    const result = sourceHealth(records, source, (_v, k) => (slotAt(k) < n ? run.rows[run.rowCode[slotAt(k)]] : undefined), (_v, k) => run.ids.id(slotAt(k)));
    last = { source: key, kept: kept && kept.slice(), result };
    return structuredClone(result);
  };
}

/** Whether two `kept` marks (null: no filter) keep the same units. */
function sameMarks(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The rows (with ids) of `slots`, an array-like over `all` made as read. */
function slotRows(all: readonly TrajectoryIndexRow[], slots: ArrayLike<number>): readonly TrajectoryIndexRow[] {
  return new Proxy([] as TrajectoryIndexRow[], {
    get(target, p, receiver) {
      if (p === "length") return slots.length;
      if (typeof p === "string") {
        const k = Number(p);
        if (Number.isInteger(k) && k >= 0 && String(k) === p) return k < slots.length ? all[slots[k]] : undefined;
      }
      return Reflect.get(target, p, receiver);
    },
    has(target, p) {
      if (typeof p === "string") {
        const k = Number(p);
        if (Number.isInteger(k) && k >= 0 && String(k) === p) return k < slots.length;
      }
      return Reflect.has(target, p);
    },
  });
}

/**
 * The source's label per unit (`sourceLabels` of ./source.ts): the judge's repeat-0 verdict (the last stored) or
 * why it has none; the committee's verdict over its members' repeat-0 votes (`committeeColumns`). One label object
 * per distinct verdict record, shared.
 */
function columnLabels(run: ColumnRun, source: EstimateSource, order: Uint32Array): LabelLookup {
  if (source.kind === "judge") {
    const rep0 = new Uint32Array(run.ids.size);
    for (let i = 0; i < run.nVerdicts; i++) {
      const v = run.verdicts[run.vCode[i]];
      if (v.judge_id === source.judge_id && v.repeat === 0) rep0[run.vSlot[i]] = run.vCode[i] + 1;
    }
    const byCode: Array<UnitLabel | undefined> = [];
    const none = unusableReason(undefined)!;
    return (u) => {
      const c = rep0[order[u]];
      if (c === 0) return none;
      let l = byCode[c - 1];
      if (l === undefined) {
        const v = run.verdicts[c - 1];
        l = byCode[c - 1] = unusableReason(v) ?? { label: v.label! };
      }
      return l;
    };
  }
  const rep0 = rep0ByJudge(run);
  const none = new Uint32Array(run.ids.size);
  const cc = committeeColumns(run, source.members, source.members.map((j) => rep0.get(j) ?? none), source.quorum);
  rep0.clear();
  const labels: UnitLabel[] = cc.verdicts.map(committeeUnitLabel);
  const votes = cc.verdicts.map((c) => (c.status === "disputed" ? unlabelledCommitteeItem(c).votes_for : undefined));
  const code = cc.code;
  const lookup: LabelLookup = (u) => labels[code[order[u]]];
  lookup.votesFor = (u) => votes[code[order[u]]];
  return lookup;
}
