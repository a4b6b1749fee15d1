import { readFileSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { JudgeFatalError } from "../../src/judges/judge.js";
import { RateGate, redact, retryAfterMs, sendChat, type ChatRequest, type SendContext } from "../../src/judges/transport.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeScript } from "../helpers/fake-openai.js";
import { CASES } from "../helpers/paths.js";

const KEY = "sk-test-SECRETKEY-9f8e7d6c5b4a";
const readCase = (name: string) => JSON.parse(readFileSync(path.join(CASES, name), "utf8"));

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const REQ: ChatRequest = {
  model: "fake-model",
  messages: [
    { role: "system", content: "rubric" },
    { role: "user", content: "trajectory" },
  ],
  temperature: 0,
};

/** Records waits instead of sleeping. */
function fastCtx(extra: Partial<SendContext> = {}): SendContext & { waits: number[] } {
  const waits: number[] = [];
  return {
    judgeId: "j1",
    timeoutMs: 2000,
    secrets: [KEY],
    ...extra,
    waits,
    options: { sleep: async (ms: number) => void waits.push(ms), random: () => 0.5, ...(extra.options ?? {}) },
  } as SendContext & { waits: number[] };
}

async function setup(script: FakeScript) {
  fake = await startFakeOpenAI(script);
  return new OpenAI({ apiKey: KEY, baseURL: fake.url, maxRetries: 0, timeout: 2000 });
}

describe("B15: HTTP faults", () => {
  const b15 = readCase("B15.json");
  const [rate, quota, bad, overloaded] = b15.responses as { status: number; headers?: Record<string, string>; body: unknown }[];
  const ok = completion('{"label":"not_exposed","findings":[],"rationale":"x"}');

  it("429 with retry-after 2 waits at least 2 s plus jitter, then retries", async () => {
    const client = await setup([rate, ok]);
    const ctx = fastCtx();
    const r = await sendChat(client, REQ, ctx);
    expect(r.outcome.kind).toBe("reply");
    expect(r.requests).toBe(2);
    expect(ctx.waits).toHaveLength(1);
    expect(ctx.waits[0]).toBeGreaterThanOrEqual(2000);
    expect(ctx.waits[0]).toBeLessThan(2000 * 1.25 + 300);
    expect(fake!.requests).toHaveLength(2);
  });

  it("insufficient_quota stops the judge (JudgeFatalError), no retry", async () => {
    const client = await setup([quota, ok]);
    const err = await sendChat(client, REQ, fastCtx()).catch((e) => e);
    expect(err).toBeInstanceOf(JudgeFatalError);
    expect(err.kind).toBe("insufficient_quota");
    expect(err.judgeId).toBe("j1");
    expect(err.message).toContain("quota");
    expect(fake!.requests).toHaveLength(1);
  });

  it("400 is not retried and surfaces the provider message and request id", async () => {
    const client = await setup([{ ...bad, headers: { "x-request-id": "req_abc123" } }, ok]);
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "bad_request" } });
    if (r.outcome.kind === "error") {
      expect(r.outcome.error.message).toContain("invalid message content type");
      expect(r.outcome.error.message).toContain("req_abc123");
    }
    expect(r.requests).toBe(1);
  });

  it("503 is retried with bounded exponential backoff, then an error", async () => {
    const client = await setup([overloaded]);
    const ctx = fastCtx({ options: { maxTransportRetries: 3, baseBackoffMs: 100, maxBackoffMs: 250 } });
    const r = await sendChat(client, REQ, ctx);
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "server_error" } });
    expect(r.requests).toBe(4);
    // random() = 0.5 -> factor 0.75: 75, 150, 187.5 (capped at 250)
    expect(ctx.waits).toEqual([75, 150, 187.5]);
  });

  it("503 then success", async () => {
    const client = await setup([overloaded, overloaded, ok]);
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.outcome.kind).toBe("reply");
    expect(r.requests).toBe(3);
  });

  it("a real retry-after of 1 s is honoured (real timer)", async () => {
    const client = await setup([apiError(429, "slow down", { code: "rate_limit_exceeded", headers: { "retry-after": "1" } }), ok]);
    const t0 = Date.now();
    const r = await sendChat(client, REQ, { judgeId: "j1", timeoutMs: 5000, secrets: [KEY] });
    const dt = Date.now() - t0;
    expect(r.outcome.kind).toBe("reply");
    expect(dt).toBeGreaterThanOrEqual(1000);
    expect(r.waitsMs[0]).toBeGreaterThanOrEqual(1000);
  });

  it("retry-after-ms wins; a retry-after beyond the limit is an error, not a shorter wait", async () => {
    expect(retryAfterMs({ "retry-after-ms": "250", "retry-after": "9" })).toBe(250);
    expect(retryAfterMs({ "retry-after": "1.5" })).toBe(1500);
    expect(retryAfterMs({ "retry-after": new Date(Date.now() + 3000).toUTCString() }, Date.now())).toBeGreaterThan(1000);
    expect(retryAfterMs({})).toBeUndefined();
    const client = await setup([apiError(429, "later", { headers: { "retry-after": "3600" } }), ok]);
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "rate_limited" } });
    expect(r.requests).toBe(1);
  });

  it("401 and 403 are fatal, with no key in the message even when the server echoes it", async () => {
    for (const st of [401, 403]) {
      const client = await setup([apiError(st, `Incorrect API key provided: ${KEY}. Also sk-test-SECRETK****`)]);
      const err = await sendChat(client, REQ, fastCtx()).catch((e) => e);
      expect(err).toBeInstanceOf(JudgeFatalError);
      expect(err.kind).toBe("auth");
      expect(err.message).not.toContain(KEY);
      expect(err.message).not.toContain("SECRETK");
      await fake!.close();
      fake = undefined;
    }
  });
});

