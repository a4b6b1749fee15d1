/**
 * Which agent model and which defense (the run's `condition`) an AgentDojo-layout run belongs to, derived from its
 * model folder (`runs/<model>[-<defense>]/...`) and its `pipeline_name` together.
 *
 * Real corpora disagree with any one rule:
 * - AgentDojo writes the folder as the pipeline name, `<model>[-<defense>]` (`gpt-4o-2024-05-13-tool_filter`).
 * - Llama runs have `pipeline_name` `local` or `local-<defense>`: only the folder gives the model.
 * - AgentDyn's DRIFT and Progent runs keep the bare model as `pipeline_name` (`gpt-4o-2024-08-06`) in a folder
 *   `gpt-4o-2024-08-06-drift`: the folder minus the pipeline name is the defense.
 * - AgentDyn's detector folders (`gpt-4o-2024-08-06-piguard_detector`) have folder = pipeline and a defense name no
 *   fixed list can know in advance: a sibling folder that is a prefix (`gpt-4o-2024-08-06`) names the model.
 * So no fixed list decides: the pipeline name, the sibling folders and a list of defenses seen in published
 * corpora ({@link KNOWN_DEFENSES}) are tried in that order, and anything the rules must guess is a warning.
 */

/**
 * Defense names seen in published AgentDojo-layout corpora (AgentDojo `agent_pipeline.DEFENSES`, AgentDyn's
 * defense folders). One source among others (see {@link attributeRun}), not a closed list. Longest first so that
 * no defense is cut at a shorter one's suffix.
 */
export const KNOWN_DEFENSES: readonly string[] = [
  "spotlighting_with_delimiting",
  "transformers_pi_detector",
  "prompt_guard_2_detector",
  "repeat_user_prompt",
  "piguard_detector",
  "tool_filter",
  "progent",
  "drift",
];

/** The `condition` of a run without a defense. */
export const NO_DEFENSE = "no_defense";

/**
 * Split a model folder (or pipeline) name at a known defense suffix ({@link KNOWN_DEFENSES}).
 *
 * @example splitDefense("gpt-4o-2024-05-13-tool_filter") -> {model: "gpt-4o-2024-05-13", defense: "tool_filter"}
 * @example splitDefense("meta-llama_Llama-3.3-70B-Instruct") -> {model: "meta-llama_Llama-3.3-70B-Instruct"}
 */
export function splitDefense(name: string): { model: string; defense?: string } {
  for (const d of KNOWN_DEFENSES) {
    const suffix = `-${d}`;
    if (name.length > suffix.length && name.endsWith(suffix)) {
      return { model: name.slice(0, -suffix.length), defense: d };
    }
  }
  return { model: name };
}

/**
 * A last `-`-separated segment that looks like a defense name rather than part of a model name: snake_case with at
 * least one `_` between letters (`my_new_filter`); model names use `-` and `.` (`instruct`, `2507`, `70b`).
 */
const DEFENSE_LIKE = /-([a-z][a-z0-9]*(?:_[a-z0-9]+)+)$/;

/** How {@link attributeRun} decided; `warning` is set when the result is a guess or the sources disagree. */
export interface Attribution {
  model?: string;
  defense?: string;
  /** Which rule decided (for metadata and tests): `pipeline`, `folder=pipeline`, `pipeline+folder`, `local-pipeline`, `known`, `sibling`, `inferred`, `folder`. */
  rule: string;
  /** Set when ambiguous: what was guessed and how to override it. Reported once per folder by the reader. */
  warning?: string;
}

const OVERRIDE_HINT = "override with `label --model NAME` / `--condition NAME`";

/**
 * Split a folder name by itself: a known defense suffix, else the longest sibling folder that is a prefix
 * (`<sibling>-<defense>`), else a snake_case last segment (a guess, with a warning), else no defense.
 */
