/**
 * The second run of `ipi-judge view --other DIR`, held as only what the view shows of it: its name, judges and
 * warnings, the judges' health (banners), and each trajectory's repeat-0 labels by id (the list's `o:<judge>`
 * columns and filters, the item page's other-run block). Issue 26: loaded as a whole `ViewRun` (./run-data.ts), the
 * 1M-trajectory run twice peaked at 673 MB; here a trajectory of the other run costs a few fixed-width bytes.
 *
 * Read by the one scan `loadViewRun` reads a run with (./run-scan.ts: its rules and words live there once): the
 * same skipped lines, removed trajectories, verdicts on an older text left out (and counted per judge), a later
 * verdict of the same trajectory, judge and repeat replacing the earlier (the labels then in the storage order of
 * the current verdicts, as `loadViewRun`'s recompute gives them), the orphans' warning; then the committee file's
 * staleness check (its warning; the committee column is not shown for the other run). Per slot: a state byte (no
 * row / index row / verdicts only), a code into the distinct (labels, status) pairs, and one bit per (judge,
 * repeat) that has a current verdict there (the stale rule and the crash notes ask it). Slots are the main run's id table's, so an id of both runs is stored once; ids only in
 * the other run get slots after them in a small table of their own.
 *
 * An id both runs hold with other content (the index rows' `content_sha256` differ: the other run labelled another
 * text under that id, e.g. a corpus run again) shows no other-run labels, as an id the other run lacks, and one warning
 * counts them with examples: side by side, their labels differed because the texts did (break 46: shown as the
 * judges' disagreements, nothing said). Needs the main run's content codes (`mainContent`, `ViewRun.takeContentCodes`).
 *
 * The judges' health is counted during the one read (./scan-health.ts). When a verdict was superseded during it,
 * the count does not hold and `loadViewRun` counts it over the current verdicts row by row (./judge-health.ts: the
 * order names a note's first items), which needs each row's current verdict lines: the other run is then loaded
 * whole when its health is first asked (the memory of before, for that rare run), and dropped after.
 */
import path from "node:path";
import type { ReadProgress } from "../store/lean-read.js";
import { IdTable } from "../store/id-table.js";
import { checkCommitteeSlots, readCommitteeColumns } from "../committee/file-columns.js";
import { Codes } from "./row-columns.js";
import { loadViewRun, staleCommitteeReason } from "./run-data.js";
import { scanRun, type RunScanSink } from "./run-scan.js";
import { judgeBanners, viewJudgeHealth, type ViewJudgeHealth } from "./judge-health.js";
import { contentCode } from "../store/content-code.js";
import { showControls } from "../format/shown.js";

/** What the view reads of the other run. */
export interface OtherRun {
  name: string;
  /** Its judges (sorted): the `o:<judge>` raters. */
  judges: string[];
  warnings: string[];
  /** The repeat-0 labels (judge id -> label, null: none) of a trajectory; undefined when the run has no row of it. */
  labelsOf(id: string): Record<string, string | null> | undefined;
  /** Its judges' banners and crashes (./judge-health.ts), computed at the first call. @throws as `viewJudgeHealth`. */
  judgeHealth(): Promise<ViewJudgeHealth>;
}

/** Per slot: no row of the id, an index row, verdicts without an index row (an orphan). */
const NONE = 0;
const INDEXED = 1;
const ORPHAN = 2;

type Pair = [Record<string, string | null>, Record<string, string>];

/** The other run's per-slot columns (module docstring). */
class OtherColumns {
  cap: number;
  state: Uint8Array;
  vote: Uint32Array;
  /** `words` 32-bit words per slot: bit c set when (judge, repeat) combination c has a current verdict */
  present: Uint32Array;
  words = 1;
  readonly pairs = new Codes<Pair>();
  readonly empty: number;
  private readonly combos = new Map<string, number>();
  private readonly extra = new IdTable();

  constructor(private readonly main: { slotOf(id: string): number; size: number } | undefined) {
    this.cap = (main?.size ?? 0) + 1024;
    this.state = new Uint8Array(this.cap);
    this.vote = new Uint32Array(this.cap);
    this.present = new Uint32Array(this.cap);
    this.empty = this.pairs.code([{}, {}]);
    this.vote.fill(this.empty);
  }

  /** Number of slots in use (the main run's, then the other run's own ids). */
  get size(): number {
    return (this.main?.size ?? 0) + this.extra.size;
  }

