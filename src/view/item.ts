/**
 * One trajectory of a run for the view's detail page: the trajectory re-read from the source file the run
 * recorded (src/sample/source.ts: the same file, format, line and content hash; a changed file is an error, not
 * a silently different text), its verdicts read back from `verdicts.jsonl` by line offset, laid out by
 * `trajectoryDoc`.
 */
import fs from "node:fs";
import path from "node:path";
import { restoreBidiControls, showBidiControlsExactly } from "../format/bidi.js";
import type { Trajectory, Verdict } from "../types.js";
import { loadSampledTrajectories } from "../sample/source.js";
import { recordedInputs, type SiblingCache } from "../sample/recover.js";
import { readLine, refsOf, type ViewRow, type ViewRun } from "./run-data.js";
import type { OtherRun } from "./other-run.js";
import { trajectoryDoc, type DocQuote, type TrajectoryDoc } from "./document.js";
import { siblingFiles } from "./sibling-files.js";

/** A verdict as the detail page shows it (raw replies are sent too; the page shows them on demand). */
export type ItemVerdict = Pick<
  Verdict,
  | "judge_id"
  | "judge_model"
  | "repeat"
  | "status"
  | "label"
  | "label_claimed"
  | "downgraded"
  | "rationale"
  | "attempts"
  | "error"
  | "raw_replies"
  | "label_basis"
  | "truncated"
  | "compliance_evidence"
  | "reverified"
  | "carried_from"
> & { findings: Array<{ bucket: string; holds: boolean; explanation?: string; quotes: number[] }> };

/** What the detail page gets for one trajectory. */
export interface ItemView {
  row: Omit<ViewRow, "refs" | "search">;
  /** The other run's labels of the same trajectory id, when the view has one. */
  other?: { run: string; labels: Record<string, string | null> };
  verdicts: ItemVerdict[];
  /** Every quote of the verdicts, numbered as `findings[].quotes` refer to them (in the document's, when it loaded). */
  quotes: DocQuote[];
  doc: TrajectoryDoc | null;
  /** Why the trajectory itself cannot be shown (source missing or changed). */
  error?: string;
}

/** Full verdicts of a row, every judge and repeat, read by their line offsets. */
export function rowVerdicts(run: ViewRun, row: ViewRow): Verdict[] {
  const file = path.join(run.dir, "verdicts.jsonl");
  const out: Verdict[] = [];
  const refs = refsOf(run, row);
  for (const j of Object.keys(refs).sort()) for (const ref of refs[j]) out.push(readLine<Verdict>(file, ref));
  return out.sort((a, b) => (a.judge_id < b.judge_id ? -1 : a.judge_id > b.judge_id ? 1 : a.repeat - b.repeat));
}

/** Per viewed run: the sibling index its DRIFT runs are recovered with, built once. */
const siblingCaches = new WeakMap<ViewRun, SiblingCache>();

/**
 * Re-read one trajectory from its recorded source.
 * @returns the trajectory, or `{error}` saying why not (no index row, file missing, changed, or not readable as a
 *   trajectory). The error never quotes the file: a recorded path may point anywhere (an untrusted run folder), and
 *   a parser's message can carry the text it failed on.
 */
export async function loadTrajectory(run: ViewRun, id: string, sourceRoot: string): Promise<{ trajectory: Trajectory } | { error: string }> {
  const row = run.index.get(id);
  if (!row) return { error: "the run has no trajectories.jsonl row for this id, so its source is unknown" };
  if (!row.source?.path) return { error: "the run does not record where this trajectory came from" };
  try {
    let cache = siblingCaches.get(run);
    if (!cache) siblingCaches.set(run, (cache = {}));
    // a DRIFT run is re-read with its injected text recovered as label judged it, from the few files of its sibling
    // and clean runs the run's index names (./sibling-files.ts), never every input of the run
    const m = await loadSampledTrajectories([row], { sourceRoot, inputs: recordedInputs(run.dir), cache, siblingFiles: () => siblingFiles(run, row, sourceRoot) });
    const t = m.get(id);
    return t ? { trajectory: t } : { error: "not found again in its source" };
  } catch (e) {
    const file = path.resolve(sourceRoot, row.source.path);
    if (!fs.existsSync(file)) return { error: `source file ${file} not found (relative paths are resolved from ${sourceRoot}; pass --source-root)` };
    if (/has changed since the run was labelled/.test((e as Error).message)) return { error: `source file ${file} has changed since the run was labelled (its content hash differs from the run's)` };
    return { error: `the source ${file} could not be read as a ${row.source.format ?? "trajectory"} trajectory holding this one` };
  }
}

