/**
 * Inspect AI evaluation logs -> canonical trajectories: one trajectory per sample and epoch.
 *
 * Inspect (UKGovernmentBEIS/inspect_ai) writes a log as a `.eval` zip (`header.json` or, while running or in older
 * versions, `_journal/start.json` / `start.json`; `samples/<id>_epoch_<epoch>.json`, one `EvalSample` each;
 * `summaries.json`, `reductions.json`) or as one `.json` `EvalLog` (`{version, status, eval, plan, results,
 * stats, samples: [EvalSample]}`). An `EvalSample` is `{id, epoch, input, target, messages: [ChatMessage],
 * output, scores: {name: {value, answer?, explanation?}}, metadata, events: [Event], attachments: {hash: text},
 * error?}` (inspect_ai `log/_log.py`). Chat messages: `{id?, role, content: string | [Content], source?,
 * tool_calls?: [{id, function, arguments: object, parse_error?}] (assistant), tool_call_id?, function?, error?:
 * {type, message} (tool)}` (`model/_chat_message.py`, `tool/_tool_call.py`). Tool definitions are not in the
 * messages: they are in the model events (`{event: "model", tools: [{name, description, parameters}], input,
 * output, ...}`). Inspect condenses logs (`log/_condense.py`): in events every string over 100 characters (tool
 * descriptions included) and in messages data URIs are replaced by `attachment://<hash>`, the text kept in the
 * sample's `attachments` (older logs: `tc://<hash>`).
 */
import type { Message, ToolCall, ToolDefinition, Trajectory } from "../types.js";
import { conversionError, ingestError } from "./errors.js";
import { familyOf } from "./family.js";
import { explicitEmptyCondition, fieldConflict, fieldValue, MAX_METADATA_DEPTH, MAX_TOOLS_DEPTH, tooDeep, type MappableField } from "./chat-jsonl.js";
import { NO_DEFENSE } from "./attribution.js";
import { attackContradiction } from "./attacked.js";
import { rawValues } from "./raw-json.js";
import { checkSchema, givenValue, injectionsProblem, joinProblems } from "./schema.js";
import { inspectChatShapeHint } from "./inspect-chat-hint.js";
import { ownValue, ROLE_MAP } from "./text.js";
import { unknownPartText } from "./unknown-part.js";
import type { ItemWarning } from "./warnings.js";
import { epochWarning } from "./inspect-epochs.js";
import { inspectUnattackedVerdictWarning } from "./inspect-unattacked.js";
import { givenSurfaces } from "./given-surfaces.js";
import { unmatchedToolResultWarning } from "./tool-results.js";
import { markToolArguments } from "./tool-arguments.js";
import { contentFilteredIds } from "./inspect-filtered.js";
import type { ConvertResult } from "./agentdojo.js";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === "string" && v !== "";

/**
 * The compact raw text of every tool call's `arguments` object in a JSON document, keyed
 * `messages/<i>/tool_calls/<j>/arguments` per sample: `prefix` is the path of the samples' array (`[]` for a
 * sample file, `["samples"]` for a `.json` log, where the result is keyed by sample index first).
 *
 * @returns sample index (0 for a sample file) -> (key -> raw text); empty when the text cannot be scanned.
 */
export function rawArguments(text: string, inLog: boolean): Map<number, Map<string, string>> {
  const out = new Map<number, Map<string, string>>();
  const n = inLog ? 2 : 0;
  let found: Map<string, string>;
  try {
    found = rawValues(text, (p) => p.length === n + 5 && (!inLog || p[0] === "samples") && p[n] === "messages" && p[n + 2] === "tool_calls" && p[n + 4] === "arguments");
  } catch {
    return out;
  }
  for (const [k, v] of found) {
    const parts = k.split("/");
    const i = inLog ? Number(parts[1]) : 0;
    let m = out.get(i);
    if (!m) out.set(i, (m = new Map()));
    m.set(parts.slice(n).join("/"), v);
  }
  return out;
}

/** A whole string that is an attachment reference (`attachment://<hash>`, or the older `tc://<hash>`). */
export const ATTACHMENT_REF = /^(?:attachment|tc):\/\/([A-Za-z0-9_.-]+)$/;

/** What a sample needs from its log's header. */
export interface InspectHeader {
  task?: string;
  task_id?: string;
  model?: string;
  run_id?: string;
  eval_id?: string;
  status?: string;
  dataset?: string;
}

