import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { limitedFetch } from "../../src/providers/fetch.js";
import { JudgeFatalError } from "../../src/errors.js";
import {
  clipMessage,
  connectionCause,
  isUnreachable,
  MAX_PROVIDER_MESSAGE_CHARS,
  redact,
  retryAfterMs,
  sendChat,
  type ChatRequest,
  type SendContext,
} from "../../src/providers/send.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeScript } from "../helpers/fake-openai.js";
import { CASES } from "../helpers/paths.js";

import { TLS_CERT, TLS_KEY } from "../helpers/tls.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

const KEY = TEST_KEY;
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


/**
 * The client's fetch in the fault tests: the platform's `fetch`, and `limitedFetch` (the same with a bounded reader), which every
 * judge uses; each case runs over both, so a fault is handled the same whichever carries it.
 */
const VIA = {
  fetch: undefined,
  "limitedFetch (what judges use)": limitedFetch(),
} as const;
let via: typeof fetch | undefined;

async function setup(script: FakeScript) {
  fake = await startFakeOpenAI(script);
  return new OpenAI({ apiKey: KEY, baseURL: fake.url, maxRetries: 0, timeout: 2000, ...(via ? { fetch: via } : {}) });
}

describe.each(Object.entries(VIA))("over %s", (_name, f) => {
  beforeEach(() => {
    via = f;
  });
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
      const r = await sendChat(client, REQ, { judgeId: "j1", timeoutMs: 5000, secrets: [KEY] });
      expect(r.outcome.kind).toBe("reply");
      // the wait the send loop took (recorded by it), not the wall clock
      expect(r.waitsMs[0]).toBeGreaterThanOrEqual(1000);
    });

    // Until 2026-11 a retry-after beyond the limit was an error outcome (a judge_error verdict per item): a whole
    // corpus became judge_error verdicts in seconds with exit 0. It now stops the judge so its items stay un-judged.
    it("retry-after-ms wins; a retry-after beyond the limit stops the judge (JudgeFatalError rate_limited), not a shorter wait", async () => {
      expect(retryAfterMs({ "retry-after-ms": "250", "retry-after": "9" })).toBe(250);
      expect(retryAfterMs({ "retry-after": "1.5" })).toBe(1500);
      expect(retryAfterMs({ "retry-after": new Date(Date.now() + 3000).toUTCString() }, Date.now())).toBeGreaterThan(1000);
      expect(retryAfterMs({})).toBeUndefined();
      const client = await setup([apiError(429, `later ${KEY}`, { headers: { "retry-after": "3600" } }), ok]);
      const ctx = fastCtx();
      const err = await sendChat(client, REQ, ctx).catch((e) => e);
      expect(err).toBeInstanceOf(JudgeFatalError);
      expect((err as JudgeFatalError).kind).toBe("rate_limited");
      expect((err as JudgeFatalError).judgeId).toBe("j1");
      expect((err as JudgeFatalError).message).toMatch(/the provider asks to wait 3600 s .*run again later to resume/);
      expect((err as JudgeFatalError).message).not.toContain(KEY);
      expect(fake!.requests).toHaveLength(1);
      expect(ctx.waits).toEqual([]);
      // within the limit it is still waited for
      await fake!.close();
      const c2 = await setup([apiError(429, "later", { headers: { "retry-after": "300" } }), ok]);
      const r = await sendChat(c2, REQ, fastCtx());
      expect(r.outcome.kind).toBe("reply");
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
    // red team 26: a reply whose answer is in tool_calls read "neither content nor reasoning"
    it("a reply that called a tool instead of answering in content: empty_response that says so", async () => {
      const call = { tool_calls: [{ id: "c1", type: "function", function: { name: "submit_verdict", arguments: '{"label":"unaffected"}' } }] };
      const client = await setup([completion(null, { finish_reason: "tool_calls", message: call }), completion(null, { finish_reason: "tool_calls", message: call })]);
      const r = await sendChat(client, REQ, fastCtx());
      expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "empty_response", message: expect.stringMatching(/^the reply content was empty and it called a tool instead \(tool_calls: submit_verdict\)/) } });
    });
    it("usage is summed across the responses", async () => {
      const client = await setup([completion("", { finish_reason: "length", usage: { prompt_tokens: 10, completion_tokens: 512 } }), completion("{}", { usage: { prompt_tokens: 10, completion_tokens: 7 } })]);
      const r = await sendChat(client, REQ, fastCtx());
      expect(r.usage).toEqual({ prompt_tokens: 20, completion_tokens: 519 }); // no *_details reported: unknown, absent (not 0)
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
});

