/**
 * Runs of one agent model and condition read from several run folders (the folder holding the model folder of an
 * AgentDojo-layout run, the index row's `run_folder`): every figure pools them, and nothing in the files may tell them apart.
 * VIGIL ships its `debug_run` beside `runs_base` (same model qwen3-max, condition no_defense, pipeline_name and
 * benchmark_version in every file): labelled together, the debug runs joined the base runs' rates with only an
 * `id_collision` hint (session 14 red team). Said loud, naming the folders, their counts and what does not differ.
 */
import { quoted } from "../format/quote-name.js";
import fs from "node:fs";
import path from "node:path";
import type { TrajectoryIndexRow } from "../store/records.js";
import { NO_VALUE } from "../stats/no-value.js";

/** Words every pooled-run-folders warning holds (how tests and outputs find it). */
export const POOLED_FOLDERS_MARK = "pools runs from several run folders";

/** How many folders a warning names before "and N more" (88 copies of a corpus made an 88-folder line). */
const FOLDERS_SHOWN = 6;

/** Counts rows per (agent model, condition) and run folder, one row at a time. */
export class RunFolderFold {
  /** (model, condition) in order of first appearance, each with run folder -> rows */
  private readonly keys: Array<{ model: string; condition: string; folders: Map<string, number> }> = [];
  /** model -> condition -> its entry of `keys`: no key string made per row (issue 26: a million rows at 1M) */
  private readonly byModel = new Map<string, Map<string, { model: string; condition: string; folders: Map<string, number> }>>();

  /**
   * @param exists whether a run folder is still there: a folder that is gone is left out of the comparison (a corpus
   *   moved and labelled again keeps its unchanged rows' old folder: "pools a/runs_base 96, b/runs_base 1" was a false
   *   alarm naming a folder that no longer exists, red team 15 F5; its trajectories, if gone, are input_removed).
   */
  constructor(private readonly exists: (folder: string) => boolean = fs.existsSync) {}

  /** Count one index row (rows without `run_folder`, e.g. chat JSONL or older rows, are not counted). */
  add(row: Partial<Pick<TrajectoryIndexRow, "agent_model" | "condition" | "run_folder">>): void {
    const folder = row.run_folder;
    if (typeof folder !== "string") return;
    const model = row.agent_model ?? NO_VALUE;
    const condition = row.condition ?? NO_VALUE;
    let byCondition = this.byModel.get(model);
    if (!byCondition) this.byModel.set(model, (byCondition = new Map()));
    let k = byCondition.get(condition);
    if (!k) {
      k = { model, condition, folders: new Map() };
      byCondition.set(condition, k);
      this.keys.push(k);
    }
    k.folders.set(folder, (k.folders.get(folder) ?? 0) + 1);
  }

  /**
   * One warning per (model, condition) whose rows come from two or more run folders, e.g. `agent model "qwen3-max",
   * condition "no_defense": the run pools runs from several run folders (runs per folder, attacked or not: "runs_base" 351, "debug_run" 55, ...) under
   * "/corpus/vigil": their condition and model are the same, only the folder tells them apart, so every figure of
   * this model and condition pools them; ...`. Folders are named relative to their common parent. [] when none.
   */
  warnings(): string[] {
    const out: string[] = [];
    for (const { model, condition, folders } of this.keys) {
      if (folders.size < 2) continue;
      const live = [...folders].filter(([f]) => this.exists(f));
      if (live.length < 2) continue;
      const all = live.map(([f]) => f);
      const root = commonParent(all);
      const sorted = live.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const shown = sorted.slice(0, FOLDERS_SHOWN).map(([f, n]) => `${quoted(path.relative(root, f) || ".")} ${n}`);
      if (sorted.length > FOLDERS_SHOWN) shown.push(`and ${sorted.length - FOLDERS_SHOWN} more folders, ${live.slice(FOLDERS_SHOWN).reduce((a, [, n]) => a + n, 0)} runs`);
      const named = shown.join(", ");
      // the counts name their population (new user 44 item 9b: these, all the runs, beside agree's counts of the
      // runs it compared, read as a contradiction)
      out.push(
        `agent model ${quoted(model)}, condition ${quoted(condition)}: the run ${POOLED_FOLDERS_MARK} (runs per folder, attacked or not: ${named}, under ${quoted(root)}): ` +
          `their model and condition are the same (only the folder differs), so every figure of this model and condition pools them ` +
          `(a debug run or a rerun counted with the base runs); label each folder as its own --run, or give each its own --condition, to keep them apart`,
      );
    }
    return out;
  }
}

/** The deepest folder holding every given absolute folder (`/` at worst). */
function commonParent(folders: string[]): string {
  let root = path.dirname(folders[0]);
  for (const f of folders) while (root !== path.dirname(root) && !(f + path.sep).startsWith(root + path.sep)) root = path.dirname(root);
  return root;
}

/** The column readers' row field {@link runFolderWarnings} needs (add it to a command's row fields). */
export const RUN_FOLDER_FIELD = "run_folder";

/**
 * {@link RunFolderFold} over index rows (`compare`, `estimate`, `report`; a column run's rows read with
 * {@link RUN_FOLDER_FIELD} among the row fields; rows without it are not counted).
 */
export function runFolderWarnings(rows: Iterable<Partial<Pick<TrajectoryIndexRow, "agent_model" | "condition" | "run_folder">>>): string[] {
  const fold = new RunFolderFold();
  for (const r of rows) fold.add(r);
  return fold.warnings();
}
