/**
 * The transport worker (`src/providers/transport-worker.ts`) and the node:http chat path of `limitedFetch`
 * (`src/providers/fetch.ts`): the same verdicts as sending from this thread, fatal errors, aborts and a dying
 * worker, and the fetch semantics the `openai` client and `./transport.ts` rely on. Real `openai` client, loopback
 * servers only. The worker runs the compiled entry (`dist/`; `npm test` builds first).
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import type { JudgeConfig } from "../../src/judges/config.js";
import { limitedFetch } from "../../src/providers/fetch.js";
import { JudgeFatalError } from "../../src/errors.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { TransportWorker } from "../../src/providers/transport-worker.js";
import { chatRequestBody, encodeRequest, estimateTokens, sendChat, type ChatRequest } from "../../src/providers/send.js";
import OpenAI from "openai";
import { fastCtx } from "../helpers/transport-ctx.js";
import { readTrajectories } from "../../src/ingest/index.js";
import type { Trajectory, Verdict } from "../../src/types.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../helpers/fake-openai.js";
import { SAMPLES, WORKER_ENTRY } from "../helpers/paths.js";
import { TEST_KEY } from "../helpers/transport-ctx.js";
import { TLS_CERT, TLS_KEY } from "../helpers/tls.js";
import { runCli } from "../helpers/cli.js";

const KEY_ENV = "IPI_TRANSPORT_WORKER_TEST_KEY";
let runs: Trajectory[] = [];
let fake: FakeOpenAI | undefined;
const workers: TransportWorker[] = [];

beforeAll(async () => {
  process.env[KEY_ENV] = TEST_KEY; // the worker copies the environment when it starts
  for await (const it of readTrajectories([SAMPLES])) {
    if (it.kind === "trajectory" && Object.keys(it.trajectory.injections).length > 0) runs.push(it.trajectory);
    if (runs.length >= 6) break;
  }
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close()));
  await fake?.close();
  fake = undefined;
});
afterAll(() => {
  delete process.env[KEY_ENV];
  runs = [];
});

const answer = (req: FakeRequest) =>
  completion(benchReply((req.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content));

function judgeCfg(over: Partial<JudgeConfig> = {}): JudgeConfig {
  return { id: "w", model: "fake-model", family: "openai", base_url: fake!.url, api_key_env: KEY_ENV, timeout_s: 5, ...over };
}

function viaWorker(cfg: JudgeConfig) {
  const remote = new TransportWorker({ judges: [cfg] }, WORKER_ENTRY);
  workers.push(remote);
  return { remote, judge: createOpenAIJudge(cfg, { retries: 1, minQuoteChars: 12, remote }) };
}

/** What `p` rejects with (null when it resolves). */
const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => null,
    (x: unknown) => x,
  );

/** A verdict without its clock field. */
const comparable = (v: Verdict) => ({ ...v, created_at: undefined });

