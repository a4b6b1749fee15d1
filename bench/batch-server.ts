/**
 * A loopback OpenAI-compatible Batch API that holds a million requests without holding them in memory (the bench
 * of `label --batch` at scale, `bench/batch.ts`). Everything it keeps per request is on disk under `dir`:
 *
 * - `POST /v1/files` (multipart, purpose `batch`): the upload is read as a stream, line by line; each request line
 *   is answered at once with `benchReply` (`./server.ts`: a verdict whose quote verifies) and only `{custom_id,
 *   reply}` is written to `<dir>/<file id>.in.jsonl` (the bodies are never kept);
 * - `POST /v1/batches`, `GET /v1/batches/:id` (poll), `GET /v1/batches` (list, newest first, `limit`/`after`):
 *   a batch goes `validating` -> `in_progress` -> (after `pollsToComplete` polls) `completed`, or `expired` when its
 *   ordinal is a multiple of `expireEvery` (only the first half of its lines answered: partial results; the rest
 *   are error lines `batch_expired`), or `failed` when its ordinal is a multiple of `failEvery` (nothing run);
 * - `GET /v1/files/:id/content`: the output and error files, streamed from disk; with `slowDownloadMs`, the first
 *   download of each file pauses that long halfway (so a bench can kill its client mid-download).
 *
 * Paid-request ledger: every line answered (a 200 in an output file) is appended to `<dir>/answered.log` as its
 * custom_id, once per answer: a custom_id answered twice is a request paid twice.
 *
 * Run as a child process (`fork`, `--batch-server --dir D`; not `--child`, which `./server.ts` reads when imported): it sends `{port}` over IPC once listening, takes settings
 * `{set: {...}}` and reports `{event: "upload" | "create" | "complete" | "download", ...}` to the parent.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import readline from "node:readline";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { benchReply } from "./server.js";

/** Fault and pacing settings (changeable while running). */
export interface BatchServerSettings {
  /** Polls of a batch before it ends (the first poll moves it to in_progress); default 2. */
  pollsToComplete: number;
  /** Every batch whose ordinal (1-based) is a multiple of this ends `expired` with half its lines answered; 0: never. */
  expireEvery: number;
  /** Every batch whose ordinal is a multiple of this ends `failed` (validation error, nothing run); 0: never. */
  failEvery: number;
  /** The first download of each result file pauses this long halfway; 0: no pause. */
  slowDownloadMs: number;
}

interface Batch {
  id: string;
  n: number;
  object: "batch";
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  created_at: number;
  metadata: Record<string, string> | null;
  request_counts: { total: number; completed: number; failed: number };
  output_file_id: string | null;
  error_file_id: string | null;
  errors?: { object: "list"; data: { code: string; message: string }[] };
  polls: number;
}

/** The server's state; `close()` stops it. */
export interface BatchServer {
  url: string;
  port: number;
  settings: BatchServerSettings;
  batches: Batch[];
  close(): Promise<void>;
}

/**
 * Start the server on 127.0.0.1 (port 0) with its files under `dir` (created).
 * @param onEvent told of every upload, creation, completion and download (for a bench to time its kills).
 */
