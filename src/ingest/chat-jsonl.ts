/**
 * chat-jsonl: one trajectory per line, OpenAI chat messages.
 *
 * Line shape (see `schemas/chat-jsonl.schema.json`):
 * `{id, messages: [OpenAI chat message], metadata?, injections?, reference?, condition?, agent_model?, ...}`.
 */
import { encodingHint } from "./encoding-hint.js";
import { otherFields, unknownPartText } from "./unknown-part.js";
import { chatReasoning } from "./chat-reasoning.js";
import { coerceBooleans, readBool } from "./booleans.js";
import type { ConvertResult } from "./warnings.js";
import type { Message, ToolCall, ToolDefinition, Trajectory } from "../types.js";
import { givenSurfaces } from "./given-surfaces.js";
import { unmatchedToolResultWarning } from "./tool-results.js";
import { markToolArguments } from "./tool-arguments.js";
import { lineBytes } from "../io/line-ends.js";
import type { ItemWarning } from "./warnings.js";
import { conversionError, ConvertError, ingestError } from "./errors.js";
import { familyOf } from "./family.js";
import { checkSchema, injectionsProblem, joinProblems } from "./schema.js";
import { argumentsAt, atMessage, decodeFailure, decodeUtf8Strict, ownValue, parseJson, ROLE_MAP } from "./text.js";
import { attackContradiction, isAttacked, normalizeAttack, normalizeCondition } from "./attacked.js";
import { normalizeGroupNames } from "./group-names.js";
import { NO_DEFENSE } from "./attribution.js";
import { conflictingValues, fieldConflictWarning, usableValues } from "./field-conflicts.js";
import { repeatedKeyError } from "./repeated-keys.js";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === "string" && v !== "";

/** What non-text content parts are shown as, by part `type` (others: `[<type>]`). */
export const PART_PLACEHOLDERS: Record<string, string> = {
  image_url: "[image]",
  image: "[image]",
  input_image: "[image]",
  input_audio: "[audio]",
  audio: "[audio]",
  file: "[file]",
  input_file: "[file]",
};

/** Anthropic Messages content blocks that carry tool calls and results: not OpenAI chat parts (refused, never dropped). */
const ANTHROPIC_TOOL_BLOCKS = new Set(["tool_use", "tool_result", "server_tool_use", "web_search_tool_result"]);

/**
 * The text of an OpenAI `content`: a string verbatim; `null`/missing -> `""`; an array of parts -> the text of
 * each part joined with `\n`: `{type: "text"|"input_text"|"output_text", text}` gives `text`,
 * `{type: "refusal", refusal}` gives `refusal`, a part whose text is under `content` (AgentDyn's
 * `{type: "text", content}`, a string or parts) gives that, other parts a placeholder such as `[image]`, `[audio]`,
 * `[file]` ({@link PART_PLACEHOLDERS}); a part of another type shows its fields, `[<type>] {...}` (`./unknown-part.ts`:
 * never dropped). A bare string in the array is taken as text.
 * @param field the content's field for errors (`messages[3].content`); `index` its message's index.
 * @throws ConvertError on an Anthropic tool block (`tool_use`, `tool_result`): its call or result (often the injected
 *   text) would otherwise become a placeholder the judge reads as nothing (red team 26: attacked runs labelled
 *   not_exposed, silently).
 */
export function openAIText(content: unknown, field = "content", index?: number): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const out: string[] = [];
  for (const [j, p] of content.entries()) {
    if (typeof p === "string") out.push(p);
    else if (isObj(p)) {
      if (typeof p.text === "string") out.push(p.text);
      else if (typeof p.refusal === "string") out.push(p.refusal);
      else if (typeof p.type === "string" && ANTHROPIC_TOOL_BLOCKS.has(p.type)) {
        throw new ConvertError(
          `${field}[${j}]`,
          index,
          `a ${p.type} block (Anthropic Messages format) is not an OpenAI chat part: chat-jsonl reads tool calls from an assistant message's tool_calls and results from role "tool" messages; convert the file to that shape (its calls and results would otherwise be lost)`,
        );
      } else if (typeof p.content === "string" || Array.isArray(p.content)) out.push(openAIText(p.content, `${field}[${j}].content`, index));
      else {
        const type = typeof p.type === "string" ? p.type : "part";
        out.push(ownValue(PART_PLACEHOLDERS, type) ?? unknownPartText(p, type));
      }
    }
  }
  return out.join("\n");
}

