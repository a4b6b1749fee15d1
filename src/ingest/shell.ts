/**
 * Shell-agent trajectories -> canonical trajectories: mini-SWE-agent (`*.traj.json`: `{info, messages,
 * trajectory_format}`) and SWE-agent (`*.traj`: `{trajectory: [{action, observation, thought, response}],
 * history: [...], info}`). Each shell command is a tool call (`bash`, arguments `{"command": ...}`), each
 * observation the tool result answering it.
 *
 * - mini-SWE-agent v1 (`mini-swe-agent-1`): the command is the assistant's ```bash block; the observation is the
 *   next user message starting `<returncode>`. v2 (`mini-swe-agent-1.1`): native `tool_calls` and `tool` messages,
 *   or `extra.actions: [{command, tool_call_id}]` on text-parsed turns; the final `exit` message is not a chat
 *   turn (its `extra.exit_status`/`submission` go to metadata).
 * - SWE-agent: the opening system/user messages of `history` (demonstrations, `is_demo`, left out), then one
 *   assistant turn (the step's `thought`/`response`) with the `action` as a call, and one tool result (the
 *   `observation`) per `trajectory` step. A step SWE-agent itself wrote on a terminal exit ("Exit due to cost
 *   limit", {@link isHarnessExit}) keeps that text as the turn's `error`, a harness note, not the agent's text.
 * - Injections (a benchmark harness's record of what it planted): top-level `injections` or `info.injections`
 *   (placeholder -> text). Each is located in the first tool result holding it: surface `file` when the command
 *   that produced it reads a file (`cat`, `head`, `tail`, `less`, `more`, `nl`, `sed -n`, `grep`, SWE-agent
 *   `open`), `terminal_output` otherwise; not found: `unlocated` (metadata), no surface guessed.
 */
import type { Message, Surface, ToolCall, Trajectory } from "../types.js";
import { conversionError, ingestError } from "./errors.js";
import { familyOf } from "./family.js";
import { convertOpenAIMessages } from "./chat-jsonl.js";
import { checkSchema, joinProblems } from "./schema.js";
import type { ConvertResult } from "./agentdojo.js";
import type { ItemWarning } from "./warnings.js";
import { markToolArguments } from "./tool-arguments.js";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === "string" && v !== "";

/** True when a parsed JSON value is a mini-SWE-agent or SWE-agent trajectory. */
export function isShellTrajectory(v: unknown): boolean {
  if (!isObj(v)) return false;
  if (typeof v.trajectory_format === "string" && v.trajectory_format.startsWith("mini-swe-agent")) return true;
  if (Array.isArray(v.trajectory) && (Array.isArray(v.history) || isObj(v.info))) return true;
  return Array.isArray(v.messages) && isObj(v.info) && ("exit_status" in v.info || "mini_version" in v.info || "model_stats" in v.info);
}

/** The last ```bash (or ```sh) block of an assistant text, as mini-SWE-agent v1 parses it. */
export function bashBlock(text: string): string | undefined {
  const re = /```(?:bash|sh|shell)?\s*\n([\s\S]*?)\n?```/g;
  let last: string | undefined;
  for (let m = re.exec(text); m; m = re.exec(text)) last = m[1];
  return last?.trim();
}

const call = (id: string, command: string): ToolCall => ({ id, name: "bash", arguments: JSON.stringify({ command }) });

/** mini-SWE-agent messages -> canonical messages (see the module doc). */
function miniMessages(messages: Json[]): { messages: Message[]; exit?: Json; openai?: Json[] } {
  let exit: Json | undefined;
  const kept = messages.filter((m) => {
    if (m.role === "exit") {
      exit = isObj(m.extra) ? m.extra : { content: m.content };
      return false;
    }
    return true;
  });
  // v2 native tool calls: the OpenAI converter
  if (kept.some((m) => m.role === "tool" || Array.isArray(m.tool_calls))) {
    const withActions = kept.map((m) => {
      if (m.role !== "assistant" || Array.isArray(m.tool_calls) || !isObj(m.extra) || !Array.isArray(m.extra.actions)) return m;
      const tool_calls = (m.extra.actions as Json[]).filter((a) => nonEmpty(a.command)).map((a, j) => ({
        id: nonEmpty(a.tool_call_id) ? a.tool_call_id : `action-${j}`,
        type: "function",
        function: { name: "bash", arguments: JSON.stringify({ command: a.command }) },
      }));
      return tool_calls.length > 0 ? { ...m, tool_calls } : m;
    });
    return { messages: convertOpenAIMessages(withActions), exit, openai: withActions };
  }
  // v1: commands in ```bash blocks, observations in the next user message
  const out: Message[] = [];
  let pending: ToolCall | undefined;
  let n = 0;
  for (const m of kept) {
    const index = out.length;
    const text = typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : "")).join("\n") : "";
    if (m.role === "assistant") {
      const msg: Message = { index, role: "assistant", text };
      const cmd = bashBlock(text);
      if (cmd !== undefined) {
        pending = call(`cmd-${n++}`, cmd);
        msg.tool_calls = [pending];
      } else pending = undefined;
      out.push(msg);
    } else if (m.role === "user" && pending && /^\s*<returncode>/.test(text)) {
      out.push({ index, role: "tool", text, tool_call_id: pending.id, tool_name: "bash" });
      pending = undefined;
    } else {
      const role = m.role === "system" ? "system" : m.role === "tool" ? "tool" : m.role === "assistant" ? "assistant" : "user";
      out.push({ index, role, text });
      pending = undefined;
    }
  }
  return { messages: out, exit };
}

