/**
 * A 429 whose wait asks for none (verifier 37, after red team 37b F4): `retry-after: 0`, `retry-after-ms: 0` and an
 * HTTP date in the past (a server whose clock runs behind ours) switched the backoff off: 7 requests in about 1 s,
 * gaps of 0.07-0.26 s. They now back off as without a header; a positive asked wait is still waited for. Through the
 * real `openai` client against the scripted loopback server, waits recorded (not slept) by `fastCtx` (jitter 0.5).
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
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

/** Three 429s carrying `headers`, then a completion; the waits the send loop took. */
async function waitsFor(headers: () => Record<string, string>): Promise<number[]> {
  const slow = () => ({ status: 429, headers: headers(), body: { error: { message: "slow down" } } });
  fake = await startFakeOpenAI([slow(), slow(), slow(), completion("hello")]);
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0, fetch: limitedFetch() });
  const ctx = fastCtx();
  const r = await sendChat(client, REQ, ctx);
  expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
  return ctx.waits;
}

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
