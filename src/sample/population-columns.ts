/**
 * The sample's population read as columns (`ipi-judge sample` without `--where`, on a million trajectories):
 * what `readLeanIndex` + `readCommitteeStrata` + `buildPopulation` give, without an object or a content-hash
 * string per trajectory. The index is read once (`readColumnRun` of src/store/columns.ts, with the verdicts when
 * the run has a committee file, for its check; `readColumnIndex` without), each row's content hash into a
 * {@link HashColumn} (32 bytes a row), its strata fields as a code into the distinct rows; the committee file as
 * columns (`readCommitteeColumns`, checked by `checkCommitteeColumns`); the units are the row slots sorted by id
 * (`IdTable.compare`: code-unit order, as `compareCodeUnits`).
 *
 * Same semantics as the object path: the latest index row of an id wins (so no id is dropped as a duplicate),
 * the last committee line of a trajectory wins, lines of trajectories without an index row are ignored, and the
 * content twins are counted (units whose hash an earlier unit already has: N minus the distinct hashes).
 *
 * With `--where` (`sample --where`): the population is the row slots the filter keeps (`WhereTally`, the selection
 * of `restrictRun` and `restrictColumns`), as the object path's `restrictRun` of the lean index kept them: the
 * committee file is checked against the whole run, its lines of kept trajectories only are read, and the content
 * twins are counted among the kept units.
 */
import fs from "node:fs";
import path from "node:path";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { ReadProgress } from "../store/lean-read.js";
import { readColumnIndex, readColumnRun, type ColumnRun, type ColumnRunOptions } from "../store/columns.js";
import { whereRowFields } from "../store/where-columns.js";
import { WhereTally, tallied, type WhereFilter, type WhereRecord, type WhereStatement } from "../store/where.js";
import { checkCommitteeColumns, readCommitteeColumns } from "../committee/file-columns.js";
import { COMMITTEE_FILE } from "../committee/file.js";
import { COMMITTEE_CODES, STRATUM_FIELDS, type ColumnPopulation, type StratumField } from "./population.js";
import { SampleError } from "./sample.js";
import { uniqueStratumNamer } from "./stratum-names.js";

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Content hashes by slot: a sha256 in lowercase hex as its 32 bytes in one buffer; any other string (another
 * hash form, a hand-made run) kept as a string beside it, so two hashes are equal here exactly when their
 * strings are.
 */
export class HashColumn {
  private bytes = Buffer.alloc(32 * 1024);
  private readonly odd = new Map<number, string>();
  private n = 0;

  /** Set slot `slot`'s hash (a later call for a slot replaces it). */
  set(slot: number, h: string): void {
    if (HEX64.test(h)) {
      if ((slot + 1) * 32 > this.bytes.length) {
        const grown = Buffer.alloc(Math.max(this.bytes.length * 2, (slot + 1) * 32));
        this.bytes.copy(grown);
        this.bytes = grown;
      }
      this.bytes.write(h, slot * 32, 32, "hex");
      this.odd.delete(slot);
    } else this.odd.set(slot, h);
    if (slot >= this.n) this.n = slot + 1;
  }

  /** Number of distinct hashes among slots `0 .. n-1` (every slot set), or among those where `keep[slot]` is 1. */
  distinct(n: number, keep?: Uint8Array): number {
    const strings = new Set<string>();
    let size = 1;
    while (size < 2 * n) size *= 2;
    const table = new Int32Array(size).fill(-1);
    const mask = size - 1;
    const B = this.bytes;
    let d = 0;
    for (let s = 0; s < n; s++) {
      if (keep && !keep[s]) continue;
      const o = this.odd.get(s);
      if (o !== undefined) {
        strings.add(o);
        continue;
      }
      // sha256 bytes are uniform: the first four are the table's hash
      for (let p = B.readUInt32LE(s * 32) & mask; ; p = (p + 1) & mask) {
        const t = table[p];
        if (t === -1) {
          table[p] = s;
          d++;
          break;
        }
        if (B.compare(B, s * 32, s * 32 + 32, t * 32, t * 32 + 32) === 0) break;
      }
    }
    return d + strings.size;
  }
}

/**
 * Read a run's population as columns (module docstring).
 * @param fields the `--strata` fields (checked: `parseStrataFields`).
 * @param step called with each step after the read (a status line).
 * @param where `--where` and the run's name (named in its messages): the population is the rows it keeps.
 * @returns the population, what the committee check found (`stale`, `notes`: empty without a committee file), the
 *   committee file's members, left-out judges and quorum (`committee`: null without one), and with `where.filter` its
 *   statement and warnings (values that matched nothing: `where`, null without a filter).
 * @throws SampleError for a run without trajectories or a committee file with lines that are not JSON; UsageError
 *   (`tallied`) when the filter keeps no trajectory; Error for a committee line without a boolean `unanimous` (as
 *   `buildPopulation`).
 */
