/**
 * The end of a `label` invocation (`./label.ts`): the run's summary from what the store kept, `summary.json` written
 * atomically, and what this invocation's input said added to the summary (ingest warnings, changed references,
 * duplicate ids, files changed while read, trajectories that could not be prepared).
 */
import { isLikeForLikeWarning } from "../stats/like-for-like.js";
import { sortedByJudge } from "../format/judge-order.js";
import path from "node:path";
import { writeFileAtomic } from "../io/write-atomic.js";
import type { IngestWarning } from "../ingest/index.js";
import type { IngestError, Verdict } from "../types.js";
import { changedBackWarning, withoutStale } from "./stale-summary.js";
import { takeStaleNote } from "../store/stale-verdicts.js";
import { forEachIndexRow, readTrajectoryIndex, type RunStore, type TrajectoryIndexRow } from "../store/run-store.js";
import { WhereTally, type WhereStatement } from "../store/where.js";
import { storedBasisOf, summarizeRun, type RunSummary } from "./summary.js";
import type { LabelOptions } from "./label-options.js";
import { splitSupersededErrors, supersededStatement } from "./superseded-errors.js";
import { corruptLinesRepaired } from "./corrupt-lines.js";
import type { ReadSince } from "./read-since.js";
import { withoutRemoved } from "./removed-record.js";
import { recordSameContent, sameContentFinding } from "./same-content.js";
import { killedCostText } from "./killed-cost.js";
import { limitWarning } from "./limit-warning.js";
import type { ReadOutcome } from "./label-steps.js";

/**
 * The run's summary from what the store kept in memory (no re-read of the journals; verdicts rebuilt one at a time
 * as the summary folds them, issue 26): with `--where`, over the run's trajectories the filter keeps (the index
 * read back from the journal: the in-memory rows are slim), saying so. A judge of this invocation with verdicts but
 * not one usable label is added to `stopped` (issue 12.2: not a success).
 */