  /** The slot of `id` (added to the other run's own table when `add` and the main run does not hold it), or -1. */
  slot(id: string, add: boolean): number {
    const m = this.main ? this.main.slotOf(id) : -1;
    if (m !== -1) return m;
    const base = this.main?.size ?? 0;
    const e = this.extra.slotOf(id);
    if (e !== -1 || !add) return e === -1 ? -1 : base + e;
    const s = base + this.extra.add(id);
    if (s >= this.cap) this.grow();
    return s;
  }

  /** The slot of an id the other run has a row of (index or verdicts), or -1. */
  rowSlot(id: string): number {
    const s = this.slot(id, false);
    return s !== -1 && this.state[s] !== NONE ? s : -1;
  }

  /** The code of a (judge, repeat) combination; -1 when unseen and not `add`. */
  combo(judge: string, repeat: number, add: boolean): number {
    const k = `${repeat}\u0000${judge}`;
    let c = this.combos.get(k);
    if (c === undefined) {
      if (!add) return -1;
      c = this.combos.size;
      this.combos.set(k, c);
      if (c >= this.words * 32) this.widen();
    }
    return c;
  }

  has(s: number, c: number): boolean {
    return c >= 0 && ((this.present[s * this.words + (c >>> 5)] >>> (c & 31)) & 1) === 1;
  }

  mark(s: number, c: number): void {
    this.present[s * this.words + (c >>> 5)] |= 1 << (c & 31);
  }

  pair(s: number): Pair {
    return this.pairs.values[this.vote[s]]!;
  }

  /** Set judge `j`'s repeat-0 label and status of slot `s`, moved after the others (the storage order of the current verdicts). */
  setRep0(s: number, j: string, label: string | null, status: string): void {
    const [l, st] = this.pair(s);
    const { [j]: _l, ...restL } = l;
    const { [j]: _s, ...restS } = st;
    this.vote[s] = this.pairs.code([
      { ...restL, [j]: label },
      { ...restS, [j]: status },
    ]);
  }

  private grow(): void {
    const cap = this.cap * 2;
    const g = <T extends Uint8Array | Uint32Array>(a: T, n: number, fill: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.fill(fill);
      b.set(a);
      return b;
    };
    this.state = g(this.state, cap, NONE);
    this.vote = g(this.vote, cap, this.empty);
    this.present = g(this.present, cap * this.words, 0);
    this.cap = cap;
  }

  private widen(): void {
    const w = this.words + 1;
    const b = new Uint32Array(this.cap * w);
    for (let s = 0; s < this.cap; s++) for (let i = 0; i < this.words; i++) b[s * w + i] = this.present[s * this.words + i];
    this.present = b;
    this.words = w;
  }
}

/**
 * Load the other run of `view --other` (module docstring).
 * @param runDir `<labels-dir>/<run>`. @param opts.main the main run's id table (`ViewRun.ids`): ids of both runs
 *   share its slots; without it every id gets a slot of the other run's own. @param opts.mainContent the main run's
 *   content codes per slot (`ViewRun.takeContentCodes`): an id whose text differs shows no other-run labels (module
 *   docstring); without it no text is compared. @param opts.progress the read's progress.
 * @returns the other run as the view reads it. @throws as `loadViewRun` (unreadable files).
 */
export async function loadOtherRun(
  runDir: string,
  opts: { main?: { slotOf(id: string): number; size: number }; mainContent?: Float64Array; progress?: ReadProgress } = {},
): Promise<OtherRun> {
  const c = new OtherColumns(opts.main);
  const texts = opts.mainContent ? new OtherTexts(opts.mainContent) : undefined;
  // the read's own state (content and health codes per row, the stale keys, the record check's lists) is the
  // scan's, let go when it returns: not held by the closures returned here
  const { judges, warnings, stale, health } = scanRun(runDir, otherSink(c, texts), opts.progress);
  const differ = texts?.warning(path.basename(runDir));
  if (differ) warnings.push(differ);
  const otherText = texts?.count ? texts.flags : undefined;
  await checkCommittee(runDir, c, warnings, opts.progress);
  const name = path.basename(runDir);
  let banners: Promise<ViewJudgeHealth> | undefined;
  return {
    name,
    judges,
    warnings,
    labelsOf: (id) => {
      const s = c.rowSlot(id);
      return s === -1 || otherText?.[s] === 1 ? undefined : c.pair(s)[0];
    },
    judgeHealth: () =>
      (banners ??= !health
        ? loadViewRun(runDir, { name }).then((whole) => viewJudgeHealth(whole))
        : judgeBanners(runDir, health, stale, (id, judge, repeat) => {
            const s = c.rowSlot(id);
            return s !== -1 && c.has(s, c.combo(judge, repeat, false));
          })),
  };
}

