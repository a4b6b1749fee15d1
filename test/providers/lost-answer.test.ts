/**
 * A request the server answered with HTTP 200 whose body never arrived whole (red team 37b F1): the connection reset
 * mid-body, the body timed out while it dripped, or it came as server-sent events with `usage` in a chunk. The model
 * ran and the provider bills it, so its cost is unknown (a response without usage: `cost_usd` null, totals
 * INCOMPLETE, the cost cap counting the reservation), never $0; a streamed reply's usage is read from its chunks.
 * Through the real `openai` client against the scripted loopback server (`../helpers/fake-openai.ts`), on both
 * transports (the default one and a `fetchImpl`).
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { JudgeFatalError } from "../../src/errors.js";
import { readTrajectories } from "../../src/ingest/index.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { limitedFetch } from "../../src/providers/fetch.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import { streamedUsage } from "../../src/providers/usage.js";
import type { Trajectory, Verdict } from "../../src/types.js";
import { completion, startFakeOpenAI, type FakeOpenAI, type FakeScript } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const REQ: ChatRequest = { model: "fake-model", messages: [{ role: "user", content: "trajectory" }], temperature: 0 };
const BIG = JSON.stringify(completion("a".repeat(4000), { usage: { prompt_tokens: 5000, completion_tokens: 100 } }).body);

const PATHS: [string, () => typeof fetch][] = [
  ["the default transport", () => limitedFetch()],
  ["an explicit fetchImpl (the platform fetch)", () => limitedFetch(undefined, globalThis.fetch)],
];

async function clientFor(script: FakeScript, fetchOf: () => typeof fetch): Promise<OpenAI> {
  fake = await startFakeOpenAI(script);
  return new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0, timeout: 30_000, fetch: fetchOf() });
}

/** A chunk of a streamed completion, as `data:` lines; `usage` in the last one when given. */
function sse(content: string, usage?: Record<string, number>): string {
  const base = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m" };
  const chunks = [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], ...(usage ? { usage } : {}) },
  ];
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
}

describe.each(PATHS)("a 200 whose body is lost, over %s", (_name, fetchOf) => {
  it("a reset mid-body after the 200 is a response without usage (lost), then the retry's reply is counted", async () => {
    const client = await clientFor([{ status: 200, rawBody: BIG, resetMidBody: true }, completion("hello")], fetchOf);
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
    expect(r.requests).toBe(2);
    // before: {100, 20} and no word, so the cut request counted $0
    expect(r.usage).toEqual({ prompt_tokens: 100, completion_tokens: 20, missing: 1, lost: 1 });
  });

  it("every attempt cut: each one is a lost response (7 requests, 7 without usage), not 0 tokens at $0; the error is body_cut, saying the server answered", async () => {
    const client = await clientFor([{ status: 200, rawBody: BIG, resetMidBody: true }], fetchOf);
    const r = await sendChat(client, REQ, fastCtx());
    // hostile 51, finding 2: it was kind connection ("connection failed"), as if the server had not answered
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "body_cut" } });
    expect(r.outcome.kind === "error" && r.outcome.error.message).toMatch(/^the server answered HTTP 2xx 7 times, but each body was cut or stalled mid-way \(the last: connection failed: .*generated and probably billed/);
    expect(r.requests).toBe(7);
    expect(r.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, missing: 7, lost: 7 });
  });

  it("a 200 body that drips past the timeout is a lost response too (the timeout is retried as before; every body stalled: body_cut)", async () => {
    const client = await clientFor([{ status: 200, rawBody: BIG, dripMs: 50, dripChars: 4 }], fetchOf);
    const r = await sendChat(client, REQ, fastCtx({ timeoutMs: 300, options: { maxTransportRetries: 1 } }));
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "body_cut" } });
    expect(r.outcome.kind === "error" && r.outcome.error.message).toMatch(/^the server answered HTTP 2xx 2 times, but each body was cut or stalled mid-way \(the last: .*(?:timeout|no answer)/i);
    expect(r.requests).toBe(2);
    expect(r.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, missing: 2, lost: 2 });
  });

  it("some attempts cut, the last a refused-free 500: the kind stays the last fault's, and the message counts the cut bodies", async () => {
    const client = await clientFor([{ status: 200, rawBody: BIG, resetMidBody: true }, { status: 500, body: { error: { message: "boom" } } }], fetchOf);
    const r = await sendChat(client, REQ, fastCtx({ options: { maxTransportRetries: 1 } }));
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "server_error" } });
    expect(r.outcome.kind === "error" && r.outcome.error.message).toContain("1 of them answered HTTP 2xx and then cut mid-body");
  });

  it("an error status whose body is cut is not billed: no usage added", async () => {
    const err = JSON.stringify({ error: { message: "x".repeat(4000) } });
    const client = await clientFor([{ status: 500, rawBody: err, resetMidBody: true }, completion("hello")], fetchOf);
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
    expect(r.usage).toEqual({ prompt_tokens: 100, completion_tokens: 20 });
  });
});