/**
 * Convert OpenAI chat messages to canonical messages (assumes they passed the schema).
 * - `developer` -> `system`; `function` (legacy) -> `tool`, its `name` -> `tool_name`.
 * - `tool_calls[].function.{name, arguments}` -> `{id?, name, arguments}`; object arguments are stringified
 *   compactly; a custom tool call `{type: "custom", custom: {name, input}}` -> `{id?, name, arguments: input}` (the
 *   free-form input as written); a legacy `function_call` becomes one call without id (after any `tool_calls`).
 * - An assistant turn's `refusal` string is its text when the content is empty, else follows it (one line down)
 *   unless the content holds it already.
 * - An assistant turn's reasoning (`reasoning_content`, `reasoning`, `thinking`) comes first in its text, as
 *   `<reasoning>...</reasoning>` (`./chat-reasoning.ts`).
 * - Tool results: `tool_call_id` kept; `tool_name` from the message's `name`, else from the call it answers
 *   (by id, else the first unanswered call of the latest assistant turn).
 */
export function convertOpenAIMessages(messages: Json[]): Message[] {
  let pending: ToolCall[] = [];
  return messages.map((m, index): Message => atMessage(index, () => {
    const role = ownValue(ROLE_MAP, m.role);
    if (role === undefined) throw new ConvertError(`messages[${index}].role`, index, `unknown role ${JSON.stringify(String(m.role))}`);
    let text = openAIText(m.content, `messages[${index}].content`, index);
    // a refusal beside content is the agent's words too (kept after it, not dropped)
    if (role === "assistant" && typeof m.refusal === "string" && m.refusal !== "" && !text.includes(m.refusal)) text = text === "" ? m.refusal : `${text}\n${m.refusal}`;
    const reasoning = role === "assistant" ? chatReasoning(m) : "";
    if (reasoning !== "") text = text === "" ? reasoning : `${reasoning}\n${text}`;
    const msg: Message = { index, role, text };
    if (role === "assistant") {
      const calls: ToolCall[] = [];
      if (Array.isArray(m.tool_calls)) {
        for (const [j, c] of (m.tool_calls as Json[]).entries()) {
          // an OpenAI custom tool call ({type: "custom", custom: {name, input}}): its free-form input is the raw
          // arguments, as the agent wrote them (red team 41: such calls were a schema error, the line never judged)
          const custom = c.type === "custom" && isObj(c.custom);
          const f = (custom ? c.custom : c.function) as Json;
          const field = `messages[${index}].tool_calls[${j}].${custom ? "custom.input" : "function.arguments"}`;
          const call: ToolCall = { name: f.name as string, arguments: argumentsAt(custom ? f.input : f.arguments, field, index) };
          if (nonEmpty(c.id)) call.id = c.id;
          calls.push(call);
        }
      }
      if (isObj(m.function_call)) {
        calls.push({ name: m.function_call.name as string, arguments: argumentsAt(m.function_call.arguments, `messages[${index}].function_call.arguments`, index) });
      }
      if (calls.length > 0) {
        msg.tool_calls = calls;
        pending = [...calls];
      }
    }
    if (role === "tool") {
      const id = nonEmpty(m.tool_call_id) ? m.tool_call_id : undefined;
      let at = id !== undefined ? pending.findIndex((c) => c.id === id) : -1;
      if (at < 0 && nonEmpty(m.name)) at = pending.findIndex((c) => c.name === m.name);
      if (at < 0 && id === undefined && pending.length > 0) at = 0;
      const joined = at >= 0 ? pending.splice(at, 1)[0] : undefined;
      if (id !== undefined) msg.tool_call_id = id;
      const name = nonEmpty(m.name) ? m.name : joined?.name;
      if (name !== undefined) msg.tool_name = name;
    }
    if (nonEmpty(m.error)) msg.error = m.error;
    return msg;
  }));
}

/** Where a chat-jsonl line came from. */
export interface ChatLineSource {
  path: string;
  /** 1-based line number in the file. */
  line: number;
  /** Used for the fallback id when the line has none: `<relPath>:<line>`. */
  relPath: string;
}

export type { ConvertResult } from "./warnings.js";

