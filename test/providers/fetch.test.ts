/**
 * The client's `fetch` for chat completions (`limitedFetch`, `src/providers/fetch.ts`): the semantics the `openai`
 * client and the fault policy (`src/providers/send.ts`) rely on. Loopback servers only.
 */
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { limitedFetch } from "../../src/providers/fetch.js";
import { JudgeFatalError } from "../../src/errors.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { readTrajectories } from "../../src/ingest/index.js";
import type { Trajectory } from "../../src/types.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { TLS_CERT, TLS_KEY } from "../helpers/tls.js";

let runs: Trajectory[] = [];
let fake: FakeOpenAI | undefined;
beforeAll(async () => {
  for await (const it of readTrajectories([SAMPLES])) {
    if (it.kind === "trajectory" && Object.keys(it.trajectory.injections).length > 0) runs.push(it.trajectory);
    if (runs.length >= 1) break;
  }
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** What `p` rejects with (null when it resolves). */
const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => null,
    (x: unknown) => x,
  );

describe("limitedFetch: chat completions over the platform fetch", () => {
  it("a certificate that does not verify stops a judge that never had an answer (kind unreachable)", async () => {
    const srv = https.createServer({ key: TLS_KEY, cert: TLS_CERT }, (_q, r) => r.end("{}"));
    await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
    try {
      const base = `https://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
      const judge = createOpenAIJudge(
        { id: "tls", model: "m", family: "openai", base_url: base },
        { retries: 0, minQuoteChars: 12, transport: { timeScale: 0.01 } },
      );
      const e = await rejection(judge.judge(runs[0], { repeat: 0 }));
      expect(e).toBeInstanceOf(JudgeFatalError);
      expect((e as JudgeFatalError).kind).toBe("unreachable");
      expect((e as Error).message).toMatch(/CERT|SELF_SIGNED/);
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((ok) => srv.close(() => ok()));
    }
  });

  it("a URL with credentials is left to fetch, which refuses it as before", async () => {
    const f = limitedFetch();
    await expect(f("http://user:pw@127.0.0.1:9/v1/chat/completions", { method: "POST", body: "{}" })).rejects.toThrow(TypeError);
  });

  it("sends the request headers and body as given, with a content-length; answers keep status and headers", async () => {
    fake = await startFakeOpenAI([{ status: 418, headers: { "x-request-id": "req_1" }, body: { error: { message: "teapot" } } }]);
    const f = limitedFetch();
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "héllo" }] });
    const res = await f(`${fake.url}/chat/completions`, {
      method: "POST",
      headers: new Headers({ "content-type": "application/json", authorization: "Bearer k" }),
      body,
    });
    expect(res.status).toBe(418);
    expect(res.headers.get("x-request-id")).toBe("req_1");
    expect(await res.json()).toEqual({ error: { message: "teapot" } });
    const got = fake.requests[0];
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(got.headers.authorization).toBe("Bearer k");
    expect(got.body.messages[0].content).toBe("héllo");
  });

  it("sends the headers the platform fetch sends (undici's request() under the client, or the fetch given)", async () => {
    const seen: Record<string, string>[] = [];
    const srv = http.createServer((q, r) => {
      const h: Record<string, string> = {};
      for (let i = 0; i < q.rawHeaders.length; i += 2) h[q.rawHeaders[i].toLowerCase()] = q.rawHeaders[i + 1];
      seen.push(h);
      q.resume();
      q.on("end", () => r.end("{}"));
    });
    await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
    try {
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1/chat/completions`;
      for (const headers of [new Headers({ "content-type": "application/json", accept: "application/json", "X-Stainless-Lang": "js" }), undefined])
        for (const f of [limitedFetch(), limitedFetch(undefined, globalThis.fetch)]) expect(await (await f(url, { method: "POST", headers, body: "{}" })).text()).toBe("{}");
      expect(seen).toHaveLength(4);
      expect(seen[0]).toEqual(seen[1]);
      expect(seen[2]).toEqual(seen[3]);
      expect(seen[0]).toMatchObject({ "accept-encoding": "gzip, deflate", "accept-language": "*", "x-stainless-lang": "js", accept: "application/json" });
      expect(seen[2]).toMatchObject({ "content-type": "text/plain;charset=UTF-8", accept: "*/*", "user-agent": "node" });
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((ok) => srv.close(() => ok()));
    }
  });

  it("a 204 answer has no body; an aborted signal rejects with an AbortError before anything is sent", async () => {
    fake = await startFakeOpenAI([{ status: 204, rawBody: "" }]);
    const f = limitedFetch();
    const res = await f(`${fake.url}/chat/completions`, { method: "POST", body: "{}" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    const ac = new AbortController();
    ac.abort();
    await expect(f(`${fake.url}/chat/completions`, { method: "POST", body: "{}", signal: ac.signal })).rejects.toMatchObject({ name: "AbortError" });
    expect(fake.requests).toHaveLength(1);
  });

  it("keeps connections alive: many sequential requests use few sockets", async () => {
    fake = await startFakeOpenAI(() => completion("ok"));
    const ports = new Set<number>();
    const srv = http.createServer((q, r) => {
      ports.add(q.socket.remotePort ?? 0);
      r.setHeader("content-type", "application/json");
      r.end(JSON.stringify(completion("ok").body));
    });
    await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
    try {
      const f = limitedFetch();
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1/chat/completions`;
      for (let i = 0; i < 20; i++) expect((await f(url, { method: "POST", body: "{}" })).status).toBe(200);
      // keep-alive: without it, 20 connections; undici's own fetch opens a second one on this loop (measured: 2)
      expect(ports.size).toBeLessThanOrEqual(2);
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((ok) => srv.close(() => ok()));
    }
  });
});