export async function readColumnPopulation(
  runDir: string,
  fields: readonly StratumField[],
  progress?: ReadProgress,
  step?: (what: string) => void,
  where?: { filter: WhereFilter | null | undefined; run?: string },
): Promise<{ pop: ColumnPopulation; stale: string[]; notes: string[]; committee: StoredMembers | null; where: { statement: WhereStatement; warnings: string[] } | null }> {
  const hashes = new HashColumn();
  const f = where?.filter ?? null;
  const o: ColumnRunOptions = { rowFields: whereRowFields(STRATUM_FIELDS, f), progress, onRow: (slot, row) => hashes.set(slot, row.content_sha256) };
  const withCommittee = fs.existsSync(path.join(runDir, COMMITTEE_FILE));
  const run = withCommittee ? await readColumnRun(runDir, o) : { ...(await readColumnIndex(runDir, o)), nVerdicts: 0 };
  const N = run.nRows;
  if (N === 0) throw new SampleError(`run folder ${runDir} has no trajectories (trajectories.jsonl); run ipi-judge label first`);
  // --where: the kept slots (1), before the committee file is read, as the object path refuses a filter keeping none
  const kept = f ? keptSlots(run, f, where?.run) : null;
  const keep = kept?.keep;

  // committee stratum per row slot: 0 no line, 1 unanimous, 2 not unanimous, 3 no quorum
  let committee: Uint8Array | null = null;
  let stale: string[] = [];
  let notes: string[] = [];
  let members: StoredMembers | null = null;
  if (withCommittee && "vSlot" in run) {
    step?.(`checking ${COMMITTEE_FILE} against ${run.nVerdicts.toLocaleString("en-US")} verdicts`);
    const cf = await readCommitteeColumns(runDir, run);
    if (cf) {
      const bad = cf.bad_lines;
      if (bad.length) throw new SampleError(`${cf.file}: line${bad.length > 1 ? "s" : ""} ${bad.slice(0, 10).join(", ")} are not JSON`);
      // A run folder holding committee verdicts but no judge verdicts (assembled by hand) has nothing to check against.
      const check = run.nVerdicts ? checkCommitteeColumns(cf, run) : { stale: [], notes: [] };
      stale = check.stale;
      notes = check.notes;
      members = { judges: cf.judges, excluded_judges: cf.excluded_judges, quorum: cf.quorum };
      committee = new Uint8Array(N);
      let k = 0;
      for (let i = 0; i < cf.n; i++) {
        const s = cf.slot[i];
        if (!(s >= 0 && s < N) || (keep && !keep[s])) continue;
        k++;
        const c = cf.rows[cf.code[i]];
        if (typeof c?.unanimous !== "boolean") throw new Error(`committee verdict ${k}: needs a string trajectory_id and a boolean unanimous`);
        committee[s] = c.status === "no_quorum" ? 3 : c.unanimous ? 1 : 2;
      }
    }
  }

  // strata: one key per distinct row projection, one code per distinct key
  const strata: string[] = [];
  const codeOf = new Map<string, number>();
  const stratumOf = uniqueStratumNamer(fields);
  const rowStratum = run.rows.map((r) => {
    let key: string;
    try {
      key = stratumOf(r as TrajectoryIndexRow);
    } catch (e) {
      throw new SampleError((e as Error).message);
    }
    let c = codeOf.get(key);
    if (c === undefined) {
      codeOf.set(key, (c = strata.length));
      strata.push(key);
    }
    return c;
  });

  const n = kept ? kept.n : N;
  step?.(`sorting ${n.toLocaleString("en-US")} trajectories by id`);
  const order = new Uint32Array(n);
  for (let s = 0, i = 0; s < N; s++) if (!keep || keep[s]) order[i++] = s;
  const ids = run.ids;
  order.sort((a, b) => ids.compare(a, b));
  const A = COMMITTEE_CODES.indexOf("A");
  const D = COMMITTEE_CODES.indexOf("D");
  const U = COMMITTEE_CODES.indexOf("U");
  const stratum = new Uint32Array(n);
  const cs = new Uint8Array(n);
  let missing = 0;
  let noQuorum = 0;
  for (let i = 0; i < n; i++) {
    const s = order[i];
    stratum[i] = rowStratum[run.rowCode[s]];
    if (!committee) continue;
    const c = committee[s];
    if (c === 0) missing++;
    if (c === 3) noQuorum++;
    cs[i] = c === 1 ? A : c === 2 ? D : U;
  }
  const pop: ColumnPopulation = {
    n,
    id: (i) => ids.id(order[i]),
    stratum,
    strata,
    committee: cs,
    dropped: [],
    content_twins: n - hashes.distinct(N, keep),
    committee_run: committee !== null,
    committee_missing: missing,
    committee_unmatched: 0,
    committee_no_quorum: noQuorum,
    strata_fields: [...fields],
  };
  return { pop, stale, notes, committee: members, where: kept ? { statement: kept.statement, warnings: kept.warnings } : null };
}

/**
 * The row slots `f` keeps (`keep[slot]` 1), their number, and the filter's statement and warnings: the selection of
 * `restrictRun` (`WhereTally` over the slots in the run's order, as `restrictColumns` tallies them).
 * @throws UsageError (`tallied`) when the filter keeps no trajectory.
 */
export function keptSlots(run: Pick<ColumnRun, "nRows" | "rowCode" | "rows">, f: WhereFilter, runName?: string): { keep: Uint8Array; n: number; statement: WhereStatement; warnings: string[] } {
  const tally = new WhereTally(f);
  const keep = new Uint8Array(run.nRows);
  let n = 0;
  for (let s = 0; s < run.nRows; s++) {
    if (!tally.add(run.rows[run.rowCode[s]] as WhereRecord)) continue;
    keep[s] = 1;
    n++;
  }
  const { statement, warnings } = tallied(tally, `trajectories${runName ? ` of run ${runName}` : ""}`);
  return { keep, n, statement, warnings };
}

/** A committee file's members, left-out judges and quorum as read (`readCommitteeColumns`, `readCommitteeFile`). */
export interface StoredMembers {
  judges: readonly string[];
  excluded_judges: readonly string[] | null;
  quorum: number | null;
}
