/**
 * The `fetch` of the `openai` v6 client (its `fetch` option) for every judge: chat completions go over Node's own
 * `http`/`https` with a keep-alive agent, their response body bounded in size; every other request (the Batch
 * API's files and batches) goes to `globalThis.fetch` as is.
 *
 * Why a bound: without it a 200 reply of 84 MB is read whole (and kept in every raw reply of the verdict), and a
 * 2 MB gzip body that expands to 2 GB is decompressed whole (2.1 GB RSS). The body is decoded here
 * (`content-encoding` gzip, deflate, br) and the limit counts decoded bytes, so a decompression bomb stops at the
 * limit too. Batch result files are legitimately large and are not limited.
 *
 * Why not `fetch` (undici) for chat completions: the `openai` client over `fetch` cost 1.3-1.7 ms of CPU per
 * request on the benchmark's loopback server, over this path 0.6-0.85 ms (`README-bench.md`): the WHATWG
 * streams of a fetch body (and the stream that counted its bytes) were most of it. A chat completion body is
 * small and read whole anyway, so it is read here into one buffer and handed to the client as a `Response`.
 *
 * What the client sees is what `fetch` gives it: a `Response` with status and headers; connection faults reject
 * with the system error (`ECONNREFUSED`, `ECONNRESET`, certificate codes: `./transport.ts` reads `code` along the
 * cause chain); an abort (the client's timeout, the run's Ctrl-C) rejects with an `AbortError`. A body past the
 * limit does not reject the fetch (the client would take that for a connection failure): the `Response` is
 * returned with a body whose reading rejects with {@link ResponseTooLargeError}. Requests this path does not
 * handle exactly like `fetch` (credentials in the URL, a non-string body, other protocols) go to `fetch`.
 */
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";

/** Default limit of one chat completion response body: 4 MiB of decoded bytes. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A response body passed the limit; `sendChat` (`./transport.ts`) turns it into error kind `response_too_large`. */
export class ResponseTooLargeError extends Error {
  constructor(public readonly limit: number) {
    super(`response larger than ${limit} bytes`);
    this.name = "ResponseTooLargeError";
  }
}

/** Whether a request is a chat completion (`POST` to a path ending in `/chat/completions`). */
function isChatCompletion(url: URL | null, input: string | URL | Request, init?: RequestInit): boolean {
  const method = (init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET")).toUpperCase();
  const path = url ? url.pathname : String(input);
  return method === "POST" && /\/chat\/completions\/?$/.test(path);
}

/** Statuses whose `Response` must have a null body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** An `AbortError` as `fetch` rejects with (the `openai` client tells timeouts and user aborts by its name). */
function abortError(signal: AbortSignal): Error {
  const reason = signal.reason as unknown;
  const e = new DOMException(reason instanceof Error ? reason.message : "This operation was aborted", "AbortError");
  return Object.assign(e, { cause: reason });
}

/** The request headers as a plain object (`init.headers` may be a `Headers`, an array of pairs or a record). */
function headerRecord(h: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) h.forEach((v, k) => (out[k] = v));
  else if (Array.isArray(h)) for (const [k, v] of h) out[k.toLowerCase()] = v;
  else for (const k of Object.keys(h)) out[k.toLowerCase()] = String((h as Record<string, string>)[k]);
  return out;
}

/** A `Response` whose body rejects with `err` when read (status and headers as received). */
function failingBody(err: Error, status: number, headers: Headers): Response {
  const body = new ReadableStream<Uint8Array>({ start: (c) => c.error(err) });
  return new Response(body, { status, headers });
}

/**
 * One chat completion over `node:http(s)`: the whole body read (decoded, at most `limit` bytes) before the
 * promise resolves. Rejects with the system error of a failed connection or a reset mid-body, or an `AbortError`.
 */
