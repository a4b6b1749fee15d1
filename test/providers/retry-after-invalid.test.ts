/**
 * A `retry-after` that is not a valid delay (red team 37b F4: `retry-after: -5` was read as 0 and switched the backoff
 * off, 7 requests in 1.7 s): negative, NaN, empty or text values are ignored and the normal backoff applies; valid
 * seconds, milliseconds and HTTP dates are read as before. Through the real `openai` client against the scripted
 * loopback server, waits recorded (not slept) by `fastCtx` (jitter fixed at 0.5).
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { retryAfterMs } from "../../src/providers/faults.js";
import { limitedFetch } from "../../src/providers/fetch.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const REQ: ChatRequest = { model: "fake-model", messages: [{ role: "user", content: "trajectory" }], temperature: 0 };
/** The backoff waits of `fastCtx` (base 1000 ms doubling, jitter factor 0.75). */
const BACKOFF = [750, 1500, 3000];

describe("retryAfterMs ignores values that are not a delay", () => {
  it("negative, NaN, empty, Infinity and text: undefined (normal backoff); valid forms read as before", () => {
    for (const v of ["-5", "-0.5", "NaN", "", "   ", "Infinity", "-Infinity", "soon", "1e999"]) expect(retryAfterMs({ "retry-after": v })).toBeUndefined();
    for (const v of ["-5", "NaN", "", "abc"]) expect(retryAfterMs({ "retry-after-ms": v })).toBeUndefined();
    expect(retryAfterMs({ "retry-after": "0" })).toBe(0);
    expect(retryAfterMs({ "retry-after": "1.5" })).toBe(1500);
    expect(retryAfterMs({ "retry-after-ms": "250" })).toBe(250);
    // an invalid retry-after-ms falls back to a valid retry-after
    expect(retryAfterMs({ "retry-after-ms": "-1", "retry-after": "2" })).toBe(2000);
    const now = Date.now();
    expect(retryAfterMs({ "retry-after": new Date(now + 3000).toUTCString() }, now)).toBeGreaterThan(1000);
    // a date in the past is a wait of 0 (RFC 9110)
    expect(retryAfterMs({ "retry-after": new Date(now - 3000).toUTCString() }, now)).toBe(0);
  });
});

describe("a 429 with an invalid retry-after backs off as without one", () => {
  for (const value of ["-5", "NaN", ""]) {
    it(`retry-after ${JSON.stringify(value)}: the waits are the backoff's`, async () => {
      fake = await startFakeOpenAI([
        { status: 429, headers: { "retry-after": value }, body: { error: { message: "slow down" } } },
        { status: 429, headers: { "retry-after": value }, body: { error: { message: "slow down" } } },
        { status: 429, headers: { "retry-after": value }, body: { error: { message: "slow down" } } },
        completion("hello"),
      ]);
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0, fetch: limitedFetch() });
      const ctx = fastCtx();
      const r = await sendChat(client, REQ, ctx);
      expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
      // before: -5 read as 0 s, then 50-250 ms of jitter each
      expect(ctx.waits).toEqual(BACKOFF);
    });
  }

  it("a valid retry-after is still waited for", async () => {
    fake = await startFakeOpenAI([{ status: 429, headers: { "retry-after": "2" }, body: { error: { message: "slow down" } } }, completion("hello")]);
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0, fetch: limitedFetch() });
    const ctx = fastCtx();
    await sendChat(client, REQ, ctx);
    // 2000 + 25% x 0.5 + 50 + 200 x 0.5
    expect(ctx.waits).toEqual([2400]);
  });
});