describe("B13: truncated and empty replies", () => {
  const b13 = readCase("B13.json");
  const asResp = (body: unknown) => ({ status: 200, body: { id: "x", object: "chat.completion", created: 1, model: "m", ...(body as object) } });
  const ok = completion('{"label":"not_exposed","findings":[],"rationale":"x"}');

  for (const name of ["a_empty_length", "b_cut_json", "c_null_stop"]) {
    it(`${name}: one resend with a larger max_tokens, outside the feedback budget`, async () => {
      const client = await setup([asResp(b13.responses[name]), ok]);
      const r = await sendChat(client, { ...REQ, max_tokens: 512 }, fastCtx());
      expect(r.outcome.kind).toBe("reply");
      expect(r.requests).toBe(2);
      expect(fake!.requests[0].body.max_tokens).toBe(512);
      expect(fake!.requests[1].body.max_tokens).toBe(1024);
      expect(r.maxTokens).toBe(1024);
      expect(r.raw).toHaveLength(2);
    });
    it(`${name}: twice -> error, never a salvaged label`, async () => {
      const client = await setup([asResp(b13.responses[name])]);
      const r = await sendChat(client, REQ, fastCtx());
      expect(r.outcome.kind).toBe("error");
      if (r.outcome.kind === "error") expect(r.outcome.error.kind).toBe(name === "c_null_stop" ? "empty_response" : "truncated");
      expect(r.requests).toBe(2);
      expect(fake!.requests[0].body.max_tokens).toBeUndefined();
      expect(fake!.requests[1].body.max_tokens).toBe(4096);
    });
  }
  it("usage is summed across the responses", async () => {
    const client = await setup([completion("", { finish_reason: "length", usage: { prompt_tokens: 10, completion_tokens: 512 } }), completion("{}", { usage: { prompt_tokens: 10, completion_tokens: 7 } })]);
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.usage).toEqual({ prompt_tokens: 20, completion_tokens: 519 });
  });
});

describe("other faults", () => {
  it("a hang past the timeout is retried, then a timeout error", async () => {
    const client = await setup([{ hang: true }]);
    const r = await sendChat(client, REQ, fastCtx({ timeoutMs: 200, options: { maxTransportRetries: 1 } }));
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "timeout" } });
    expect(r.requests).toBe(2);
  });
  it("a connection reset is retried", async () => {
    const client = await setup([{ reset: true }, completion("hello")]);
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
    expect(r.requests).toBe(2);
  });
  it("message.refusal and content_filter are refusals", async () => {
    let client = await setup([completion(null, { refusal: "I can't help with that." })]);
    expect((await sendChat(client, REQ, fastCtx())).outcome.kind).toBe("refused");
    await fake!.close();
    client = await setup([completion("", { finish_reason: "content_filter" })]);
    expect((await sendChat(client, REQ, fastCtx())).outcome.kind).toBe("refused");
  });
  it("switches to max_completion_tokens once when the server asks for it", async () => {
    const client = await setup([
      apiError(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
      completion("ok"),
    ]);
    const r = await sendChat(client, { ...REQ, max_tokens: 100 }, fastCtx());
    expect(r.outcome.kind).toBe("reply");
    expect(r.tokenParam).toBe("max_completion_tokens");
    expect(fake!.requests[1].body.max_completion_tokens).toBe(100);
    expect(fake!.requests[1].body.max_tokens).toBeUndefined();
  });
  it("an aborted signal stops without retrying", async () => {
    const client = await setup([{ hang: true }]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const r = await sendChat(client, REQ, fastCtx({ signal: ac.signal, timeoutMs: 5000 }));
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "aborted" } });
    expect(r.requests).toBe(1);
  });
  it("extra_body and response_format are sent as given", async () => {
    const client = await setup([completion("x")]);
    await sendChat(client, { ...REQ, response_format: { type: "json_object" }, extra_body: { provider: { order: ["a"] } } }, fastCtx());
    expect(fake!.requests[0].body).toMatchObject({ response_format: { type: "json_object" }, provider: { order: ["a"] }, temperature: 0 });
    expect(fake!.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe("helpers", () => {
  it("redact removes the key and pieces of it", () => {
    expect(redact(`key ${KEY} and sk-test-SECRETK***`, [KEY])).toBe("key [redacted] and [redacted]***");
    expect(redact("nothing here", [KEY])).toBe("nothing here");
  });
  it("RateGate spaces requests to rpm and tpm", async () => {
    let now = 0;
    const slept: number[] = [];
    const gate = new RateGate(2, 1000, async (ms) => {
      slept.push(ms);
      now += ms;
    }, () => now);
    await gate.acquire(100);
    await gate.acquire(100);
    await gate.acquire(100); // rpm 2 full -> waits for the window
    expect(slept).toEqual([60_000]);
    await gate.acquire(901); // 100 in window (t=60000) + 901 > 1000 -> waits
    expect(slept.length).toBe(2);
  });
});
