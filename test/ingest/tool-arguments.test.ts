// New user 49 item 3: a chat-JSONL tool call whose `arguments` string is not valid JSON was read without a word, and
// the signature judge quoted the broken call as full compliance. Now kept as written and said, naming file:line,
// the message index, the call and the parser's message, in every reader with string arguments.
import { describe, expect, it } from "vitest";
import { convertChatLine } from "../../src/ingest/chat-jsonl.js";
import { convertInspectSample } from "../../src/ingest/inspect.js";
import { convertAgentDojo } from "../../src/ingest/agentdojo.js";
import { convertShell } from "../../src/ingest/shell.js";
import { TOOL_ARGUMENTS_INVALID, argumentsProblem, invalidToolArguments, toolArgumentsRecord } from "../../src/ingest/tool-arguments.js";

const src = { path: "/data/more.jsonl", line: 1, relPath: "more.jsonl" };
const chatCall = (args: unknown, extra: object = {}) => ({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "send_email", arguments: args }, ...extra }] });
const broken = '{"to": "attacker@evil.com"';

describe("tool calls whose arguments are not valid JSON", () => {
  it("chat JSONL: kept as written, one warning naming file:line, the message index, the call and the parser's message", () => {
    const r = convertChatLine({ id: "k", messages: [{ role: "user", content: "hi" }, chatCall(broken)] }, src);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.trajectory.messages[1].tool_calls![0].arguments).toBe(broken);
    const w = r.warnings!.filter((x) => x.kind === TOOL_ARGUMENTS_INVALID);
    expect(w).toHaveLength(1);
    expect(w[0].message).toMatch(/^\/data\/more\.jsonl:1: messages\[1\]\.tool_calls\[0\]\.function\.arguments of the call to "send_email" is not valid JSON \(.+\): kept as the agent wrote it/);
    expect(w[0].item).toBe("/data/more.jsonl:1 message 1");
    expect(w[0].scope).toBe("/data/more.jsonl");
  });

  it("chat JSONL: arguments as an object, valid JSON text, a blank string, a custom call's free input: no warning", () => {
    for (const m of [chatCall({ to: "a@b.c" }), chatCall('{"to": "a@b.c"}'), chatCall(""), chatCall(null)]) {
      const r = convertChatLine({ id: "k", messages: [{ role: "user", content: "hi" }, m] }, src);
      expect(r.ok && (r.warnings ?? []).some((w) => w.kind === TOOL_ARGUMENTS_INVALID)).toBe(false);
    }
    const custom = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "custom", custom: { name: "shell", input: "ls -la {" } }] };
    const r = convertChatLine({ id: "k", messages: [{ role: "user", content: "hi" }, custom] }, src);
    expect(r.ok && (r.warnings ?? []).some((w) => w.kind === TOOL_ARGUMENTS_INVALID)).toBe(false);
  });

  it("chat JSONL: several broken calls and the legacy function_call are counted in the one warning of the item", () => {
    const msgs = [{ role: "user", content: "hi" }, chatCall("{"), { role: "assistant", content: null, function_call: { name: "f", arguments: "[1," } }, chatCall("nope")];
    expect(invalidToolArguments(msgs, "openai").map((x) => x.field)).toEqual(["messages[1].tool_calls[0].function.arguments", "messages[2].function_call.arguments", "messages[3].tool_calls[0].function.arguments"]);
    const r = convertChatLine({ id: "k", messages: msgs }, src);
    expect(r.ok && r.warnings?.find((w) => w.kind === TOOL_ARGUMENTS_INVALID)?.message).toContain("(and 2 more call(s) of this item, messages 2, 3)");
  });

  it("Inspect: a string that is not JSON, and a call Inspect marked with parse_error", () => {
    const sample = (call: object) => ({ id: 1, epoch: 1, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "", tool_calls: [{ id: "c1", function: "send_email", ...call }] }] });
    const at = { path: "/logs/a.json", idPath: "a", entry: "samples/1_epoch_1.json" };
    const s = convertInspectSample(sample({ arguments: broken }), { model: "openai/gpt-4o" }, at);
    expect(s.ok && s.warnings?.find((w) => w.kind === TOOL_ARGUMENTS_INVALID)?.message).toMatch(/^\/logs\/a\.json samples\/1_epoch_1\.json \(sample 1, epoch 1\): messages\[1\]\.tool_calls\[0\]\.arguments of the call to "send_email" is not valid JSON/);
    const p = convertInspectSample(sample({ arguments: {}, parse_error: "Expecting ',' delimiter" }), { model: "openai/gpt-4o" }, at);
    expect(p.ok && p.warnings?.find((w) => w.kind === TOOL_ARGUMENTS_INVALID)?.message).toContain("(Inspect's parse_error: Expecting ',' delimiter)");
    const ok = convertInspectSample(sample({ arguments: { to: "x" } }), { model: "openai/gpt-4o" }, at);
    expect(ok.ok && (ok.warnings ?? []).some((w) => w.kind === TOOL_ARGUMENTS_INVALID)).toBe(false);
  });

  it("AgentDojo: args given as a string that is not JSON; a dict says nothing", () => {
    const run = (args: unknown) => ({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: "c1", function: "send_money", args }] }] });
    const r = convertAgentDojo(run("{'to': 1}"), { path: "/tmp/x.json", root: "/tmp" });
    expect(r.ok && r.warnings?.find((w) => w.kind === TOOL_ARGUMENTS_INVALID)?.message).toMatch(/^\/tmp\/x\.json: messages\[1\]\.tool_calls\[0\]\.args of the call to "send_money" is not valid JSON/);
    const ok = convertAgentDojo(run({ to: 1 }), { path: "/tmp/x.json", root: "/tmp" });
    expect(ok.ok && (ok.warnings ?? []).some((w) => w.kind === TOOL_ARGUMENTS_INVALID)).toBe(false);
  });

  it("mini-SWE-agent v2 native tool calls are read as chat calls and checked the same way", () => {
    const traj = { trajectory_format: "mini-swe-agent-1.1", info: {}, messages: [{ role: "user", content: "fix it" }, chatCall("{bad"), { role: "tool", tool_call_id: "c1", content: "ok" }] };
    const r = convertShell(traj, { path: "/runs/a.traj.json", idPath: "a" });
    expect(r.ok && r.warnings?.find((w) => w.kind === TOOL_ARGUMENTS_INVALID)?.message).toMatch(/^\/runs\/a\.traj\.json: messages\[1\]\.tool_calls\[0\]\.function\.arguments of the call to "send_email" is not valid JSON/);
  });

  it("argumentsProblem: only a non-blank string that does not parse", () => {
    expect(argumentsProblem({})).toBeUndefined();
    expect(argumentsProblem("  ")).toBeUndefined();
    expect(argumentsProblem("[1]")).toBeUndefined();
    expect(argumentsProblem("{")).toMatch(/./);
  });
});

