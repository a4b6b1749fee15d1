/**
 * The human labels beside a run's rows in the view (the list's human column and filter, a trajectory's page), from two
 * sources kept apart so either can be read again while the view runs (fix 39: rows appended by hand to either file
 * were shown only after a restart): the `--human` file ({@link HumanLayers.refreshFile}, read again when its stamp
 * changes, ./file-change.ts) and the sample's annotator files ({@link HumanLayers.setSample}, given by the server when
 * they change). A row's labels are the file's, then the sample's over them (an annotator in both: the sample's).
 */
import path from "node:path";
import { readHumanLabels } from "../agree/human-file.js";
import { RESERVED_ANNOTATOR } from "../agree/adjudicated.js";
import { checkLabelPairing } from "../agree/label-pairing.js";
import type { TrajectoryIndexRow } from "../store/records.js";
import { humanFileAdjudicationProblem } from "./adjudication-file.js";
import { FileChange, fileStamp } from "./file-change.js";
import type { RowColumns } from "./row-columns.js";

type Labels = Record<string, string>;

/** The human-label layers of a loaded run (module docstring). */
export class HumanLayers {
  private fromFile = new Map<number, Labels>();
  private fromSample = new Map<number, Labels>();
  /** The warnings of the file's last read (replaced in `warnings` at each read). */
  private fileWarnings: string[] = [];
  private fileRead = false;
  private readonly watch: FileChange | undefined;

  /**
   * @param warnings the run's warnings: the file's are added, and replaced when it is read again.
   * @param file the `--human` file, if any (read at once: @throws HumanLabelsError when it cannot be read).
   */
  constructor(
    private readonly cols: RowColumns,
    private readonly index: Pick<ReadonlyMap<string, TrajectoryIndexRow>, "get" | "has">,
    private readonly warnings: string[],
    private readonly file?: string,
  ) {
    this.watch = file ? new FileChange(() => fileStamp(file)) : undefined;
    this.refreshFile();
  }

  /**
   * Read the `--human` file again when it changed since its last read (its stamp): its labels replace the file's
   * layer, its warnings the file's earlier ones. A file that cannot be read now keeps the labels of its last read,
   * with a warning. @returns whether it was read.
   */
  refreshFile(): boolean {
    if (!this.file || !this.watch?.changed()) return false;
    const warnings: string[] = [];
    try {
      this.fromFile = readHumanFile(this.file, this.cols, this.index, warnings);
      this.fileRead = true;
    } catch (e) {
      if (!this.fileRead) throw e; // the first read: the caller's error
      warnings.push(`${path.basename(this.file)} could not be read again (${(e as Error).message}): the labels of its last read are shown`);
    }
    for (const w of this.fileWarnings) {
      const i = this.warnings.indexOf(w);
      if (i !== -1) this.warnings.splice(i, 1);
    }
    this.fileWarnings = warnings;
    this.warnings.push(...warnings);
    this.rebuild();
    return true;
  }

  /** Replace the sample's layer: annotator -> label by trajectory id (unknown ids are ignored). */
  setSample(byTrajectory: ReadonlyMap<string, Labels>): void {
    this.fromSample = new Map();
    for (const [id, labels] of byTrajectory) {
      const s = this.cols.ids.slotOf(id);
      if (s !== -1) this.fromSample.set(s, { ...(this.fromSample.get(s) ?? {}), ...labels });
    }
    this.rebuild();
  }

  /** Merge labels into the sample's layer of one row (unknown ids are ignored). */
  addSample(id: string, labels: Labels): void {
    const s = this.cols.ids.slotOf(id);
    if (s === -1) return;
    this.fromSample.set(s, { ...(this.fromSample.get(s) ?? {}), ...labels });
    this.rebuild();
  }

  private rebuild(): void {
    this.cols.humans.clear();
    for (const [s, l] of this.fromFile) this.cols.humans.set(s, { ...l });
    for (const [s, l] of this.fromSample) this.cols.humans.set(s, { ...(this.cols.humans.get(s) ?? {}), ...l });
  }
}

/**
 * A human-label file's labels by row slot, each shown only beside the text it was given for (../agree/label-pairing.ts,
 * the check every consumer makes; a label for another text is not shown, and said once); an adjudicated row only when
 * import would take it (./adjudication-file.ts; red team 37c F1).
 */
function readHumanFile(file: string, cols: RowColumns, index: Pick<ReadonlyMap<string, TrajectoryIndexRow>, "get" | "has">, warnings: string[]): Map<number, Labels> {
  const contentOf = (id: string) => (index.has(id) ? index.get(id)?.content_sha256 : null);
  const h = checkLabelPairing(readHumanLabels(file), path.basename(file), contentOf, warnings, "their labels are not shown").file;
  const out = new Map<number, Labels>();
  let unknown = 0;
  for (const r of h.rows) {
    const refused = r.annotator === RESERVED_ANNOTATOR ? humanFileAdjudicationProblem(r, path.basename(file)) : null;
    if (refused) {
      warnings.push(refused);
      continue;
    }
    const s = cols.ids.slotOf(r.trajectory_id);
    if (s === -1) {
      unknown++;
      continue;
    }
    let m = out.get(s);
    if (!m) out.set(s, (m = {}));
    m[r.annotator] = r.label;
  }
  if (h.bad_rows.length) warnings.push(`${path.basename(file)}: ${h.bad_rows.length} row(s) could not be read (first: line ${h.bad_rows[0].line}: ${h.bad_rows[0].message})`);
  if (unknown) warnings.push(`${path.basename(file)}: ${unknown} human label(s) name trajectories that are not in this run`);
  return out;
}