export async function summarizeLabelRun(
  store: RunStore,
  opts: LabelOptions,
  stopped: Record<string, string>,
  passedOver: ReadonlySet<string> = new Set(),
  since?: ReadSince,
): Promise<RunSummary> {
const parts = store.summaryParts();
// the run's trajectories whose input is gone are left out, said in the summary (./removed-record.ts)
const current0 = withoutRemoved(store.dir, parts.index, parts.verdicts, { errors: parts.errors, inputs: opts.inputs });
// ... and so are the verdicts made on an older text than the trajectory's now (./stale-summary.ts)
const stale = withoutStale(store, current0.verdicts);
const inputs = { ...parts, index: current0.index, verdicts: stale, errors: current0.errors };
// --where: the summary is over the run's trajectories the filter keeps (stored by this or an earlier invocation),
// and says so
let index: ReadonlyMap<string, TrajectoryIndexRow> = inputs.index;
let verdicts: Iterable<Verdict> = inputs.verdicts;
let runWhere: WhereStatement | undefined;
let allVerdicts: Verdict[] | undefined;
if (opts.where) {
  // the in-memory rows are slim (no suite, attack, ...): with a filter, the index is read back from the journal
  const full = await readTrajectoryIndex(store.dir, { keepRemoved: true }); // the removed are out of inputs.index already
  const tally = new WhereTally(opts.where);
  const keep = new Set([...full.values()].filter((r) => tally.add(r)).map((r) => r.id));
  const kept = new Map([...inputs.index].filter(([id]) => keep.has(id)));
  index = kept;
  allVerdicts = [...inputs.verdicts];
  verdicts = allVerdicts.filter((v) => kept.has(v.trajectory_id));
  runWhere = tally.statement(`trajectories of run ${opts.run}`).statement;
}
// an earlier invocation's error about a file this one passes over as a sidecar, or reads without error (fixed
// since), is counted apart (./superseded-errors.ts)
// ... and so is a content_changed note about a trajectory judged again on its content now
const judgedNow = (id: string): boolean => {
  const sha = store.storedContent(id);
  return sha !== undefined && store.ledger.allOnContent(id, sha);
};
// ... and so is a judge_crash whose judge stored a verdict of the item since (the ledger's storage order)
const crashJudged = (id: string, judge: string, repeat: number, seq: number) => store.ledger.judgedSince(id, judge, repeat, seq);
// ... and so is a store_corrupt_lines record of lines this open did not find again (cut or repaired: ./corrupt-lines.ts)
const repairedNow = (e: IngestError) => corruptLinesRepaired(e, store);
const { current, superseded, readSince, rejudged, crashes, repaired, own } = splitSupersededErrors(inputs.errors, passedOver, since, judgedNow, crashJudged, repairedNow);
const summary = summarizeRun(opts.run, verdicts, index, current, stopped, storedBasisOf(store.dir)); // an older build's batch verdicts: ./batch-basis.ts
if (superseded.length + readSince.length + rejudged.length + crashes.length + repaired.length + own.length > 0) summary.errors_superseded = supersededStatement(superseded, readSince, rejudged, crashes, repaired, own);
if (runWhere) summary.where = runWhere;
// what every later command warns about is the whole run's mix, not the --where subset's (review 28)
if (allVerdicts) {
  const whole = summarizeRun(opts.run, allVerdicts, inputs.index, [], {}).mixed_configurations;
  if (whole) summary.mixed_configurations = whole;
  else delete summary.mixed_configurations;
}
if (current0.statement) summary.inputs_removed = current0.statement;
// --limit stopped this invocation's reading (recorded at finish): label's own rates are a slice of the inputs (./limit-warning.ts)
const partial = limitWarning(store.dir, store.snapshot.label_state?.limit !== undefined);
if (partial) summary.warnings.unshift(partial);
// an earlier invocation killed with requests in flight: the run's cost is a lower bound (./killed-cost.ts)
const killed = killedCostText(store.snapshot.label_state?.killed_before);
if (killed && summary.cost.usd !== null) {
  summary.cost.lower_bound = killed;
  summary.warnings.push(`the run's cost is a LOWER BOUND: ${killed}`);
}
// the verdicts left out as made on an older text: among the summary's warnings (stderr, --json, summary.json), once
const staleNote = takeStaleNote(store.dir);
if (staleNote) summary.warnings.push(staleNote);
const back = changedBackWarning(stale.changedBack); // a text changed back: what this summary cannot count (./stale-summary.ts)
if (back) summary.warnings.push(back);
// one trajectory under two ids counts twice: said, naming them (./same-content.ts, red team 37 F2/F3)
const rowsOf = (wanted: { has(id: string): boolean }, each: (row: TrajectoryIndexRow) => void) => forEachIndexRow(store.dir, wanted, each);
const same = await sameContentFinding(index.keys(), store, rowsOf);
if (same?.text) summary.warnings.push(same.text);
// ... and recorded (over the whole run, not a --where subset) for every figure command to say (../store/same-content-record.ts)
recordSameContent(store.dir, opts.where ? await sameContentFinding(inputs.index.keys(), store, rowsOf) : same, summary.warnings);
// A judge of this invocation with verdicts but not one usable label is a stopped judge (issue 12.2): not a success.
for (const j of summary.judges) {
  if (!j.health.stopped || stopped[j.judge_id] || !opts.judges.some((x) => x.id === j.judge_id)) continue;
  stopped[j.judge_id] = j.health.flags.find((f) => f.code === "no_usable_verdict")!.message;
}
// keyed by judge id in summary.json and --json, not by when each stopped (break42)
summary.stopped_judges = sortedByJudge(stopped);
  return summary;
}

/**
 * Write `summary.json` atomically. A failure (disk full) does not stop the run (the file is a convenience, the
 * journals hold the run) but is not silent either (red team 20): its temp file is removed and a warning returned.
 * @returns null, or the warning to show.
 */