/** The metadata keys that also fill canonical fields (a top-level field of the same name wins). */
export const METADATA_FIELDS = [
  "agent_model",
  "agent_family",
  "suite",
  "user_task_id",
  "injection_task_id",
  "attack",
  "condition",
  "run_error",
] as const;

/** The canonical fields `--field key=field` can fill: {@link METADATA_FIELDS} and the benchmark's verdicts. */
export const MAPPABLE_FIELDS = [...METADATA_FIELDS, "security", "utility"] as const;
export type MappableField = (typeof MAPPABLE_FIELDS)[number];

/**
 * Common spellings of each canonical field in evaluation outputs, tried in this order (top-level key, then the
 * same key in `metadata`) after the keys the user maps with `--field`. The first key present with a usable value
 * (a non-empty string or a number for text fields; a boolean or 0/1 for `security`/`utility`) wins.
 */
export const FIELD_ALIASES: Readonly<Record<MappableField, readonly string[]>> = {
  agent_model: ["agent_model", "model", "agent", "model_name", "agent_model_name", "target_model", "policy_model"],
  agent_family: ["agent_family", "model_family"],
  suite: ["suite", "suite_name", "environment", "env"],
  user_task_id: ["user_task_id", "user_task", "task_id"],
  injection_task_id: ["injection_task_id", "injection_task", "injection_id"],
  attack: ["attack", "attack_type", "attack_name", "injection_type", "attack_method"],
  condition: ["condition", "defense", "defence", "defense_name", "defense_method", "mitigation"],
  run_error: ["run_error", "error"],
  security: ["security", "attack_success", "attack_successful", "injection_success", "injection_successful"],
  utility: ["utility", "task_success", "user_task_success", "utility_success"],
};

/**
 * Parse `--field key=field` specs into a map input key -> canonical field.
 *
 * @param specs e.g. `["agent_name=agent_model", "scenario.defense=condition"]` (a key is a top-level or `metadata` key)
 * @throws Error naming the spec when it is not `key=field` or the field is not one of {@link MAPPABLE_FIELDS}
 */
export function parseFieldMap(specs: readonly string[]): Record<string, MappableField> {
  const out: Record<string, MappableField> = {};
  for (const spec of specs) {
    const eq = spec.lastIndexOf("=");
    const key = eq > 0 ? spec.slice(0, eq).trim() : "";
    const field = eq > 0 ? spec.slice(eq + 1).trim() : "";
    if (key === "" || field === "") throw new Error(`--field "${spec}": expected KEY=FIELD, e.g. agent_name=agent_model`);
    if (!(MAPPABLE_FIELDS as readonly string[]).includes(field)) {
      throw new Error(`--field "${spec}": "${field}" is not a field it can fill; one of ${MAPPABLE_FIELDS.join(", ")}`);
    }
    out[key] = field as MappableField;
  }
  return out;
}

/** Options of {@link convertChatLine}. */
export interface ChatLineOptions {
  /** Input key -> canonical field (`--field`); tried before {@link FIELD_ALIASES}. */
  fieldMap?: Readonly<Record<string, MappableField>>;
}

/** The value of `key` at the top level of the line, else in its metadata. */
function lookup(r: Json, meta: Json, key: string): unknown {
  if (Object.hasOwn(r, key) && r[key] !== null && r[key] !== undefined) return r[key];
  if (Object.hasOwn(meta, key) && meta[key] !== null && meta[key] !== undefined) return meta[key];
  return undefined;
}

/** The first usable value of a canonical field and the key it came from. */
export function fieldValue(
  r: Json,
  meta: Json,
  field: MappableField,
  map: Readonly<Record<string, MappableField>>,
): { key: string; value: string | boolean; coercedFrom?: string; ambiguous?: boolean; shown?: string } | undefined {
  const keys = [...Object.keys(map).filter((k) => map[k] === field), ...FIELD_ALIASES[field]];
  for (const key of keys) {
    const v = lookup(r, meta, key);
    if (field === "security" || field === "utility") {
      // strings such as "false" / "yes" read where unambiguous (./booleans.ts); the caller says so
      const b = readBool(v);
      if (b && "value" in b) return { key, value: b.value, ...(b.coerced && typeof v === "string" ? { coercedFrom: v } : {}) };
      if (b && "ambiguous" in b) return { key, value: b.ambiguous, ambiguous: true, shown: b.shown };
    } else if (nonEmpty(v)) return { key, value: v };
    else if (typeof v === "number" && Number.isFinite(v) && field !== "run_error") return { key, value: String(v) };
  }
  return undefined;
}