export async function startBatchServer(dir: string, settings: Partial<BatchServerSettings> = {}, onEvent?: (e: Record<string, unknown>) => void): Promise<BatchServer> {
  fs.mkdirSync(dir, { recursive: true });
  const s: BatchServerSettings = { pollsToComplete: 2, expireEvery: 0, failEvery: 0, slowDownloadMs: 0, ...settings };
  const files = new Map<string, { lines: number; bytes: number; path: string; downloaded: boolean }>();
  const batches: Batch[] = [];
  const answered = fs.openSync(path.join(dir, "answered.log"), "a");
  let nFile = 0;
  const view = (b: Batch) => {
    const { polls: _p, n: _n, ...rest } = b;
    return rest;
  };

  /** Read a multipart upload line by line: the `file` part's JSON lines become `{c, a}` records in `out`. */
  async function upload(req: http.IncomingMessage, id: string): Promise<{ lines: number; bytes: number; purpose: string }> {
    const out = fs.createWriteStream(path.join(dir, `${id}.in.jsonl`));
    let part = "";
    let inHeaders = false;
    let purpose = "";
    let lines = 0;
    let bytes = 0;
    for await (const raw of readline.createInterface({ input: req, crlfDelay: Infinity })) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line.startsWith("--") && !line.startsWith("--{") && /^--[-\w.=']{10,}$/.test(line)) {
        inHeaders = true;
        part = "";
        continue;
      }
      if (inHeaders) {
        if (line === "") inHeaders = false;
        else {
          const m = /name="([^"]*)"/i.exec(line);
          if (m && /^content-disposition/i.test(line)) part = m[1];
        }
        continue;
      }
      if (part === "purpose" && line) purpose = line.trim();
      if (part !== "file" || !line.startsWith("{")) continue;
      bytes += raw.length + 1;
      const l = JSON.parse(line) as { custom_id: string; body: { messages: { role: string; content: string }[] } };
      const user = l.body.messages.find((m) => m.role === "user")?.content ?? "";
      // prompt tokens over-counted (characters / 2.5), so the client's truncation check never fires
      const p = Math.ceil(l.body.messages.reduce((k, m) => k + (typeof m.content === "string" ? m.content.length : 0), 0) / 2.5);
      if (!out.write(JSON.stringify({ c: l.custom_id, a: benchReply(user), p }) + "\n")) await once(out, "drain");
      lines++;
    }
    out.end();
    await once(out, "finish");
    return { lines, bytes, purpose };
  }

  /** End a batch: write its output and error files from the input records (expired: half answered). */
  async function complete(b: Batch): Promise<void> {
    const expire = s.expireEvery > 0 && b.n % s.expireEvery === 0;
    const fail = s.failEvery > 0 && b.n % s.failEvery === 0;
    if (fail) {
      b.status = "failed";
      b.errors = { object: "list", data: [{ code: "invalid_request", message: "the bench server failed this batch on purpose" }] };
      onEvent?.({ event: "complete", batch: b.id, status: b.status });
      return;
    }
    const input = files.get(b.input_file_id)!;
    const keep = expire ? Math.floor(input.lines / 2) : input.lines;
    const outId = `file-${++nFile}`;
    const errId = `file-${++nFile}`;
    const outPath = path.join(dir, `${outId}.jsonl`);
    const errPath = path.join(dir, `${errId}.jsonl`);
    const out = fs.createWriteStream(outPath);
    const err = fs.createWriteStream(errPath);
    let n = 0;
    let log = "";
    for await (const line of readline.createInterface({ input: fs.createReadStream(input.path), crlfDelay: Infinity })) {
      if (!line) continue;
      const r = JSON.parse(line) as { c: string; a: string; p: number };
      n++;
      if (n > keep) {
        const e = { id: `req-${n}`, custom_id: r.c, response: null, error: { code: "batch_expired", message: "This request could not be executed before the completion window expired." } };
        if (!err.write(JSON.stringify(e) + "\n")) await once(err, "drain");
        continue;
      }
      const body = {
        id: `chatcmpl-${b.id}-${n}`,
        object: "chat.completion",
        created: 1700000000,
        model: "bench-model",
        choices: [{ index: 0, message: { role: "assistant", content: r.a }, finish_reason: "stop" }],
        usage: { prompt_tokens: r.p, completion_tokens: 60, total_tokens: r.p + 60 },
      };
      const rec = { id: `batch_req_${b.id}_${n}`, custom_id: r.c, response: { status_code: 200, request_id: `req_${n}`, body }, error: null };
      if (!out.write(JSON.stringify(rec) + "\n")) await once(out, "drain");
      log += r.c + "\n";
      if (log.length > 1 << 16) {
        fs.writeSync(answered, log);
        log = "";
      }
    }
    if (log) fs.writeSync(answered, log);
    out.end();
    err.end();
    await Promise.all([once(out, "finish"), once(err, "finish")]);
    const answeredN = Math.min(keep, n);
    files.set(outId, { lines: answeredN, bytes: fs.statSync(outPath).size, path: outPath, downloaded: false });
    files.set(errId, { lines: n - answeredN, bytes: fs.statSync(errPath).size, path: errPath, downloaded: false });
    b.output_file_id = answeredN ? outId : null;
    b.error_file_id = n - answeredN ? errId : null;
    b.request_counts = { total: n, completed: answeredN, failed: n - answeredN };
    b.status = expire ? "expired" : "completed";
    onEvent?.({ event: "complete", batch: b.id, status: b.status, answered: answeredN, lines: n });
  }

  async function download(res: http.ServerResponse, id: string): Promise<void> {
    const f = files.get(id)!;
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(f.bytes) });
    const slow = s.slowDownloadMs > 0 && !f.downloaded;
    f.downloaded = true;
    onEvent?.({ event: "download", file: id, bytes: f.bytes });
    let sent = 0;
    let paused = false;
    for await (const chunk of fs.createReadStream(f.path)) {
      if (!res.write(chunk)) await once(res, "drain");
      sent += (chunk as Buffer).length;
      if (slow && !paused && sent >= f.bytes / 2) {
        paused = true;
        onEvent?.({ event: "download-paused", file: id });
        await new Promise((r) => setTimeout(r, s.slowDownloadMs));
        if (res.destroyed) return;
      }
    }
    res.end();
  }

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const p = url.pathname.replace(/^\/v1/, "");
    if (req.method === "POST" && p === "/files") {
      const id = `file-${++nFile}`;
      const u = await upload(req, id);
      if (u.purpose !== "batch") return json(res, 400, { error: { message: "purpose=batch required" } });
      files.set(id, { lines: u.lines, bytes: u.bytes, path: path.join(dir, `${id}.in.jsonl`), downloaded: false });
      onEvent?.({ event: "upload", file: id, lines: u.lines, bytes: u.bytes });
      return json(res, 200, { id, object: "file", bytes: u.bytes, created_at: Math.floor(Date.now() / 1000), filename: "upload.jsonl", purpose: "batch" });
    }
    const body = await new Promise<string>((ok) => {
      let t = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (t += c));
      req.on("end", () => ok(t));
    });
    let m = /^\/files\/([^/]+)\/content$/.exec(p);
    if (req.method === "GET" && m) return files.has(m[1]) ? download(res, m[1]) : json(res, 404, { error: { message: "no such file" } });
    if (req.method === "POST" && p === "/batches") {
      const q = JSON.parse(body) as { input_file_id: string; endpoint: string; completion_window: string; metadata?: Record<string, string> };
      const f = files.get(q.input_file_id);
      if (!f) return json(res, 400, { error: { message: `no file ${q.input_file_id}` } });
      const n = batches.length + 1;
      const b: Batch = {
        id: `batch_${n}`,
        n,
        object: "batch",
        endpoint: q.endpoint,
        input_file_id: q.input_file_id,
        completion_window: q.completion_window,
        status: "validating",
        created_at: Math.floor(Date.now() / 1000),
        metadata: q.metadata ?? null,
        request_counts: { total: f.lines, completed: 0, failed: 0 },
        output_file_id: null,
        error_file_id: null,
        polls: 0,
      };
      batches.push(b);
      onEvent?.({ event: "create", batch: b.id, lines: f.lines, key: q.metadata?.ipi_batch_key });
      return json(res, 200, view(b));
    }
    if (req.method === "GET" && p === "/batches") {
      const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 20));
      const all = [...batches].reverse();
      const after = url.searchParams.get("after");
      const from = after ? all.findIndex((b) => b.id === after) + 1 : 0;
      const data = all.slice(from, from + limit).map(view);
      return json(res, 200, { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: from + limit < all.length });
    }
    m = /^\/batches\/([^/]+)$/.exec(p);
    if (req.method === "GET" && m) {
      const b = batches.find((x) => x.id === m![1]);
      if (!b) return json(res, 404, { error: { message: "no such batch" } });
      onEvent?.({ event: "poll", batch: b.id });
      if (!["completed", "expired", "cancelled", "failed"].includes(b.status)) {
        b.polls++;
        if (b.status === "validating") b.status = "in_progress";
        else if (b.polls >= s.pollsToComplete) await complete(b);
        else b.request_counts.completed = Math.floor(b.request_counts.total / 2);
      }
      return json(res, 200, view(b));
    }
    json(res, 404, { error: { message: `no route ${req.method} ${p}` } });
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((e) => {
      if (!res.headersSent) json(res, 500, { error: { message: String(e) } });
      else res.destroy();
    });
  });
  server.requestTimeout = 0;
  server.on("clientError", (e, sock) => {
    process.stderr.write(`batch-server: client error ${String(e)}\n`);
    sock.destroy();
  });
  const sockets = new Set<import("node:net").Socket>();
  server.on("connection", (c) => {
    sockets.add(c);
    c.on("close", () => sockets.delete(c));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    settings: s,
    batches,
    close: () =>
      new Promise<void>((ok) => {
        for (const c of sockets) c.destroy();
        fs.closeSync(answered);
        server.close(() => ok());
      }),
  };
}

if (process.argv.includes("--batch-server")) {
  const i = process.argv.indexOf("--dir");
  const dir = process.argv[i + 1];
  const send = (m: Record<string, unknown>) => process.send?.(m);
  const srv = await startBatchServer(dir, {}, send);
  process.on("message", (m: { set?: Partial<BatchServerSettings>; stop?: boolean }) => {
    if (m.set) Object.assign(srv.settings, m.set);
    if (m.stop) void srv.close().then(() => process.exit(0));
  });
  process.on("disconnect", () => void srv.close().then(() => process.exit(0)));
  send({ port: srv.port });
}
