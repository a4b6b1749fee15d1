/**
 * AgentDojo run logs -> canonical trajectories.
 *
 * Layout: `runs/<model>[-<defense>]/<suite>/<user_task>/<attack>/<injection_task or none>.json`
 * (ethz-spylab/agentdojo, `save_logs`). One file is one run. What a file holds: `suite_name`, `pipeline_name`,
 * `user_task_id`, `injection_task_id`, `attack_type`, `injections`, `messages`, `error`, `utility`, `security`, ...
 * (see `schemas/agentdojo.schema.json`).
 */
import { encodingHint } from "./encoding-hint.js";
import { withChatShapeHint } from "./chat-shape.js";
import { coerceBooleans } from "./booleans.js";
import type { ConvertResult } from "./warnings.js";
import path from "node:path";
import type { Message, ToolCall, Trajectory } from "../types.js";
import { attributeRun, NO_DEFENSE } from "./attribution.js";
import { conversionError, ConvertError, ingestError } from "./errors.js";
import { familyOf } from "./family.js";
import { checkSchema, joinProblems } from "./schema.js";
import type { ItemWarning } from "./warnings.js";
import { lastSegments, resolvedPath } from "./resolved.js";
import { layoutMismatch } from "./layout-mismatch.js";
import { isVigilRun, vigilFields } from "./vigil.js";
import { markToolArguments } from "./tool-arguments.js";
import { argumentsAt, atMessage, decodeFailure, decodeUtf8Strict, ownValue, parseJson, ROLE_MAP } from "./text.js";
import { unknownPartText } from "./unknown-part.js";
import { repeatedKeyError } from "./repeated-keys.js";
import { isEmptyPlaceholderRecord } from "./placeholder-count.js";

export { KNOWN_DEFENSES, NO_DEFENSE, splitDefense, attributeRun, type Attribution } from "./attribution.js";

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
  const parts = lastSegments(resolvedPath(file), 5);
  if (parts === undefined) return undefined;
  const [modelDir, suite, userTask, attack, last] = parts;
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
  /**
   * The names of the folders beside the run's model folder (the corpus's other model folders), used to split
   * `<model>-<defense>` folder names whose defense no list knows ({@link attributeRun}). The reader lists them
   * once per parent folder. Default: none.
   */
  siblings?: readonly string[];
}

export type { ConvertResult } from "./warnings.js";

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === "string" && v !== "";

/**
 * The text of an AgentDojo `content`: a string verbatim; `null`/missing -> `""`; a list of blocks -> the blocks'
 * `content` (or `text`) strings joined with `\n`; a block with neither shows its fields, `[<type>] {...}`
 * (`./unknown-part.ts`: never dropped).
 */