/**
 * What the other run keeps as the scan reads it (./run-scan.ts, the rules `loadViewRun` reads by): a slot's state,
 * a bit per (judge, repeat) with a current verdict, and the repeat-0 labels in the storage order of the current
 * verdicts (a replaced verdict's judge moves after the others, as `loadViewRun`'s recompute orders them).
 */
function otherSink(c: OtherColumns, texts: OtherTexts | undefined): RunScanSink {
  return {
    indexRow: (r) => {
      const s = c.slot(r.id, true);
      c.state[s] = INDEXED;
      texts?.row(s, r.id, contentCode(r.content_sha256));
      return s;
    },
    slotOf: (id) => c.slot(id, false),
    has: (s, judge, repeat) => c.has(s, c.combo(judge, repeat, false)),
    verdictSlot: (id) => {
      const s = c.slot(id, true);
      const orphan = c.state[s] === NONE;
      if (orphan) c.state[s] = ORPHAN;
      return { slot: s, orphan };
    },
    keep: (s, v) => {
      const cb = c.combo(v.judge_id, v.repeat, true);
      const replaced = c.has(s, cb);
      if (!replaced) c.mark(s, cb);
      if (v.repeat === 0) c.setRep0(s, v.judge_id, v.label ?? null, v.status);
      return replaced;
    },
  };
}

/** The ids both runs hold with other content (module docstring): a flag per main-run slot, the count, a few examples. */
class OtherTexts {
  readonly flags: Uint8Array;
  count = 0;
  /** Candidate examples by slot (a later row of the id can make its text the same again). */
  private readonly seen = new Map<number, string>();

  constructor(private readonly main: Float64Array) {
    this.flags = new Uint8Array(main.length);
  }

  /** An index row of the other run at slot `s` (a later row of an id replaces the earlier one's flag). */
  row(s: number, id: string, code: number): void {
    if (s >= this.main.length) return; // an id only the other run holds
    const differs = code !== -1 && this.main[s] !== -1 && code !== this.main[s] ? 1 : 0;
    this.count += differs - this.flags[s];
    this.flags[s] = differs;
    if (differs && this.seen.size < 64) this.seen.set(s, id);
  }

  /** The warning (undefined when none differs). */
  warning(other: string): string | undefined {
    if (this.count === 0) return undefined;
    const eg = [...this.seen].filter(([s]) => this.flags[s] === 1).slice(0, 3).map(([, id]) => JSON.stringify(showControls(id)));
    return (
      `view --other: ${this.count} trajectories of run ${other} hold other content than this run under the same id (e.g. ${eg.join(", ")}): ` +
      `its verdicts there judged another text, so its labels are not shown beside this run's for them (no o:<judge> labels, as for an id it lacks)`
    );
  }
}

/** The committee file's staleness check against the other run's repeat-0 votes (loadViewRun's `loadCommittee`): its warning. */
async function checkCommittee(runDir: string, c: OtherColumns, warnings: string[], progress?: ReadProgress): Promise<void> {
  const cf = await readCommitteeColumns(runDir, { ids: { slotOf: (id) => c.rowSlot(id) } }, progress);
  if (!cf) return;
  const judges = new Set<string>();
  const seen = new Set<number>();
  for (let s = 0; s < c.size; s++) {
    if (seen.has(c.vote[s])) continue;
    seen.add(c.vote[s]);
    for (const j of Object.keys(c.pair(s)[1])) judges.add(j);
  }
  const check = checkCommitteeSlots(cf, c.size, [...judges], {
    indexed: (s) => c.state[s] === INDEXED,
    has: (j, s) => s >= 0 && Object.hasOwn(c.pair(s)[1], j),
    vote: (j, s) => {
      if (s < 0) return null;
      const [labels, status] = c.pair(s);
      if (!Object.hasOwn(status, j)) return null;
      const label = labels[j] ?? null;
      return status[j] === "ok" && label ? label : null;
    },
  });
  if (check.stale.length) warnings.push(staleCommitteeReason(check.stale));
}
