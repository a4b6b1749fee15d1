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

/**
 * A chat completion body that cannot be decoded (a `content-encoding` the bytes do not follow) or a response that
 * is not valid HTTP (a parser error, `HPE_*`). `sendChat` (`./transport.ts`) counts it like a reply that is not a
 * chat completion (`invalid_response`): the same answer would come back on a retry.
 */
export class ResponseDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResponseDecodeError";
  }
}

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
 * `bytes` decoded by the codings of a `content-encoding` header, last applied first, as `fetch` does: gzip and
 * x-gzip, deflate (zlib-wrapped or raw, told by the first byte), br; identity and unknown codings pass as they are.
 * @throws ResponseTooLargeError past `limit` decoded bytes; ResponseDecodeError when the bytes do not follow a coding.
 */
export function decodeBody(bytes: Buffer, contentEncoding: string, limit: number): Buffer {
  const codings = contentEncoding
    .toLowerCase()
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "" && c !== "identity");
  let out = bytes;
  for (let i = codings.length - 1; i >= 0; i--) {
    const c = codings[i];
    const opts = { maxOutputLength: limit + 1 };
    try {
      if (c === "gzip" || c === "x-gzip") out = zlib.gunzipSync(out, opts);
      else if (c === "deflate") out = out.length > 0 && (out[0] & 0x0f) === 0x08 ? zlib.inflateSync(out, opts) : zlib.inflateRawSync(out, opts);
      else if (c === "br") out = zlib.brotliDecompressSync(out, opts);
      else continue; // an unknown coding: the bytes are passed on as they are (fetch does the same)
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err instanceof RangeError || err.code === "ERR_BUFFER_TOO_LARGE") throw new ResponseTooLargeError(limit);
      throw new ResponseDecodeError(`the response body is not valid ${c} (content-encoding "${contentEncoding}"): ${err.code ?? err.message}`);
    }
    if (out.length > limit) throw new ResponseTooLargeError(limit);
  }
  return out;
}

/** Error codes of a request on a reused keep-alive socket that the server had closed (sent again at once). */
const STALE_SOCKET = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/**
 * One chat completion over `node:http(s)`: the whole body read (decoded, at most `limit` bytes) before the
 * promise resolves. Rejects with the system error of a failed connection or a reset mid-body, or an `AbortError`;
 * a response that is not valid HTTP or whose body cannot be decoded resolves with a body that rejects with a
 * {@link ResponseDecodeError} (status 200 when none was read). A request whose reused keep-alive socket turns out
 * closed before any response byte is sent again once, on a new connection, at once.
 */
