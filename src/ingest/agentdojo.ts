/**
 * AgentDojo run logs -> canonical trajectories.
 *
 * Layout: `runs/<model>[-<defense>]/<suite>/<user_task>/<attack>/<injection_task or none>.json`
 * (ethz-spylab/agentdojo, `save_logs`). One file is one run. What a file holds: `suite_name`, `pipeline_name`,
 * `user_task_id`, `injection_task_id`, `attack_type`, `injections`, `messages`, `error`, `utility`, `security`, ...
 * (see `schemas/agentdojo.schema.json`).
 */
import path from "node:path";
import type { IngestError, Message, Role, ToolCall, Trajectory } from "../types.js";
import { conversionError, ConvertError, ingestError } from "./errors.js";
import { familyOf } from "./family.js";
import { checkSchema, joinProblems } from "./schema.js";
import { argumentsAt, atMessage, decodeFailure, decodeUtf8Strict, ownValue, parseJson, ROLE_MAP } from "./text.js";

/**
 * The defenses AgentDojo names its defended run folders after (`<model>-<defense>`; agentdojo
 * `agent_pipeline.DEFENSES`). Longest first so that no defense is cut at a shorter one's suffix.
 */
export const KNOWN_DEFENSES: readonly string[] = [
  "spotlighting_with_delimiting",
  "transformers_pi_detector",
  "repeat_user_prompt",
  "tool_filter",
];

/** The `condition` of a run without a defense. */
export const NO_DEFENSE = "no_defense";

/**
 * Split a model folder (or pipeline) name into the model and the defense suffix, if any.
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

/** The five path parts of a run file laid out as AgentDojo writes them. */
export interface AgentDojoLayout {
  modelDir: string;
  suite: string;
  userTask: string;
  attack: string;
  injectionTask: string;
  /** `<modelDir>/<suite>/<userTask>/<attack>/<injectionTask>` (no `.json`). */
  id: string;
}

/**
 * The AgentDojo layout of a file path, when its last five parts are `<model>/<suite>/<user_task>/<attack>/<x>.json`
 * and agree with the file's own fields (`suite_name`, `user_task_id`, `attack_type ?? "none"`,
 * `injection_task_id ?? "none"`; a missing field is not checked). Returns undefined otherwise.
 */
export function agentDojoLayout(file: string, run?: Record<string, unknown>): AgentDojoLayout | undefined {
  const parts = path.resolve(file).split(path.sep).filter((p) => p !== "");
  if (parts.length < 5) return undefined;
  const [modelDir, suite, userTask, attack, last] = parts.slice(-5);
  if (!last.endsWith(".json")) return undefined;
  const injectionTask = last.slice(0, -".json".length);
  if (injectionTask === "") return undefined;
  if (run) {
    const str = (k: string) => (typeof run[k] === "string" ? (run[k] as string) : undefined);
    const suiteName = str("suite_name");
    const ut = str("user_task_id");
    if (suiteName !== undefined && suiteName !== suite) return undefined;
    if (ut !== undefined && ut !== userTask) return undefined;
    if (Object.hasOwn(run, "attack_type") && (str("attack_type") ?? "none") !== attack) return undefined;
    if (Object.hasOwn(run, "injection_task_id") && (str("injection_task_id") ?? "none") !== injectionTask) return undefined;
  }
  return {
    modelDir,
    suite,
    userTask,
    attack,
    injectionTask,
    id: [modelDir, suite, userTask, attack, injectionTask].join("/"),
  };
}

/** Where a run came from: the file, and the folder a fallback id is relative to. */
export interface AgentDojoSource {
  /** The file path as the reader found it (kept in `source.path` and in errors). */
  path: string;
  /**
   * What the fallback id (outside the AgentDojo layout) is relative to: a folder, or the file itself (the id is
   * then its name). `readTrajectories` passes the common ancestor of all its inputs (`fallbackIdRoot`), so that
   * files of the same name in different input folders get different ids.
   */
  root: string;
}

/** Outcome of converting one run. */
export type ConvertResult = { ok: true; trajectory: Trajectory } | { ok: false; error: IngestError };

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === "string" && v !== "";

/**
 * The text of an AgentDojo `content`: a string verbatim; `null`/missing -> `""`; a list of blocks -> the blocks'
 * `content` (or `text`) strings joined with `\n`; a block with neither is shown as `[<type>]`.
 */
export function agentDojoText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const out: string[] = [];
    for (const b of content) {
      if (!isObj(b)) continue;
      if (typeof b.content === "string") out.push(b.content);
      else if (typeof b.text === "string") out.push(b.text);
      else out.push(`[${typeof b.type === "string" ? b.type : "block"}]`);
    }
    return out.join("\n");
  }
  return "";
}

interface PendingCall {
  name: string;
  args: string;
  id?: string;
}