/**
 * A condition key given explicitly empty (`"defense": null` or `""`, top level or in `metadata`), which
 * {@link fieldValue} skips as unusable: an explicit empty defense means no defense (finding 6, `./attacked.ts`
 * {@link meansNoDefense}), unlike a missing key (unknown).
 * @returns the first such key (mapped keys first, then {@link FIELD_ALIASES}) and its value, or undefined.
 */
export function explicitEmptyCondition(r: Json, meta: Json, map: Readonly<Record<string, MappableField>>): { key: string; value: null | string } | undefined {
  const keys = [...Object.keys(map).filter((k) => map[k] === "condition"), ...FIELD_ALIASES.condition];
  for (const key of keys) {
    for (const o of [r, meta]) {
      if (!Object.hasOwn(o, key)) continue;
      const v = o[key];
      if (v === null || (typeof v === "string" && v.trim() === "")) return { key, value: v };
    }
  }
  return undefined;
}

/**
 * The tools of a line's `tools` array: OpenAI function tools `{type: "function", function: {name, description?,
 * parameters?}}`, OpenAI custom tools `{type: "custom", custom: {name, description?, format?}}` (the format, a grammar
 * or `{type: "text"}`, as parameters), flat `{name, description?, parameters?}` or Anthropic `{name, description?, input_schema?}`.
 * A missing description is `""`. An entry without a name (a hosted tool, an MCP server) is kept as the tool
 * `[<type>]` whose description is its other fields as JSON (red team 41: skipped in silence, an MCP server's poisoned
 * `server_description` never reached the judge).
 */
export function chatTools(tools: unknown[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const t of tools) {
    if (!isObj(t)) continue;
    // a custom tool {type: "custom", custom: {name, description?, format?}}: its format (a grammar) is its parameters
    const f = isObj(t.function) ? t.function : t.type === "custom" && isObj(t.custom) ? t.custom : t;
    if (!nonEmpty(f.name)) {
      // offered to the agent all the same (a hosted tool, {type: "web_search_preview"}; an MCP server, {type: "mcp",
      // server_label, server_description}: a tool-description surface): named by its type, its fields as description
      out.push({ name: `[${nonEmpty(t.type) ? t.type : "tool"}]`, description: otherFields(t) });
      continue;
    }
    const def: ToolDefinition = { name: f.name, description: typeof f.description === "string" ? f.description : "" };
    const params = f.parameters ?? f.input_schema ?? (f === t.custom ? f.format : undefined);
    if (params !== undefined && params !== null) def.parameters = params;
    out.push(def);
  }
  return out;
}

/** The schema problem of a numeric `id` beyond `Number.MAX_SAFE_INTEGER` (it cannot be kept exactly). */
export const UNSAFE_ID = "id: number too large to keep exactly; write it as a string";

/** How deep `metadata` (kept whole on the trajectory) may nest. */
export const MAX_METADATA_DEPTH = 64;

/**
 * The problem of a line whose `metadata` or `tools` (both kept whole on the trajectory, written and hashed later) nest
 * too deep, or undefined. Tool schemas too (red team 41: parameters nested 100,000 deep were read, then overflowed the
 * stack when the run prepared the trajectory, stopping the run); legitimate ones nest far less than the limit.
 */
function depthProblem(r: Json): string | undefined {
  if (isObj(r.metadata) && tooDeep(r.metadata, MAX_METADATA_DEPTH)) return `metadata: nested deeper than ${MAX_METADATA_DEPTH} levels (later stages could not write it)`;
  if (Array.isArray(r.tools) && tooDeep(r.tools, MAX_TOOLS_DEPTH)) return `tools: nested deeper than ${MAX_TOOLS_DEPTH} levels (later stages could not write them)`;
  return undefined;
}

/** How deep `tools` (their parameter schemas, kept whole on the trajectory) may nest. */
export const MAX_TOOLS_DEPTH = 256;

/** True when `v` nests objects/arrays more than `limit` levels deep (iterative: safe on any depth). */
export function tooDeep(v: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (typeof x !== "object" || x === null) continue;
    if (d > limit) return true;
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (typeof c === "object" && c !== null) stack.push([c, d + 1]);
  }
  return false;
}

