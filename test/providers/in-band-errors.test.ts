/**
 * Issue 12 point 4: an HTTP 200 can carry a provider failure (OpenRouter and other routers). Each is a transient
 * provider fault: backoff, retry, then a `judge_error` with the provider's code and message; never a label, never
 * "not OpenAI-compatible". Real `openai` client against the loopback fake server.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { providerFault, sendChat, type ChatRequest } from "../../src/providers/send.js";
import { convertAgentDojo } from "../../src/ingest/agentdojo.js";
import type { Trajectory } from "../../src/types.js";
import { completion, startFakeOpenAI, type FakeOpenAI, type FakeResponse, type FakeScript } from "../helpers/fake-openai.js";
import { CORPUS } from "../helpers/paths.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

let CLEAN: Trajectory;
beforeAll(() => {
  const file = path.join(CORPUS, "runs/claude-3-5-sonnet-20240620/banking/user_task_12/none/none.json");
  const r = convertAgentDojo(JSON.parse(readFileSync(file, "utf8")), { path: file, root: path.join(CORPUS, "runs") });
  if (!r.ok) throw new Error(r.error.message);
  CLEAN = r.trajectory;
});

/** A reply that parses as a valid verdict (it must never become the label when the choice is an error). */
const VERDICT = JSON.stringify({ findings: [], label: "not_exposed", rationale: "planted" });
const REQ: ChatRequest = { model: "m", messages: [{ role: "system", content: "s" }, { role: "user", content: "u" }], temperature: 0 };

/** The three shapes of issue 12.4, each with content that parses as a verdict where a choice exists. */
const SHAPES: Record<string, FakeResponse> = {
  'choice with finish_reason "error" and choices[0].error': (() => {
    const r = completion(VERDICT, { finish_reason: "error" });
    (r.body as any).choices[0].error = { code: 502, message: "Upstream provider returned an error" };
    return r;
  })(),
  "top-level error beside choices": (() => {
    const r = completion(VERDICT);
    (r.body as any).error = { code: "server_error", message: "the model crashed mid-reply" };
    return r;
  })(),
  "top-level error instead of choices": { status: 200, body: { error: { code: 503, message: "No instances available" } } },
  "a 429 inside a choice": (() => {
    const r = completion(VERDICT, { finish_reason: "error" });
    (r.body as any).choices[0].error = { code: 429, message: "Rate limit exceeded: free-models-per-min" };
    return r;
  })(),
};

describe("provider errors inside an HTTP 200", () => {
  for (const [name, shape] of Object.entries(SHAPES)) {
    it(`${name}: retried with backoff, then provider_error with the provider's code and message`, async () => {
      fake = await startFakeOpenAI([shape]);
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0 });
      const ctx = fastCtx({ health: { succeeded: false } });
      const r = await sendChat(client, REQ, ctx);
      expect(r.outcome.kind).toBe("error");
      if (r.outcome.kind !== "error") return;
      expect(r.outcome.error.kind).toBe("provider_error");
      const body = shape.body as any;
      const e = body.error ?? body.choices[0].error;
      expect(r.outcome.error.message).toContain(e.message);
      expect(r.outcome.error.message).toContain(`code ${e.code}`);
      // backoff between tries (6 retries by default), never a stop as "not OpenAI-compatible"
      expect(r.requests).toBe(7);
      expect(ctx.waits).toHaveLength(6);
      expect(ctx.waits[1]).toBeGreaterThan(ctx.waits[0]);
    });

    it(`${name}, then a valid reply: the valid reply is used`, async () => {
      fake = await startFakeOpenAI([shape, completion(JSON.stringify({ findings: [], label: "not_exposed", rationale: "real" }))]);
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0 });
      const r = await sendChat(client, REQ, fastCtx({ health: { succeeded: false } }));
      expect(r.outcome).toMatchObject({ kind: "reply" });
      expect(r.requests).toBe(2);
    });

    it(`${name}: through the judge, a judge_error (never a label) and the judge is not stopped`, async () => {
      fake = await startFakeOpenAI([shape]);
      const waits: number[] = [];
      const j = createOpenAIJudge(
        { id: "j", model: "m", family: "openai", base_url: fake.url, api_key_env: "K" },
        { retries: 2, minQuoteChars: 12, env: { K: TEST_KEY }, transport: { sleep: async (ms) => void waits.push(ms), random: () => 0.5 } },
      );
      const v = await j.judge(CLEAN, { repeat: 0 });
      expect(v.status).toBe("judge_error");
      expect(v.label).toBeNull();
      expect(v.compromised).toBeNull();
      expect(v.error?.kind).toBe("provider_error");
      // a second item: still a judge_error, not a JudgeFatalError (not_openai_compatible)
      await expect(j.judge(CLEAN, { repeat: 1 })).resolves.toMatchObject({ status: "judge_error" });
    });
  }

  it("a 429 inside a choice cuts the AIMD limit like an HTTP 429", async () => {
    fake = await startFakeOpenAI([SHAPES["a 429 inside a choice"]]);
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0 });
    const calls: number[] = [];
    const pacer = { acquire: async () => Object.assign(() => {}, { seq: 1 }), onRateLimited: (s: number) => void calls.push(s), onSuccess: () => {} };
    await sendChat(client, REQ, fastCtx({ pacer: pacer as any, options: { maxTransportRetries: 1 } }));
    expect(calls.length).toBeGreaterThan(0);
  });

  it("providerFault reads each shape and leaves normal completions alone", () => {
    expect(providerFault((completion("x").body as object))).toBeUndefined();
    expect(providerFault({ choices: [{ finish_reason: "stop", error: null, message: { content: "x" } }] })).toBeUndefined();
    expect(providerFault({ error: "overloaded" })).toMatchObject({ message: "overloaded", where: "top-level error" });
    expect(providerFault({ choices: [{ finish_reason: "error", message: { content: "x" } }] })).toMatchObject({ message: "no error details given" });
    expect(providerFault({ error: { code: 429, message: "slow down" } })).toMatchObject({ rateLimited: true, code: 429 });
    expect(providerFault("<html>")).toBeUndefined();
  });
});
