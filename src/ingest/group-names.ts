/**
 * One normalization for every name runs are grouped by (fixM 5): the agent model, suite, condition, attack, user task
 * and injection task. Before, conditions and attacks lost their zero-width and bidi control characters at ingest
 * while model and suite names kept them and NUL, so `M\u200b` and `M` were two models that print alike, silently.
 * Now each of these fields loses the same characters ({@link stripInvisible}: zero-width, bidi controls, other
 * default-ignorable code points, NUL), the value read is kept as `metadata.original_<field>`, and a warning names the
 * field, both spellings and the file (the model folder of an AgentDojo-layout run). NUL is stripped like the others,
 * never kept: ids and cell keys join names with NUL, so a NUL inside a name could make two cells one.
 */
import path from "node:path";
import type { Trajectory } from "../types.js";
import { stripInvisible } from "./attacked.js";
import { familyOf } from "./family.js";
import { agentDojoLayout } from "./agentdojo.js";
import type { ItemWarning } from "./warnings.js";
import { showInvisibleExactly } from "../format/invisible.js";

/** The trajectory fields runs are grouped by (cells, strata, `--where`), normalized alike. */
export const GROUP_NAME_FIELDS = ["agent_model", "suite", "condition", "attack", "user_task_id", "injection_task_id"] as const;

/** The warning kind of a group name read without its invisible or control characters. */
export const NAME_NORMALIZED = "name_normalized";

/** A name for a message: invisible characters as markers, in quotes (NUL as `\u0000`). */
function shown(v: string): string {
  return JSON.stringify(showInvisibleExactly(v));
}

/**
 * Where a changed name's warning is aggregated: the model folder of a run in AgentDojo's layout, else its file. A run
 * whose fields name its folders but for the characters stripped here (`suite_name: "bank\u2060ing"` under
 * `banking/`) is not in the layout for ingest (`agentDojoLayout` compares the fields as written), yet is one of its
 * model folder's runs: its warning joins that folder's, one per field and spelling with a count of files, not one
 * per file (verifier 37 V2.4: 53 lines for the 53 files of one folder).
 */
function warningScope(t: Trajectory): string {
  const file = t.source.path;
  if (t.source.format !== "agentdojo") return file;
  const modelFolder = path.dirname(path.dirname(path.dirname(path.dirname(file))));
  if (t.metadata?.model_dir !== undefined) return modelFolder;
  const l = agentDojoLayout(file);
  if (!l) return file;
  const same = (folder: string, v: unknown) => v === undefined || (typeof v === "string" && stripInvisible(folder) === stripInvisible(v));
  const fits = same(l.suite, t.suite) && same(l.userTask, t.user_task_id) && same(l.attack, t.attack) && same(l.injectionTask, t.injection_task_id);
  return fits ? modelFolder : file;
}

/**
 * Strip every group name of `t` ({@link GROUP_NAME_FIELDS}) of invisible and control characters, in place: the value
 * read kept as `metadata.original_<field>` (unless already kept, e.g. by an override), `agent_family` following the
 * model when it was the model's. Run before the no-attack / no-defense rules (`normalizeAttack`, `normalizeCondition`).
 * @returns one warning per changed field, scoped to the model folder (AgentDojo layout) or the file, one variant per
 *   field and spelling (aggregated per scope: ./warnings.ts).
 */
export function normalizeGroupNames(t: Trajectory): ItemWarning[] {
  const out: ItemWarning[] = [];
  for (const f of GROUP_NAME_FIELDS) {
    const v: unknown = t[f];
    if (typeof v !== "string") continue;
    const clean = stripInvisible(v);
    if (clean === v) continue;
    const key = `original_${f}`;
    if (t.metadata?.[key] === undefined) t.metadata = { ...(t.metadata ?? {}), [key]: v };
    if (f === "agent_model" && (t.agent_family === undefined || t.agent_family === familyOf(v))) {
      const fam = familyOf(clean);
      if (fam !== undefined) t.agent_family = fam;
    }
    t[f] = clean;
    const file = t.source.path;
    const scope = warningScope(t);
    out.push({
      kind: NAME_NORMALIZED,
      scope,
      variant: `${f}\u0000${v}`,
      item: `${file}${t.source.line !== undefined ? `:${t.source.line}` : ""}`,
      message:
        `${scope}: ${f} ${shown(v)} holds invisible or control characters (zero-width, bidi controls, NUL): read as ${shown(clean)}, ` +
        `so it groups with the same name written without them, not as another ${f === "agent_model" ? "model" : f.replace(/_id$/, "")} that prints alike (the value read is kept as metadata.${key})`,
    });
  }
  return out;
}