/**
 * Convert one parsed chat-jsonl line to a canonical {@link Trajectory}.
 *
 * - `id`: the line's `id` (an integer is turned into its decimal string; one beyond `Number.MAX_SAFE_INTEGER`,
 *   which `JSON.parse` has already rounded, is a `schema` error {@link UNSAFE_ID}); missing -> `<relPath>:<line>`.
 * - `agent_model`, `agent_family`, `suite`, `user_task_id`, `injection_task_id`, `attack`, `condition`,
 *   `run_error`: the top-level field, else the same key in `metadata` (strings only); `agent_family` defaults to
 *   {@link familyOf}(agent_model). A `condition` meaning "no defense" (`none`, `None`, `no-defense`, ... and an
 *   explicit `null`/`""` under a condition key) is `no_defense`, the original kept as `metadata.original_condition`
 *   (`./attacked.ts` {@link normalizeCondition}).
 * - `injections` (default `{}`; else `metadata.injections`, which must have the same shape: a list, a string or
 *   `{"p": 123}` there is the same `schema` error as at the top level), `reference` (`{security?, utility?}`
 *   booleans) and `metadata` (kept whole) as given.
 * - messages: {@link convertOpenAIMessages}.
 *
 * @returns `{ok: true, trajectory}` or `{ok: false, error}` of kind `schema` (naming line and field, e.g.
 *   `data.jsonl:4: messages[2].role: must be one of ...`; also `metadata` nested deeper than
 *   {@link MAX_METADATA_DEPTH}; a message that cannot be converted, e.g. tool-call arguments nested too deep for
 *   `JSON.stringify`: `messages[3].tool_calls[0].function.arguments: nested too deep to convert`, with
 *   `message_index`) or `no_messages`. Never throws for bad data.
 */
