/**
 * A small OpenAI-compatible HTTP server for tests (node:http on 127.0.0.1, port 0). It answers
 * `POST .../chat/completions` from a script, records every request (body, headers, path), and never reaches
 * the internet. Use it with the real `openai` client: `new OpenAI({baseURL: fake.url, ...})`.
 *
 * A script is a queue of responses (consumed in order; the last one repeats when the queue runs out) or a
 * function `(req, n) => response` where `n` is the 0-based request count.
 */
import http from "node:http";
import zlib from "node:zlib";
import type { AddressInfo } from "node:net";

/** One recorded request. */
export interface FakeRequest {
  n: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (or the raw text when it is not JSON). */
  body: any;
}

/** One scripted response. */
export interface FakeResponse {
  /** HTTP status; default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** JSON body (ignored when `rawBody` is set). */
  body?: unknown;
  rawBody?: string;
  /** Wait this long (ms) before answering. */
  delayMs?: number;
  /** Never answer (the socket stays open until the client gives up or the server closes). */
  hang?: boolean;
  /** Destroy the socket without an answer (a connection reset). */
  reset?: boolean;
  /** Send the body gzip-compressed (`content-encoding: gzip`); `payload` compresses well, e.g. a run of zeros. */
  gzip?: boolean;
  /** Send the body in pieces of `dripChars` characters (default 1), one every `dripMs` ms (a slow-drip body). */
  dripMs?: number;
  dripChars?: number;
  /** Send the headers and the first half of the body, then destroy the socket (a reset mid-body). */
  resetMidBody?: boolean;
}

export type FakeScript = FakeResponse[] | ((req: FakeRequest, n: number) => FakeResponse | Promise<FakeResponse>);

export interface FakeOpenAI {
  /** Base URL to give the client, e.g. `http://127.0.0.1:43123/v1`. */
  url: string;
  requests: FakeRequest[];
  /** Replace the script (the request count keeps going). */
  setScript(s: FakeScript): void;
  close(): Promise<void>;
}

/**
 * Start the fake server.
 * @param script the responses (see module docstring).
 * @param port the loopback port to listen on (default 0: any free one; a test that restarts a server on its port).
 * @returns the server's base URL (with `/v1`), its recorded requests, and `close()`.
 */
export async function startFakeOpenAI(script: FakeScript, port = 0): Promise<FakeOpenAI> {
  let current = script;
  const requests: FakeRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep the text */
      }
      const n = requests.length;
      const rec: FakeRequest = { n, method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      requests.push(rec);
      let r: FakeResponse;
      if (typeof current === "function") r = await current(rec, n);
      else r = current.length === 0 ? { status: 500, body: { error: { message: "empty script" } } } : current.length > 1 ? current.shift()! : current[0];
      if (r.delayMs) await new Promise((ok) => setTimeout(ok, r.delayMs));
      if (r.hang) return;
      if (r.reset) {
        req.socket.destroy();
        return;
      }
      // a completion answers as the model asked for, as a server does (completion()'s placeholder name replaced): a
      // script that names another model keeps it (src/providers/served-model.ts notes it)
      const asked = typeof body === "object" && body !== null ? (body as { model?: unknown }).model : undefined;
      const answered = typeof asked === "string" && (r.body as { model?: unknown } | undefined)?.model === "fake-model" ? { ...(r.body as object), model: asked } : r.body;
      const payload = r.rawBody ?? JSON.stringify(answered ?? {});
      const head = { "content-type": "application/json", ...(r.headers ?? {}) };
      if (r.gzip) {
        res.writeHead(r.status ?? 200, { ...head, "content-encoding": "gzip" });
        res.end(zlib.gzipSync(payload));
        return;
      }
      if (r.resetMidBody) {
        res.writeHead(r.status ?? 200, { ...head, "content-length": String(Buffer.byteLength(payload)) });
        res.write(payload.slice(0, Math.floor(payload.length / 2)), () => setTimeout(() => req.socket.destroy(), 20));
        return;
      }
      if (r.dripMs) {
        res.writeHead(r.status ?? 200, head);
        const step = Math.max(1, r.dripChars ?? 1);
        for (let i = 0; i < payload.length && !res.destroyed; i += step) {
          res.write(payload.slice(i, i + step));
          await new Promise((ok) => setTimeout(ok, r.dripMs));
        }
        if (!res.destroyed) res.end();
        return;
      }
      res.writeHead(r.status ?? 200, head);
      res.end(payload);
    });
  });
  // Idle keep-alive sockets stay open until the client (or close()) ends them. Node's 5 s server-side idle timeout
  // raced the client's reuse of the socket when a loaded machine paused a test for about a second: the request went
  // out on a socket the server was closing, never arrived, and was retried after a backoff (a pacing test on
  // virtual time saw that backoff as 850 ms of extra span).
  server.keepAliveTimeout = 0;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((ok, bad) => server.once("error", bad).listen(port, "127.0.0.1", ok));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/v1`,
    requests,
    setScript(s) {
      current = s;
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

/**
 * A chat completion response body.
 * @param content the assistant content (null allowed).
 * @param o finish reason (default "stop"), usage (default 100 prompt / 20 completion), refusal, extra message fields.
 */
export function completion(
  content: string | null,
  o: {
    finish_reason?: string;
    usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
    refusal?: string | null;
    message?: Record<string, unknown>;
  } = {},
): FakeResponse {
  const usage = o.usage === null ? undefined : { prompt_tokens: 100, completion_tokens: 20, ...(o.usage ?? {}) };
  return {
    status: 200,
    body: {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 1700000000,
      model: "fake-model",
      choices: [
        {
          index: 0,
          finish_reason: o.finish_reason ?? "stop",
          message: { role: "assistant", content, refusal: o.refusal ?? null, ...(o.message ?? {}) },
        },
      ],
      ...(usage ? { usage: { ...usage, total_tokens: (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0) } } : {}),
    },
  };
}

/** An OpenAI-style error response `{error: {message, type?, code?}}`. */
export function apiError(
  status: number,
  message: string,
  o: { code?: string; type?: string; headers?: Record<string, string> } = {},
): FakeResponse {
  return {
    status,
    headers: o.headers,
    body: { error: { message, type: o.type ?? null, code: o.code ?? null, param: null } },
  };
}