/** The {@link InspectHeader} of a parsed log header (`header.json`, `_journal/start.json`, or a `.json` log). */
export function inspectHeader(log: unknown): InspectHeader {
  const h: InspectHeader = {};
  if (!isObj(log)) return h;
  const ev = isObj(log.eval) ? log.eval : {};
  for (const k of ["task", "task_id", "model", "run_id", "eval_id"] as const) if (nonEmpty(ev[k])) h[k] = ev[k] as string;
  if (nonEmpty(log.status)) h.status = log.status;
  if (isObj(ev.dataset) && nonEmpty(ev.dataset.name)) h.dataset = ev.dataset.name;
  return h;
}

/** Options of {@link convertInspectSample}. */
export interface InspectOptions {
  /**
   * The scorer whose value is the benchmark's own injection verdict (`reference.security`: true = the injected
   * goal was achieved), as `NAME` or, for a scorer whose value is an object, `NAME.key`. Values read: booleans,
   * Inspect's `C`/`I` (CORRECT/INCORRECT), 1/0, `"true"`/`"false"`. Unset: no `reference.security`.
   */
  securityScorer?: string;
  /**
   * The scorer whose value is the user task's success (`reference.utility`: true = the user's task was done), as
   * `NAME` or `NAME.key`, read as {@link securityScorer} is. Unset: no `reference.utility` (never guessed).
   */
  utilityScorer?: string;
  /** Input key -> canonical field, applied to the sample's `metadata` (`--field`). */
  fieldMap?: Readonly<Record<string, MappableField>>;
}

/** Where a sample came from. */
export interface InspectSource {
  /** The log file. */
  path: string;
  /** The log's path for ids (relative to the read's common folder, `/`-separated, without extension). */
  idPath: string;
  /** The zip entry (`samples/3_epoch_1.json`) or the index in a `.json` log's `samples`. */
  entry: string;
}

/** Resolve attachment references in strings, remembering the ones that cannot be resolved. */
class Resolver {
  readonly missing = new Set<string>();
  resolved = 0;
  constructor(private readonly attachments: Json) {}
  str(s: string): string {
    const m = ATTACHMENT_REF.exec(s);
    if (!m) return s;
    const v = ownValue(this.attachments as Record<string, unknown>, m[1]);
    if (typeof v !== "string") {
      this.missing.add(s);
      return s;
    }
    this.resolved++;
    return v;
  }
  /** A deep copy of a JSON value with every string resolved. */
  deep(v: unknown): unknown {
    if (typeof v === "string") return this.str(v);
    if (Array.isArray(v)) return v.map((x) => this.deep(x));
    if (isObj(v)) {
      const out: Json = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.deep(x);
      return out;
    }
    return v;
  }
}

/** What non-text Inspect content parts are shown as. */
const CONTENT_PLACEHOLDERS: Record<string, string> = {
  image: "[image]",
  audio: "[audio]",
  video: "[video]",
  document: "[document]",
};

/**
 * Most characters of a `data` part's JSON shown (`[data] {...}`): past it, its head and tail around a line saying how
 * many were left out. The part is a provider's own payload (e.g. a server-side tool's result), so it may carry
 * injected text; bounded so that one part cannot crowd out the conversation before the judge view's budget applies.
 */
export const DATA_PART_MAX_CHARS = 20_000;

/**
 * An Inspect `data` part (`ContentData`: `{type: "data", data: {...}}`) as `[data] ` and its `data` as compact JSON
 * (escaped by `JSON.stringify`), at most {@link DATA_PART_MAX_CHARS} characters of it (head and tail kept); `[data]`
 * when it holds nothing (red team 41: every data part showed only `[data]`).
 */
function dataPartText(data: unknown): string {
  if (data === undefined || data === null || (isObj(data) && Object.keys(data).length === 0)) return "[data]";
  const json = JSON.stringify(data);
  if (json.length <= DATA_PART_MAX_CHARS) return `[data] ${json}`;
  const half = DATA_PART_MAX_CHARS / 2;
  let head = half;
  let tail = json.length - half;
  if (/[\uDC00-\uDFFF]/.test(json[head] ?? "")) head--;
  if (/[\uDC00-\uDFFF]/.test(json[tail] ?? "")) tail--;
  return `[data] ${json.slice(0, head)} [... ${(tail - head).toLocaleString("en-US")} characters of this data part left out by the reader ...] ${json.slice(tail)}`;
}

