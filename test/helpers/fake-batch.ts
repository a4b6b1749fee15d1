/**
 * A loopback OpenAI Batch API for tests (node:http on 127.0.0.1, port 0): `POST /v1/files` (multipart upload,
 * purpose batch), `GET /v1/files/:id/content`, `POST /v1/batches`, `GET /v1/batches/:id`, `GET /v1/batches`
 * (list, newest first), `POST /v1/batches/:id/cancel`. It never reaches the internet.
 *
 * A batch goes `validating` -> `in_progress` -> `completed` over `pollsToComplete` polls (default 2) unless
 * `hold` is set (it then stays `in_progress`). On completion every request line of the input file is answered by
 * `answer(body, customId)` (a chat completion body, or an error status); the output file lists the 200 lines in
 * reverse order (so results must be mapped back by custom_id), the error file the others. Optional `expireAfter`: the
 * batch ends `expired` with only the first `expireAfter` lines answered; `expireEvery`: every k-th batch ends
 * `expired` with half its lines answered.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeBatchAnswer {
  status: number;
  body: unknown;
}

export interface FakeBatchObject {
  id: string;
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

export interface FakeBatchServer {
  /** Base URL with `/v1`. */
  url: string;
  files: Map<string, { id: string; purpose: string; filename: string; content: string }>;
  batches: FakeBatchObject[];
  /** Every request line answered, by its body (for "no request twice" checks). */
  answered: Array<{ custom_id: string; body: any }>;
  /** Every HTTP request: method and path. */
  log: Array<{ method: string; path: string }>;
  /** Keep batches in progress while true. */
  hold: boolean;
  pollsToComplete: number;
  /** When set, batches end `expired` with only this many lines answered. */
  expireAfter?: number;
  /** When set, every batch whose ordinal (1-based) is a multiple of it ends `expired` with half its lines answered. */
  expireEvery?: number;
  /** Lines added to every output file as they are (a stray or repeated result line, issue 23). */
  extraOutput?: string[];
  /**
   * Polls of an ended batch that report its `output_file_id` as null (red team 33: a `completed` batch without its
   * output file); `Infinity`: every poll. The batch's `request_counts` still say what completed.
   */
  nullOutputPolls?: number;
  /**
   * Fault injection: called for every HTTP request before it is served; a returned response is sent instead.
   * `after: true` serves the request first (e.g. the batch is created) and then sends the fault instead of the
   * real answer (a creation whose answer is lost).
   */
  fault?: (method: string, path: string) => { status: number; body: unknown; after?: boolean; reset?: boolean } | undefined;
  /**
   * A result download whose body stops halfway (red team 33 F7): called with the file id and the count of its
   * downloads so far (1 = the first); `cut` sends the headers and half the body, then destroys the connection;
   * `stall` sends them and then nothing more (until the server closes).
   */
  partialDownload?: (fileId: string, n: number) => "cut" | "stall" | undefined;
  /** The `request_counts` a poll of the batch answers instead of its own (task s41 #4: a provider's odd counts). */
  countsServed?: (b: FakeBatchObject) => unknown;
  close(): Promise<void>;
}

/** Split a multipart/form-data body into its parts (name, filename, content). */
function multipart(body: Buffer, contentType: string): Array<{ name: string; filename?: string; content: Buffer }> {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) return [];
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  const out: Array<{ name: string; filename?: string; content: Buffer }> = [];
  let at = body.indexOf(boundary);
  while (at >= 0) {
    const start = at + boundary.length;
    if (body.slice(start, start + 2).toString() === "--") break;
    const next = body.indexOf(boundary, start);
    if (next < 0) break;
    const part = body.slice(start + 2, next - 2); // skip CRLF after the boundary and before the next
    const sep = part.indexOf("\r\n\r\n");
    const head = part.slice(0, sep).toString("utf8");
    const name = /name="([^"]*)"/i.exec(head)?.[1] ?? "";
    const filename = /filename="([^"]*)"/i.exec(head)?.[1];
    out.push({ name, filename, content: part.slice(sep + 4) });
    at = next;
  }
  return out;
}

