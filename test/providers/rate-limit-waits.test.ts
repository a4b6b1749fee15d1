/**
 * The 429s a call got and waited out (src/providers/rate-limit-waits.ts, counted by the send loop): through the real
 * `openai` client against the scripted loopback server, waits recorded (not slept) by `fastCtx` (jitter 0.5).
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { limitedFetch } from "../../src/providers/fetch.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import { addRateLimitWait, noRateLimitWaits, sumRateLimitWaits } from "../../src/providers/rate-limit-waits.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeResponse } from "../helpers/fake-openai.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const REQ: ChatRequest = { model: "fake-model", messages: [{ role: "user", content: "trajectory" }], temperature: 0 };
const slow = (headers: Record<string, string> = {}): FakeResponse => apiError(429, "slow down", { code: "rate_limit_exceeded", headers });

async function send(script: FakeResponse[], options: Record<string, unknown> = {}) {
  fake = await startFakeOpenAI(script);
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0, fetch: limitedFetch() });
  const ctx = fastCtx({ options: options as never });
  return { r: await sendChat(client, REQ, ctx), waits: ctx.waits };
}

describe("rateLimited on a call", () => {
  it("counts each 429 waited out, the waits taken (scaled) and the largest Retry-After honoured", async () => {
    const { r, waits } = await send([slow({ "retry-after": "2" }), slow({ "retry-after-ms": "500" }), slow(), completion("ok")], { timeScale: 0.5 });
    expect(r.outcome).toMatchObject({ kind: "reply", content: "ok" });
    expect(waits).toHaveLength(3);
    expect(r.rateLimited).toEqual({ responses: 3, waited_ms: waits.reduce((a, b) => a + b, 0), max_retry_after_ms: 2000 });
  });

  it("absent on a call that met none; other retried faults are not rate limits", async () => {
    const { r } = await send([apiError(503, "busy"), completion("ok")]);
    expect(r.outcome).toMatchObject({ kind: "reply" });
    expect(r.rateLimited).toBeUndefined();
  });

  it("the 429 that ends the retries is counted, with no wait after it; a backoff without Retry-After honours none", async () => {
    const { r, waits } = await send([slow()], { maxTransportRetries: 2 });
    expect(r.outcome).toMatchObject({ kind: "error" });
    expect(waits).toHaveLength(2);
    expect(r.rateLimited).toEqual({ responses: 3, waited_ms: waits[0] + waits[1], max_retry_after_ms: null });
  });
});

describe("the counts", () => {
  it("add and sum", () => {
    const w = noRateLimitWaits();
    addRateLimitWait(w, 100, undefined);
    addRateLimitWait(w, 2500, 2000);
    expect(w).toEqual({ responses: 2, waited_ms: 2600, max_retry_after_ms: 2000 });
    expect(sumRateLimitWaits(undefined, undefined)).toBeUndefined();
    expect(sumRateLimitWaits(w, undefined)).toEqual(w);
    expect(sumRateLimitWaits(w, { responses: 1, waited_ms: 10, max_retry_after_ms: null })).toEqual({ responses: 3, waited_ms: 2610, max_retry_after_ms: 2000 });
  });
});