function nodeRequest(url: URL, init: RequestInit, body: string | Uint8Array | undefined, limit: number, agent: http.Agent): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(abortError(signal));
    const headers = headerRecord(init.headers);
    headers["accept-encoding"] ??= "gzip, deflate, br";
    if (body !== undefined) headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    let settled = false;
    let source: Readable | undefined;
    const done = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      f();
    };
    const fail = (e: Error) => {
      done(() => reject(e));
      req.destroy();
      source?.destroy();
    };
    const onAbort = () => fail(abortError(signal!));
    const lib = url.protocol === "https:" ? https : http;
    const req = lib.request(url, { method: (init.method ?? "POST").toUpperCase(), headers, agent }, (res) => {
      const status = res.statusCode ?? 0;
      const h = new Headers();
      const raw = res.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        try {
          h.append(raw[i], raw[i + 1]);
        } catch {
          /* a header value fetch would not accept either: left out */
        }
      }
      if (status < 200 || status > 599) return fail(new Error(`unexpected HTTP status ${status}`));
      if (NULL_BODY.has(status)) {
        res.resume();
        return done(() => resolve(new Response(null, { status, headers: h })));
      }
      const enc = (res.headers["content-encoding"] ?? "").trim().toLowerCase();
      const decoder =
        enc === "gzip" || enc === "x-gzip"
          ? zlib.createGunzip()
          : enc === "deflate"
            ? zlib.createInflate()
            : enc === "br"
              ? zlib.createBrotliDecompress()
              : undefined;
      source = decoder ? res.pipe(decoder) : res;
      if (decoder) {
        res.on("error", (e) => fail(e));
        // decoded bodies lose the encoding and length headers, as with fetch
        h.delete("content-encoding");
        h.delete("content-length");
      }
      const chunks: Buffer[] = [];
      let seen = 0;
      source.on("data", (c: Buffer) => {
        seen += c.length;
        if (seen > limit) {
          done(() => resolve(failingBody(new ResponseTooLargeError(limit), status, h)));
          req.destroy();
          source?.destroy();
          return;
        }
        chunks.push(c);
      });
      source.on("end", () => {
        const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        const bytes = new Uint8Array(all.buffer as ArrayBuffer, all.byteOffset, all.byteLength);
        done(() => resolve(new Response(bytes, { status, headers: h })));
      });
      source.on("error", (e) => fail(e));
      // the connection closed before the whole body arrived (a reset mid-body): a connection fault, as with fetch
      res.on("close", () => {
        if (!res.complete) fail(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
      });
    });
    req.on("error", (e) => fail(e));
    signal?.addEventListener("abort", onAbort, { once: true });
    req.end(body);
  });
}

/**
 * The client's `fetch`: chat completions over `node:http(s)` (keep-alive agents of this fetch's own), their
 * bodies limited to `limit` decoded bytes; other requests to `base` unchanged. Reading the body of a chat
 * completion past the limit rejects with a {@link ResponseTooLargeError} (the fetch itself resolves: the
 * client would take a rejection for a connection failure). Status and headers are as received.
 * @param limit bytes (default {@link MAX_RESPONSE_BYTES}); must be > 0.
 * @param base the fetch for everything else (default `globalThis.fetch`).
 */
export function limitedFetch(limit: number = MAX_RESPONSE_BYTES, base: typeof fetch = globalThis.fetch): typeof fetch {
  const agents = {
    "http:": new http.Agent({ keepAlive: true }),
    "https:": new https.Agent({ keepAlive: true }),
  } as const;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    let url: URL | null = null;
    try {
      url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    } catch {
      url = null;
    }
    const body = init?.body;
    const plain =
      url !== null &&
      !(input instanceof Request) &&
      (url.protocol === "http:" || url.protocol === "https:") &&
      url.username === "" &&
      url.password === "" &&
      (body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array);
    if (!plain || !isChatCompletion(url, input, init)) return base(input, init);
    return nodeRequest(url!, init!, (body ?? undefined) as string | Uint8Array | undefined, limit, agents[url!.protocol as "http:" | "https:"]);
  }) as typeof fetch;
}