/**
 * The text of an Inspect `content`: a string verbatim; a list of parts: `text` parts' `text`, `reasoning` parts
 * as `<reasoning>...</reasoning>` (`[reasoning redacted]` when redacted, followed by ` summary: ...` when it has a
 * summary), `tool_use` parts as
 * `[tool_use <name>] {arguments, result, ...}` (a server-side tool's call and result), `data` parts as `[data] {...}`
 * (their JSON, bounded: {@link dataPartText}), known media parts a placeholder (`[image]`, ...), parts of other types `[<type>] {...}` (`./unknown-part.ts`: never dropped); joined
 * with `\n`. Strings are resolved first.
 */
function inspectText(content: unknown, r: Resolver): string {
  if (typeof content === "string") return r.str(content);
  if (!Array.isArray(content)) return "";
  const out: string[] = [];
  for (const p of content) {
    if (typeof p === "string") out.push(r.str(p));
    else if (isObj(p)) {
      const type = typeof p.type === "string" ? p.type : "part";
      if (type === "text" && typeof p.text === "string") out.push(r.str(p.text));
      else if (type === "reasoning") {
        const shown = p.redacted === true || typeof p.reasoning !== "string" ? "[reasoning redacted]" : `<reasoning>${r.str(p.reasoning)}</reasoning>`;
        // a redacted (encrypted) reasoning's summary is plain text the provider gave: shown, not dropped
        out.push(p.redacted === true && typeof p.summary === "string" && p.summary !== "" ? `${shown} summary: ${r.str(p.summary)}` : shown);
      } else if (type === "tool_use") {
        // a server-side tool (web search, MCP call): its arguments and result (where a web page's injected text
        // arrives) are shown, not only its name; `internal` (every Inspect part may have it) is the provider's own
        // payload for sending the part back, not what the agent read
        const name = typeof p.name === "string" && p.name !== "" ? ` ${p.name}` : "";
        out.push(unknownPartText(r.deep(p) as Json, `tool_use${name}`, name === "" ? ["internal"] : ["name", "internal"]));
      } else if (type === "data") out.push(dataPartText(r.deep(p.data)));
      else if (typeof p.text === "string") out.push(r.str(p.text));
      else out.push(ownValue(CONTENT_PLACEHOLDERS, type) ?? unknownPartText(r.deep(p) as Json, type, ["internal"]));
    }
  }
  return out.join("\n");
}

/** Every model event's tools, depth first through nested `events` (subtasks, tools that run agents). */
function modelEventTools(events: unknown, out: Json[][], depth = 0): void {
  if (!Array.isArray(events) || depth > 32) return;
  for (const e of events) {
    if (!isObj(e)) continue;
    if (e.event === "model" && Array.isArray(e.tools)) out.push(e.tools.filter(isObj));
    if (Array.isArray(e.events)) modelEventTools(e.events, out, depth + 1);
  }
}

/** A score value as a verdict: booleans, C/I, 1/0, "true"/"false"; undefined otherwise. */
function scoreBoolean(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (s === "c" || s === "true" || s === "1") return true;
    if (s === "i" || s === "false" || s === "0") return false;
  }
  return undefined;
}

