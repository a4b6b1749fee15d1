/**
 * Red team (Batch path): the Batch API's files and batches calls follow redirects under the chat path's rule
 * (`followRedirects`, `src/providers/fetch.ts`): on another origin no credential header goes on (the API key, a
 * `headers_env` header of any name). The streamed upload refuses a redirect with one error that says so and names
 * the URL, never a header's value, and is not retried. Real `openai` client, loopback Batch API servers.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIJudge, type OpenAIJudge } from "../../src/judges/llm-judge.js";
import { BatchApi } from "../../src/providers/batch-api.js";
import { startFakeBatch, type FakeBatchServer } from "../helpers/fake-batch.js";

const KEY = "sk-batch-moved-key-0001";
const SECRET = "xsecret-value-batch-0002";
let tmp: string;
const closers: Array<() => Promise<void>> = [];
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-redirects-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A server that answers every request with `status` to `target` + the request's path, recording each request's headers. */
async function redirector(target: string, status = 307): Promise<{ url: string; seen: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }> }> {
  const seen: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }> = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
      res.writeHead(status, { location: `${target}${(req.url ?? "/").replace(/^\/v1/, "")}`, "content-type": "text/plain" });
      res.end("moved");
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  closers.push(() => new Promise<void>((ok) => server.close(() => ok())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

/** A fake Batch API, closed after the test. */
async function target(): Promise<FakeBatchServer> {
  const fake = await startFakeBatch(() => ({ status: 200, body: { choices: [{ message: { role: "assistant", content: "ok" } }] } }));
  closers.push(() => fake.close());
  return fake;
}

function api(baseUrl: string, sleeps: number[] = []): BatchApi {
  const judge = createOpenAIJudge(
    { id: "j", model: "m", family: "openai", base_url: baseUrl, api_key_env: "K", batch: true, headers_env: { "X-Secret": "SEC" } },
    { retries: 0, minQuoteChars: 12, env: { K: KEY, SEC: SECRET } },
  ) as OpenAIJudge;
  return new BatchApi(judge.client, { judgeId: "j", secrets: [KEY, SECRET], sleep: async (ms) => void sleeps.push(ms) });
}

describe("Batch API redirects", () => {
  it("poll, list and download redirected to another origin: followed without the key or the headers_env header", async () => {
    const fake = await target();
    // a proxy in front of the fake that records the headers it receives
    const got: http.IncomingHttpHeaders[] = [];
    const fakeUrl = new URL(fake.url);
    const proxy = http.createServer((req, res) => {
      got.push(req.headers);
      const up = http.request({ host: fakeUrl.hostname, port: fakeUrl.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 500, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    closers.push(() => new Promise<void>((ok) => proxy.close(() => ok())));
    const proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
    // a batch and its result file on the fake, created directly
    const direct = api(fake.url);
    const input = path.join(tmp, "in.jsonl");
    fs.writeFileSync(input, JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { model: "m", messages: [] } }) + "\n");
    const fileId = await direct.upload(input, "in.jsonl");
    const b = await direct.create(fileId, "k1", new Date().toISOString());
    for (let i = 0; i < 3; i++) await direct.retrieve(b.id);

    const from = await redirector(proxied);
    const moved = api(from.url);
    const polled = await moved.retrieve(b.id);
    expect(polled.status).toBe("completed");
    expect(await moved.findByKey("k1", new Date().toISOString())).toBe(b.id);
    const out = path.join(tmp, "out.jsonl");
    await moved.download(polled.output_file_id!, out);
    expect(fs.readFileSync(out, "utf8")).toContain('"custom_id":"a"');
    // the configured origin got the credentials; the other origin none of them
    expect(from.seen.length).toBeGreaterThanOrEqual(3);
    expect(from.seen[0].headers["x-secret"]).toBe(SECRET);
    expect(got).toHaveLength(from.seen.length);
    for (const h of got) {
      expect(JSON.stringify(h)).not.toContain(SECRET);
      expect(JSON.stringify(h)).not.toContain(KEY);
      expect(h.authorization).toBeUndefined();
    }
  });

  it("a redirected create: followed (POST repeated with its body), without credentials on the other origin", async () => {
    const fake = await target();
    const input = path.join(tmp, "in2.jsonl");
    fs.writeFileSync(input, JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { model: "m", messages: [] } }) + "\n");
    const fileId = await api(fake.url).upload(input, "in2.jsonl");
    const from = await redirector(fake.url, 308);
    const b = await api(from.url).create(fileId, "k2", new Date().toISOString());
    expect(b.metadata).toMatchObject({ ipi_batch_key: "k2" });
    expect(fake.batches).toHaveLength(1);
    expect(from.seen).toHaveLength(1);
  });

  it("a redirected upload: one error that says redirect refused and names the URL, not retried, no header value in it", async () => {
    const fake = await target();
    const from = await redirector(fake.url);
    const input = path.join(tmp, "in3.jsonl");
    fs.writeFileSync(input, '{"custom_id":"a"}\n');
    const sleeps: number[] = [];
    const err = await api(from.url, sleeps)
      .upload(input, "in3.jsonl")
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain("redirect refused");
    expect(err!.message).toContain(`${from.url}/files`);
    expect(err!.message).not.toMatch(/Connection error/);
    for (const s of [KEY, SECRET]) expect(err!.message).not.toContain(s);
    expect(sleeps).toEqual([]);
    expect(from.seen).toHaveLength(1);
    expect(fake.files.size).toBe(0);
  });
});
