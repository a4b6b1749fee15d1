/**
 * Does each human label still belong to the trajectory it is paired with? `sample` records the content hash of every
 * sampled trajectory in its manifest (`content_sha256`), `import-annotations` copies it onto the item's label rows,
 * and every consumer of human labels (`estimate`, `agree --human`, `report`, `view`) compares it here with the
 * run's content hash of the trajectory now. A trajectory edited after sampling (and labelled again: the run's index
 * records the new content, its verdicts judge the new text) is not the text the annotators read: its labels are
 * refused (`content_changed_since_sample`), counted once in a warning naming the file, never paired silently with
 * the new text nor dropped without a word. A file that records no hash (an earlier `import-annotations`, or written
 * by hand) still loads, with one line saying its pairing cannot be checked.
 */
import type { HumanLabelFile } from "./human-file.js";
import { endSpaceWarning } from "./end-space-ids.js";

/** The status of a label refused because its trajectory's content changed since the sample was drawn. */
export const CONTENT_CHANGED = "content_changed_since_sample";

/** What {@link checkLabelPairing} found. */
export interface LabelPairing {
  /** The file without the refused rows (the same object when none is refused). */
  file: HumanLabelFile;
  /** Label rows refused: the run's content hash of their trajectory is not the recorded one. */
  refused_rows: number;
  /** Distinct trajectories of the refused rows. */
  refused_items: number;
  /** The trajectory ids of the refused rows. */
  refused_ids: ReadonlySet<string>;
  /** Label rows whose pairing cannot be checked: no `content_sha256` in the file, or none in the run's row. */
  unchecked_rows: number;
}

/** How many rows a pairing warning names before `...`. */
const ROWS_NAMED = 5;

/** `line 3 (trajectory "a/b"), line 7 (trajectory "c"), ... (12 in all)`; a row without a line is named by its id. */
function rowsText(rows: Array<{ id: string; line: number }>, total: number): string {
  const named = rows.map((r) => `${r.line ? `line ${r.line} ` : ""}(trajectory ${JSON.stringify(r.id)})`).join(", ");
  return total > rows.length ? `${named}, ... (${total} in all)` : named;
}

/**
 * Compare every label row's recorded `content_sha256` with the run's content hash of its trajectory now.
 * @param file the label file as read (`readHumanLabels`; `line` 0 for rows that have none); @param humanFile its
 *   name, for the warnings (`label file NAME: ...`).
 * @param contentOf the run's content hash of a trajectory id now; null when the run has no such trajectory (its
 *   rows are left to the consumer's `not_in_run`), undefined when the run's row records none.
 * @param warnings receives at most one warning per finding (refused rows; rows that cannot be checked).
 * @param effect what the consumer does with the refused labels, for the warning (`their labels are left out of
 *   every comparison`).
 * @param has whether the run holds a trajectory id (default: `contentOf` is not null), to name a row whose id the run
 *   holds only trimmed (./end-space-ids.ts).
 * @returns the file without the refused rows, and the counts.
 */
export function checkLabelPairing(
  file: HumanLabelFile,
  humanFile: string,
  contentOf: (id: string) => string | null | undefined,
  warnings: string[],
  effect: string,
  has: (id: string) => boolean = (id) => contentOf(id) !== null,
): LabelPairing {
  const kept: HumanLabelFile["rows"] = [];
  const refusedIds = new Set<string>();
  let first: { id: string; line: number } | undefined;
  let noHash = 0;
  let runNoHash = 0;
  /** the first rows without a hash (file side, run side), named when only some rows lack one */
  const noHashRows: Array<{ id: string; line: number }> = [];
  const runNoHashRows: Array<{ id: string; line: number }> = [];
  const near: Array<{ line: number; id: string; run_id: string }> = [];
  for (const r of file.rows) {
    // an id the run holds only trimmed is not matched to the trimmed one (./end-space-ids.ts): said, left to not_in_run
    const t = r.trajectory_id.trim();
    if (t !== r.trajectory_id && !has(r.trajectory_id) && has(t)) near.push({ line: r.line, id: r.trajectory_id, run_id: t });
    if (r.content_sha256 === undefined) {
      noHash++;
      if (noHashRows.length < ROWS_NAMED) noHashRows.push({ id: r.trajectory_id, line: r.line });
      kept.push(r);
      continue;
    }
    const now = contentOf(r.trajectory_id);
    if (now === undefined && runNoHash++ < ROWS_NAMED) runNoHashRows.push({ id: r.trajectory_id, line: r.line });
    if (now === null || now === undefined || now === r.content_sha256) {
      kept.push(r);
      continue;
    }
    refusedIds.add(r.trajectory_id);
    first ??= { id: r.trajectory_id, line: r.line };
  }
  const nearWarning = endSpaceWarning(humanFile, near);
  if (nearWarning) warnings.push(nearWarning);
  const refused = file.rows.length - kept.length;
  if (refused > 0) {
    const n = refusedIds.size;
    warnings.push(
      `label file ${humanFile}: ${n} labelled trajector${n === 1 ? "y" : "ies"} (${refused} label row${refused === 1 ? "" : "s"}) changed since the sample was drawn: ` +
        `the run's content hash of ${n === 1 ? "it" : "each"} is not the one the sample's manifest recorded (content_sha256; first: ${first!.id}${first!.line ? `, line ${first!.line}` : ""}), so the labels were given for another text than the run's now: ` +
        `${effect} (undefined: ${CONTENT_CHANGED}); have the changed trajectories labelled again, or use a copy of the run as it was when sampled`,
    );
  }
  if (noHash > 0) {
    warnings.push(
      `label file ${humanFile}: ${noHash === file.rows.length ? `its ${noHash} label rows record` : `${noHash} of its ${file.rows.length} label rows record`} no content_sha256` +
        // a file where only some rows lack the hash (edited by hand, two imports joined): the rows are named
        (noHash < file.rows.length ? ` (${rowsText(noHashRows, noHash)}; the other rows carry one)` : "") +
        ` (written by an import-annotations before this version, or by hand): ` +
        `whether each label was given for the text the run has now cannot be checked; re-import the annotations with the sample's manifest to record it`,
    );
  }
  if (runNoHash > 0) {
    warnings.push(`label file ${humanFile}: the run records no content hash for the trajectories of ${runNoHash} label row${runNoHash === 1 ? "" : "s"}${runNoHash < file.rows.length - noHash ? ` (${rowsText(runNoHashRows, runNoHash)}; the run records one for the others)` : ""}: whether those labels were given for the text the run has now cannot be checked`);
  }
  return {
    file: refused > 0 ? { ...file, rows: kept } : file,
    refused_rows: refused,
    refused_items: refusedIds.size,
    refused_ids: refusedIds,
    unchecked_rows: noHash + runNoHash,
  };
}