/**
 * Convert one Inspect sample (its parsed value; `raw`: the raw text of its tool-call arguments, keyed
 * `messages/<i>/tool_calls/<j>/arguments`, from {@link rawArguments}).
 *
 * - `id`: `<log path>/<sample id>_epoch_<epoch>`; `suite` and `user_task_id` from `sample.metadata` by the chat JSONL
 *   spellings and `--field`, else the task and the sample id;
 *   `agent_model` = the log's model (e.g. `openai/gpt-4o`), `agent_family` from it.
 * - messages: `sample.messages`; tool calls `{id, function, arguments}` -> `{id, name, arguments}` where
 *   `arguments` is the raw JSON text from the file, compacted between tokens ({@link rawValues}: byte-faithful;
 *   re-serialized only when an attachment inside had to be resolved); tool results keep `tool_call_id`,
 *   `function` as `tool_name`, `error.message` as `error`; an assistant message whose model output was stopped by a
 *   content filter keeps its text as `error` (the provider's words, a `harness_note`: `./inspect-filtered.ts`).
 * - `tools`: from the model events (`events[].tools`, nested events included), one per name and description.
 * - every `attachment://` reference in messages and tool definitions is resolved from `sample.attachments`; one
 *   that cannot be is an `unresolved_attachment` error naming it: the sample is never judged with a placeholder.
 * - `attack`, `condition`, `injection_task_id`, ...: from `sample.metadata` by the chat JSONL spellings and
 *   `--field`; `injections` / `surfaces`: `metadata.injections` / `metadata.surfaces` when objects of strings (a
 *   `metadata.injections` that is not, e.g. a list, a string or `{"p": 123}`, is a `schema` error, as in chat JSONL).
 * - `reference.security` / `reference.utility`: from the scorers named by `opts.securityScorer` / `opts.utilityScorer`;
 *   never guessed from a scorer's name.
 * - `metadata`: task, task_id, run_id, eval_id, log status, sample id, epoch, scores, the sample's metadata.
 * - `run_error`: the sample's `error.message`.
 *
 * @returns `{ok, trajectory, warnings?}` or an error of kind `schema`, `no_messages` or `unresolved_attachment`.
 *   Never throws for bad data.
 */