describe("helpers", () => {
  it("redact removes the key and pieces of it", () => {
    expect(redact(`key ${KEY} and sk-test-SECRETK***`, [KEY])).toBe("key [redacted] and [redacted]***");
    expect(redact("nothing here", [KEY])).toBe("nothing here");
  });
});

/** A port on 127.0.0.1 where nothing listens (a server is opened and closed on it). */
async function closedPort(): Promise<number> {
  const srv = http.createServer();
  await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((ok) => srv.close(() => ok()));
  return port;
}

describe("an unreachable endpoint stops a judge that never had an answer", () => {
  const client = (baseURL: string) => new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0, timeout: 2000 });

  async function fatal(p: Promise<unknown>): Promise<JudgeFatalError> {
    const e = await p.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(JudgeFatalError);
    return e as JudgeFatalError;
  }

  it("connection refused: 2 requests with one short wait, then JudgeFatalError 'unreachable' naming host and system error, never the key", async () => {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}/v1`;
    const ctx = fastCtx({ health: { succeeded: false }, baseURL: base });
    const e = await fatal(sendChat(client(base), REQ, ctx));
    expect(e.kind).toBe("unreachable");
    expect(e.judgeId).toBe("j1");
    expect(e.message).toMatch(new RegExp(`^cannot reach 127\\.0\\.0\\.1:${port} \\(base_url ${base.replace(/\./g, "\\.")}\\): ECONNREFUSED`));
    expect(e.message).toContain("run again to resume");
    expect(e.message).not.toContain(KEY);
    expect(ctx.waits).toHaveLength(1);
    expect(ctx.waits[0]).toBeLessThanOrEqual(1000);
  });

  it("a port fetch refuses (the report's 127.0.0.1:9) and a base_url with credentials: stopped, credentials not shown", async () => {
    const e = await fatal(sendChat(client("http://127.0.0.1:9/v1"), REQ, fastCtx({ health: { succeeded: false }, baseURL: `http://user:${KEY}@127.0.0.1:9/v1?key=${KEY}` })));
    expect(e.kind).toBe("unreachable");
    expect(e.message).toMatch(/^cannot reach 127\.0\.0\.1:9 \(base_url http:\/\/127\.0\.0\.1:9\/v1\): bad port/);
    expect(e.message).not.toContain(KEY);
    expect(e.message).not.toContain("user");
  });

  it("a certificate that does not verify (self-signed HTTPS server): stopped", async () => {
    const srv = https.createServer({ key: TLS_KEY, cert: TLS_CERT }, (_q, r) => r.end("{}"));
    await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
    try {
      const base = `https://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
      const e = await fatal(sendChat(client(base), REQ, fastCtx({ health: { succeeded: false }, baseURL: base })));
      expect(e.kind).toBe("unreachable");
      expect(e.message).toMatch(/CERT|SELF_SIGNED/);
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((ok) => srv.close(() => ok()));
    }
  });

  it("after one successful response, connection failures keep the backoff-then-error behaviour", async () => {
    const c = await setup([completion("hello")]);
    const health = { succeeded: false };
    const ok = await sendChat(c, REQ, fastCtx({ health, baseURL: fake!.url }));
    expect(ok.outcome).toMatchObject({ kind: "reply", content: "hello" });
    expect(health.succeeded).toBe(true);
    await fake!.close();
    fake = undefined;
    const ctx = fastCtx({ health, options: { maxTransportRetries: 3 } });
    const r = await sendChat(c, REQ, ctx);
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "connection" } });
    expect((r.outcome as { error: { message: string } }).error.message).toMatch(/connection failed: ECONNREFUSED \(connect ECONNREFUSED 127\.0\.0\.1:\d+\) \(gave up after 4 requests\)/);
    expect(r.requests).toBe(4);
    expect(ctx.waits).toEqual([1000, 2000, 4000].map((w) => w * 0.75)); // the usual backoff
  });

  it("without a health record (callers that do not opt in), connection failures are retried as before", async () => {
    const port = await closedPort();
    const r = await sendChat(client(`http://127.0.0.1:${port}/v1`), REQ, fastCtx({ options: { maxTransportRetries: 1 } }));
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "connection" } });
    expect(r.requests).toBe(2);
  });

  it("classifies system errors along the cause chain", () => {
    const wrap = (inner: object) => Object.assign(new Error("Connection error."), { cause: Object.assign(new TypeError("fetch failed"), { cause: inner }) });
    const sys = (code: string, message: string) => Object.assign(new Error(message), { code });
    const cases: Array<[object, string | undefined, boolean]> = [
      [sys("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1"), "ECONNREFUSED", true],
      [sys("ENOTFOUND", "getaddrinfo ENOTFOUND api.exmaple.com"), "ENOTFOUND", true],
      [sys("EAI_AGAIN", "getaddrinfo EAI_AGAIN api.openai.com"), "EAI_AGAIN", true],
      [sys("CERT_HAS_EXPIRED", "certificate has expired"), "CERT_HAS_EXPIRED", true],
      [sys("UNABLE_TO_VERIFY_LEAF_SIGNATURE", "unable to verify the first certificate"), "UNABLE_TO_VERIFY_LEAF_SIGNATURE", true],
      [sys("ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames"), "ERR_TLS_CERT_ALTNAME_INVALID", true],
      [Object.assign(new AggregateError([sys("ECONNREFUSED", "connect ECONNREFUSED ::1:8000"), sys("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:8000")]), {}), "ECONNREFUSED", true],
      [new Error("bad port"), undefined, true],
      [sys("ECONNRESET", "read ECONNRESET"), "ECONNRESET", false],
      [sys("ETIMEDOUT", "connect ETIMEDOUT"), "ETIMEDOUT", false],
      [sys("UND_ERR_SOCKET", "other side closed"), undefined, false],
    ];
    for (const [inner, code, unreachable] of cases) {
      const c = connectionCause(wrap(inner));
      expect(c.code).toBe(code);
      expect(isUnreachable(c), JSON.stringify(c)).toBe(unreachable);
    }
  });
});

