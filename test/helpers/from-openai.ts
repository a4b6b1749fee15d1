/**
 * Test helper: turn an OpenAI-style chat `trajectory` array (as in test/data/cases) into a canonical
 * `Trajectory`. Deliberately small and independent of src/ingest (the real ingester): string content as is,
 * `null` content as "", list content as its text parts joined with "\n"; tool calls keep the `arguments`
 * string exactly as stored (objects are JSON.stringify'd compactly).
 */
import type { Message, Role, Trajectory } from "../../src/types.js";

export interface OpenAIMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id?: string; type?: string; function: { name: string; arguments: unknown } }>;
  tool_call_id?: string;
  name?: string;
  error?: string;
}

function contentText(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c
      .map((p) => (typeof p === "string" ? p : p && typeof p === "object" && typeof p.text === "string" ? p.text : ""))
      .filter((s) => s !== "")
      .join("\n");
  }
  return "";
}

/** Convert OpenAI-style messages to a canonical trajectory with the given id and injections. */
export function fromOpenAI(
  messages: OpenAIMessage[],
  opts: { id?: string; injections?: Record<string, string>; attack?: string } = {},
): Trajectory {
  const callNames = new Map<string, string>();
  const out: Message[] = messages.map((m, index) => {
    const msg: Message = { index, role: m.role as Role, text: contentText(m.content) };
    if (m.tool_calls && m.tool_calls.length > 0) {
      msg.tool_calls = m.tool_calls.map((c) => {
        const args = typeof c.function.arguments === "string" ? c.function.arguments : JSON.stringify(c.function.arguments ?? {});
        if (c.id) callNames.set(c.id, c.function.name);
        return c.id ? { id: c.id, name: c.function.name, arguments: args } : { name: c.function.name, arguments: args };
      });
    }
    if (m.tool_call_id) {
      msg.tool_call_id = m.tool_call_id;
      const name = m.name ?? callNames.get(m.tool_call_id);
      if (name) msg.tool_name = name;
    }
    if (m.error) msg.error = m.error;
    return msg;
  });
  const t: Trajectory = {
    id: opts.id ?? "t",
    source: { format: "openai-test", path: "test" },
    injections: opts.injections ?? {},
    messages: out,
  };
  if (opts.attack) t.attack = opts.attack;
  return t;
}

/** An AgentDojo run log (only the fields the tests use). */
export interface AgentDojoRun {
  suite_name?: string;
  pipeline_name?: string;
  attack_type?: string | null;
  injections?: Record<string, string>;
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ function: string; args: unknown; id?: string | null }> | null;
    tool_call_id?: string | null;
    tool_call?: { function: string } | null;
    error?: string | null;
  }>;
}

function agentDojoText(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c
      .map((p) => (p && typeof p === "object" ? (typeof p.content === "string" ? p.content : typeof p.text === "string" ? p.text : "") : ""))
      .join("\n");
  }
  return "";
}

/**
 * Minimal AgentDojo run log -> canonical trajectory for tests (independent of src/ingest): list content joined
 * with "\n", call arguments compact JSON, tool name from the tool message's `tool_call.function`.
 */
export function fromAgentDojo(run: AgentDojoRun, id = "agentdojo"): Trajectory {
  const messages: Message[] = run.messages.map((m, index) => {
    const msg: Message = { index, role: m.role as Role, text: agentDojoText(m.content) };
    if (m.tool_calls && m.tool_calls.length > 0) {
      msg.tool_calls = m.tool_calls.map((c) => {
        const args = typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {});
        return c.id ? { id: c.id, name: c.function, arguments: args } : { name: c.function, arguments: args };
      });
    }
    if (m.tool_call_id) msg.tool_call_id = m.tool_call_id;
    if (m.tool_call?.function) msg.tool_name = m.tool_call.function;
    if (m.error) msg.error = m.error;
    return msg;
  });
  const t: Trajectory = { id, source: { format: "agentdojo-test", path: id }, injections: run.injections ?? {}, messages };
  if (run.suite_name) t.suite = run.suite_name;
  if (run.attack_type) t.attack = run.attack_type;
  return t;
}
