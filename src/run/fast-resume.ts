/**
 * The resume fast path (issue 26): an input file whose resolved path, size, mtime and ctime are those recorded in the run
 * for the one trajectory it held (the index row's `file_stamp`, `../store/file-stamp.ts`) is taken as unchanged
 * without being read or parsed, when every repeat of every judge still running is done for that trajectory (nothing
 * to judge, nothing to re-judge: `planRepeats` over its stored content hash). Any other file is read and its content
 * hash decides, as before: a file whose stamp differs, a row without a stamp (older runs, multi-item files: chat
 * JSONL, Inspect logs; a run renamed for an id collision; a surface warning; a run that records no injected text, whose
 * judged text comes from sibling runs or the clean run, other files), a trajectory with work left. The
 * ingest warnings a passed-over file's read raised are recorded in its stamp and said again, in order.
 *
 * Limit (docs/label.md "resume"): only a file system without a real ctime (or a clock set back) lets a rewritten file keep
 * its stamp (`../store/file-stamp.ts`); a file an upgraded ipi-judge converts differently is re-read only when its readers' version (`STAMP_READER_VERSION`) was bumped. `--verify-content` (`LabelOptions.verifyContent`) turns the fast
 * path off. It is off too under `--where` (it filters full rows, which the store does not hold in memory) and with
 * `--format`, `--field`, `--security-scorer`, `--utility-scorer`, `--model`, `--condition` or `--attack` (they
 * change what a file reads as: break54 #0, a model or condition given on a resume must reach the rows); rows are
 * stamped only without them.
 */
import type { InputStamp, UnchangedFile } from "../ingest/index.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { STAMP_READER_VERSION } from "../store/file-stamp.js";
import type { LabelRunState } from "./label-core.js";
import type { LabelOptions } from "./label-options.js";
import { planRepeats } from "./resume.js";
import { verdictKey } from "../store/run-store.js";

/** Whether rows of this invocation may carry their file's stamp (the read options that change a file's reading unset). */
export function stampsAllowed(opts: Pick<LabelOptions, "format" | "fieldMap" | "securityScorer" | "utilityScorer" | "overrides">): boolean {
  return opts.format === undefined && opts.fieldMap === undefined && opts.securityScorer === undefined && opts.utilityScorer === undefined && opts.overrides === undefined;
}

/** Put the file's stamp on a row about to be stored, when allowed and the trajectory said nothing (no surface warning). */
export function stampRow(row: TrajectoryIndexRow, stamp: InputStamp | undefined, opts: LabelOptions, surfaceWarnings: readonly string[]): void {
  if (stamp !== undefined && surfaceWarnings.length === 0 && stampsAllowed(opts))
    row.file_stamp = { reader: STAMP_READER_VERSION, size: stamp.size, mtime_ms: stamp.mtime_ms, ctime_ms: stamp.ctime_ms, ...(stamp.warnings?.length ? { warnings: stamp.warnings } : {}) };
}

/**
 * The repeats still to do for a stored trajectory over the judges not stopped (0 = nothing to judge or re-judge).
 * @param content its stored content hash
 */
export function repeatsLeft(rs: Pick<LabelRunState, "store" | "stopped" | "configs">, opts: LabelOptions, id: string, content: string, repeats: number, onChange: "refuse" | "rejudge" | "keep"): number {
  let n = 0;
  for (const j of opts.judges) {
    if (rs.stopped[j.id]) continue;
    n += planRepeats({ id }, content, j, repeats, rs.store.ledger, { configSha: rs.configs.get(j.id)!.sha, onConfigChange: onChange, retryErrors: opts.retryErrors, retryRefusals: opts.retryRefusals }).length;
  }
  return n;
}

/**
 * Whether a verdict key (`verdictKey` without the configuration hash) is held by a Batch API chunk an earlier process
 * wrote and that is not processed yet (`BatchJudgeRun.inBatch` of the judge's batch path; false for online judges).
 */
export type InBatch = (judgeId: string, key: string) => boolean;

/**
 * The repeats of a stored trajectory over the judges not stopped, split as the reading loop treats them
 * (`scheduleRepeats`): `left` are to send or to judge again; `awaited` are new repeats (no verdict stored) that a
 * batch sent by an earlier process holds: neither sent again nor counted as skipped, their verdicts come with the
 * batch's results.
 * @param content its stored content hash; @param inBatch the batch paths' check (none: nothing is awaited).
 */
export function repeatsOpen(
  rs: Pick<LabelRunState, "store" | "stopped" | "configs">,
  opts: LabelOptions,
  id: string,
  content: string,
  ctx: { repeats: number; onChange: "refuse" | "rejudge" | "keep"; inBatch?: InBatch },
): { left: number; awaited: number } {
  let left = 0;
  let awaited = 0;
  for (const j of opts.judges) {
    if (rs.stopped[j.id]) continue;
    for (const p of planRepeats({ id }, content, j, ctx.repeats, rs.store.ledger, { configSha: rs.configs.get(j.id)!.sha, onConfigChange: ctx.onChange, retryErrors: opts.retryErrors, retryRefusals: opts.retryRefusals })) {
      if (p.reason === "new" && ctx.inBatch?.(j.id, verdictKey({ trajectory_id: id, judge_id: j.id, repeat: p.repeat, prompt_sha256: j.promptSha256 }))) awaited++;
      else left++;
    }
  }
  return { left, awaited };
}

/** How many of the invocation's judges are not stopped (a judge once stopped stays stopped). */
export function activeJudges(rs: Pick<LabelRunState, "stopped">, opts: Pick<LabelOptions, "judges">): number {
  let n = 0;
  for (const j of opts.judges) if (!rs.stopped[j.id]) n++;
  return n;
}

/**
 * The check `readTrajectoriesResuming` makes before reading a file (module docstring), or undefined when the fast
 * path is off (`verifyContent`, `where`, a read option of {@link stampsAllowed}, or a run with no stored row). A
 * file whose trajectory has nothing left but new repeats a batch of an earlier process holds (`ctx.inBatch`) is
 * passed over too: read, it would be neither sent nor re-judged (a resumed `label --batch` of 100k reads none of
 * the files whose batches are in flight, instead of all 100k in each invocation while the batches run). What it
 * found (`UnchangedHit.repeats`) goes with the item to the reading loop, which takes it on while no judge stopped since.
 */
export function unchangedCheck(
  rs: Pick<LabelRunState, "store" | "stopped" | "configs" | "reverify">,
  opts: LabelOptions,
  ctx: { repeats: number; onChange: "refuse" | "rejudge" | "keep"; inBatch?: InBatch },
): UnchangedFile | undefined {
  if (opts.verifyContent || opts.where || !stampsAllowed(opts) || rs.store.resumed.trajectories === 0) return undefined;
  return (file, stamp, named) => {
    const hit = rs.store.unchangedFile(file, stamp, named);
    if (hit === undefined) return undefined;
    const open = repeatsOpen(rs, opts, hit.id, hit.content_sha256, ctx);
    // a trajectory with a stored verdict to verify again under today's rules is read (./reverify.ts)
    if (open.left > 0 || rs.reverify?.wants(hit.id)) return undefined;
    // the id's slot (the read shares the store's id slots: `ids`), and the count the reading loop takes on
    return { id: hit.id, layout: hit.layout, warnings: hit.warnings, slot: hit.slot, slots: rs.store.idSlots, repeats: { awaited: open.awaited, judges: activeJudges(rs, opts) } };
  };
}
