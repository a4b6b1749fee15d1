/**
 * Findings of the red-team pass on the sending path, each as a test: a 205 that kept a socket (and the process)
 * alive, the API key echoed into a valid reply, listener warnings at concurrency 16, decodings (raw deflate, several codings),
 * answers that are not valid HTTP or not decodable (an answer, not a connection fault to retry for a minute), and
 * a keep-alive socket the server closed (sent again at once, not after a backoff).
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { withoutGoalDenial } from "../helpers/blind-judge.js";
import { bodyJsonEncoder } from "../../src/providers/body-json.js";
import { limitedFetch, ResponseDecodeError, ResponseTooLargeError } from "../../src/providers/fetch.js";
import { JudgeFatalError } from "../../src/errors.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import { readTrajectories } from "../../src/ingest/index.js";
import type { Trajectory } from "../../src/types.js";
import { runCli } from "../helpers/cli.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

const REQ: ChatRequest = { model: "m", messages: [{ role: "user", content: "x" }], temperature: 0 };
let fake: FakeOpenAI | undefined;
let run: Trajectory;
const closers: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  for await (const it of readTrajectories([SAMPLES])) {
    if (it.kind === "trajectory" && Object.keys(it.trajectory.injections).length > 0) {
      run = it.trajectory;
      break;
    }
  }
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const c of closers.splice(0)) await c();
});

/** A raw TCP server on 127.0.0.1: `onData(socket, n)` is called once per connection's first request bytes. */
async function rawServer(onRequest: (s: net.Socket, n: number) => void): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  let conns = 0;
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    conns++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    let buf = "";
    s.on("data", (d) => {
      buf += d.toString("latin1");
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
      if (buf.length < end + 4 + len) return;
      buf = buf.slice(end + 4 + len);
      onRequest(s, ++n);
    });
    s.on("error", () => undefined);
  });
  await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
  closers.push(
    () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        srv.close(() => ok());
      }),
  );
  return { url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}/v1`, connections: () => conns };
}

const okBody = JSON.stringify(completion("hello").body);
const http200 = (body: string | Buffer, extra = "") =>
  Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n`), Buffer.from(body)]);

describe("the chat path (limitedFetch over fetch)", () => {
  it("a 205 whose connection stays open is answered and the socket is closed (the process could not exit)", async () => {
    let closed!: () => void;
    const socketClosed = new Promise<void>((ok) => (closed = ok));
    const srv = await rawServer((s) => {
      s.on("close", () => closed());
      s.write("HTTP/1.1 205 Reset Content\r\n\r\n");
    });
    const res = await limitedFetch()(`${srv.url}/chat/completions`, { method: "POST", body: "{}" });
    expect(res.status).toBe(205);
    // the client closes the socket: awaited, not polled for a second (a loaded machine took longer); a socket left
    // open fails the test by its timeout
    await socketClosed;
  });

  it("decodes: zlib and raw deflate, x-gzip, 'gzip, br' (last applied first), unknown codings as they are; bombs stop at the limit", async () => {
    const text = Buffer.from(okBody);
    const decoded = async (bytes: Buffer, enc: string, limit = 1 << 20) => {
      const srv = await rawServer((s) => s.end(http200(bytes, `content-encoding: ${enc}\r\n`)));
      return limitedFetch(limit)(`${srv.url}/chat/completions`, { method: "POST", body: "{}" }).then((r) => r.text());
    };
    expect(await decoded(zlib.deflateSync(text), "deflate")).toBe(okBody);
    expect(await decoded(zlib.deflateRawSync(text), "deflate")).toBe(okBody);
    expect(await decoded(zlib.brotliCompressSync(zlib.gzipSync(text)), "gzip, br")).toBe(okBody);
    expect(await decoded(zlib.gzipSync(text), "x-gzip")).toBe(okBody);
    // a list with a coding undici does not know (identity is not a content coding: RFC 9110 8.4.1) is left as it is
    expect(await decoded(zlib.gzipSync(text), "gzip, identity")).not.toBe(okBody);
    expect(await decoded(text, "compress-nobody-uses")).toBe(okBody);
    await expect(decoded(text, "gzip")).rejects.toThrow(ResponseDecodeError);
    await expect(decoded(zlib.gzipSync(Buffer.alloc(1 << 20)), "gzip", 1000)).rejects.toThrow(ResponseTooLargeError);
    await expect(decoded(zlib.brotliCompressSync(Buffer.alloc(1 << 20)), "br", 1000)).rejects.toThrow(ResponseTooLargeError);
  });

  for (const [what, answer] of [
    ["a body that lies about its gzip encoding", http200("not gzip at all", "content-encoding: gzip\r\n")],
    ["a malformed status line", Buffer.from("HTTP/1.1 2OO OK\r\ncontent-length: 2\r\n\r\n{}")],
    ["a header value with a control character", Buffer.from("HTTP/1.1 200 OK\r\nx-odd: a\u0001b\r\ncontent-length: 2\r\n\r\n{}")],
    // red team, second pass: undici names these UND_ERR_HEADERS_OVERFLOW and (in the body) HPE_*; both were retried
    // as connection faults, 7 requests per item
    ["headers past undici's size limit", Buffer.from(`HTTP/1.1 200 OK\r\nx-big: ${"a".repeat(100_000)}\r\ncontent-length: 2\r\n\r\n{}`)],
    ["a chunked body with an invalid chunk size", Buffer.from("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nZZZ\r\nabc\r\n")],
  ] as const) {
    it(`${what}: an invalid_response (not a connection fault retried for a minute); three stop a judge that never answered`, async () => {
      const srv = await rawServer((s) => s.end(answer));
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 2000, fetch: limitedFetch() });
      const one = await sendChat(client, REQ, fastCtx({ options: { notCompatibleTries: 10 }, health: { succeeded: false } }));
      expect(one.outcome).toMatchObject({ kind: "error", error: { kind: "invalid_response" } });
      const health = { succeeded: false };
      let e: unknown = null;
      for (let i = 0; i < 3 && e === null; i++) e = await sendChat(client, REQ, fastCtx({ health, baseURL: srv.url })).then(() => null, (x: unknown) => x);
      expect(e).toBeInstanceOf(JudgeFatalError);
      expect((e as JudgeFatalError).kind).toBe("not_openai_compatible");
    });
  }

  it("a keep-alive socket the server closed after answering: the next request goes again at once on a new connection", async () => {
    const srv = await rawServer((s) => {
      s.write(http200(okBody, "connection: keep-alive\r\n"));
      setTimeout(() => s.destroy(), 5); // closes right after answering, while the client keeps the socket
    });
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 2000, fetch: limitedFetch() });
    for (let i = 0; i < 8; i++) {
      const ctx = fastCtx();
      const r = await sendChat(client, REQ, ctx);
      expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
      expect(ctx.waits).toEqual([]); // no backoff
      await new Promise((res) => setTimeout(res, 10 + (i % 3) * 5));
    }
    expect(srv.connections()).toBeGreaterThan(1);
  });
});

