/**
 * A 429's `retry-after` / `retry-after-ms` (src/providers/faults.ts `retryAfterMs`, the send loop's backoff), through
 * the real `openai` client against the scripted loopback server, waits recorded (not slept) by `fastCtx` (jitter 0.5):
 * - a value that is not a delay (red team 37b F4: `retry-after: -5` was read as 0 and switched the backoff off, 7
 *   requests in 1.7 s): negative, NaN, empty or text values are ignored and the normal backoff applies; valid
 *   seconds, milliseconds and HTTP dates are read as before;
 * - a wait that asks for none (verifier 37, after F4): `retry-after: 0`, `retry-after-ms: 0` and an HTTP date in the
 *   past (a server whose clock runs behind ours) switched the backoff off: 7 requests in about 1 s. They now back off
 *   as without a header; a positive asked wait is still waited for.
 * (Merged from retry-after-invalid.test.ts and retry-after-zero.test.ts, which each set up the same scripted server.)
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

/** `n` 429s carrying `headers` (made anew for each), then a completion; the waits the send loop took. */
async function waitsFor(headers: () => Record<string, string>, n = 3): Promise<number[]> {
  const slow = () => ({ status: 429, headers: headers(), body: { error: { message: "slow down" } } });
  fake = await startFakeOpenAI([...Array.from({ length: n }, slow), completion("hello")]);
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0, fetch: limitedFetch() });
  const ctx = fastCtx();
  const r = await sendChat(client, REQ, ctx);
  expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
  return ctx.waits;
}

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
  for (const value of ["-5", "NaN", ""])
    it(`retry-after ${JSON.stringify(value)}: the waits are the backoff's`, async () => {
      // before: -5 read as 0 s, then 50-250 ms of jitter each
      expect(await waitsFor(() => ({ "retry-after": value }))).toEqual(BACKOFF);
    });

  it("a valid retry-after is still waited for", async () => {
    // 2000 + 25% x 0.5 + 50 + 200 x 0.5
    expect(await waitsFor(() => ({ "retry-after": "2" }), 1)).toEqual([2400]);
  });
});

describe("a 429 that asks for no wait backs off as without a header", () => {
  it("retry-after: 0", async () => {
    expect(await waitsFor(() => ({ "retry-after": "0" }))).toEqual(BACKOFF);
  });
  it("retry-after-ms: 0", async () => {
    expect(await waitsFor(() => ({ "retry-after-ms": "0" }))).toEqual(BACKOFF);
  });
  it("an HTTP date in the past (the server's clock is behind)", async () => {
    expect(await waitsFor(() => ({ "retry-after": new Date(Date.now() - 60_000).toUTCString() }))).toEqual(BACKOFF);
  });
  it("a positive asked wait is still waited for, jitter on top", async () => {
    // 1000 + 25% x 0.5 + 50 + 200 x 0.5, each time
    expect(await waitsFor(() => ({ "retry-after": "1" }))).toEqual([1275, 1275, 1275]);
  });
});