function nodeRequest(url: URL, init: RequestInit, body: string | Uint8Array | undefined, limit: number, agent: http.Agent, fresh = false): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(abortError(signal));
    const headers = headerRecord(init.headers);
    headers["accept-encoding"] ??= "gzip, deflate, br";
    if (body !== undefined) headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    let settled = false;
    let responded = false;
    let res: http.IncomingMessage | undefined;
    const done = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      f();
    };
    const fail = (e: Error) => {
      const c = (e as { code?: unknown }).code; // a DOMException's code is a number
      const code = typeof c === "string" ? c : "";
      if (!settled && !responded && !fresh && req.reusedSocket && STALE_SOCKET.has(code)) {
        // the server closed this idle keep-alive connection as the request went out: once more, on a new one
        done(() => resolve(nodeRequest(url, init, body, limit, agent, true)));
      } else if (!settled && code.startsWith("HPE_")) {
        // not valid HTTP (a bad status line, a header too large or malformed): an answer, not a connection fault
        done(() => resolve(failingBody(new ResponseDecodeError(`the response is not valid HTTP: ${code} (${e.message})`), 200, new Headers())));
      } else done(() => reject(e));
      req.destroy();
      res?.destroy();
    };
    const onAbort = () => fail(abortError(signal!));
    const lib = url.protocol === "https:" ? https : http;
    const req = lib.request(url, { method: (init.method ?? "POST").toUpperCase(), headers, agent }, (r) => {
      res = r;
      responded = true;
      const status = r.statusCode ?? 0;
      const h = new Headers();
      const raw = r.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        try {
          h.append(raw[i], raw[i + 1]);
        } catch {
          /* a header value fetch would not accept either: left out */
        }
      }
      if (status < 200 || status > 599) return fail(new Error(`unexpected HTTP status ${status}`));
      if (NULL_BODY.has(status)) {
        done(() => resolve(new Response(null, { status, headers: h })));
        // a 205 may still be followed by body bytes the parser waits for: this connection is not reused
        req.destroy();
        r.destroy();
        return;
      }
      const enc = (r.headers["content-encoding"] ?? "").trim();
      const chunks: Buffer[] = [];
      let seen = 0;
      // encoded bytes are bounded too: a body larger than the limit plus some slack cannot decode to within it
      const rawLimit = enc ? limit + 64 * 1024 : limit;
      r.on("data", (c: Buffer) => {
        seen += c.length;
        if (seen > rawLimit) {
          done(() => resolve(failingBody(new ResponseTooLargeError(limit), status, h)));
          req.destroy();
          r.destroy();
          return;
        }
        chunks.push(c);
      });
      r.on("end", () => {
        const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        let decoded: Buffer;
        try {
          decoded = enc ? decodeBody(all, enc, limit) : all;
        } catch (e) {
          return done(() => resolve(failingBody(e as Error, status, h)));
        }
        if (enc && decoded !== all) {
          // decoded bodies lose the encoding and length headers, as with fetch
          h.delete("content-encoding");
          h.delete("content-length");
        }
        const bytes = new Uint8Array(decoded.buffer as ArrayBuffer, decoded.byteOffset, decoded.byteLength);
        done(() => resolve(new Response(bytes, { status, headers: h })));
      });
      r.on("error", (e) => fail(e));
      // the connection closed before the whole body arrived (a reset mid-body): a connection fault, as with fetch
      r.on("close", () => {
        if (!r.complete) fail(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
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
    return followRedirects(url!, init!, (body ?? undefined) as string | Uint8Array | undefined, (u, i, b) =>
      nodeRequest(u, i, b, limit, agents[u.protocol as "http:" | "https:"]),
    );
  }) as typeof fetch;
}

/** Redirect statuses followed, and the most hops followed for one request. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const MAX_REDIRECTS = 5;
/** Headers that carry credentials: not sent on to another origin (as fetch does for `authorization`). */
const CREDENTIAL_HEADERS = /^(authorization|proxy-authorization|cookie|api-key|x-api-key|x-goog-api-key)$/i;

/**
 * Follow HTTP redirects as `fetch` does (a moved endpoint, `http` to `https`), at most {@link MAX_REDIRECTS} hops:
 * 301/302/307/308 repeat the request (method and body, as an API client must: `fetch` would turn a 301/302 POST
 * into a GET), 303 becomes a GET without a body. Credential headers are dropped when the origin changes. A
 * `Location` that is missing or not http(s), or one hop too many, returns the redirect response itself (the
 * fault policy reads it as the status it is).
 */
async function followRedirects(
  url: URL,
  init: RequestInit,
  body: string | Uint8Array | undefined,
  send: (url: URL, init: RequestInit, body: string | Uint8Array | undefined) => Promise<Response>,
): Promise<Response> {
  let cur = url;
  let curInit = init;
  let curBody = body;
  for (let hop = 0; ; hop++) {
    const res = await send(cur, curInit, curBody);
    if (!REDIRECTS.has(res.status) || hop >= MAX_REDIRECTS) return res;
    const loc = res.headers.get("location");
    let next: URL;
    try {
      next = new URL(loc ?? "", cur);
    } catch {
      return res;
    }
    if (!loc || (next.protocol !== "http:" && next.protocol !== "https:") || next.username || next.password) return res;
    const headers = headerRecord(curInit.headers);
    if (next.origin !== cur.origin) for (const k of Object.keys(headers)) if (CREDENTIAL_HEADERS.test(k)) delete headers[k];
    if (res.status === 303) {
      curInit = { ...curInit, method: "GET", headers };
      curBody = undefined;
      delete headers["content-type"];
      delete headers["content-length"];
    } else curInit = { ...curInit, headers };
    cur = next;
  }
}