export function convertChatLine(data: unknown, src: ChatLineSource, opts: ChatLineOptions = {}): ConvertResult {
  // reference verdicts written as strings ("false", "yes"): read before the schema check, and said (./booleans.ts)
  let preWarnings: ItemWarning[] = [];
  if (isObj(data) && isObj(data.reference)) {
    const c = coerceBooleans(data.reference, ["security", "utility"], src.path, `${src.path}:${src.line}`);
    if (c.warnings.length) {
      data = { ...data, reference: c.record };
      preWarnings = c.warnings;
    }
  }
  const check = checkSchema("chat-jsonl", data);
  const obj = isObj(data) ? data : undefined;
  const rawId = obj?.id;
  const id = typeof rawId === "string" && rawId !== "" ? rawId : typeof rawId === "number" ? String(rawId) : `${src.relPath}:${src.line}`;
  // JSON.parse rounds integers beyond 2^53 - 1: 12345678901234567890 and ...891 would both become
  // "12345678901234567000" (one a false duplicate of the other). Refuse rather than keep a wrong id.
  const unsafeId = typeof rawId === "number" && Number.isInteger(rawId) && !Number.isSafeInteger(rawId);
  if (!check.ok || unsafeId) {
    const problems = [...(unsafeId ? [UNSAFE_ID] : []), ...(check.ok ? [] : check.problems)];
    const at: { line: number; message_index?: number; trajectory_id?: string } = { line: src.line };
    if (!unsafeId) at.trajectory_id = id;
    if (!check.ok && check.message_index !== undefined) at.message_index = check.message_index;
    return { ok: false, error: ingestError("schema", src.path, joinProblems(problems), at) };
  }
  const r = obj as Json;
  const messages = r.messages as Json[];
  if (messages.length === 0) {
    return {
      ok: false,
      error: ingestError("no_messages", src.path, "messages is empty: a trajectory with no messages cannot be judged", {
        line: src.line,
        trajectory_id: id,
      }),
    };
  }
  const deep = depthProblem(r);
  if (deep !== undefined) return { ok: false, error: ingestError("schema", src.path, deep, { line: src.line, trajectory_id: id }) };
  const meta = isObj(r.metadata) ? r.metadata : {};
  // a malformed metadata.injections is the schema error the top-level field gets, never "unattacked" (red team)
  const metaInj = injectionsProblem(meta.injections, "metadata.injections");
  if (metaInj !== undefined) return { ok: false, error: ingestError("schema", src.path, metaInj, { line: src.line, trajectory_id: id }) };
  let converted: Message[];
  try {
    converted = convertOpenAIMessages(messages);
  } catch (e) {
    return { ok: false, error: conversionError(e, src.path, { line: src.line, trajectory_id: id }) };
  }
  const t: Trajectory = {
    id,
    source: { format: "chat-jsonl", path: src.path, line: src.line },
    injections: {},
    messages: converted,
  };
  // injected text: the top-level `injections`, else `metadata.injections` (string values), as Inspect reads a
  // sample's metadata (finding 7: the same metadata must not be attacked in one format and not in the other)
  const injField = isObj(r.injections) && Object.keys(r.injections).length > 0 ? "injections" : isObj(meta.injections) ? "metadata.injections" : "injections";
  if (injField === "injections" && isObj(r.injections)) t.injections = r.injections as Record<string, string>;
  else if (injField === "metadata.injections") for (const [k, v] of Object.entries(meta.injections as Json)) if (typeof v === "string") t.injections[k] = v;
  const map = opts.fieldMap ?? {};
  let attackKey: string | undefined;
  // a field given under several keys with different values: the first taken, or a verdict unknown; said (./field-conflicts.ts)
  const conflicts = lineConflicts(r, meta, map, src);
  for (const k of METADATA_FIELDS) {
    const v = fieldValue(r, meta, k, map);
    if (v !== undefined) (t as unknown as Record<string, unknown>)[k] = v.value;
    if (v !== undefined && k === "attack") attackKey = Object.hasOwn(r, v.key) && r[v.key] !== null ? v.key : `metadata.${v.key}`;
  }
  // "attack_type": "benign" beside recorded injected text: counted attacked, said by name (./attacked.ts)
  const contradiction = attackContradiction(t, { scope: src.path, item: `${src.path}:${src.line}`, attackField: attackKey ?? "attack", injectionsField: injField });
  // every group name without invisible or control characters, said (./group-names.ts; before the rules below)
  const nameWarnings = normalizeGroupNames(t);
  // An attack field that says "no attack" in a common spelling (Python's str(None), "null", "N/A", "benign",
  // "no_attack", ...) is no attack: the one definition (./attacked.ts; readTrajectories applies it to every format).
  normalizeAttack(t);
  // "defense": "none" / null / "" is no defense (./attacked.ts; readTrajectories applies it to every format)
  if (t.condition === undefined) {
    const e = explicitEmptyCondition(r, meta, map);
    if (e !== undefined) {
      t.condition = NO_DEFENSE;
      t.metadata = { ...(t.metadata ?? {}), original_condition: e.value };
    }
  }
  normalizeCondition(t);
  if (t.agent_family === undefined && t.agent_model !== undefined) {
    const fam = familyOf(t.agent_model);
    if (fam !== undefined) t.agent_family = fam;
  }
  const ref: { security?: boolean; utility?: boolean } = {};
  const boolWarnings: ItemWarning[] = [...preWarnings, ...nameWarnings, ...conflicts.warnings];
  if (isObj(r.reference)) {
    const c = coerceBooleans(r.reference, ["security", "utility"], src.path, `${src.path}:${src.line}`);
    boolWarnings.push(...c.warnings);
    if (typeof c.record.security === "boolean") ref.security = c.record.security;
    if (typeof c.record.utility === "boolean") ref.utility = c.record.utility;
  }
  for (const k of conflicts.unknownVerdicts) delete ref[k];
  for (const k of ["security", "utility"] as const) {
    if (ref[k] !== undefined || conflicts.unknownVerdicts.has(k)) continue;
    const v = fieldValue(r, meta, k, map);
    if (v === undefined) continue;
    if (v.ambiguous) {
      boolWarnings.push({
        kind: "boolean_ambiguous",
        scope: src.path,
        message: `${src.path}: "${v.key}" given as ${v.shown ?? JSON.stringify(v.value)}, which does not read as true or false: the benchmark's ${k} verdict is left unknown (not guessed)`,
        item: `${src.path}:${src.line}`,
        variant: `${v.key}=${v.shown ?? JSON.stringify(v.value)}`,
      });
      continue;
    }
    ref[k] = v.value as boolean;
    if (v.coercedFrom !== undefined)
      boolWarnings.push({
        kind: "boolean_string",
        scope: src.path,
        message: `${src.path}: "${v.key}" given as ${JSON.stringify(v.coercedFrom)} (not a boolean): read as ${v.value}`,
        item: `${src.path}:${src.line}`,
        variant: `${v.key}=${JSON.stringify(v.coercedFrom)}`,
      });
  }
  if (Object.keys(ref).length > 0) t.reference = ref;
  if (Array.isArray(r.tools)) {
    const tools = chatTools(r.tools);
    if (tools.length > 0) t.tools = tools;
  }
  const checked = surfacesAndResults(t, r, meta, src);
  if (isObj(r.metadata)) t.metadata = { ...r.metadata, ...(t.metadata ?? {}) };
  const warnings: ItemWarning[] = [...boolWarnings, ...checked];
  if (contradiction !== undefined) warnings.push(contradiction);
  if (rawId === "") warnings.push(emptyIdWarning(src, id));
  if (!isAttacked(t) && ref.security !== undefined) {
    // an attack key that says "no attack" (attack_type: "benign") is read already: mapping it again would not help
    const said = typeof t.metadata?.original_attack === "string" ? t.metadata.original_attack : undefined;
    const saidKey = said !== undefined ? attackKey?.replace(/^metadata\./, "") : undefined;
    // a key read and empty (`"attack": null`, `"injections": {}`, `[]`) names no attack: mapping it would not help (new users 32, 47)
    const empty = (x: unknown) => x === null || x === undefined || x === "" || (Array.isArray(x) ? x.length === 0 : isObj(x) && Object.keys(x).length === 0);
    const given = (k: string) => [r[k], meta[k]].some((x) => !empty(x));
    const hints = [...new Set([...Object.keys(r), ...Object.keys(meta)])].filter((k) => /attack|inject|adversar|threat/i.test(k) && k !== saidKey && given(k));
    warnings.push({
      kind: "verdict_on_unattacked",
      scope: src.path,
      message: `${src.path}: rows carry a benchmark verdict (security) but count as unattacked (no injected text${said !== undefined ? `, and "${attackKey}" says ${JSON.stringify(said)}: no attack` : ", no attack field"}): they are left out of the attack-success rates${
        hints.length > 0 ? `; other keys that may name the attack: ${hints.join(", ")}` : ""
      }. If they are attacked, ${said !== undefined ? `record the injected text ("injections" or "metadata.injections")${hints.length > 0 ? " or map the key naming the attack: --field KEY=attack" : ""}` : "map the key naming the attack: --field KEY=attack"}; if they are not (a benchmark may record a security verdict on its runs without an attack, as AgentDyn's "none" attacks do), nothing needs doing`,
      item: `line ${src.line}`,
    });
  }
  return warnings.length > 0 ? { ok: true, trajectory: t, warnings } : { ok: true, trajectory: t };
}