describe.each(Object.entries(VIA))("over %s", (_name, f) => {
  beforeEach(() => {
    via = f;
  });
  describe("servers that are not an OpenAI-compatible API", () => {
    const page = `<!DOCTYPE HTML><html><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: 501</p>${"<p>Message: Unsupported method ('POST').</p>".repeat(200)}</body></html>`;
    for (const status of [501, 404, 405]) {
      it(`HTTP ${status} with an HTML page: one request, no retry, the page cut to ${MAX_PROVIDER_MESSAGE_CHARS} characters`, async () => {
        const c = await setup([{ status, rawBody: page, headers: { "content-type": "text/html" } }, completion("never")]);
        const ctx = fastCtx({ health: { succeeded: false } });
        const r = await sendChat(c, REQ, ctx);
        expect(r.requests).toBe(1);
        expect(ctx.waits).toEqual([]);
        expect(r.outcome).toMatchObject({ kind: "error", error: { kind: `http_${status}` } });
        const msg = (r.outcome as { error: { message: string } }).error.message;
        expect(msg.length).toBeLessThan(MAX_PROVIDER_MESSAGE_CHARS + 100);
        expect(msg).toMatch(/more characters\]/);
        expect(msg).toContain(`HTTP ${status}`);
      });
    }
    // A 200 that is not a chat completion: before 2026-11 a text/html page was retried 7 times with backoff
    // (~55 s an item) and marked the judge as having answered; a JSON content type with a non-JSON body failed at once.
    const html200 = { status: 200, rawBody: page, headers: { "content-type": "text/html; charset=utf-8" } };
    const bad200s: [string, object][] = [
      ["an HTML page (text/html)", html200],
      ["a JSON content type with a non-JSON body", { status: 200, rawBody: page }],
      ["JSON that is not a completion", { status: 200, body: { status: "ok", data: [] } }],
    ];
    for (const [what, resp] of bad200s) {
      it(`200 with ${what}: invalid_response after one retry, not an answer (health stays unset)`, async () => {
        const c = await setup([resp, resp, completion("never")]);
        const health = { succeeded: false };
        const ctx = fastCtx({ health, options: { notCompatibleTries: 10 } });
        const r = await sendChat(c, REQ, ctx);
        expect(r.requests).toBe(2);
        expect(ctx.waits).toHaveLength(1);
        expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response" } });
        expect((r.outcome as { error: { message: string } }).error.message.length).toBeLessThan(1000);
        expect(health).toEqual({ succeeded: false, invalidResponses: 2 });
      });
    }
    it("a 200 that is not a completion, then a valid one: the reply, and the judge counts as answered", async () => {
      const c = await setup([html200, completion("hello")]);
      const health = { succeeded: false };
      const r = await sendChat(c, REQ, fastCtx({ health }));
      expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
      expect(r.requests).toBe(2);
      expect(health.succeeded).toBe(true);
    });
    it("a judge whose first 3 responses are not completions stops: JudgeFatalError not_openai_compatible naming the host, never the key", async () => {
      const c = await setup([html200]);
      const health = { succeeded: false };
      const ctx = fastCtx({ health, baseURL: `${fake!.url}?key=${KEY}` });
      const first = await sendChat(c, REQ, ctx);
      expect(first.outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response" } });
      const err = await sendChat(c, REQ, ctx).catch((e) => e);
      expect(err).toBeInstanceOf(JudgeFatalError);
      expect((err as JudgeFatalError).kind).toBe("not_openai_compatible");
      const host = new URL(fake!.url).host;
      expect((err as JudgeFatalError).message.startsWith(`${host} (base_url ${fake!.url}) does not answer like an OpenAI-compatible`)).toBe(true);
      expect((err as JudgeFatalError).message).not.toContain(KEY);
      expect(fake!.requests).toHaveLength(3);
    });
    it("a server that streams (server-sent events) though no stream was asked for: said as such, not 'fix base_url' (red team 27, L10b)", async () => {
      const chunk = (content: string) => `data: ${JSON.stringify({ id: "s", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}\n\n`;
      const sse = { status: 200, headers: { "content-type": "text/event-stream" }, rawBody: chunk("{\"findings\"") + chunk(": []}") + "data: [DONE]\n\n" };
      const c = await setup([sse]);
      const ctx = fastCtx({ health: { succeeded: false } });
      const first = await sendChat(c, REQ, ctx);
      expect(first.outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response", message: expect.stringContaining("streamed its answer as server-sent events") } });
      const err = (await sendChat(c, REQ, ctx).catch((e) => e)) as JudgeFatalError;
      expect(err.kind).toBe("not_openai_compatible");
      expect(err.message).toContain("turn off the forced streaming");
      expect(err.message).not.toContain("fix base_url");
    });
    it("after a valid completion, a 200 that is not one is an invalid_response, never a stop", async () => {
      const c = await setup([completion("hello"), html200]);
      const health = { succeeded: false };
      const ctx = fastCtx({ health, options: { notCompatibleTries: 1 } });
      expect((await sendChat(c, REQ, ctx)).outcome.kind).toBe("reply");
      for (let i = 0; i < 3; i++) expect((await sendChat(c, REQ, ctx)).outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response" } });
    });
    it("other 5xx are still retried", async () => {
      const c = await setup([{ status: 502, rawBody: "bad gateway" }, completion("hello")]);
      const r = await sendChat(c, REQ, fastCtx());
      expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
      expect(r.requests).toBe(2);
    });
    it("clipMessage keeps short texts and cuts long ones with a count", () => {
      expect(clipMessage("short")).toBe("short");
      const long = "x".repeat(1200);
      expect(clipMessage(long)).toBe(`${"x".repeat(500)}[... 700 more characters]`);
      expect(clipMessage(`${"a".repeat(9)}\ud83d\ude00`, 10)).toBe(`${"a".repeat(9)}[... 2 more characters]`);
    });
  });
});