/**
 * Convert AgentDojo messages to canonical messages. Tool results are joined to the calls they answer: by
 * `tool_call_id` when set; otherwise (ids `""` or `null`, as in Gemini and local-model runs) by the copy of the
 * call kept in the tool message's `tool_call` (same name and arguments), then by order among the unanswered calls
 * of the latest assistant turn. The joined call's name becomes the tool message's `tool_name`.
 * Assumes the messages passed the schema.
 */
export function convertAgentDojoMessages(messages: Json[]): Message[] {
  let pending: PendingCall[] = [];
  return messages.map((m, index): Message => atMessage(index, () => {
    const role = ownValue(ROLE_MAP, m.role);
    if (role === undefined) throw new ConvertError(`messages[${index}].role`, index, `unknown role ${JSON.stringify(String(m.role))}`);
    const msg: Message = { index, role, text: agentDojoText(m.content) };
    if (role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      const calls: ToolCall[] = [];
      pending = [];
      for (const [j, c] of (m.tool_calls as Json[]).entries()) {
        const field = `messages[${index}].tool_calls[${j}].args`;
        const call: ToolCall = { name: c.function as string, arguments: argumentsAt(c.args, field, index) };
        if (nonEmpty(c.id)) call.id = c.id;
        calls.push(call);
        pending.push({ name: call.name, args: call.arguments, id: call.id });
      }
      msg.tool_calls = calls;
    }
    if (role === "tool") {
      const copy = isObj(m.tool_call) ? m.tool_call : undefined;
      const id = nonEmpty(m.tool_call_id) ? m.tool_call_id : nonEmpty(copy?.id) ? (copy!.id as string) : undefined;
      let at = -1;
      if (id !== undefined) at = pending.findIndex((p) => p.id === id);
      if (at < 0 && copy && typeof copy.function === "string") {
        const args = argumentsAt(copy.args, `messages[${index}].tool_call.args`, index);
        at = pending.findIndex((p) => p.name === copy.function && p.args === args);
        if (at < 0) at = pending.findIndex((p) => p.name === copy.function);
      }
      if (at < 0 && id === undefined && !copy) at = pending.length > 0 ? 0 : -1;
      const joined = at >= 0 ? pending.splice(at, 1)[0] : undefined;
      if (id !== undefined) msg.tool_call_id = id;
      else if (joined?.id !== undefined) msg.tool_call_id = joined.id;
      const name = joined?.name ?? (typeof copy?.function === "string" ? copy.function : undefined) ??
        (nonEmpty(m.name) ? m.name : undefined);
      if (name !== undefined) msg.tool_name = name;
    }
    if (nonEmpty(m.error)) msg.error = m.error;
    return msg;
  }));
}

/**
 * Convert one parsed AgentDojo run (the JSON value of a file) to a canonical {@link Trajectory}.
 *
 * Conventions (the canonical fields this sets):
 * - `id`: the path from the model folder on, without `.json`
 *   (`gpt-4o-2024-05-13/banking/user_task_10/important_instructions/injection_task_4`) when the path has the
 *   AgentDojo layout ({@link agentDojoLayout}); otherwise the path relative to `src.root` without `.json`
 *   (`/`-separated; the file name when the root is the file itself; the resolved path when not under it).
 * - `agent_model`: `pipeline_name`, except when it is `"local"`, empty or missing: then the model folder name
 *   (kept verbatim, e.g. `meta-llama_Llama-3.3-70B-Instruct`). A known defense suffix ({@link KNOWN_DEFENSES})
 *   is stripped from it. `agent_family` = {@link familyOf}(agent_model).
 * - `condition`: the defense of the run (`tool_filter`, ... from the folder's or the pipeline's suffix), or
 *   `"no_defense"` ({@link NO_DEFENSE}). The defense is also `metadata.defense`. The attack is not part of the
 *   condition: it has its own field.
 * - `attack`: `attack_type`; absent on unattacked runs (`attack_type: null`). `injection_task_id` likewise.
 * - `injections`: the file's `injections` (`{}` when null or missing).
 * - `reference`: `{security, utility}`, each only when the file has it as a boolean; absent when neither is.
 * - `run_error`: the file's `error` when set; `reference.security` is then kept as in the file (meaningless).
 * - `metadata`: `pipeline_name`, `model_dir`, `defense`, `benchmark_version`, `agentdojo_package_version`,
 *   `evaluation_timestamp`, `duration`, each when present.
 * - messages: see {@link convertAgentDojoMessages}; `text` is always a string (`""` for null/empty content),
 *   `<thinking>` and `<function=...>` markup in assistant text is kept verbatim; tool-call `args` objects become
 *   compact `JSON.stringify` strings; a tool's `error` is kept on the message.
 *
 * @returns `{ok: true, trajectory}`, or `{ok: false, error}` with kind `schema` (the message names the field:
 *   `messages[3].role: must be one of ...`; a message that cannot be converted, e.g. `args` nested too deep for
 *   `JSON.stringify`: `messages[3].tool_calls[0].args: nested too deep to convert`, with `message_index`) or
 *   `no_messages` (`messages: []`). Never throws for bad data.
 */