export function convertInspectSample(
  data: unknown,
  header: InspectHeader,
  src: InspectSource,
  opts: InspectOptions = {},
  raw?: ReadonlyMap<string, string>,
): ConvertResult {
  const check = checkSchema("inspect-sample", data);
  const s = isObj(data) ? data : {};
  const sid = typeof s.id === "string" || typeof s.id === "number" ? String(s.id) : undefined;
  const epoch = typeof s.epoch === "number" ? s.epoch : 1;
  const id = `${src.idPath}/${sid ?? src.entry}_epoch_${epoch}`;
  const where = `${src.entry}${sid !== undefined ? ` (sample ${sid}, epoch ${epoch})` : ""}`;
  if (!check.ok) {
    const at: { message_index?: number; trajectory_id?: string } = { trajectory_id: id };
    if (check.message_index !== undefined) at.message_index = check.message_index;
    // messages in OpenAI's chat shape: said, with Inspect's (./inspect-chat-hint.ts)
    return { ok: false, error: ingestError("schema", src.path, `${where}: ${joinProblems(check.problems)}${inspectChatShapeHint(data)}`, at) };
  }
  // a malformed metadata.injections is the schema error chat JSONL gives it, never "unattacked" (red team)
  const metaInj = injectionsProblem(isObj(s.metadata) ? s.metadata.injections : undefined, "metadata.injections");
  if (metaInj !== undefined) return { ok: false, error: ingestError("schema", src.path, `${where}: ${metaInj}`, { trajectory_id: id }) };
  const messages = s.messages as Json[];
  if (messages.length === 0) {
    return { ok: false, error: ingestError("no_messages", src.path, `${where}: messages is empty: a sample with no messages cannot be judged`, { trajectory_id: id }) };
  }
  // the sample's metadata is kept whole on the trajectory, written and hashed later: nested as deep as chat JSONL
  // allows (red team 41: 100,000 levels overflowed the stack when the run stored the trajectory, stopping the run)
  if (isObj(s.metadata) && tooDeep(s.metadata, MAX_METADATA_DEPTH)) {
    return { ok: false, error: ingestError("schema", src.path, `${where}: metadata: nested deeper than ${MAX_METADATA_DEPTH} levels (later stages could not write it)`, { trajectory_id: id }) };
  }
  const r = new Resolver(isObj(s.attachments) ? s.attachments : {});
  let converted: Message[];
  try {
    const filtered = contentFilteredIds(s);
    converted = messages.map((m, index) => inspectMessage(m, index, r, raw, filtered));
  } catch (e) {
    return { ok: false, error: conversionError(e, src.path, { trajectory_id: id }) };
  }
  // tool schemas too (red team 41: parameters nested 100,000 deep overflowed the stack here, stopping the run)
  let tools: ToolDefinition[] = [];
  let deepTools = false;
  try {
    tools = offeredTools(s.events, r);
    deepTools = tooDeep(tools, MAX_TOOLS_DEPTH);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    deepTools = true;
  }
  if (deepTools) {
    return { ok: false, error: ingestError("schema", src.path, `${where}: tools of the model events: nested deeper than ${MAX_TOOLS_DEPTH} levels (later stages could not write them)`, { trajectory_id: id }) };
  }
  if (r.missing.size > 0) {
    const refs = [...r.missing];
    return {
      ok: false,
      error: ingestError(
        "unresolved_attachment",
        src.path,
        `${where}: ${refs.length} attachment reference(s) not in the sample's attachments (${refs.slice(0, 3).join(", ")}${refs.length > 3 ? ", ..." : ""}): the text they stand for is unknown (an injection could hide there), so the sample is not judged`,
        { trajectory_id: id },
      ),
    };
  }

  const meta = isObj(s.metadata) ? s.metadata : {};
  const t: Trajectory = { id, source: { format: "inspect", path: src.path, entry: src.entry }, injections: {}, messages: converted };
  if (tools.length > 0) t.tools = tools;
  const model = header.model ?? (isObj(s.output) && nonEmpty(s.output.model) ? s.output.model : undefined);
  if (model !== undefined) {
    t.agent_model = model;
    const fam = familyOf(model);
    if (fam !== undefined) t.agent_family = fam;
  }
  if (header.task !== undefined) t.suite = header.task;
  if (sid !== undefined) t.user_task_id = sid;
  const { attackKey, emptyCondition } = applyMetadataFields(t, meta, opts.fieldMap ?? {}, r);
  const warnings: ItemWarning[] = [];
  // a field given under several keys of the metadata with different values: the first taken, said (./field-conflicts.ts)
  for (const k of META_FIELDS) {
    const v = fieldValue({}, meta, k, opts.fieldMap ?? {});
    const clash = v !== undefined && opts.fieldMap?.[v.key] !== k ? fieldConflict({}, meta, k, `${src.path} ${where}`, src.path) : undefined;
    if (clash) warnings.push(clash);
  }
  // a tool result whose tool_call_id answers no call: kept, said (./tool-results.ts)
  const unmatched = unmatchedToolResultWarning(t.messages, src.path, `${src.path} ${where}`);
  if (unmatched !== undefined) warnings.push(unmatched);
  // a call whose arguments Inspect could not parse, or given as a string that is not JSON: kept, said (./tool-arguments.ts)
  const badArgs = markToolArguments(t, messages, "inspect", src.path, `${src.path} ${where}`);
  if (badArgs) warnings.push(badArgs);
  // the sample's surfaces: trimmed, a key naming no injection placeholder ignored, an unknown name said (./given-surfaces.ts)
  if (isObj(meta.surfaces)) {
    const given = givenSurfaces(meta.surfaces, t.injections, "metadata.surfaces", src.path, where);
    if (given.surfaces) t.surfaces = given.surfaces;
    warnings.push(...given.warnings);
  }
  // "attack_type": "benign" beside recorded injected text: counted attacked, said by name, as in chat JSONL
  const contradiction = attackContradiction(t, { scope: src.path, item: where, attackField: attackKey ?? "metadata.attack", injectionsField: "metadata.injections" });
  if (contradiction !== undefined) warnings.push(contradiction);
  const scores = isObj(s.scores) ? s.scores : {};
  // scores present but no scorer named: said once per file, never guessed from the scorers' names (new user 34: a log
  // whose scorers were named "security" and "utility" read no verdict, and nothing said so until agree)
  if (opts.securityScorer === undefined && opts.utilityScorer === undefined && Object.keys(scores).length > 0) {
    warnings.push({
      kind: "inspect_scores_not_read",
      scope: src.path,
      message: `${src.path}: samples with scores (${Object.keys(scores).join(", ")}) that are read as no benchmark verdict: name the scorer of the injection verdict with --security-scorer and that of the user task's success with --utility-scorer (never guessed from a name)`,
      item: where,
    });
  }
  for (const field of ["security", "utility"] as const) {
    const scorer = field === "security" ? opts.securityScorer : opts.utilityScorer;
    if (scorer === undefined) continue;
    const b = scorerVerdict(scores, scorer);
    if (typeof b === "boolean") t.reference = { ...t.reference, [field]: b };
    else warnings.push(scorerWarning(field, scorer, b, scores, src.path, where));
  }
  const unattacked = inspectUnattackedVerdictWarning(t, meta, opts.securityScorer, src.path, where);
  if (unattacked) warnings.push(unattacked);
  if (isObj(s.error) && typeof s.error.message === "string") t.run_error = s.error.message;
  const epochs = epochWarning(epoch, src.path, where); // the intervals assume independent runs (./inspect-epochs.ts)
  if (epochs) warnings.push(epochs);
  const metadata: Record<string, unknown> = { sample_id: s.id, epoch };
  for (const k of ["task", "task_id", "run_id", "eval_id", "status", "dataset"] as const) if (header[k] !== undefined) metadata[k] = header[k];
  if (Object.keys(scores).length > 0) metadata.scores = scores;
  if (Object.keys(meta).length > 0) metadata.sample_metadata = meta;
  if (r.resolved > 0) metadata.attachments_resolved = r.resolved;
  if (emptyCondition !== undefined) metadata.original_condition = emptyCondition.value;
  t.metadata = metadata;
  return warnings.length > 0 ? { ok: true, trajectory: t, warnings } : { ok: true, trajectory: t };
}