describe("a request sent again on a stale keep-alive socket counts as an attempt (red team 27, L10c)", () => {
  it("a server that reads a request on a reused connection and resets it: attempts equal the requests it read", async () => {
    // answers and keeps connections open, but resets the connection of the 2nd and the 5th request it reads
    let received = 0;
    const srv = await rawServer((s) => {
      received++;
      if (received === 2 || received === 5) s.destroy();
      else s.write(http200(okBody, "connection: keep-alive\r\n"));
    });
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: srv.url, maxRetries: 0, timeout: 2000, fetch: limitedFetch() });
    let attempts = 0;
    for (let i = 0; i < 6; i++) {
      const ctx = fastCtx({ bodyJson: bodyJsonEncoder() });
      const r = await sendChat(client, REQ, ctx);
      expect(r.outcome).toMatchObject({ kind: "reply", content: "hello" });
      expect(ctx.waits).toEqual([]); // sent again at once, not after a backoff
      attempts += r.requests;
      await new Promise((res) => setTimeout(res, 10)); // the connection goes back to the pool
    }
    expect(received).toBe(8); // two were reset and sent again
    expect(attempts).toBe(received);
  });
});

describe("the API key never reaches the store, even inside a valid reply", () => {
  it("a server that echoes the key into the rationale and a finding's explanation: redacted in the verdict", async () => {
    const keyEnv = "IPI_REDTEAM_TEST_KEY";
    process.env[keyEnv] = TEST_KEY;
    closers.push(() => void delete process.env[keyEnv]);
    fake = await startFakeOpenAI((req: FakeRequest) => {
      const user = (req.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content;
      const reply = JSON.parse(benchReply(user));
      reply.rationale = `your key is ${TEST_KEY}`;
      reply.findings[0].explanation = `Bearer ${TEST_KEY}`;
      return completion(JSON.stringify(reply));
    });
    const judge = createOpenAIJudge({ id: "k", model: "m", family: "openai", base_url: fake.url, api_key_env: keyEnv }, { retries: 0, minQuoteChars: 12 });
    const v = await judge.judge(run, { repeat: 0 });
    expect(v.status).toBe("ok");
    expect(JSON.stringify(v)).not.toContain(TEST_KEY);
    expect(JSON.stringify(v)).not.toContain("SECRETKEY");
    expect(v.rationale).toContain("[redacted]");
  });
});

describe("no listener warnings", () => {
  it("at concurrency 16 against a server answering 429 at first: nothing on stderr, every item ok", async () => {
    fake = await startFakeOpenAI((req: FakeRequest, n: number) =>
      n <= 40
        ? apiError(429, "Too many requests", { headers: { "retry-after-ms": "5" } })
        : completion(benchReply((req.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content)),
    );
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-rt-"));
    closers.push(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const cfg = path.join(tmp, "judges.json");
    fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "w", model: "m", family: "openai", base_url: fake.url, concurrency: 16 }] }));
    const r = await runCli(["label", SAMPLES, "--judges", cfg, "--run", "n", "--labels-dir", tmp, "--limit", "40", "--json"], {
      env: process.env,
    });
    // the stub never finds compliance: denies_reference_goal names it and exits 3 (red team M4); and the --limit run says
    // it is partial (break55 #4); nothing else is said
    const partial = /^ipi-judge: warning: run incomplete: partial run: .*\n/m;
    expect(withoutGoalDenial(r.stderr)).toMatch(partial);
    expect(withoutGoalDenial(r.stderr).replace(partial, "")).toBe("");
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stdout).this_run.judged).toBe(40);
  }, 60_000);
});
