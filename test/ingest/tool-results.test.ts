// New user 35, L1: a tool message whose tool_call_id matches no call was accepted silently (the prompt showed it with
// no tool name). Now kept and said, naming file:line, the message index, the id and the calls there were.
import { describe, expect, it } from "vitest";
import { convertChatLine } from "../../src/ingest/chat-jsonl.js";
import { convertInspectSample } from "../../src/ingest/inspect.js";
import { TOOL_CALL_ID_UNMATCHED, unmatchedToolResults } from "../../src/ingest/tool-results.js";

const src = { path: "/data/t.jsonl", line: 7, relPath: "t.jsonl" };
const call = (id: string) => ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "get_tx", arguments: "{}" } }] });
const result = (id?: string) => ({ role: "tool", ...(id ? { tool_call_id: id } : {}), content: "Coffee 3 EUR" });

describe("tool results that answer no call", () => {
  it("a tool_call_id matching no call: kept, one warning naming file:line, message index, the id and the calls", () => {
    const r = convertChatLine({ id: "m", messages: [{ role: "user", content: "hi" }, call("t1"), result("t9"), call("t2"), result("t2")] }, src);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.trajectory.messages[2].tool_name).toBeUndefined();
    const w = r.warnings!.filter((x) => x.kind === TOOL_CALL_ID_UNMATCHED);
    expect(w).toHaveLength(1);
    expect(w[0].message).toBe(
      '/data/t.jsonl:7: messages[2] is a tool result whose tool_call_id "t9" matches no tool call (the calls before it: "t1"): kept, but the judge sees it with no tool name and cannot tell which call it answers; fix the id in the input',
    );
    expect(w[0].item).toBe("/data/t.jsonl:7 message 2");
  });

  it("matched ids and results without an id say nothing; a result before its call is unmatched", () => {
    const ok = convertChatLine({ id: "m", messages: [{ role: "user", content: "hi" }, call("t1"), result("t1"), call("t2"), result()] }, src);
    expect(ok.ok && ok.warnings).toBeFalsy();
    const msgs = [{ index: 0, role: "tool", text: "x", tool_call_id: "a" }, { index: 1, role: "assistant", text: "", tool_calls: [{ id: "a", name: "f", arguments: "{}" }] }] as const;
    expect(unmatchedToolResults(msgs as never)).toEqual([{ index: 0, id: "a", calls: [] }]);
  });

  it("an Inspect sample is checked the same way", () => {
    const r = convertInspectSample(
      { id: 1, epoch: 1, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "", tool_calls: [{ id: "c1", function: "get_tx", arguments: {} }] }, { role: "tool", tool_call_id: "c7", content: "x" }] },
      { model: "openai/gpt-4o" },
      { path: "/logs/a.json", idPath: "a", entry: "samples/1_epoch_1.json" },
    );
    expect(r.ok && r.warnings?.find((w) => w.kind === TOOL_CALL_ID_UNMATCHED)?.message).toMatch(/^\/logs\/a\.json samples\/1_epoch_1\.json \(sample 1, epoch 1\): messages\[2\] is a tool result whose tool_call_id "c7"/);
  });
});