describe("a streamed 200 (server-sent events, though no stream was asked for)", () => {
  it("its usage is read from the chunk that carries it (the reply is still invalid_response, as before)", async () => {
    const client = await clientFor([{ status: 200, headers: { "content-type": "text/event-stream" }, rawBody: sse("{}", { prompt_tokens: 3000, completion_tokens: 90, total_tokens: 3090 }) }], () => limitedFetch());
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response" } });
    expect(r.requests).toBe(2);
    // before: {0, 0}, $0 for two generated replies
    expect(r.usage).toEqual({ prompt_tokens: 6000, completion_tokens: 180 });
  });

  it("a stream without usage is a response without usage; an HTML 200 (no generation) adds none", async () => {
    expect(streamedUsage(sse("hello"))).toEqual({ prompt_tokens: 0, completion_tokens: 0, missing: 1 });
    const client = await clientFor([{ status: 200, headers: { "content-type": "text/html" }, rawBody: "<html>502</html>" }], () => limitedFetch());
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0 });
  });
});

describe("through createOpenAIJudge: the verdict's cost is unknown, with the reason", () => {
  async function firstSample(): Promise<Trajectory> {
    for await (const it of readTrajectories([SAMPLES], {})) if (it.kind === "trajectory") return it.trajectory;
    throw new Error("no sample");
  }
  const judgeAt = (url: string) =>
    createOpenAIJudge(
      { id: "j", model: "fake-model", family: "openai", base_url: url, api_key_env: "IPI_T_KEY", price: { input_per_mtok: 1, output_per_mtok: 10 } },
      { retries: 2, minQuoteChars: 12, env: { IPI_T_KEY: TEST_KEY }, transport: { sleep: async () => {}, maxTransportRetries: 2 } },
    );

  it("all attempts cut after the 200: judge_error with cost_usd null, responses_without_usage and a note", async () => {
    fake = await startFakeOpenAI([{ status: 200, rawBody: BIG, resetMidBody: true }]);
    const v = await judgeAt(fake.url).judge(await firstSample(), { repeat: 0 });
    expect(v).toMatchObject({ status: "judge_error", attempts: 3, cost_usd: null, usage: { responses_without_usage: 3 }, error: { kind: "body_cut" } });
    expect(v.provider_notes?.join(" ")).toMatch(/3 response\(s\) were answered \(HTTP 2xx\) but their body never arrived whole.*cost_usd null/);
  });

  it("every item's bodies cut: the judge stops saying the server answered and something cut the bodies, never 'has not answered once. Check base_url'", async () => {
    fake = await startFakeOpenAI([{ status: 200, rawBody: BIG, resetMidBody: true }]);
    const j = judgeAt(fake.url);
    const t = await firstSample();
    let stop: unknown;
    for (let k = 0; k < 4 && stop === undefined; k++) await j.judge(t, { repeat: k }).catch((e: unknown) => (stop = e));
    expect(stop).toBeInstanceOf(JudgeFatalError);
    const msg = (stop as Error).message;
    expect(msg).toMatch(/3 items in a row failed after every retry \(body_cut: the server answered HTTP 2xx 3 times, but each body was cut or stalled mid-way/);
    expect(msg).toContain("has not given a whole reply once. Check a proxy or load balancer");
    expect(msg).not.toMatch(/has not answered once|Check base_url/);
  });

  it("a stop after streamed replies keeps what they cost (the send's answered requests ride on the fatal error)", async () => {
    const body = sse("{}", { prompt_tokens: 3000, completion_tokens: 90 });
    fake = await startFakeOpenAI([{ status: 200, headers: { "content-type": "text/event-stream" }, rawBody: body }]);
    const j = judgeAt(fake.url);
    const t = await firstSample();
    const first = await j.judge(t, { repeat: 0 });
    expect(first).toMatchObject({ status: "judge_error", error: { kind: "invalid_response" }, attempts: 2, usage: { prompt_tokens: 6000, completion_tokens: 180 } });
    expect(first.cost_usd).toBeCloseTo((6000 + 1800) / 1e6, 9);
    // the third streamed answer stops the judge (not OpenAI-compatible): its usage is in the stored record of what was paid
    const e = await j.judge(t, { repeat: 1 }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(JudgeFatalError);
    const paid = (e as JudgeFatalError & { paid?: Verdict }).paid;
    expect(paid).toMatchObject({ status: "judge_error", error: { kind: "judge_stopped" }, attempts: 1, usage: { prompt_tokens: 3000, completion_tokens: 90 } });
    expect(paid?.cost_usd).toBeCloseTo((3000 + 900) / 1e6, 9);
    expect(fake.requests.length).toBe(3);
  });
});