function splitFolder(folder: string, siblings: readonly string[]): Attribution {
  const known = splitDefense(folder);
  if (known.defense !== undefined) return { model: known.model, defense: known.defense, rule: "known" };
  let best: string | undefined;
  for (const s of siblings) {
    if (s !== folder && folder.length > s.length + 1 && folder.startsWith(`${s}-`) && (best === undefined || s.length > best.length)) best = s;
  }
  if (best !== undefined) return { model: best, defense: folder.slice(best.length + 1), rule: "sibling" };
  const m = DEFENSE_LIKE.exec(folder);
  if (m) {
    const model = folder.slice(0, m.index);
    return {
      model,
      defense: m[1],
      rule: "inferred",
      warning: `model folder "${folder}": took "${model}" as the model and "${m[1]}" as the defense (a snake_case suffix; no sibling folder "${model}" and not a known defense); ${OVERRIDE_HINT}`,
    };
  }
  return { model: folder, rule: "folder" };
}

/**
 * The agent model and defense of an AgentDojo-layout run.
 *
 * @param folder the model folder (`<model>[-<defense>]`), or undefined when the file is not in the layout
 * @param pipeline the file's `pipeline_name` (undefined when missing or empty)
 * @param siblings the names of the folders beside `folder` (the other model folders of the corpus); may be empty
 * @returns `{model?, defense?, rule, warning?}`: `defense` undefined means no defense. Rules, in order:
 *   1. `pipeline_name` `local-<D>`: defense D; model = the folder minus `-<D>` (a folder without that suffix is
 *      split by itself, with a warning).
 *   2. `pipeline_name` `local` or missing: the folder split by itself (known defense, sibling prefix, snake_case
 *      guess with a warning); no folder: model unknown (with a warning when `local`).
 *   3. folder = pipeline: split by itself.
 *   4. folder = `<pipeline>-<D>`: model = the pipeline (split at a known defense), defense D (AgentDyn DRIFT/Progent).
 *   5. folder and pipeline disagree otherwise: model from the pipeline (the file names it), defense from either;
 *      with a warning.
 *   No folder: the pipeline split at a known defense.
 * Never throws.
 */
export function attributeRun(folder: string | undefined, pipeline: string | undefined, siblings: readonly string[] = []): Attribution {
  const p = pipeline !== undefined && pipeline !== "" ? pipeline : undefined;
  const localDefense = p !== undefined && p.startsWith("local-") && p.length > "local-".length ? p.slice("local-".length) : undefined;
  if (folder === undefined) {
    if (p === undefined) return { rule: "none" };
    if (p === "local" || localDefense !== undefined) {
      return {
        defense: localDefense,
        rule: "local-pipeline",
        warning: `pipeline_name "${p}" names no model and the file is not in a <model>/<suite>/<user_task>/<attack>/<file>.json folder layout: agent model unknown; ${OVERRIDE_HINT}`,
      };
    }
    const s = splitDefense(p);
    return { model: s.model, defense: s.defense, rule: "pipeline" };
  }
  if (localDefense !== undefined) {
    const suffix = `-${localDefense}`;
    if (folder.length > suffix.length && folder.endsWith(suffix)) {
      return { model: folder.slice(0, -suffix.length), defense: localDefense, rule: "local-pipeline" };
    }
    const own = splitFolder(folder, siblings);
    return {
      model: own.model,
      defense: localDefense,
      rule: "local-pipeline",
      warning: `model folder "${folder}" does not end with the defense "${localDefense}" its pipeline_name "${p}" names: took the model "${own.model}" from the folder and the defense from the pipeline; ${OVERRIDE_HINT}`,
    };
  }
  if (p === undefined || p === "local") return splitFolder(folder, siblings);
  if (folder === p) {
    const own = splitFolder(folder, siblings);
    return own.rule === "folder" ? { ...own, rule: "folder=pipeline" } : own;
  }
  if (folder.startsWith(`${p}-`)) {
    const fromP = splitDefense(p);
    const rest = folder.slice(p.length + 1);
    return { model: fromP.model, defense: fromP.defense !== undefined ? `${fromP.defense}+${rest}` : rest, rule: "pipeline+folder" };
  }
  const fromP = splitDefense(p);
  const fromF = splitFolder(folder, siblings);
  return {
    model: fromP.model,
    defense: fromP.defense ?? fromF.defense,
    rule: "pipeline",
    warning: `model folder "${folder}" and pipeline_name "${p}" disagree: took the model "${fromP.model}" from pipeline_name${
      fromP.defense ?? fromF.defense ? ` and the defense "${fromP.defense ?? fromF.defense}"` : ""
    }; ${OVERRIDE_HINT}`,
  };
}
