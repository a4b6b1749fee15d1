/**
 * A run's committee file read against a run read as columns (`../store/columns.ts`), for `agree --reference` on
 * a million trajectories: per line of the file its trajectory slot and a code into the distinct rows (without
 * `trajectory_id`; votes, label, status and the judge set repeat across lines), instead of an object per line.
 * The same metadata as `readCommitteeFile` (`./file.ts`) and the same check as `checkCommitteeFile`.
 */
import fs from "node:fs";
import path from "node:path";
import type { CommitteeVerdict, Verdict } from "../types.js";
import { readJsonl } from "../io/jsonl.js";
import type { ColumnRun } from "../store/columns.js";
import type { ReadProgress } from "../store/lean-read.js";
import { voteOf } from "../verdict/vote.js";
import { COMMITTEE_FILE, checkJudgeSet, staleVotes, type CommitteeFileCheck } from "./file.js";

/** A committee file as columns: the metadata of `CommitteeFile` and its lines as slots and codes. */
export interface CommitteeColumns {
  file: string;
  /** as `CommitteeFile.judges`, `excluded_judges`, `quorum`, `bad_lines` */
  judges: string[];
  excluded_judges: string[] | null;
  quorum: number | null;
  bad_lines: number[];
  /** number of (parsed) lines */
  n: number;
  /** per line: its trajectory's slot in the run's id table, -1 when the run does not hold the id */
  slot: Int32Array;
  /** per line: its index in `rows` */
  code: Uint32Array;
  /** distinct lines without `trajectory_id` (shared: not to be mutated) */
  rows: Array<Omit<CommitteeVerdict, "trajectory_id">>;
}

/**
 * Read a run's committee file (streamed) against its column run: lines that are not JSON skipped and listed,
 * judges, excluded judges and quorum taken as `readCommitteeFile` takes them (the first line recording the
 * judge set; else the sorted keys of every line's votes).
 * @param runDir the run folder; @param run the run as columns (its id table is only looked up, not grown).
 * @param progress the read's progress (bytes read, the file's bytes, the file), as the run's own reads say theirs:
 *   at 1M the file is ~310 MB, a read of tens of seconds on a busy host that printed nothing (m1m48: `view --other`
 *   sat silent ~2 min twice at load 37). The bytes read are estimated from each record's JSON text (progress only).
 * @returns the file as columns, or null when the run has none.
 */
export async function readCommitteeColumns(runDir: string, run: { ids: Pick<ColumnRun["ids"], "slotOf"> }, progress?: ReadProgress): Promise<CommitteeColumns | null> {
  const file = path.join(runDir, COMMITTEE_FILE);
  if (!fs.existsSync(file)) return null;
  const total = progress ? fs.statSync(file).size : 0;
  let seen = 0;
  const bad: number[] = [];
  let slot = new Int32Array(1024);
  let code = new Uint32Array(1024);
  let n = 0;
  const rows: Array<Omit<CommitteeVerdict, "trajectory_id">> = [];
  const byKey = new Map<string, number>();
  for await (const c of readJsonl<CommitteeVerdict>(file, (line) => bad.push(line))) {
    if (progress && (n & 4095) === 4095) progress(Math.min(total, seen), total, file);
    if (n === slot.length) {
      const s = new Int32Array(n * 2);
      s.set(slot);
      slot = s;
      const k = new Uint32Array(n * 2);
      k.set(code);
      code = k;
    }
    const { trajectory_id: id, ...rest } = (c ?? {}) as CommitteeVerdict;
    const key = JSON.stringify(rest);
    // the line's length, near enough for progress: its record without the id, the id and its key
    if (progress) seen += key.length + (typeof id === "string" ? id.length : 0) + 20;
    let k = byKey.get(key);
    if (k === undefined) byKey.set(key, (k = rows.push(rest) - 1));
    slot[n] = typeof id === "string" ? run.ids.slotOf(id) : -1;
    code[n++] = k;
  }
  progress?.(total, total, file);
  const first = rows[code.subarray(0, n).findIndex((k) => Array.isArray(rows[k].committee_judges))] as Omit<CommitteeVerdict, "trajectory_id"> | undefined;
  const judges = first ? [...first.committee_judges!] : [...new Set(rows.flatMap((r) => Object.keys(r.votes ?? {})))].sort();
  return {
    file,
    judges,
    excluded_judges: first && Array.isArray(first.excluded_judges) ? [...first.excluded_judges] : null,
    quorum: first && typeof first.quorum === "number" ? first.quorum : null,
    bad_lines: bad,
    n,
    slot: slot.slice(0, n),
    code: code.slice(0, n),
    rows,
  };
}

/** Each judge's repeat-0 verdict per trajectory slot (all slots), as its record code + 1 (0: none). */
export function rep0ByJudge(run: ColumnRun): Map<string, Uint32Array> {
  const rep0 = new Map<string, Uint32Array>();
  for (let i = 0; i < run.nVerdicts; i++) {
    const v = run.verdicts[run.vCode[i]];
    if (v.repeat !== 0) continue;
    let a = rep0.get(v.judge_id);
    if (!a) rep0.set(v.judge_id, (a = new Uint32Array(run.ids.size)));
    a[run.vSlot[i]] = run.vCode[i] + 1;
  }
  return rep0;
}

/**
 * `checkCommitteeFile` (`./file.ts`: the rules and messages) of a committee file read as columns against the
 * column run it was read with: the same stale problems and notes, in the same order.
 */