export function convertAgentDojo(data: unknown, src: AgentDojoSource): ConvertResult {
  const check = checkSchema("agentdojo", data);
  const run = isObj(data) ? data : undefined;
  const layout = agentDojoLayout(src.path, run);
  const id = layout?.id ?? fallbackId(src);
  if (!check.ok) {
    const at: { message_index?: number; trajectory_id?: string } = { trajectory_id: id };
    if (check.message_index !== undefined) at.message_index = check.message_index;
    return { ok: false, error: ingestError("schema", src.path, joinProblems(check.problems), at) };
  }
  const r = run as Json;
  const messages = r.messages as Json[];
  if (messages.length === 0) {
    return {
      ok: false,
      error: ingestError("no_messages", src.path, "messages is empty: a run with no messages cannot be judged", {
        trajectory_id: id,
      }),
    };
  }
  const str = (k: string) => (nonEmpty(r[k]) ? (r[k] as string) : undefined);

  const pipeline = str("pipeline_name");
  const fromPipeline = pipeline !== undefined && pipeline !== "local" ? splitDefense(pipeline) : undefined;
  const fromFolder = layout ? splitDefense(layout.modelDir) : undefined;
  const model = fromPipeline?.model ?? fromFolder?.model;
  const defense = fromFolder?.defense ?? fromPipeline?.defense;

  let converted: Message[];
  try {
    converted = convertAgentDojoMessages(messages);
  } catch (e) {
    return { ok: false, error: conversionError(e, src.path, { trajectory_id: id }) };
  }
  const t: Trajectory = {
    id,
    source: { format: "agentdojo", path: src.path },
    injections: isObj(r.injections) ? (r.injections as Record<string, string>) : {},
    messages: converted,
  };
  if (model !== undefined) {
    t.agent_model = model;
    const fam = familyOf(model);
    if (fam !== undefined) t.agent_family = fam;
  }
  const suite = str("suite_name") ?? layout?.suite;
  if (suite !== undefined) t.suite = suite;
  const ut = str("user_task_id") ?? layout?.userTask;
  if (ut !== undefined) t.user_task_id = ut;
  const it = str("injection_task_id");
  if (it !== undefined) t.injection_task_id = it;
  const attack = str("attack_type");
  if (attack !== undefined) t.attack = attack;
  t.condition = defense ?? NO_DEFENSE;

  const reference: { security?: boolean; utility?: boolean } = {};
  if (typeof r.security === "boolean") reference.security = r.security;
  if (typeof r.utility === "boolean") reference.utility = r.utility;
  if (Object.keys(reference).length > 0) t.reference = reference;
  const runError = str("error");
  if (runError !== undefined) t.run_error = runError;

  const metadata: Record<string, unknown> = {};
  if (pipeline !== undefined) metadata.pipeline_name = pipeline;
  if (layout) metadata.model_dir = layout.modelDir;
  if (defense !== undefined) metadata.defense = defense;
  for (const k of ["benchmark_version", "agentdojo_package_version", "evaluation_timestamp", "duration"]) {
    if (r[k] !== undefined && r[k] !== null) metadata[k] = r[k];
  }
  t.metadata = metadata;
  return { ok: true, trajectory: t };
}

function fallbackId(src: AgentDojoSource): string {
  const rel = path.relative(src.root, src.path);
  const p = rel === "" ? path.basename(src.path) : rel.startsWith("..") || path.isAbsolute(rel) ? path.resolve(src.path) : rel;
  return p.split(path.sep).join("/").replace(/\.json$/i, "");
}

/**
 * Read-side entry point for one AgentDojo file's bytes: strict UTF-8 decode, JSON parse, then
 * {@link convertAgentDojo}.
 *
 * @returns a trajectory, or an error of kind `invalid_utf8` (byte offset and line), `too_large` (text too long
 *   for one string; the reader checks the file size against its limit before this), `invalid_json` (the
 *   parser's message with line and column), `schema` or `no_messages`. Never throws for bad data.
 */
export function parseAgentDojoBytes(bytes: Uint8Array, src: AgentDojoSource): ConvertResult {
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok) return { ok: false, error: decodeFailure(decoded, src.path) };
  const parsed = parseJson(decoded.text);
  if (!parsed.ok) return { ok: false, error: ingestError("invalid_json", src.path, parsed.message) };
  try {
    return convertAgentDojo(parsed.value, src);
  } catch (e) {
    // A safety net: convertAgentDojo reports conversion failures itself.
    return { ok: false, error: conversionError(e, src.path) };
  }
}
