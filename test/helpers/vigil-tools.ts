/**
 * The vendored VIGIL runs (test/data/vigil-tools/, see test/data/NOTICE) as canonical trajectories, built here by
 * hand for the surface, rendering and evidence tests (the VIGIL reader lives in src/ingest/): content blocks
 * joined, tool calls `{function, args}` -> `{id, name, arguments: compact JSON}`, and, where the run recorded the
 * poisoned tool (`malicious_tool_name`, `malicious_tool_docstring`), that tool in `tools` with its docstring as
 * description and the docstring as the injected text; the surface `tool_description` is given by the format.
 */
import fs from "node:fs";
import path from "node:path";
import type { Message, Trajectory } from "../../src/types.js";
import { DATA } from "./paths.js";

export const VIGIL = path.join(DATA, "vigil-tools");
/** A successful tool-description attack: the agent calls the poisoned `express_bill_pay`. */
export const VIGIL_SUCCESS = "runs_base/qwen3-max/banking/user_task_0/tool_attack/injection_task_1300.json";
/** A failed post-action attack: the poisoned description is not recorded. */
export const VIGIL_FAILED = "runs_base/qwen3-max/banking/user_task_0/postaction_dependency/injection_task_1220.json";

const text = (c: unknown): string =>
  typeof c === "string" ? c : Array.isArray(c) ? c.map((b: any) => (typeof b?.content === "string" ? b.content : typeof b?.text === "string" ? b.text : "")).join("") : "";

/** One vendored VIGIL run as a canonical trajectory (module docstring). */
export function vigilTrajectory(rel: string): Trajectory {
  const file = path.join(VIGIL, rel);
  const run = JSON.parse(fs.readFileSync(file, "utf8"));
  const messages: Message[] = run.messages.map((m: any, index: number) => {
    const out: Message = { index, role: m.role, text: text(m.content) };
    if (Array.isArray(m.tool_calls)) out.tool_calls = m.tool_calls.map((c: any) => ({ id: c.id, name: c.function, arguments: JSON.stringify(c.args ?? {}) }));
    if (m.role === "tool") {
      if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
      if (m.tool_call?.function) out.tool_name = m.tool_call.function;
      if (typeof m.error === "string" && m.error !== "") out.error = m.error;
    }
    return out;
  });
  const name: string | undefined = run.malicious_tool_name ?? undefined;
  const doc: string | undefined = run.malicious_tool_docstring ?? undefined;
  const t: Trajectory = {
    id: `vigil/${rel}`,
    source: { format: "vigil", path: file },
    agent_model: run.pipeline_name,
    suite: run.suite_name,
    user_task_id: run.user_task_id,
    injection_task_id: run.injection_task_id,
    attack: run.attack_type,
    condition: "no_defense",
    injections: name && doc ? { [name]: doc } : {},
    surfaces: { [name ?? "malicious_tool"]: "tool_description" },
    messages,
    reference: { security: run.security, utility: run.utility },
  };
  if (name && doc) t.tools = [{ name, description: doc, parameters: { type: "object", properties: { file_path: { type: "string" } } } }];
  return t;
}
