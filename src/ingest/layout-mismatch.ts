/**
 * An AgentDojo file in a layout folder whose own fields say another place (red team 37 F5: a file under
 * `banking/user_task_15/...` whose content says `slack` / `user_task_0` was stored as slack / user_task_0 without a
 * word). `agentDojoLayout` (./agentdojo.ts) then does not take the path as the layout (the id is the fallback path,
 * no model folder); this says so, naming the file and the fields that disagree. A path is taken for a layout folder
 * when at least two of its four parts (suite, user task, attack, injection task) agree with the file's fields: a flat
 * folder of runs elsewhere is not warned about.
 */
import path from "node:path";
import type { ItemWarning } from "./warnings.js";
import { lastSegments, resolvedPath } from "./resolved.js";

/**
 * The warning for an AgentDojo file whose path looks like `<model>/<suite>/<user_task>/<attack>/<injection_task>.json`
 * while some of its fields (`suite_name`, `user_task_id`, `attack_type`, `injection_task_id`) say otherwise; undefined
 * when they agree, when the path is no such layout, or when too few agree to take it for one.
 */
export function layoutMismatch(file: string, run: Record<string, unknown>): ItemWarning | undefined {
  const parts = lastSegments(resolvedPath(file), 5);
  if (parts === undefined || !parts[4].endsWith(".json")) return undefined;
  const [, suite, userTask, attack, last] = parts;
  const str = (k: string) => (typeof run[k] === "string" ? (run[k] as string) : undefined);
  const checks: Array<[string, string | undefined, string]> = [
    ["suite_name", str("suite_name"), suite],
    ["user_task_id", str("user_task_id"), userTask],
    ["attack_type", Object.hasOwn(run, "attack_type") ? (str("attack_type") ?? "none") : undefined, attack],
    ["injection_task_id", Object.hasOwn(run, "injection_task_id") ? (str("injection_task_id") ?? "none") : undefined, last.slice(0, -".json".length)],
  ];
  const given = checks.filter((c) => c[1] !== undefined);
  const differ = given.filter((c) => c[1] !== c[2]);
  if (differ.length === 0 || given.length - differ.length < 2) return undefined;
  const scope = path.dirname(path.dirname(path.dirname(path.dirname(file))));
  return {
    kind: "layout_mismatch",
    scope,
    message:
      `${scope}: AgentDojo files whose own fields disagree with the folders they are in (e.g. ${file}: ` +
      `${differ.map(([k, v, f]) => `${k} ${JSON.stringify(v)}, folder ${JSON.stringify(f)}`).join("; ")}): read by their fields, ` +
      `with the path as id and no model folder (the agent model from the file alone); check whether they were copied into the wrong folder`,
    item: file,
  };
}