/**
 * Start the fake Batch API.
 * @param answer the reply to one request line (default: HTTP 500).
 */
export async function startFakeBatch(
  answer: (body: any, customId: string) => FakeBatchAnswer | Promise<FakeBatchAnswer> = () => ({ status: 500, body: { error: { message: "no answer" } } }),
): Promise<FakeBatchServer> {
  let nFile = 0;
  let nBatch = 0;
  const downloads = new Map<string, number>();
  const state: Omit<FakeBatchServer, "url" | "close"> = {
    files: new Map(),
    batches: [],
    answered: [],
    log: [],
    hold: false,
    pollsToComplete: 2,
  };
  const addFile = (purpose: string, filename: string, content: string) => {
    const id = `file-${++nFile}`;
    state.files.set(id, { id, purpose, filename, content });
    return id;
  };
  const nullPolls = new Map<string, number>();
  const view = (b: FakeBatchObject) => {
    const { polls: _p, ...rest } = b;
    return rest;
  };

  async function complete(b: FakeBatchObject): Promise<void> {
    const lines = state.files.get(b.input_file_id)!.content.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const out: string[] = [];
    const err: string[] = [];
    let n = 0;
    const ordinal = state.batches.indexOf(b) + 1;
    const keep = state.expireEvery && ordinal % state.expireEvery === 0 ? Math.floor(lines.length / 2) : state.expireAfter;
    for (const l of lines) {
      if (keep !== undefined && n >= keep) {
        err.push(JSON.stringify({ id: `req-${n}`, custom_id: l.custom_id, response: null, error: { code: "batch_expired", message: "This request could not be executed before the completion window expired." } }));
        continue;
      }
      n++;
      state.answered.push({ custom_id: l.custom_id, body: l.body });
      const a = await answer(l.body, l.custom_id);
      // answered as the model asked for (completion()'s placeholder name replaced), as the Batch API does
      if (a.body && typeof a.body === "object" && (a.body as { model?: unknown }).model === "fake-model" && typeof l.body?.model === "string") a.body = { ...(a.body as object), model: l.body.model };
      const rec = JSON.stringify({
        id: `batch_req_${n}`,
        custom_id: l.custom_id,
        response: { status_code: a.status, request_id: `req_${n}`, body: a.body },
        error: null,
      });
      (a.status === 200 ? out : err).push(rec);
    }
    out.reverse();
    out.push(...(state.extraOutput ?? []));
    b.request_counts = { total: lines.length, completed: out.length, failed: lines.length - out.length };
    b.output_file_id = out.length ? addFile("batch_output", `${b.id}_output.jsonl`, out.join("\n") + "\n") : null;
    b.error_file_id = err.length ? addFile("batch_output", `${b.id}_error.jsonl`, err.join("\n") + "\n") : null;
    b.status = keep !== undefined && lines.length > keep ? "expired" : "completed";
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", "http://x");
      const p = url.pathname.replace(/^\/v1/, "");
      state.log.push({ method: req.method ?? "", path: p });
      let send = (status: number, body: unknown, type = "application/json") => {
        const payload = typeof body === "string" ? body : JSON.stringify(body);
        res.writeHead(status, { "content-type": type });
        res.end(payload);
      };
      const raw = Buffer.concat(chunks);
      const f = state.fault?.(req.method ?? "", p);
      if (f?.reset) {
        // a connection fault: the socket is destroyed without an answer
        req.socket.destroy();
        return;
      }
      if (f && !f.after) return send(f.status, f.body);
      if (f?.after) {
        // serve the request, then answer with the fault instead
        const real = send;
        send = () => real(f.status, f.body);
      }
      try {
        if (req.method === "POST" && p === "/files") {
          const parts = multipart(raw, req.headers["content-type"] ?? "");
          const file = parts.find((x) => x.name === "file");
          const purpose = parts.find((x) => x.name === "purpose")?.content.toString("utf8") ?? "";
          if (!file || purpose !== "batch") return send(400, { error: { message: "file and purpose=batch required" } });
          const id = addFile(purpose, file.filename ?? "upload.jsonl", file.content.toString("utf8"));
          return send(200, { id, object: "file", bytes: file.content.length, created_at: 1700000000, filename: file.filename, purpose });
        }
        let m = /^\/files\/([^/]+)\/content$/.exec(p);
        if (req.method === "GET" && m) {
          const f = state.files.get(m[1]);
          if (!f) return send(404, { error: { message: "no such file" } });
          downloads.set(f.id, (downloads.get(f.id) ?? 0) + 1);
          const partial = state.partialDownload?.(f.id, downloads.get(f.id)!);
          if (partial) {
            const data = Buffer.from(f.content, "utf8");
            res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(data.length) });
            res.write(data.subarray(0, data.length >> 1));
            if (partial === "cut") setTimeout(() => res.destroy(), 20);
            return;
          }
          return send(200, f.content, "application/octet-stream");
        }
        if (req.method === "POST" && p === "/batches") {
          const body = JSON.parse(raw.toString("utf8"));
          const f = state.files.get(body.input_file_id);
          if (!f) return send(400, { error: { message: `no file ${body.input_file_id}` } });
          const total = f.content.split("\n").filter(Boolean).length;
          const b: FakeBatchObject = {
            id: `batch_${++nBatch}`,
            object: "batch",
            endpoint: body.endpoint,
            input_file_id: body.input_file_id,
            completion_window: body.completion_window,
            status: "validating",
            created_at: Math.floor(Date.now() / 1000),
            metadata: body.metadata ?? null,
            request_counts: { total, completed: 0, failed: 0 },
            output_file_id: null,
            error_file_id: null,
            polls: 0,
          };
          state.batches.push(b);
          return send(200, view(b));
        }
        if (req.method === "GET" && p === "/batches") {
          const data = [...state.batches].reverse().map(view);
          return send(200, { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
        }
        m = /^\/batches\/([^/]+)(\/cancel)?$/.exec(p);
        if (m) {
          const b = state.batches.find((x) => x.id === m![1]);
          if (!b) return send(404, { error: { message: "no such batch" } });
          if (m[2]) {
            b.status = "cancelled";
            return send(200, view(b));
          }
          if (!["completed", "expired", "cancelled", "failed"].includes(b.status)) {
            b.polls++;
            if (b.status === "validating") b.status = "in_progress";
            else if (!state.hold && b.polls >= state.pollsToComplete) await complete(b);
            else b.request_counts.completed = Math.min(b.request_counts.total, b.request_counts.completed + 1);
          }
          if (b.output_file_id && state.nullOutputPolls && (nullPolls.get(b.id) ?? 0) < state.nullOutputPolls) {
            nullPolls.set(b.id, (nullPolls.get(b.id) ?? 0) + 1);
            return send(200, { ...view(b), output_file_id: null, ...(state.countsServed ? { request_counts: state.countsServed(b) } : {}) });
          }
          return send(200, state.countsServed ? { ...view(b), request_counts: state.countsServed(b) } : view(b));
        }
        send(404, { error: { message: `no route ${req.method} ${p}` } });
      } catch (e) {
        send(500, { error: { message: String(e) } });
      }
    });
  });
  const sockets = new Set<import("node:net").Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  });
}

/** The JSON records of a JSON Lines file, one per non-empty line; `[]` when the file does not exist. */
export const jsonlLines = (f: string): any[] => (fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

/** The user message's content of a chat request body (the rendered trajectory). */
export const userMessageOf = (body: any): string => body.messages.find((m: { role: string }) => m.role === "user").content;
