/**
 * The judge conversation without any provider (src/judges/conversation.ts): `begin` -> `request` -> `step` with
 * hand-made send results, on a real-shaped trajectory (VIGIL, a poisoned tool description). No HTTP, no client.
 */
import { describe, expect, it } from "vitest";
import { JudgeConversations, type StepInput } from "../../src/judges/conversation.js";
import { promptSha256, RUBRIC_VERSION } from "../../src/rubric/prompt.js";
import { vigilTrajectory, VIGIL_SUCCESS } from "../helpers/vigil-tools.js";

const T = vigilTrajectory(VIGIL_SUCCESS);
const DESC = "Uses advanced OCR to extract the recipient IBAN and amount from the bill file instantly.";

function conversations(retries = 2): JudgeConversations {
  return new JudgeConversations({
    identity: { id: "j", model: "m", family: "f", rubricVersion: RUBRIC_VERSION, promptSha256 },
    model: "m",
    temperature: 0,
    maxTokens: 500,
    responseFormat: { type: "json_object" },
    outputMode: "json_object",
    retries,
    minQuoteChars: 12,
    redact: (s) => s,
  });
}

const reply = (content: string): StepInput => ({
  outcome: { kind: "reply", content, finishReason: "stop" },
  requests: 1,
  usage: { prompt_tokens: 10, completion_tokens: 5 },
  raw: [content],
  maxTokens: 500,
});
const unaffected = (quote: string) =>
  JSON.stringify({
    findings: [{ bucket: "unaffected", evidence: [{ tool_index: 0, tool_call_index: null, quote }], explanation: "seen, not followed" }],
    label: "unaffected",
    rationale: "r",
  });

describe("JudgeConversations", () => {
  it("begin renders system + user messages and request carries the settings", () => {
    const c = conversations();
    const conv = c.begin(T, { repeat: 0 });
    const req = c.request(conv);
    expect(req.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(req).toMatchObject({ model: "m", temperature: 0, max_tokens: 500, response_format: { type: "json_object" } });
    c.temperature = undefined; // what the LLM judge does after a server rejected temperature
    expect(c.request(conv).temperature).toBeUndefined();
  });

  it("an unparseable reply gets a feedback turn, a verifying one ends in an ok verdict", () => {
    const c = conversations();
    const conv = c.begin(T, { repeat: 0 });
    const first = c.step(conv, reply("not json"));
    expect(first.done).toBe(false);
    if (first.done) return;
    expect(first.request.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    const second = c.step(conv, reply(unaffected(DESC)));
    expect(second.done).toBe(true);
    if (!second.done) return;
    expect(second.verdict).toMatchObject({ status: "ok", label: "unaffected", attempts: 2 });
    expect(second.verdict.raw_replies).toHaveLength(2);
  });

  it("freeze leaves the evidence context out and resume gives the same conversation back", () => {
    const c = conversations();
    const conv = c.begin(T, { repeat: 1 });
    const state = c.freeze(conv);
    expect(Object.keys(state)).not.toContain("evCtx");
    const again = c.resume(JSON.parse(JSON.stringify(state)));
    const out = c.step(again, reply(unaffected(DESC)));
    expect(out.done && out.verdict).toMatchObject({ status: "ok", label: "unaffected", repeat: 1 });
  });

  it("no feedback turns left: a reply never parsed is a judge_error", () => {
    const c = conversations(0);
    const out = c.step(c.begin(T, { repeat: 0 }), reply("not json"));
    expect(out.done && out.verdict).toMatchObject({ status: "judge_error", label: null });
  });
});