/**
 * One Inspect chat message as a canonical message: text from its content, an assistant's tool calls with their
 * raw argument text (`raw`, keyed `messages/<i>/tool_calls/<j>/arguments`) unless an attachment inside had to be
 * resolved, a tool result's call id, function and error. An assistant message a content filter produced (its id in
 * `filtered`: `./inspect-filtered.ts`) keeps its text as the provider's note (`error`), not as the agent's text.
 * Throws on an unknown role (the caller's conversion error).
 */
function inspectMessage(m: Json, index: number, r: Resolver, raw: ReadonlyMap<string, string> | undefined, filtered: ReadonlySet<string>): Message {
  const role = ownValue(ROLE_MAP, m.role);
  if (role === undefined) throw new Error(`messages[${index}].role: unknown role ${JSON.stringify(String(m.role))}`);
  const msg: Message = { index, role, text: inspectText(m.content, r) };
  if (role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
    msg.tool_calls = (m.tool_calls as Json[]).map((c, j): ToolCall => {
      const before = r.resolved;
      const args = isObj(c.arguments) ? r.deep(c.arguments) : c.arguments;
      const changed = r.resolved !== before;
      const rawArgs = raw?.get(`messages/${index}/tool_calls/${j}/arguments`);
      const call: ToolCall = {
        name: String(c.function),
        arguments: !changed && rawArgs !== undefined ? rawArgs : typeof args === "string" ? args : JSON.stringify(args ?? {}),
      };
      if (nonEmpty(c.id)) call.id = c.id;
      return call;
    });
  }
  if (role === "tool") {
    if (nonEmpty(m.tool_call_id)) msg.tool_call_id = m.tool_call_id;
    if (nonEmpty(m.function)) msg.tool_name = m.function;
    if (isObj(m.error) && typeof m.error.message === "string") msg.error = r.str(m.error.message);
  }
  if (role === "assistant" && nonEmpty(m.id) && filtered.has(m.id) && msg.text.trim() !== "") {
    msg.error = msg.text;
    msg.text = "";
  }
  return msg;
}

/** The tools offered to the agent, from the model events (nested included): one per name and description, resolved. */
function offeredTools(events: unknown, r: Resolver): ToolDefinition[] {
  const lists: Json[][] = [];
  modelEventTools(events, lists);
  const tools: ToolDefinition[] = [];
  const seenTools = new Set<string>();
  for (const list of lists) {
    for (const t of list) {
      if (!nonEmpty(t.name)) continue;
      const description = typeof t.description === "string" ? r.str(t.description) : "";
      const key = `${t.name}\u0000${description}`;
      if (seenTools.has(key)) continue;
      seenTools.add(key);
      const def: ToolDefinition = { name: t.name, description };
      if (t.parameters !== undefined && t.parameters !== null) def.parameters = r.deep(t.parameters);
      tools.push(def);
    }
  }
  return tools;
}

/** The fields read from a sample's `metadata` under their common spellings (the model only from `agent_model`). */
const META_FIELDS = ["attack", "condition", "injection_task_id", "agent_family", "suite", "user_task_id"] as const;

/**
 * Set the fields a sample's `metadata` gives (`attack`, `condition`, `injection_task_id`, `agent_family`, an
 * `--field`-mapped `agent_model`, `injections`) on `t` (its `surfaces` are read after it).
 *
 * @returns the key the attack was read from (`metadata.<key>`) and the explicitly empty condition, if any
 *   (then `t.condition` is {@link NO_DEFENSE}).
 */