/**
 * The warning for a field of one line given under several keys with different values (`./field-conflicts.ts`), or
 * undefined. The keys are the field's {@link FIELD_ALIASES} (a verdict's `reference.<field>` first); a key the user
 * mapped is never one (the caller skips a value taken from it).
 */
export function fieldConflict(r: Json, meta: Json, field: MappableField, item: string, scope: string): ItemWarning | undefined {
  const keys = field === "security" || field === "utility" ? [`reference.${field}`, ...FIELD_ALIASES[field]] : FIELD_ALIASES[field];
  const reference = isObj(r.reference) ? r.reference : {};
  const top = field === "security" || field === "utility" ? { ...r, [`reference.${field}`]: reference[field] } : r;
  const sources = usableValues(top, meta, keys, field).filter((s) => s.key !== `metadata.reference.${field}`);
  const others = conflictingValues(field, sources);
  return others.length ? fieldConflictWarning(field, sources, others, scope, item) : undefined;
}

/**
 * The conflicts of one line ({@link fieldConflict}): a field of {@link METADATA_FIELDS} whose value was not taken from
 * a `--field` key, and the benchmark's verdicts given true and false (unless a key is mapped to them: the user's
 * choice), which are then unknown.
 */
function lineConflicts(r: Json, meta: Json, map: Readonly<Record<string, MappableField>>, src: ChatLineSource): { warnings: ItemWarning[]; unknownVerdicts: Set<"security" | "utility"> } {
  const warnings: ItemWarning[] = [];
  const unknownVerdicts = new Set<"security" | "utility">();
  const item = `${src.path}:${src.line}`;
  for (const k of METADATA_FIELDS) {
    const v = fieldValue(r, meta, k, map);
    const clash = v !== undefined && map[v.key] !== k ? fieldConflict(r, meta, k, item, src.path) : undefined;
    if (clash) warnings.push(clash);
  }
  for (const k of ["security", "utility"] as const) {
    if (Object.keys(map).some((m) => map[m] === k)) continue;
    const clash = fieldConflict(r, meta, k, item, src.path);
    if (clash) (warnings.push(clash), unknownVerdicts.add(k));
  }
  return { warnings, unknownVerdicts };
}