/**
 * Everything the detail page shows for one trajectory id, given as the list shows it (`showBidiControlsExactly`:
 * bidi controls as markers, a typed `⟨U+` as `⟨U+27E8⟩U+`; an id holding neither is its own shown form), looked
 * up exactly (a raw id holding bidi controls is found too). Every text of it (row fields, document, verdicts, quotes) comes with bidi controls as markers.
 * @returns null when the run has no such trajectory.
 */
export async function itemView(run: ViewRun, shownId: string, sourceRoot: string, other?: OtherRun): Promise<ItemView | null> {
  // the list serves ids as shown (`showBidiControlsExactly`, one to one): a link back carries that form, turned back
  // exactly; never the raw lookup first, which took the typed text "⟨U+202E⟩" for a real U+202E (red team 30 M1)
  const row = run.byId.get(restoreBidiControls(shownId));
  if (!row) return null;
  const id = row.id;
  const verdicts = rowVerdicts(run, row);
  const loaded = await loadTrajectory(run, id, sourceRoot);
  let doc: TrajectoryDoc | null = null;
  let layoutError: string | undefined;
  if ("trajectory" in loaded) {
    try {
      doc = trajectoryDoc(loaded.trajectory, verdicts);
    } catch (e) {
      // one trajectory that cannot be laid out is said on its own page; its verdicts are still shown
      layoutError = `the trajectory could not be laid out for display (${(e as Error)?.message ?? String(e)})`;
    }
  }
  let n = 0;
  const shown: ItemVerdict[] = verdicts.map((v) => ({
    judge_id: v.judge_id,
    judge_model: v.judge_model,
    repeat: v.repeat,
    status: v.status,
    label: v.label,
    label_claimed: v.label_claimed,
    downgraded: v.downgraded,
    rationale: v.rationale,
    attempts: v.attempts,
    error: v.error,
    raw_replies: v.raw_replies,
    label_basis: v.label_basis,
    truncated: v.truncated,
    // a compliance label whose evidence may be the injection's words (../verdict/compliance-evidence.ts): shown beside it
    ...(v.compliance_evidence ? { compliance_evidence: v.compliance_evidence } : {}),
    // its label changed by re-verification under newer rules, or carried from the trajectory's earlier id (verify41):
    // a reader of the page sees it is not the judge's own call on this id under today's rules
    ...(v.reverified && typeof v.reverified === "object" ? { reverified: v.reverified } : {}),
    ...(typeof v.carried_from === "string" ? { carried_from: v.carried_from } : {}),
    findings: (Array.isArray(v.findings) ? v.findings : []).map((f) => ({
      bucket: f.bucket,
      holds: f.holds,
      ...(f.explanation ? { explanation: f.explanation } : {}),
      quotes: (Array.isArray(f.evidence) ? f.evidence : []).map(() => n++),
    })),
  }));
  const { refs: _r, search: _s, ...plain } = row;
  // without the trajectory the quotes are still listed, each saying why it is not shown in place
  const quotes: DocQuote[] =
    doc?.quotes ??
    verdicts.flatMap((v) =>
      (Array.isArray(v.findings) ? v.findings : []).flatMap((f) =>
        (Array.isArray(f.evidence) ? f.evidence : []).map((q) => ({ n: 0, judge_id: v.judge_id, bucket: f.bucket, holds: f.holds, quote: q, part: null, why: "the trajectory cannot be shown" })),
      ),
    ).map((q, i) => ({ ...q, n: i }));
  // judge-written and quoted text is shown with bidi controls as visible markers, as the trajectory's own text
  const out: ItemView = { row: visibleRow(plain), verdicts: withVisibleBidi(shown), quotes: withVisibleBidi(quotes), doc };
  if ("error" in loaded) out.error = loaded.error;
  else if (layoutError) out.error = layoutError;
  const labels = other?.labelsOf(id);
  if (other && labels) out.other = { run: other.name, labels };
  return out;
}

/**
 * A list or detail row as the page gets it: every string value (id, agent_model, suite, condition, attack, ...) and
 * the annotator names keying `humans` with bidi controls shown as markers (src/format/bidi.ts). The page links
 * to the shown id; {@link itemView} and the list's field filters take it back.
 */
export function visibleRow<T extends { humans?: Record<string, string> }>(row: T): T {
  const out = withVisibleBidi(row);
  if (row.humans) out.humans = Object.fromEntries(Object.entries(row.humans).map(([a, l]) => [showBidiControlsExactly(a), showBidiControlsExactly(String(l))]));
  return out;
}

/** A copy of `v` with every string in it shown with its bidi controls as markers (src/format/bidi.ts). */
export function withVisibleBidi<T>(v: T): T {
  if (typeof v === "string") return showBidiControlsExactly(v) as T;
  if (Array.isArray(v)) return v.map(withVisibleBidi) as T;
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withVisibleBidi(x)])) as T;
  return v;
}
