/**
 * Reasoning models and real endpoint quirks (issue 15 point 4): temperature / max_tokens rejected and adapted to
 * once per judge (or `reasoning: true` up front), recorded in the run; a verdict in the reasoning field is a named
 * error and a judge that keeps doing it is stopped; feedback turns never send reasoning back; a prompt over the
 * context is elided to fit or unjudgeable `too_long`. Real `openai` client against the loopback fake server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import type { JudgeConfig } from "../../src/config/judges.js";
import { labelRun } from "../../src/run/label.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeScript } from "../helpers/fake-openai.js";

const OK = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing happened" });
let fake: FakeOpenAI | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function input(n: number, text = "an answer here"): string {
  dir = mkdtempSync(path.join(os.tmpdir(), "ipi-reason-"));
  const f = path.join(dir, "in.jsonl");
  const rows = Array.from({ length: n }, (_, i) => JSON.stringify({ id: `t${i}`, messages: [{ role: "user", content: `question ${i}` }, { role: "assistant", content: text }] }));
  writeFileSync(f, rows.join("\n") + "\n");
  return f;
}
async function judgeOn(script: FakeScript, over: Partial<JudgeConfig> = {}) {
  fake = await startFakeOpenAI(script);
  return createOpenAIJudge(
    { id: "r", model: "o3-mini", family: "openai", base_url: fake.url, concurrency: 1, ...over },
    { retries: 1, minQuoteChars: 12, transport: { sleep: async () => {}, random: () => 0.5 } },
  );
}

/** An o-series server: rejects max_tokens and any temperature, in OpenAI's words. */
const O_SERIES: FakeScript = (req) => {
  if (req.body.max_tokens !== undefined)
    return apiError(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", { code: "unsupported_parameter" });
  if (req.body.temperature !== undefined)
    return apiError(400, "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", { code: "unsupported_value" });
  return completion(OK);
};

describe("an endpoint rejecting temperature and max_tokens", () => {
  it("is adapted to once per judge: every item gets its verdict, two 400s in all, recorded in store.json", async () => {
    const j = await judgeOn(O_SERIES, { max_tokens: 800 });
    const res = await labelRun({ inputs: [input(6)], run: "o", labelsDir: dir!, judges: [j] });
    expect(res.summary.judges[0].by_status).toEqual({ ok: 6 });
    expect(fake!.requests).toHaveLength(6 + 2);
    const later = fake!.requests.slice(3).map((r) => r.body);
    for (const b of later) {
      expect(b.temperature).toBeUndefined();
      expect(b.max_tokens).toBeUndefined();
      expect(b.max_completion_tokens).toBe(800);
    }
    const snap = JSON.parse(readFileSync(path.join(res.runDir, "store.json"), "utf8"));
    expect(snap.judges[0].request_params).toMatchObject({ temperature: null, token_param: "max_completion_tokens" });
    expect(snap.judges[0].request_params.adapted).toHaveLength(2);
    expect(res.adaptations.r.join(" ")).toMatch(/temperature/);
  });

  it("with 6 requests in flight: no probe, the 400s come only from requests already in flight, each resent adapted, recorded once", async () => {
    const j = await judgeOn(O_SERIES, { max_tokens: 800, concurrency: 6 });
    const res = await labelRun({ inputs: [input(12)], run: "o", labelsDir: dir!, judges: [j] });
    expect(res.summary.judges[0].by_status).toEqual({ ok: 12 });
    // the first 6 go at once (2 rejections each at most), the next 6 are built with what the judge learned
    const rejected = fake!.requests.filter((r) => r.body.max_tokens !== undefined || r.body.temperature !== undefined);
    expect(rejected.length).toBeLessThanOrEqual(6 * 2);
    expect(fake!.requests.length).toBe(12 + rejected.length);
    for (const b of fake!.requests.slice(-6).map((r) => r.body)) {
      expect(b.temperature).toBeUndefined();
      expect(b.max_tokens).toBeUndefined();
    }
    expect(j.requestParams().adapted).toHaveLength(2);
  });

  it("reasoning: true sends neither from the first request (no 400 at all)", async () => {
    const j = await judgeOn(O_SERIES, { max_tokens: 800, reasoning: true });
    const res = await labelRun({ inputs: [input(3)], run: "o", labelsDir: dir!, judges: [j] });
    expect(res.summary.judges[0].by_status).toEqual({ ok: 3 });
    expect(fake!.requests).toHaveLength(3);
    expect(j.requestParams()).toEqual({ temperature: null, token_param: "max_completion_tokens", adapted: [] });
  });

  it("a 400 about something else is never retried unchanged", async () => {
    const j = await judgeOn(() => apiError(400, "Invalid 'messages[1].content': string too long."));
    const v = await j.judge(JSON.parse('{"id":"x","source":{"format":"chat-jsonl","path":"p"},"injections":{},"messages":[{"index":0,"role":"user","text":"hi"}]}'), { repeat: 0 });
    expect(v.status).toBe("judge_error");
    expect(fake!.requests).toHaveLength(1);
  });
});

describe("a verdict in the reasoning field", () => {
  const inReasoning = (field: string) => completion(null, { message: { [field]: OK } });

  it.each(["reasoning_content", "reasoning"])("content null, verdict in %s: judge_error reasoning_only, never a label, not resent", async (field) => {
    const j = await judgeOn([inReasoning(field)]);
    const v = await j.judge(JSON.parse('{"id":"x","source":{"format":"chat-jsonl","path":"p"},"injections":{},"messages":[{"index":0,"role":"user","text":"hi"}]}'), { repeat: 0 });
    expect(v.status).toBe("judge_error");
    expect(v.label).toBeNull();
    expect(v.error?.kind).toBe("reasoning_only");
    expect(fake!.requests).toHaveLength(1);
  });

  it("persistently: the judge is stopped with a message saying what to change", async () => {
    const j = await judgeOn(() => inReasoning("reasoning_content"));
    const stopped: string[] = [];
    const res = await labelRun({ inputs: [input(8)], run: "s", labelsDir: dir!, judges: [j], onJudgeStopped: (_id, m) => stopped.push(m) });
    expect(res.stoppedJudges.r).toMatch(/reasoning field/);
    expect(res.stoppedJudges.r).toMatch(/enable_thinking|reasoning-parser|output_mode/);
    expect(fake!.requests.length).toBeLessThanOrEqual(3);
    // the third reply (paid) is kept as the stopped conversation's record (judge_stopped, judged again later)
    expect(res.summary.judges[0].by_status).toEqual({ judge_error: 3 });
    const kinds = readFileSync(path.join(res.runDir, "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l).error?.kind);
    expect(kinds.sort()).toEqual(["judge_stopped", "reasoning_only", "reasoning_only"]);
  });

  it("the stop's paid requests count toward --max-cost at their estimate, never as nothing (review)", async () => {
    const j = await judgeOn(() => inReasoning("reasoning_content"), { price: { input_per_mtok: 1, output_per_mtok: 1 } });
    const res = await labelRun({ inputs: [input(8)], run: "sc", labelsDir: dir!, judges: [j], maxCostUsd: 100 });
    expect(res.stoppedJudges.r).toMatch(/reasoning field/);
    // the stop's paid reply is stored with its cost (issue 23), so the cap counts it at that cost, never as nothing
    const stopped = readFileSync(path.join(res.runDir, "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).find((v) => v.error?.kind === "judge_stopped");
    expect(stopped.cost_usd).toBeGreaterThan(0);
    expect(res.costCap!.spent_usd).toBeGreaterThan(stopped.cost_usd);
  });

  it("a feedback turn never sends the reasoning back (only role and content)", async () => {
    const j = await judgeOn([completion("not json at all", { message: { reasoning_content: "secret chain of thought" } }), completion(OK)]);
    const v = await j.judge(JSON.parse('{"id":"x","source":{"format":"chat-jsonl","path":"p"},"injections":{},"messages":[{"index":0,"role":"user","text":"hi"}]}'), { repeat: 0 });
    expect(v.status).toBe("ok");
    const second = fake!.requests[1].body.messages as Record<string, unknown>[];
    expect(second[2]).toEqual({ role: "assistant", content: "not json at all" });
    expect(JSON.stringify(second)).not.toContain("secret chain of thought");
  });
});

describe("a prompt longer than the context", () => {
  const LONG = "lorem ipsum dolor sit amet ".repeat(2000); // 54,000 characters
  const CONTEXT_400 = apiError(400, "This model's maximum context length is 16385 tokens. However, your messages resulted in 19000 tokens.", { code: "context_length_exceeded" });

  it("the provider's context-length 400: elided with the marker to fit, then an ok verdict marked truncated", async () => {
    const j = await judgeOn((req) => (JSON.stringify(req.body.messages).length > 40_000 ? CONTEXT_400 : completion(OK)));
    const res = await labelRun({ inputs: [input(1, LONG)], run: "c", labelsDir: dir!, judges: [j] });
    const v = JSON.parse(readFileSync(path.join(res.runDir, "verdicts.jsonl"), "utf8").trim());
    expect(v.status).toBe("ok");
    expect(v.truncated).toBe(true);
    expect(fake!.requests.length).toBeGreaterThanOrEqual(2);
    expect(fake!.requests.at(-1)!.body.messages[1].content).toMatch(/elided by ipi-judge/);
  });

  it("a trajectory that never fits: unjudgeable too_long, never a generic 400", async () => {
    const j = await judgeOn(() => CONTEXT_400);
    const res = await labelRun({ inputs: [input(1, LONG)], run: "c", labelsDir: dir!, judges: [j] });
    const v = JSON.parse(readFileSync(path.join(res.runDir, "verdicts.jsonl"), "utf8").trim());
    expect(v.status).toBe("unjudgeable");
    expect(v.error.kind).toBe("too_long");
    expect(v.label).toBeNull();
  });

  it("context_tokens in the config: elided up front to fit", async () => {
    const j = await judgeOn(() => completion(OK), { context_tokens: 8000, max_tokens: 1000 });
    const res = await labelRun({ inputs: [input(1, LONG)], run: "c", labelsDir: dir!, judges: [j] });
    expect(fake!.requests).toHaveLength(1);
    const chars = (fake!.requests[0].body.messages as { content: string }[]).reduce((a, m) => a + m.content.length, 0);
    expect(chars / 3).toBeLessThan(8000 - 1000);
    expect(res.summary.judges[0].by_status).toEqual({ ok: 1 });
  });
});

describe("structured-output schema dialects", () => {
  it.each([
    ["openai", undefined, true],
    ["gemini", "gemini", false],
    ["vllm", "vllm", false],
    ["ollama", "ollama", false],
  ] as const)("%s: the response_format the server accepts; the reply still parsed and checked locally", async (_n, dialect, strict) => {
    const j = await judgeOn(() => completion(OK), dialect ? { schema_dialect: dialect } : {});
    const v = await j.judge(JSON.parse('{"id":"x","source":{"format":"chat-jsonl","path":"p"},"injections":{},"messages":[{"index":0,"role":"user","text":"hi"}]}'), { repeat: 0 });
    expect(v.status).toBe("ok");
    const rf = fake!.requests[0].body.response_format;
    expect(rf.type).toBe("json_schema");
    expect(rf.json_schema.strict === true).toBe(strict);
    const text = JSON.stringify(rf.json_schema.schema);
    if (dialect === "gemini") {
      expect(text).not.toContain("additionalProperties");
      expect(text).not.toContain('"null"');
      expect(text).toContain('"nullable":true');
    } else expect(text).toContain("additionalProperties");
  });

  it("a reply the server let through that breaks the schema is not a label (checked locally)", async () => {
    const j = await judgeOn(() => completion(JSON.stringify({ findings: [], label: "totally_fine", rationale: "x" })), { schema_dialect: "vllm" });
    const v = await j.judge(JSON.parse('{"id":"x","source":{"format":"chat-jsonl","path":"p"},"injections":{},"messages":[{"index":0,"role":"user","text":"hi"}]}'), { repeat: 0 });
    expect(v.status).toBe("judge_error");
    expect(v.label).toBeNull();
  });
});
