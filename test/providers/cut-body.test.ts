/**
 * A compressed chat completion body cut short inside its HTTP framing (a proxy forwarded half a gzip stream with a
 * matching length, or ended a chunked body early): the decoders take it without an error, as `fetch`'s do, and the
 * JSON stops mid-way. It was an `invalid_response`, and three of them stopped a new judge with the "not
 * OpenAI-compatible, fix base_url" advice. Now it is error kind `decode_error`, retried like a dropped connection,
 * the same on both paths (the default transport and a `fetchImpl`). Through the real `openai` client against a raw
 * loopback server.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import zlib from "node:zlib";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { JudgeFatalError } from "../../src/errors.js";
import { convertAgentDojo } from "../../src/ingest/agentdojo.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { endsMidJson, ResponseCutError } from "../../src/providers/chat-transport.js";
import { classifyError } from "../../src/providers/faults.js";
import { limitedFetch } from "../../src/providers/fetch.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import { completion } from "../helpers/fake-openai.js";
import { CORPUS } from "../helpers/paths.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

const REQ: ChatRequest = { model: "m", messages: [{ role: "user", content: "x" }], temperature: 0 };
const body = Buffer.from(JSON.stringify(completion("hello ".repeat(400)).body));
const ENCODE: Record<string, (b: Buffer) => Buffer> = { gzip: zlib.gzipSync, br: zlib.brotliCompressSync, deflate: zlib.deflateSync };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A raw HTTP server on 127.0.0.1 answering the n-th request (from 1) with `answer(n)`'s bytes, then closing. */
async function rawServer(answer: (n: number) => Buffer): Promise<{ url: string; requests: () => number }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => undefined);
    let buf = "";
    s.on("data", (d) => {
      buf += d.toString("latin1");
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
      if (buf.length < end + 4 + len) return;
      buf = "";
      s.end(answer(++n));
    });
  });
  await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
  closers.push(
    () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        srv.close(() => ok());
      }),
  );
  return { url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}/v1`, requests: () => n };
}

// `connection: close`: the server ends each socket after its answer, and a client that reused it would have its next
// request counted here, unanswered, and sent again on a new socket (CI, session 30: 5 requests counted for the
// client's 4); what the client saw is what these tests check
const head = (enc: string, framing: string) => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: ${enc}\r\nconnection: close\r\n${framing}\r\n`;
/** `bytes` with a content-length that matches them (the proxy's cut is invisible to HTTP). */
const withLength = (enc: string, bytes: Buffer) => Buffer.concat([Buffer.from(head(enc, `content-length: ${bytes.length}\r\n`)), bytes]);
/** `bytes` as one chunk of a chunked body, ended properly. */
const chunked = (enc: string, bytes: Buffer) =>
  Buffer.concat([Buffer.from(head(enc, "transfer-encoding: chunked\r\n")), Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n0\r\n\r\n")]);

const PATHS: [string, () => typeof fetch][] = [
  ["the default transport", () => limitedFetch()],
  ["an explicit fetchImpl (the platform fetch)", () => limitedFetch(undefined, globalThis.fetch)],
];

describe("a compressed body cut short", () => {
  for (const [path, fetchOf] of PATHS)
    for (const enc of Object.keys(ENCODE))
      for (const [framing, frame] of [
        ["content-length of the half", withLength],
        ["a chunked body ended early", chunked],
      ] as const) {
        it(`${enc}, ${framing}, over ${path}: decode_error after the transport retries, not invalid_response`, async () => {
          const whole = ENCODE[enc](body);
          const srv = await rawServer(() => frame(enc, whole.subarray(0, whole.length >> 1)));
          const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 5000, fetch: fetchOf() });
          // a judge that never answered: not counted toward not_openai_compatible (that would throw a JudgeFatalError)
          const ctx = fastCtx({ options: { maxTransportRetries: 3 }, health: { succeeded: false }, baseURL: srv.url });
          const r = await sendChat(client, REQ, ctx);
          expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "decode_error" } });
          const msg = (r.outcome as { error: { message: string } }).error.message;
          expect(msg).toContain(`could not be decompressed whole (its ${enc} stream ended early`);
          expect(msg).toContain("a proxy or the provider cut it");
          expect(msg).toContain("gave up after 4 requests");
          expect(srv.requests()).toBe(4);
          expect(ctx.waits).toHaveLength(3); // backed off between tries, like a dropped connection
        });
      }

  for (const [path, fetchOf] of PATHS)
    for (const enc of ["gzip", "br"])
      it(`${enc} cut before its first decodable block (decodes to nothing), over ${path}: decode_error, not invalid_response (red team 11)`, async () => {
        const whole = ENCODE[enc](body);
        const srv = await rawServer(() => withLength(enc, whole.subarray(0, enc === "gzip" ? 12 : 3)));
        const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 5000, fetch: fetchOf() });
        const r = await sendChat(client, REQ, fastCtx({ options: { maxTransportRetries: 1 }, health: { succeeded: false } }));
        expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "decode_error" } });
        expect((r.outcome as { error: { message: string } }).error.message).toContain(`its ${enc} stream decoded to nothing`);
      });

  for (const [path, fetchOf] of PATHS)
    it(`a cut once, then the whole body, over ${path}: the reply (retried like a reset)`, async () => {
      const whole = zlib.gzipSync(body);
      const srv = await rawServer((n) => withLength("gzip", n === 1 ? whole.subarray(0, 100) : whole));
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 5000, fetch: fetchOf() });
      const r = await sendChat(client, REQ, fastCtx({ health: { succeeded: false } }));
      expect(r.outcome).toMatchObject({ kind: "reply", content: "hello ".repeat(400) });
      expect(r.requests).toBe(2);
    });

  for (const [path, fetchOf] of PATHS)
    it(`a gzip stream missing only its trailer (CRC, length), over ${path}: taken, as fetch and browsers take it`, async () => {
      // decided: the deflate data ends by itself and the JSON is whole; the platform fetch takes it, so refusing it on
      // the default transport would fail a server there only
      const whole = zlib.gzipSync(body);
      const srv = await rawServer(() => withLength("gzip", whole.subarray(0, whole.length - 8)));
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 5000, fetch: fetchOf() });
      const r = await sendChat(client, REQ, fastCtx());
      expect(r.outcome).toMatchObject({ kind: "reply", content: "hello ".repeat(400) });
      expect(r.requests).toBe(1);
    });

  for (const [path, fetchOf] of PATHS)
    it(`a whole gzip body that is not JSON (an HTML page), over ${path}: still invalid_response`, async () => {
      const srv = await rawServer(() => withLength("gzip", zlib.gzipSync("<html><body>{ not an API</body></html>")));
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 5000, fetch: fetchOf() });
      const r = await sendChat(client, REQ, fastCtx());
      expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response" } });
    });

  // nits12: the client reads a body whose content type is not JSON (or missing) as text, not JSON; a cut stream
  // was then "not JSON" with the fix-base_url advice
  for (const [path, fetchOf] of PATHS)
    for (const type of ["no content-type", "content-type: text/plain"])
      for (const [cut, keep, says] of [
        ["cut half way", (n: number) => n >> 1, "could not be decompressed whole (its gzip stream ended early"],
        ["cut before its first block", () => 12, "its gzip stream decoded to nothing"],
      ] as const)
        it(`gzip ${cut}, ${type}, over ${path}: decode_error whatever the content type, not invalid_response`, async () => {
          const whole = zlib.gzipSync(body);
          const bytes = whole.subarray(0, keep(whole.length));
          const typeLine = type === "no content-type" ? "" : `${type}\r\n`;
          const srv = await rawServer(() => Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\n${typeLine}content-encoding: gzip\r\ncontent-length: ${bytes.length}\r\n\r\n`), bytes]));
          const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 5000, fetch: fetchOf() });
          const r = await sendChat(client, REQ, fastCtx({ options: { maxTransportRetries: 1 }, health: { succeeded: false } }));
          expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "decode_error" } });
          expect((r.outcome as { error: { message: string } }).error.message).toContain(says);
        });

  for (const [path, fetchOf] of PATHS)
    it(`a whole gzip HTML page with no content-type, over ${path}: still invalid_response (read whole: not cut)`, async () => {
      const page = zlib.gzipSync("<html><body>{ not an API</body></html>");
      const srv = await rawServer(() => Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${page.length}\r\n\r\n`), page]));
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 5000, fetch: fetchOf() });
      const r = await sendChat(client, REQ, fastCtx());
      expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response" } });
    });

  it("an uncompressed JSON body cut short is not called a decompression fault", async () => {
    const srv = await rawServer(() =>
      Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n`), body.subarray(0, 100)]),
    );
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 5000, fetch: limitedFetch() });
    const r = await sendChat(client, REQ, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response" } });
  });

  it("the fault table: a ResponseCutError is a retry of kind decode_error", () => {
    const f = classifyError(new ResponseCutError("br", 10), {
      judgeId: "j",
      timeoutMs: 1000,
      timedOut: false,
      aborted: false,
      canDropTemperature: false,
      canSwitchTokenParam: false,
      neverAnswered: true,
      maxRetryAfterMs: 1000,
      random: () => 0.5,
    });
    expect(f).toMatchObject({ action: "retry", kind: "decode_error" });
  });

  it("endsMidJson: an object or array cut inside a string or with a bracket open; nothing else", () => {
    for (const cut of ['{"a":"b', '{"a":1', ' [1,2', '{"a":{"b":[]}', '{"a":"\\"}', "{"]) expect(endsMidJson(cut), cut).toBe(true);
    for (const not of ["<html>{", "", "hello", '{"a":1} x', '{"a":1}}', '"str', "[1]x"]) expect(endsMidJson(not), not).toBe(false);
  });
});

describe("a judge whose every compressed body arrives cut", () => {
  it("stops after UNREACHABLE_STOP items, saying the bodies arrive cut (not 'has not answered', not 'fix base_url')", async () => {
    const whole = zlib.gzipSync(body);
    const srv = await rawServer(() => withLength("gzip", whole.subarray(0, whole.length >> 1)));
    const judge = createOpenAIJudge(
      { id: "judge-cut", model: "m", family: "openai", base_url: srv.url, api_key_env: "IPI_TEST_KEY" },
      { retries: 0, minQuoteChars: 12, env: { IPI_TEST_KEY: TEST_KEY }, transport: { sleep: async () => undefined, random: () => 0.5 } },
    );
    const file = path.join(CORPUS, "runs/claude-3-5-sonnet-20240620/banking/user_task_12/important_instructions/injection_task_0.json");
    const r = convertAgentDojo(JSON.parse(readFileSync(file, "utf8")), { path: file, root: path.join(CORPUS, "runs") });
    if (!r.ok) throw new Error(r.error.message);
    const t = r.trajectory;
    let stopped: unknown;
    for (let i = 0; i < 3 && !stopped; i++) await judge.judge({ ...t, id: `t${i}` }, { repeat: 0 }).catch((e: unknown) => (stopped = e));
    expect(stopped).toBeInstanceOf(JudgeFatalError);
    const msg = (stopped as Error).message;
    expect(msg).toContain("decode_error");
    expect(msg).toContain("has not given a whole reply once (its compressed bodies arrive cut)");
    expect(msg).not.toContain("has not answered once");
    expect(msg).not.toMatch(/fix base_url/i);
  });
});