/**
 * Whether a SWE-agent step's thought is the harness's message on a terminal exit, not the model's words: SWE-agent
 * fills a step's `thought` and `response` with the same message when it stops the run ("Exit due to cost limit",
 * "Exit due to context window", "Exit due to retry error: <the provider's error>", ...: `forward_with_handling`,
 * `handle_error_with_autosubmission`), while a model's response always holds more than its parsed thought (the
 * action). So: a thought starting `Exit due to ` whose response is absent or the same text (case aside: older
 * versions lowercase it), and whose step's action is none or an exit status SWE-agent records there (`exit_cost`,
 * `exit_context`, `exit_api`, ...): a step with a command of its own is the model's (brk40: with no `response` in the
 * step, a model that began its thought so had its words taken for a note, its refusal or compliance no evidence).
 */
export function isHarnessExit(thought: string, response: unknown, action?: unknown): boolean {
  if (!/^exit due to /i.test(thought)) return false;
  if (typeof action === "string" && action.trim() !== "" && !/^exit_[a-z_]+$/.test(action.trim())) return false;
  return typeof response !== "string" || response === "" || response.trim().toLowerCase() === thought.trim().toLowerCase();
}

/** SWE-agent `.traj` -> canonical messages (see the module doc). */
function sweMessages(traj: Json): Message[] {
  const out: Message[] = [];
  const history = Array.isArray(traj.history) ? (traj.history as Json[]) : [];
  for (const h of history) {
    if (h.is_demo === true || h.message_type === "demonstration") continue;
    if (h.role === "assistant") break;
    const text = typeof h.content === "string" ? h.content : Array.isArray(h.content) ? h.content.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : "")).join("\n") : "";
    out.push({ index: out.length, role: h.role === "system" ? "system" : "user", text });
  }
  for (const [i, step] of (traj.trajectory as Json[]).entries()) {
    if (!isObj(step)) continue;
    const thought = typeof step.thought === "string" && step.thought !== "" ? step.thought : typeof step.response === "string" ? step.response : "";
    const msg: Message = { index: out.length, role: "assistant", text: thought };
    if (isHarnessExit(thought, step.response, step.action)) {
      // SWE-agent's own words on a terminal exit, not the model's (red team 39 F): a note beside the turn
      msg.text = "";
      msg.error = thought;
    }
    const action = typeof step.action === "string" ? step.action.trim() : "";
    if (action !== "") msg.tool_calls = [call(`step-${i}`, action)];
    out.push(msg);
    if (action !== "") {
      out.push({ index: out.length, role: "tool", text: typeof step.observation === "string" ? step.observation : "", tool_call_id: `step-${i}`, tool_name: "bash" });
    }
  }
  return out;
}

/** Commands whose output is a file's content. */
const READS_FILE = /^\s*(?:cat|head|tail|less|more|nl|bat|open|sed\s+-n|grep|rg|awk|view)\b/;

/** The surface of each injection: where its text first reaches the agent (see the module doc). */
export function locateInjections(messages: Message[], injections: Record<string, string>): { surfaces: Record<string, Surface>; located: Record<string, number>; unlocated: string[] } {
  const surfaces: Record<string, Surface> = {};
  const located: Record<string, number> = {};
  const unlocated: string[] = [];
  const calls = new Map<string, ToolCall>();
  for (const m of messages) for (const c of m.tool_calls ?? []) if (c.id) calls.set(c.id, c);
  for (const [k, text] of Object.entries(injections)) {
    const at = text === "" ? undefined : messages.find((m) => m.role === "tool" && m.text.includes(text));
    if (!at) {
      unlocated.push(k);
      continue;
    }
    let command = "";
    const c = at.tool_call_id ? calls.get(at.tool_call_id) : undefined;
    if (c) {
      try {
        const a = JSON.parse(c.arguments) as { command?: unknown };
        command = typeof a.command === "string" ? a.command : "";
      } catch {
        command = c.arguments;
      }
    }
    surfaces[k] = READS_FILE.test(command) ? "file" : "terminal_output";
    located[k] = at.index;
  }
  return { surfaces, located, unlocated };
}