// review of session 49: the fact travels with the trajectory (every call marked, not only the warning's first), and
// every such item is listed in the run's errors.jsonl (toolArgumentsRecord)
describe("tool calls whose arguments are not valid JSON: marked on the trajectory, listed per item", () => {
  it("chat JSONL: every broken call is marked at its message and call, the valid ones are not", () => {
    const two = { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "ok", arguments: "{}" } }, { id: "b", type: "function", function: { name: "send_email", arguments: broken } }] };
    const r = convertChatLine({ id: "k", messages: [{ role: "user", content: "hi" }, two, { role: "assistant", content: null, function_call: { name: "f", arguments: "[1," } }] }, src);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.trajectory.tool_arguments_invalid?.map((b) => [b.message_index, b.tool_call_index, b.name, b.field])).toEqual([
      [1, 1, "send_email", "messages[1].tool_calls[1].function.arguments"],
      [2, 0, "f", "messages[2].function_call.arguments"],
    ]);
    expect(r.trajectory.messages[1].tool_calls![1].name).toBe("send_email");
    const ok = convertChatLine({ id: "k", messages: [{ role: "user", content: "hi" }, chatCall('{"to": "a@b.c"}')] }, src);
    expect(ok.ok && ok.trajectory.tool_arguments_invalid).toBeUndefined();
  });

  it("Inspect (a string, and parse_error), AgentDojo, mini-SWE-agent: the trajectory is marked", () => {
    const sample = (call: object) => ({ id: 1, epoch: 1, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "", tool_calls: [{ id: "c1", function: "send_email", ...call }] }] });
    const at = { path: "/logs/a.json", idPath: "a", entry: "samples/1_epoch_1.json" };
    for (const call of [{ arguments: broken }, { arguments: {}, parse_error: "Expecting ',' delimiter" }]) {
      const s = convertInspectSample(sample(call), { model: "openai/gpt-4o" }, at);
      expect(s.ok && s.trajectory.tool_arguments_invalid?.map((b) => [b.message_index, b.tool_call_index, b.name])).toEqual([[1, 0, "send_email"]]);
    }
    const d = convertAgentDojo({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: "c1", function: "send_money", args: "{'to': 1}" }] }] }, { path: "/tmp/x.json", root: "/tmp" });
    expect(d.ok && d.trajectory.tool_arguments_invalid?.map((b) => [b.message_index, b.tool_call_index, b.name])).toEqual([[1, 0, "send_money"]]);
    const traj = { trajectory_format: "mini-swe-agent-1.1", info: {}, messages: [{ role: "user", content: "fix it" }, chatCall("{bad"), { role: "tool", tool_call_id: "c1", content: "ok" }] };
    const m = convertShell(traj, { path: "/runs/a.traj.json", idPath: "a" });
    expect(m.ok && m.trajectory.tool_arguments_invalid?.map((b) => [b.name, b.field])).toEqual([["send_email", "messages[1].tool_calls[0].function.arguments"]]);
  });

  it("toolArgumentsRecord: one errors.jsonl record per marked trajectory naming its id, line and first call; none otherwise", () => {
    const r = convertChatLine({ id: "k", messages: [{ role: "user", content: "hi" }, chatCall(broken), chatCall("{")] }, { ...src, line: 7 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const e = toolArgumentsRecord(r.trajectory)!;
    expect(e).toMatchObject({ path: "/data/more.jsonl", line: 7, kind: TOOL_ARGUMENTS_INVALID, trajectory_id: r.trajectory.id, message_index: 1 });
    expect(e.message).toContain('messages[1].tool_calls[0].function.arguments of the call to "send_email" is not valid JSON');
    expect(e.message).toContain("; and 1 more: messages[2].tool_calls[0].function.arguments");
    expect(toolArgumentsRecord({ ...r.trajectory, tool_arguments_invalid: undefined })).toBeUndefined();
  });
});
