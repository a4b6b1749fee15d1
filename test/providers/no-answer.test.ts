/**
 * What counts as "no answer at all" from a server (src/providers/no-answer.ts), through `sendChat`, the real `openai`
 * client and the default transport against loopback servers: refused, closed before any byte (at accept, or after
 * reading the request), reset; and what does not (a reply, a 5xx, a timeout after the request was sent, a body cut
 * after its headers). Also: a request to a server that accepts and at once closes the connection always ends (undici
 * 6.24.1 lost such a request on the first connection of a process, and its timeout did not end it).
 */
import net from "node:net";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { limitedFetch } from "../../src/providers/fetch.js";
import { connectTimeoutMessage, noAnswer } from "../../src/providers/no-answer.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

const REQ: ChatRequest = { model: "m", messages: [{ role: "user", content: "x" }], temperature: 0 };
const closers: (() => Promise<void>)[] = [];
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const c of closers.splice(0)) await c();
});

const clientAt = (url: string) => new OpenAI({ apiKey: TEST_KEY, baseURL: url, maxRetries: 0, fetch: limitedFetch() });

/** A raw server on 127.0.0.1 that does `onSocket` with each connection. */
async function rawServer(onSocket: (s: net.Socket) => void): Promise<string> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    onSocket(s);
  });
  await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
  closers.push(() => new Promise<void>((ok) => (sockets.forEach((s) => s.destroy()), srv.close(() => ok()))));
  return `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}/v1`;
}

/** One send after the judge has answered once (the lost-endpoint rule's case), one retry. */
const send = (url: string, timeoutMs = 5_000) =>
  sendChat(clientAt(url), REQ, fastCtx({ timeoutMs, health: { succeeded: true }, options: { maxTransportRetries: 1 } }));

describe("sendChat: a call whose requests got no answer at all is `unconnected`", () => {
  it("accepted and closed at once, before reading: ends (never hangs), error connection or timeout, unconnected", async () => {
    const url = await rawServer((s) => s.destroy());
    const r = await send(url);
    expect(["connection", "timeout"]).toContain(r.outcome.kind === "error" ? r.outcome.error.kind : "reply");
    expect(r.unconnected).toBe(true);
    expect(r.requests).toBe(2);
  });

  it("closed after reading the request, or reset: error connection, unconnected", async () => {
    for (const close of [(s: net.Socket) => s.once("data", () => s.destroy()), (s: net.Socket) => s.once("data", () => s.resetAndDestroy())]) {
      const r = await send(await rawServer(close));
      expect(r.outcome.kind === "error" && r.outcome.error.kind).toBe("connection");
      expect(r.unconnected).toBe(true);
    }
  });

  it("refused: unconnected", async () => {
    const url = await rawServer(() => undefined);
    await closers.pop()!();
    const r = await send(url);
    expect(r.outcome.kind === "error" && r.outcome.error.message).toMatch(/ECONNREFUSED/);
    expect(r.unconnected).toBe(true);
  });

  it("answered in any way: a reply, a 5xx, a timeout after sending, a body cut after its headers: not unconnected", async () => {
    fake = await startFakeOpenAI([completion("hi"), apiError(500, "down"), { hang: true }, { resetMidBody: true }]);
    const reply = await send(fake.url);
    expect(reply.outcome.kind).toBe("reply");
    expect(reply.unconnected).toBeUndefined();
    const fiveHundred = await sendChat(clientAt(fake.url), REQ, fastCtx({ health: { succeeded: true }, options: { maxTransportRetries: 0 } }));
    expect(fiveHundred.outcome.kind === "error" && fiveHundred.outcome.error.kind).toBe("server_error");
    expect(fiveHundred.unconnected).toBeUndefined();
    const hung = await sendChat(clientAt(fake.url), REQ, fastCtx({ timeoutMs: 300, health: { succeeded: true }, options: { maxTransportRetries: 0 } }));
    expect(hung.outcome.kind === "error" && hung.outcome.error.message).toMatch(/^no answer within 0\.3 s/);
    expect(hung.unconnected).toBeUndefined();
    const cut = await sendChat(clientAt(fake.url), REQ, fastCtx({ health: { succeeded: true }, options: { maxTransportRetries: 0 } }));
    // its 2xx was answered, then the body cut: kind body_cut (hostile 51, finding 2), and still no "unconnected"
    expect(cut.outcome.kind === "error" && cut.outcome.error.kind).toBe("body_cut");
    expect(cut.unconnected).toBeUndefined();
  });
});

describe("noAnswer (the classification)", () => {
  const chain = (code: string) => new OpenAI.APIConnectionError({ cause: Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error(code), { code }) }) });
  it("connection failures: refused/unreachable, connect timeout, closed before any byte; a lost 2xx or any other fault is an answer", () => {
    expect(noAnswer(chain("ECONNREFUSED"), "connection", true, false, 0)).toBe("unreachable");
    expect(noAnswer(chain("UND_ERR_CONNECT_TIMEOUT"), "connection", false, false, 0)).toBe("connect_timeout");
    for (const c of ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]) expect(noAnswer(chain(c), "connection", false, false, 0)).toBe("closed");
    expect(noAnswer(chain("ECONNRESET"), "connection", false, false, 1)).toBeUndefined();
    expect(noAnswer(chain("HPE_INVALID"), "connection", false, false, 0)).toBeUndefined();
    expect(noAnswer(new Error("x"), "other", false, true, 0)).toBeUndefined();
  });
  it("timeouts: no answer only while still connecting", () => {
    expect(noAnswer(new OpenAI.APIConnectionTimeoutError(), "timeout", false, true, 0)).toBe("connect_timeout");
    expect(noAnswer(new OpenAI.APIConnectionTimeoutError(), "timeout", false, false, 0)).toBeUndefined();
    expect(connectTimeoutMessage(true, 1500)).toMatch(/^no connection made within 1\.5 s, the request's timeout/);
    expect(connectTimeoutMessage(false, 120_000)).toMatch(/^no connection made within 10 s, the transport's connect timeout/);
  });
});