export function agentDojoText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const out: string[] = [];
    for (const b of content) {
      if (!isObj(b)) continue;
      if (typeof b.content === "string") out.push(b.content);
      else if (typeof b.text === "string") out.push(b.text);
      else out.push(unknownPartText(b, typeof b.type === "string" ? b.type : "block"));
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

/** The text a detector defense leaves in place of a flagged tool output (AgentDojo `PromptInjectionDetector`). */
export const DETECTOR_PLACEHOLDER = "<Data omitted because a prompt injection was detected>";

/** Top-level fields only DRIFT's logs have (AgentDyn `-drift` folders). */
const DRIFT_FIELDS = ["build_constraints", "injection_isolation", "dynamic_validation", "adaptive_attack", "tool_permission", "initial_trajectory", "initial_checklist"];

/**
 * Counts of what defenses and models left in the messages (kept in `metadata`, each only when non-zero):
 * `detector_omitted_outputs` (tool results replaced by {@link DETECTOR_PLACEHOLDER}), `blocked_calls` (tool results
 * with empty content and an `error` saying the tool or call is not allowed: Progent's policy), `unparsed_tool_calls`
 * (assistant text holding a raw `<function=...>` or DRIFT `<function_call>[...]</function_call>` call while the
 * message has no structured tool call: the call was written but never executed).
 */
export function defenseTraces(messages: Message[]): Record<string, number> {
  const out: Record<string, number> = {};
  const inc = (k: string) => (out[k] = (out[k] ?? 0) + 1);
  for (const m of messages) {
    if (m.role === "tool") {
      if (m.text.trim() === DETECTOR_PLACEHOLDER) inc("detector_omitted_outputs");
      else if (m.text.trim() === "" && m.error !== undefined && /\bnot allowed\b/i.test(m.error)) inc("blocked_calls");
    } else if (m.role === "assistant" && (m.tool_calls?.length ?? 0) === 0) {
      if (/<function=[^>]*>/.test(m.text) || /<function_call>\s*\[\s*\S[\s\S]*?\]\s*<\/function_call>/.test(m.text)) inc("unparsed_tool_calls");
    }
  }
  return out;
}

/**
 * Convert one parsed AgentDojo run (the JSON value of a file) to a canonical {@link Trajectory}. Also reads the
 * AgentDojo-based benchmarks: AgentDyn (content blocks, DRIFT's and Progent's logs) and VIGIL (./vigil.ts).
 *
 * Conventions (the canonical fields this sets):
 * - `id`: the path from the model folder on, without `.json`
 *   (`gpt-4o-2024-05-13/banking/user_task_10/important_instructions/injection_task_4`) when the path has the
 *   AgentDojo layout ({@link agentDojoLayout}); otherwise the path relative to `src.root` without `.json`
 *   (`/`-separated; the file name when the root is the file itself; the resolved path when not under it).
 * - `agent_model` and `condition` (the defense, or `"no_defense"` {@link NO_DEFENSE}): from the model folder and
 *   `pipeline_name` together ({@link attributeRun}: `local`/`local-<defense>` pipelines, `<pipeline>-<defense>`
 *   folders, sibling model folders, known defenses); a guess or a disagreement is an `attribution` warning.
 *   The defense is also `metadata.defense`, the rule `metadata.attribution`. `agent_family` = {@link familyOf}.
 * - `attack`: `attack_type`; absent on unattacked runs (`attack_type: null`, also `injection_task_N/none/none.json`
 *   runs of AgentDyn, which run an injection task as the user's task). `injection_task_id` likewise.
 * - `injections`: the file's `injections` (`{}` when null or missing, as in DRIFT logs); `surfaces`: each
 *   injection placeholder -> `tool_output` (AgentDojo places injections in what tools return). VIGIL: see
 *   {@link vigilFields} (`tools`, `tool_description` surfaces).
 * - `reference`: `{security, utility}`, each only when the file has it as a boolean; absent when neither is (a
 *   `no_verdict` warning).
 * - `run_error`: the file's `error` when set; `reference.security` is then kept as in the file (meaningless).
 * - `metadata`: `pipeline_name`, `model_dir`, `run_folder` (the absolute folder holding the model folder), `defense`, `attribution`, `benchmark_version`,
 *   `agentdojo_package_version`, `evaluation_timestamp`, `duration`, each when present; `log_schema: "drift"` and
 *   DRIFT's flags for DRIFT logs; the counts of {@link defenseTraces}.
 * - messages: see {@link convertAgentDojoMessages}; `text` is always a string (`""` for null/empty content),
 *   `<thinking>`, `<function=...>` and DRIFT's `<function_thought>`/`<function_call>`/`<final_answer>` markup in
 *   assistant text is kept verbatim (it is what the agent wrote); tool-call `args` objects become compact
 *   `JSON.stringify` strings; a tool's `error` is kept on the message (Progent's blocked calls: empty content
 *   plus the error).
 *
 * @returns `{ok: true, trajectory, warnings?}`, or `{ok: false, error}` with kind `schema` (the message names the
 *   field: `messages[3].role: must be one of ...`; a message that cannot be converted, e.g. `args` nested too deep
 *   for `JSON.stringify`: `messages[3].tool_calls[0].args: nested too deep to convert`, with `message_index`),
 *   `empty_placeholder` (`messages: []`, no verdict and no injected text: a file a benchmark wrote for a combination
 *   it never ran, as VIGIL's 8,023) or `no_messages` (`messages: []` with a verdict or with injected text: a run's
 *   transcript lost). Never throws for bad data.
 */
export function convertAgentDojo(data: unknown, src: AgentDojoSource): ConvertResult {
  // verdicts written as strings ("false", "yes") or 0/1: read where unambiguous, always said (./booleans.ts)
  const coerced = isObj(data) ? coerceBooleans(data, ["security", "utility"], src.path, src.path) : undefined;
  if (coerced) data = coerced.record;
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
    // a placeholder records nothing of a run: no verdict and no injected text (VIGIL's: `injections: {}`); a file
    // with injections but no messages lost a run's transcript, an error of the input (red team 15 F4). The one rule
    // the pre-count uses too (./placeholder-count.ts), so label's progress total leaves out exactly these files.
    if (isEmptyPlaceholderRecord(r)) {
      return {
        ok: false,
        error: ingestError("empty_placeholder", src.path, "an empty placeholder (no messages, no verdict): a combination the benchmark did not run; nothing to judge", {
          trajectory_id: id,
        }),
      };
    }
    return {
      ok: false,
      error: ingestError("no_messages", src.path, "messages is empty: a run with no messages cannot be judged", {
        trajectory_id: id,
      }),
    };
  }
  const str = (k: string) => (nonEmpty(r[k]) ? (r[k] as string) : undefined);
  const warnings: ItemWarning[] = [...(coerced?.warnings ?? [])];
  // the model folder: four levels above the file (<model>/<suite>/<user_task>/<attack>/<file>.json)
  const scope = layout ? path.dirname(path.dirname(path.dirname(path.dirname(src.path)))) : src.path;

  // a file in a layout folder whose fields say another suite or task: said, naming it (./layout-mismatch.ts)
  const mismatch = layout ? undefined : layoutMismatch(src.path, r);
  if (mismatch) warnings.push(mismatch);
  const pipeline = str("pipeline_name");
  const who = attributeRun(layout?.modelDir, pipeline, src.siblings ?? []);
  if (who.warning !== undefined) warnings.push({ kind: "attribution", scope, message: who.warning, item: src.path });
  const model = who.model;
  const defense = who.defense;

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
  // a call whose args string is not valid JSON: kept, marked, said (./tool-arguments.ts)
  const badArgs = markToolArguments(t, messages, "agentdojo", scope, src.path);
  if (badArgs) warnings.push(badArgs);
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
  if (!Object.hasOwn(r, "injections") && attack !== undefined) {
    // DRIFT logs: no injections key. Ingest borrows nothing (one file at a time); `label` recovers the text from
    // sibling runs (run/siblings.ts). DRIFT's injection isolation rewrites tool results (in AgentDyn's DRIFT runs the
    // injected goal is cut out and its frame kept), so the recovered text is what was placed, not all of what was read.
    warnings.push({
      kind: "no_injections",
      scope,
      message: `${scope}: attacked runs whose logs record no injections (DRIFT's schema): \`label\` takes the injected text from sibling runs (same suite, user task, injection task, attack and agent model) that record it, and the verdict says so (injection_source); without one the run stays unverified`,
      item: src.path,
    });
  }
  // The AgentDojo format does not record where an injection entered: code decides it at label time
  // (src/serialize/surface.ts locates the injected text; the format's default is tool_output).

  const reference: { security?: boolean; utility?: boolean } = {};
  if (typeof r.security === "boolean") reference.security = r.security;
  if (typeof r.utility === "boolean") reference.utility = r.utility;
  if (Object.keys(reference).length > 0) t.reference = reference;
  else {
    warnings.push({
      kind: "no_verdict",
      scope,
      message: `${scope}: runs without a benchmark verdict (no utility/security): ingested with no reference, so they are left out of any comparison with the benchmark`,
      item: src.path,
    });
  }
  const runError = str("error");
  if (runError !== undefined) t.run_error = runError;

  const metadata: Record<string, unknown> = {};
  if (pipeline !== undefined) metadata.pipeline_name = pipeline;
  if (layout) metadata.model_dir = layout.modelDir;
  // the folder holding the model folder (VIGIL's runs_base vs debug_run): runs of one model and condition from two
  // such folders are pooled by every figure, and nothing else in the files may tell them apart (../run/pooled-folders.ts)
  if (layout) metadata.run_folder = resolvedPath(path.dirname(scope));
  if (defense !== undefined) metadata.defense = defense;
  metadata.attribution = who.rule;
  for (const k of ["benchmark_version", "agentdojo_package_version", "evaluation_timestamp", "duration"]) {
    if (r[k] !== undefined && r[k] !== null) metadata[k] = r[k];
  }
  if (DRIFT_FIELDS.some((k) => Object.hasOwn(r, k))) {
    metadata.log_schema = "drift";
    for (const k of ["build_constraints", "injection_isolation", "dynamic_validation", "adaptive_attack"]) {
      if (typeof r[k] === "boolean") metadata[`drift_${k}`] = r[k];
    }
  }
  Object.assign(metadata, defenseTraces(converted));
  if (isVigilRun(r)) {
    const v = vigilFields(r, converted, attack);
    Object.assign(metadata, v.metadata);
    if (v.tools) t.tools = v.tools;
    Object.assign(t.injections, v.injections);
    if (Object.keys(v.surfaces).length > 0) t.surfaces = { ...(t.surfaces ?? {}), ...v.surfaces };
    if (v.stale) {
      warnings.push({
        kind: "stale_tool_record",
        scope,
        message: `${scope}: runs whose recorded malicious_tool_name/malicious_tool_docstring name a tool the agent never called (a stale record): the description is not used as the tool's (metadata.malicious_tool_recorded keeps the name)`,
        item: src.path,
      });
    }
  }
  t.metadata = metadata;
  return warnings.length > 0 ? { ok: true, trajectory: t, warnings } : { ok: true, trajectory: t };
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
 *   parser's message with line and column), `schema` (a file in chat JSONL's line shape says so:
 *   `./chat-shape.ts`; a key given twice with different values: `./repeated-keys.ts`) or `no_messages`. Never throws
 *   for bad data.
 */
export function parseAgentDojoBytes(bytes: Uint8Array, src: AgentDojoSource): ConvertResult {
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok) {
    const e = decodeFailure(decoded, src.path);
    return { ok: false, error: { ...e, message: e.message + encodingHint(bytes) } };
  }
  const parsed = parseJson(decoded.text);
  if (!parsed.ok) return { ok: false, error: ingestError("invalid_json", src.path, parsed.message + encodingHint(bytes)) };
  const repeated = repeatedKeyError(decoded.text, parsed.value, src.path);
  if (repeated !== undefined) return { ok: false, error: repeated };
  try {
    // a chat trajectory saved as .json: said, with how to read it (./chat-shape.ts)
    return withChatShapeHint(convertAgentDojo(parsed.value, src), parsed.value, decoded.text);
  } catch (e) {
    // A safety net: convertAgentDojo reports conversion failures itself.
    return { ok: false, error: conversionError(e, src.path) };
  }
}