describe("TransportWorker", () => {
  it("gives the same verdicts as sending from this thread, and the server sees the same requests", async () => {
    fake = await startFakeOpenAI(answer);
    const cfg = judgeCfg();
    const local = createOpenAIJudge(cfg, { retries: 1, minQuoteChars: 12 });
    const { judge } = viaWorker(cfg);
    for (const t of runs) {
      const a = await local.judge(t, { repeat: 0 });
      const b = await judge.judge(t, { repeat: 0 });
      expect(b.status).toBe("ok");
      expect(comparable(b)).toEqual(comparable(a));
    }
    expect(fake.requests).toHaveLength(2 * runs.length);
    const [x, y] = [fake.requests[0], fake.requests[1]];
    expect(y.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(y.headers["content-type"]).toBe(x.headers["content-type"]);
    expect(y.body.model).toBe(x.body.model);
    expect(y.body.response_format).toEqual(x.body.response_format);
  });

  it("the worker is started with the judge configs only: the key is read from its environment, never posted", () => {
    fake = { url: "http://127.0.0.1:1/v1" } as FakeOpenAI;
    const cfg = judgeCfg();
    const w = new TransportWorker({ judges: [cfg] }, WORKER_ENTRY);
    expect(JSON.stringify((w as unknown as { data: unknown }).data)).not.toContain(TEST_KEY);
    fake = undefined;
  });

  it("sends requests of several judges in parallel from one worker", async () => {
    fake = await startFakeOpenAI(async (req) => {
      await new Promise((r) => setTimeout(r, 100));
      return answer(req);
    });
    const cfgA = judgeCfg({ id: "a" });
    const cfgB = judgeCfg({ id: "b", family: "anthropic" });
    const remote = new TransportWorker({ judges: [cfgA, cfgB] }, WORKER_ENTRY);
    workers.push(remote);
    const a = createOpenAIJudge(cfgA, { retries: 1, minQuoteChars: 12, remote });
    const b = createOpenAIJudge(cfgB, { retries: 1, minQuoteChars: 12, remote });
    // the worker thread's start-up (seconds on a loaded machine) is not what is timed: one request first
    expect((await a.judge(runs[0], { repeat: 1 })).status).toBe("ok");
    const t0 = performance.now();
    const vs = await Promise.all(runs.flatMap((t) => [a.judge(t, { repeat: 0 }), b.judge(t, { repeat: 0 })]));
    expect(vs.every((v) => v.status === "ok")).toBe(true);
    expect(vs.map((v) => v.judge_id).sort()).toEqual([...Array(runs.length).fill("a"), ...Array(runs.length).fill("b")]);
    // 12 requests of 100 ms each, all in flight together: far less than one after the other
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(remote.inFlight).toBe(0);
  });

  it("a 401 rejects with a JudgeFatalError (kind auth) here, without the key", async () => {
    fake = await startFakeOpenAI([apiError(401, `Incorrect API key provided: ${TEST_KEY}`)]);
    const { judge } = viaWorker(judgeCfg());
    const e = await rejection(judge.judge(runs[0], { repeat: 0 }));
    expect(e).toBeInstanceOf(JudgeFatalError);
    expect((e as JudgeFatalError).kind).toBe("auth");
    expect((e as JudgeFatalError).judgeId).toBe("w");
    expect((e as Error).message).not.toContain(TEST_KEY);
  });

  it("connection refused before any answer stops the judge (kind unreachable, node:http path)", async () => {
    const srv = http.createServer();
    await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((ok) => srv.close(() => ok()));
    fake = { url: `http://127.0.0.1:${port}/v1` } as FakeOpenAI;
    const { judge } = viaWorker(judgeCfg());
    fake = undefined;
    const e = await rejection(judge.judge(runs[0], { repeat: 0 }));
    expect(e).toBeInstanceOf(JudgeFatalError);
    expect((e as JudgeFatalError).kind).toBe("unreachable");
    expect((e as Error).message).toContain("ECONNREFUSED");
  });

  it("the run's signal aborts a request hanging in the worker: a judge_error 'aborted' at once, no retry", async () => {
    fake = await startFakeOpenAI([{ hang: true }]);
    const { judge, remote } = viaWorker(judgeCfg({ timeout_s: 30 }));
    const ac = new AbortController();
    const p = judge.judge(runs[0], { repeat: 0, signal: ac.signal });
    // abort once the request hangs at the server (a fixed delay raced the worker's start-up on a loaded machine)
    await expect.poll(() => fake!.requests.length, { timeout: 60_000, interval: 20 }).toBe(1);
    const t0 = performance.now();
    ac.abort();
    const v = await p;
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(v.status).toBe("judge_error");
    expect(v.error?.kind).toBe("aborted");
    expect(fake.requests).toHaveLength(1);
    expect(remote.inFlight).toBe(0);
  });

  it("a worker that dies fails the requests in flight (recorded, judged again on resume); the next send starts a new one", async () => {
    let n = 0;
    fake = await startFakeOpenAI((req) => (++n === 1 ? { hang: true } : answer(req)));
    const { judge, remote } = viaWorker(judgeCfg({ timeout_s: 30 }));
    const p = rejection(judge.judge(runs[0], { repeat: 0 })) as Promise<Error | null>;
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    await remote.close();
    const e = await p;
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(JudgeFatalError);
    expect(e!.message).toMatch(/transport worker exited/);
    const v = await judge.judge(runs[1], { repeat: 0 });
    expect(v.status).toBe("ok");
  });
});

describe("an encoded request (what the worker receives: the body serialized by the main thread)", () => {
  const REQ: ChatRequest = {
    model: "m",
    messages: [
      { role: "system", content: "rubric" },
      { role: "user", content: "tr\u00e9s \ud83d\ude00 lone \ud800 <x> \"q\"" },
    ],
    temperature: 0,
    max_tokens: 100,
    response_format: { type: "json_object" },
    extra_body: { provider: { order: ["a"] } },
  };
  const client = () => new OpenAI({ apiKey: TEST_KEY, baseURL: fake!.url, maxRetries: 0, timeout: 2000 });

  it("is sent byte for byte as the object path sends it, with the same headers that matter", async () => {
    fake = await startFakeOpenAI([completion("a"), completion("b")]);
    const a = await sendChat(client(), REQ, fastCtx());
    const b = await sendChat(client(), encodeRequest(REQ, "max_tokens"), fastCtx());
    expect([a.outcome, b.outcome]).toMatchObject([{ kind: "reply", content: "a" }, { kind: "reply", content: "b" }]);
    const [x, y] = fake.requests;
    expect(y.body).toEqual(x.body);
    expect(y.body).toEqual(JSON.parse(JSON.stringify(chatRequestBody(REQ))));
    for (const h of ["content-type", "authorization", "content-length"]) expect(y.headers[h]).toBe(x.headers[h]);
    expect(encodeRequest(REQ, "max_tokens").estimate).toBe(estimateTokens(REQ));
  });

  it("a truncated reply is sent again with a larger max_tokens; a server asking for max_completion_tokens gets it", async () => {
    fake = await startFakeOpenAI([
      completion("cut", { finish_reason: "length" }),
      apiError(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
      completion("ok"),
    ]);
    const r = await sendChat(client(), encodeRequest(REQ, "max_tokens"), fastCtx());
    expect(r.outcome).toMatchObject({ kind: "reply", content: "ok" });
    expect(r.tokenParam).toBe("max_completion_tokens");
    const [first, second, third] = fake.requests.map((q) => q.body);
    expect(first.max_tokens).toBe(100);
    expect(second.max_tokens).toBe(200);
    expect(third.max_completion_tokens).toBe(200);
    expect(third.max_tokens).toBeUndefined();
    expect({ ...third, max_completion_tokens: undefined }).toEqual({ ...first, max_tokens: undefined });
  });
});

describe("the CLI sends from the transport worker by default (IPI_NO_WORKER=1: from the main thread)", () => {
  it("same labels both ways on the 82 samples at concurrency 16, and nothing on stderr (no listener warnings)", async () => {
    fake = await startFakeOpenAI(answer);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tw-"));
    try {
      const cfg = path.join(tmp, "judges.json");
      fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "w", model: "m", family: "openai", base_url: fake.url, concurrency: 16 }] }));
      const labelsOf = async (run: string, env: NodeJS.ProcessEnv) => {
        const r = await runCli(["label", SAMPLES, "--judges", cfg, "--run", run, "--labels-dir", tmp, "--json"], { env });
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        const vs = fs.readFileSync(path.join(tmp, run, "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Verdict);
        return new Map(vs.map((v) => [v.trajectory_id, [v.status, v.label, v.downgraded, v.attempts]]));
      };
      const viaWorkerLabels = await labelsOf("w", { ...process.env, IPI_NO_WORKER: "" });
      const inThread = await labelsOf("t", { ...process.env, IPI_NO_WORKER: "1" });
      expect(viaWorkerLabels.size).toBe(82);
      expect(viaWorkerLabels).toEqual(inThread);
      expect([...viaWorkerLabels.values()].every(([status]) => status === "ok")).toBe(true);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("limitedFetch: chat completions over node:http(s)", () => {
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
      expect(ports.size).toBe(1);
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((ok) => srv.close(() => ok()));
    }
  });
});