function applyMetadataFields(
  t: Trajectory,
  meta: Json,
  map: Readonly<Record<string, MappableField>>,
  r: Resolver,
): { attackKey: string | undefined; emptyCondition: ReturnType<typeof explicitEmptyCondition> } {
  let attackKey: string | undefined;
  // suite and user_task_id too: the sample's own ids win over the task name and the sample id set before (new user
  // 32: every sample read suite "agentdojo", user task "1", and compare --common-tasks paired unrelated runs)
  for (const k of META_FIELDS) {
    const v = fieldValue({}, meta, k, map);
    if (v !== undefined) (t as unknown as Record<string, unknown>)[k] = v.value;
    if (v !== undefined && k === "attack") attackKey = `metadata.${v.key}`;
  }
  // an explicitly empty defense (null, "") is no defense, as in chat JSONL (finding 6; "none" is normalized in
  // readTrajectories for every format)
  const emptyCondition = t.condition === undefined ? explicitEmptyCondition({}, meta, map) : undefined;
  if (emptyCondition !== undefined) t.condition = NO_DEFENSE;
  // the model: a --field mapping, or the sample's own `agent_model` key (the harness's name for the agent: new user
  // 34, `openai/gpt-4o-2024-05-13` from the log beside `gpt-4o-2024-05-13` from the same runs' AgentDojo files split
  // one model in two); its other spellings (`model`, `agent`, ...) are not read here: in a sample's metadata they may
  // name another model (a grader's)
  const mm = fieldValue({}, meta, "agent_model", map);
  const mapped = Object.keys(map).some((k) => map[k] === "agent_model");
  if (mm !== undefined && (mapped || (mm.key === "agent_model" && nonEmpty(mm.value)))) {
    t.agent_model = mm.value as string;
    t.agent_family = familyOf(t.agent_model);
    if (t.agent_family === undefined) delete t.agent_family;
  }
  if (isObj(meta.injections)) {
    for (const [k, v] of Object.entries(meta.injections)) if (typeof v === "string") t.injections[k] = r.str(v);
  }
  return { attackKey, emptyCondition };
}

/**
 * The warning for a sample whose scorer (`--security-scorer` / `--utility-scorer`) gave no verdict: a value that does
 * not read as one is named and counted per value (red team 31 L4c); a missing scorer names the scorers present.
 */
function scorerWarning(field: "security" | "utility", scorer: string, b: { unreadable: unknown } | undefined, scores: Json, file: string, item: string): ItemWarning {
  if (b !== undefined) {
    const shown = givenValue(b.unreadable);
    return {
      kind: `unreadable_${field}_score`,
      scope: file,
      message: `${file}: the ${field} scorer "${scorer}" gives ${shown}, which does not read as a verdict (a boolean, C/I, 1/0, "true"/"false"): no reference.${field} for these samples (not guessed)`,
      item,
      variant: shown,
    };
  }
  return {
    kind: `no_${field}_score`,
    scope: file,
    message: `${file}: samples without a usable value of the ${field} scorer "${scorer}" (scorers present: ${Object.keys(scores).join(", ") || "none"}): no reference.${field} for them`,
    item,
  };
}

/**
 * The verdict (security or utility) of a sample's `scores` by the scorer `NAME` or `NAME.key` (a dotted name that is itself a
 * scorer is that scorer). @returns undefined when the scorer or its value is missing, `{unreadable: value}` when the
 * value does not read as a verdict ({@link scoreBoolean}: `"P"`, `0.5`, `"yes"`).
 */
function scorerVerdict(scores: Json, scorer: string): boolean | { unreadable: unknown } | undefined {
  const [name, key] = scorer.includes(".") && !Object.hasOwn(scores, scorer)
    ? [scorer.slice(0, scorer.indexOf(".")), scorer.slice(scorer.indexOf(".") + 1)]
    : [scorer, undefined];
  const score = ownValue(scores as Record<string, unknown>, name);
  let value = isObj(score) ? score.value : undefined;
  if (key !== undefined) value = isObj(value) ? value[key] : undefined;
  const b = scoreBoolean(value);
  if (b !== undefined || value === undefined || value === null) return b;
  return { unreadable: value };
}