export function checkCommitteeColumns(cf: CommitteeColumns, run: ColumnRun): CommitteeFileCheck {
  const rep0 = rep0ByJudge(run);
  return checkCommitteeSlots(cf, run.ids.size, [...rep0.keys()], {
    rows: run.nRows,
    has: (j, s) => {
      const a = rep0.get(j);
      return !!a && a[s] > 0;
    },
    vote: (j, s) => {
      const a = rep0.get(j);
      return a && s >= 0 && a[s] > 0 ? voteOf(run.verdicts[a[s] - 1]) : null;
    },
  });
}

/**
 * The check of {@link checkCommitteeColumns} over any per-slot store of the run's repeat-0 votes (the column run's,
 * the view's rows): `checkCommitteeFile`'s rules and messages, in the same order.
 * @param nSlots the slots of the id table the file was read against (`cf.slot`).
 * @param judges the judges with a repeat-0 verdict in the run (any order).
 * @param rep0 `has(judge, slot)`: the judge has a repeat-0 verdict there; `vote(judge, slot)`: its vote (`voteOf`),
 *   null for none and for slot -1; `rows`, when given: slots from it on have no index row (a verdict's only), not
 *   looked for in the file (`committee` writes a line per index row; `checkCommitteeFile`'s `index`); `indexed`, when
 *   given: whether a slot has an index row, for slots not numbered index rows first (the view's other run).
 */
export function checkCommitteeSlots(
  cf: CommitteeColumns,
  nSlots: number,
  judges: readonly string[],
  rep0: { has: (judge: string, slot: number) => boolean; vote: (judge: string, slot: number) => string | null; rows?: number; indexed?: (slot: number) => boolean },
): CommitteeFileCheck {
  const { stale, notes, name, gone } = checkJudgeSet(cf, judges);
  const changed = new Map<string, number>();
  const noVerdict = new Map<string, number>();
  const inFile = new Uint8Array(nSlots);
  for (let i = 0; i < cf.n; i++) {
    const s = cf.slot[i];
    const c = cf.rows[cf.code[i]];
    if (s >= 0) inFile[s] = 1;
    for (const j of cf.judges) {
      if (gone.includes(j)) continue;
      const now = rep0.vote(j, s);
      if ((c.votes?.[j] ?? null) === now) continue;
      const m = now === null && !(s >= 0 && rep0.has(j, s)) ? noVerdict : changed;
      m.set(j, (m.get(j) ?? 0) + 1);
    }
  }
  staleVotes(stale, name, changed, noVerdict);
  let missing = 0;
  for (let s = 0, end = Math.min(nSlots, rep0.rows ?? nSlots); s < end; s++) if (!inFile[s] && (!rep0.indexed || rep0.indexed(s)) && cf.judges.some((j) => rep0.has(j, s))) missing++;
  if (missing) stale.push(`${missing} ${missing === 1 ? "trajectory" : "trajectories"} labelled by the committee's judges ${missing === 1 ? "is" : "are"} not in ${name} (labelled after it was written)`);
  return { stale, notes };
}

/**
 * The committee file's lines as a column run of one pseudo judge (`raterId`, repeat 0; status `ok` with the
 * committee label, else `unjudgeable` with no label), over the same ids and rows as `run`: what
 * `committeeReferenceAgreement` (`../agree/reference.ts`) builds as pseudo verdicts, for
 * `referenceAgreementColumns`. Lines whose trajectory the run does not hold are left out (no index row reads them).
 */
export function committeeAsColumnRun(cf: CommitteeColumns, run: ColumnRun, raterId: string): ColumnRun {
  const verdicts: Verdict[] = cf.rows.map(
    (c) => ({ judge_id: raterId, repeat: 0, status: c.status === "ok" && c.label ? "ok" : "unjudgeable", label: c.status === "ok" ? c.label : null }) as Verdict,
  );
  const keep: number[] = [];
  for (let i = 0; i < cf.n; i++) if (cf.slot[i] >= 0) keep.push(i);
  const vSlot = new Uint32Array(keep.length);
  const vCode = new Uint32Array(keep.length);
  keep.forEach((i, k) => {
    vSlot[k] = cf.slot[i];
    vCode[k] = cf.code[i];
  });
  // vContent is per verdict of `run`: not these pseudo verdicts'
  return { ...run, nVerdicts: keep.length, vSlot, vCode, verdicts, vContent: undefined };
}

/**
 * A committee file read against the whole run (`readCommitteeColumns`) restricted to the rows `restrictColumns` (`../store/where-columns.ts`)
 * kept: its lines of those rows only, with their slots in the restricted run, the file's metadata (judges, quorum,
 * bad lines) as read from the whole file, as `readRunWhere` restricts the committee file's verdicts.
 */
export function restrictCommitteeColumns(cc: CommitteeColumns, slotMap: Int32Array): CommitteeColumns {
  const keep: number[] = [];
  for (let i = 0; i < cc.n; i++) if (cc.slot[i] >= 0 && slotMap[cc.slot[i]] >= 0) keep.push(i);
  const slot = new Int32Array(keep.length);
  const code = new Uint32Array(keep.length);
  keep.forEach((i, k) => {
    slot[k] = slotMap[cc.slot[i]];
    code[k] = cc.code[i];
  });
  return { ...cc, n: keep.length, slot, code };
}