/** An empty id is no id: the line gets the fallback id `<file>:<line>`, said (red team 37 F5: it was silent). */
function emptyIdWarning(src: ChatLineSource, id: string): ItemWarning {
  return {
    kind: "empty_id",
    scope: src.path,
    message: `${src.path}: lines with an empty "id" ("") get the id <file>:<line> (e.g. "${id}"), which depends on the path the file is read under: give them an id`,
    item: `line ${src.line}`,
  };
}

/**
 * A line's given surfaces set on `t` (the top-level `surfaces`, else `metadata.surfaces`, as Inspect; trimmed, a key
 * naming no injection placeholder ignored, an unknown name said: ./given-surfaces.ts), and the warnings of those and
 * of its tool results that answer no call (./tool-results.ts) and its tool calls whose arguments are not JSON
 * (./tool-arguments.ts).
 */
function surfacesAndResults(t: Trajectory, r: Json, meta: Json, src: ChatLineSource): ItemWarning[] {
  const item = `${src.path}:${src.line}`;
  const field = isObj(r.surfaces) ? "surfaces" : isObj(meta.surfaces) ? "metadata.surfaces" : undefined;
  const out: ItemWarning[] = [];
  if (field !== undefined) {
    const given = givenSurfaces((field === "surfaces" ? r.surfaces : meta.surfaces) as Json, t.injections, field, src.path, item);
    if (given.surfaces) t.surfaces = given.surfaces;
    out.push(...given.warnings);
  }
  const unmatched = unmatchedToolResultWarning(t.messages, src.path, item);
  if (unmatched !== undefined) out.push(unmatched);
  const badArgs = markToolArguments(t, r.messages, "openai", src.path, item); // ./tool-arguments.ts
  if (badArgs) out.push(badArgs);
  return out;
}

/**
 * One line's bytes -> trajectory or error: strict UTF-8 decode, JSON parse, {@link convertChatLine}.
 * The caller skips blank lines before calling.
 *
 * @returns an error of kind `invalid_utf8`, `too_large` (text too long for one string), `invalid_json`,
 *   `schema` (also a key given twice with different values: `./repeated-keys.ts`) or `no_messages` naming the line,
 *   or the trajectory. Never throws for bad data.
 */
export function parseChatLineBytes(raw: Uint8Array, src: ChatLineSource, opts: ChatLineOptions = {}): ConvertResult {
  // the line rules every JSON Lines reader shares (../io/line-ends.ts): line 1's byte order mark dropped, a later
  // line's an error naming it (the decoder would drop it in silence)
  const lb = lineBytes(raw, src.line);
  if (lb.error !== undefined) return { ok: false, error: ingestError("invalid_json", src.path, lb.error, { line: src.line }) };
  const bytes = lb.bytes;
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok) {
    const where = (d: { offset: number }) => `invalid UTF-8 byte at byte ${d.offset} of the line`;
    const e = decodeFailure(decoded, src.path, { line: src.line }, where);
    return { ok: false, error: { ...e, message: e.message + encodingHint(bytes) } };
  }
  const parsed = parseJson(decoded.text);
  if (!parsed.ok) return { ok: false, error: ingestError("invalid_json", src.path, parsed.message + encodingHint(bytes), { line: src.line }) };
  const repeated = repeatedKeyError(decoded.text, parsed.value, src.path, { line: src.line });
  if (repeated !== undefined) return { ok: false, error: repeated };
  try {
    return convertChatLine(parsed.value, src, opts);
  } catch (e) {
    return { ok: false, error: conversionError(e, src.path, { line: src.line }) };
  }
}