export function writeSummaryFile(dir: string, value: unknown): string | null {
  try {
    writeFileAtomic(path.join(dir, "summary.json"), JSON.stringify(value, null, 2) + "\n");
    return null;
  } catch (e) {
    const cause = ((e as Error).cause ?? e) as NodeJS.ErrnoException;
    const why = cause.code === "ENOSPC" ? "no space left on device" : cause.message;
    return `cannot write ${path.join(dir, "summary.json")}: ${why}; the run's journals hold every verdict (the summary above is complete): run the same command again, with space, to write the file`;
  }
}

/**
 * Add to the run's summary what this invocation's input said: its ingest warnings, the trajectories whose benchmark
 * reference or cell-naming fields (model, condition, attack, suite, surfaces: `metadataChanged`) changed, and the duplicate ids (an input error, said loudly); on a read cut short (`interrupted`), that
 * the NOT LIKE FOR LIKE warnings are over the part read.
 */
export function addInputWarnings(summary: RunSummary, warnings: IngestWarning[], read: Pick<ReadOutcome, "duplicateIds" | "referenceChanged" | "changedDuringRead" | "prepareFailed"> & { metadataChanged?: number; attackedChanged?: number; interrupted?: boolean }): void {
  const { duplicateIds, referenceChanged, changedDuringRead, prepareFailed } = read;
  const metadataChanged = read.metadataChanged ?? 0;
  // a read cut short: the run's mix of attacks, suites and models is the part read so far (new user 43: an
  // interrupted run's --where advice named the suites of a model whose other runs were not read yet)
  const mixes = summary.warnings.filter(isLikeForLikeWarning).length;
  if (read.interrupted && mixes > 0)
    summary.warnings.push(
      `the ${mixes === 1 ? "NOT LIKE FOR LIKE warning is" : `${mixes} NOT LIKE FOR LIKE warnings are`} over the ${summary.trajectories} trajectories of the run so far (the reading was interrupted): the input not read yet may change them and the --where they advise; the same command reads it`,
    );
  if (warnings.length > 0) summary.ingest_warnings = warnings;
  if (referenceChanged > 0)
    summary.warnings.push(
      `${referenceChanged} trajectory(ies) carry another benchmark reference (security/utility) than when they were labelled (errors.jsonl kind reference_changed, naming old and new): their index rows follow the input now, so agree/compare read the current reference; nothing was judged again`,
    );
  // break54 #0: a model, condition, attack, suite or surfaces fixed in the input reaches every figure (newest wins)
  if (metadataChanged > 0)
    summary.warnings.push(
      `metadata_changed: ${metadataChanged} trajectory(ies) carry another model, condition, attack, suite, task, attacked or surfaces in the input than when they were labelled (errors.jsonl kind metadata_changed, naming the fields, old and new): their index rows follow the input now, so every figure reads the new values; nothing was judged again (the content is the same)` +
        (read.attackedChanged ? `; ${read.attackedChanged} of them changed attacked/unattacked: their verdicts were decided under the other status (the unattacked rule) and stand as stored, so a fresh run may label them otherwise` : ""),
    );
  if (duplicateIds > 0)
    summary.warnings.push(
      `INPUT ERROR: ${duplicateIds} trajectory id(s) given twice with different inputs (errors.jsonl kind duplicate_id, naming both): the later one was not judged; give each trajectory its own id`,
    );
  if (changedDuringRead > 0)
    summary.warnings.push(
      `INPUT ERROR: ${changedDuringRead} input file(s) changed while they were read (errors.jsonl kind changed_during_read, naming each and what was kept of it): nothing read after the change was taken; run label again once the files are no longer written`,
    );
  if (prepareFailed > 0)
    summary.warnings.push(
      `ITEM ERROR: ${prepareFailed} trajectory(ies) could not be prepared for judging (errors.jsonl kind prepare_failed, naming each, its file and the fault): they were not judged, the others were; a fault of ipi-judge on that input: please report it`,
    );
}