/**
 * Convert one parsed shell-agent trajectory.
 *
 * - `id`: the file's path (the caller's `idPath`), `agent_model`: `info.config.model.model_name` (mini-SWE-agent),
 *   `replay_config`'s / `info`'s model name when present; `suite`: `info.instance_id` or the file name's task.
 * - `run_error`: an `exit_status` that is not `Submitted`/`submitted` is kept in metadata (not an error: the run
 *   ended), `info.submission` in metadata.
 * @returns `{ok, trajectory, warnings?}` or a `schema`/`no_messages` error. Never throws for bad data.
 */
export function convertShell(data: unknown, src: { path: string; idPath: string }): ConvertResult {
  if (!isShellTrajectory(data)) {
    return { ok: false, error: ingestError("schema", src.path, "not a mini-SWE-agent or SWE-agent trajectory (needs trajectory_format/info+messages, or trajectory+history)") };
  }
  const d = data as Json;
  const info = isObj(d.info) ? d.info : {};
  const id = src.idPath;
  const check = checkSchema("shell-trajectory", d);
  if (!check.ok) {
    const at: { message_index?: number; trajectory_id?: string } = { trajectory_id: id };
    if (check.message_index !== undefined) at.message_index = check.message_index;
    return { ok: false, error: ingestError("schema", src.path, joinProblems(check.problems), at) };
  }
  let messages: Message[];
  let exit: Json | undefined;
  let openai: Json[] | undefined; // v2's messages in the OpenAI shape, as converted (their tool-call arguments checked)
  let format: string;
  try {
    if (Array.isArray(d.trajectory)) {
      messages = sweMessages(d);
      format = "swe-agent";
    } else {
      const mm = miniMessages((d.messages as unknown[]).filter(isObj));
      messages = mm.messages;
      exit = mm.exit;
      openai = mm.openai;
      format = "mini-swe-agent";
    }
  } catch (e) {
    return { ok: false, error: conversionError(e, src.path, { trajectory_id: id }) };
  }
  if (messages.length === 0) return { ok: false, error: ingestError("no_messages", src.path, "the trajectory has no messages", { trajectory_id: id }) };
  const t: Trajectory = { id, source: { format: "shell", path: src.path }, injections: {}, messages };
  const config = isObj(info.config) ? info.config : {};
  const modelCfg = isObj(config.model) ? config.model : {};
  const replay = isObj(d.replay_config) ? d.replay_config : {};
  const agentCfg = isObj(replay.agent) ? replay.agent : {};
  const replayModel = isObj(agentCfg.model) ? agentCfg.model : {};
  const model = [modelCfg.model_name, replayModel.name, info.model_name, d.model_name].find(nonEmpty);
  if (model !== undefined) {
    t.agent_model = model;
    const fam = familyOf(model);
    if (fam !== undefined) t.agent_family = fam;
  }
  const inj = isObj(d.injections) ? d.injections : isObj(info.injections) ? info.injections : {};
  for (const [k, v] of Object.entries(inj)) if (typeof v === "string") t.injections[k] = v;
  const warnings: ItemWarning[] = [];
  const badArgs = openai ? markToolArguments(t, openai, "openai", src.path, src.path) : undefined; // ./tool-arguments.ts
  if (badArgs) warnings.push(badArgs);
  const metadata: Record<string, unknown> = { shell_format: format };
  if (typeof d.trajectory_format === "string") metadata.trajectory_format = d.trajectory_format;
  for (const k of ["exit_status", "submission", "instance_id", "mini_version", "swe_agent_version"]) {
    const v = info[k] ?? exit?.[k];
    if (v !== undefined && v !== null) metadata[k] = v;
  }
  if (nonEmpty(info.instance_id)) t.suite = info.instance_id;
  if (Object.keys(t.injections).length > 0) {
    const loc = locateInjections(messages, t.injections);
    if (Object.keys(loc.surfaces).length > 0) t.surfaces = loc.surfaces;
    metadata.injection_located_at = loc.located;
    if (loc.unlocated.length > 0) {
      metadata.unlocated_injections = loc.unlocated;
      warnings.push({
        kind: "unlocated_injection",
        scope: src.path,
        message: `${src.path}: injections not found in any command output (${loc.unlocated.slice(0, 3).join(", ")}): no surface for them; the agent may never have read them`,
        item: src.path,
      });
    }
  }
  t.metadata = metadata;
  return warnings.length > 0 ? { ok: true, trajectory: t, warnings } : { ok: true, trajectory: t };
}
