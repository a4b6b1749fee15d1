/**
 * The connection under the `openai` client for chat completions: undici's `Agent.request()` (the `undici` package,
 * the same HTTP/1.1 client, connection pool and parser the platform `fetch` runs on, without the Fetch standard's
 * machinery around it), wrapped into what the client needs from `fetch`: a `Response`-like object with status,
 * headers and the body, read whole before the promise resolves.
 *
 * Why: CPU. Against a server at 300 ms with 64 in flight (README-bench.md, "CPU per request", round three), the
 * `openai` client over the platform `fetch` cost 1.3-1.6x the CPU of a bare `fetch` loop sending the same bodies;
 * over this transport it costs about what the bare loop does. The Fetch layer's per-request work (a `Request`, its
 * `Headers` and body streams, a web `ReadableStream` for the response and the `Response` wrapping it) is what goes.
 *
 * What `fetch` did that is kept here, so that the client, the fault policy (`./faults.ts`) and the stored verdicts
 * see the same answers (each a test in `test/providers/`):
 * - the request headers `fetch` adds when absent (`accept`, `accept-language`, `sec-fetch-mode`, `user-agent`,
 *   `accept-encoding`: `gzip, deflate`, and `br` first over https; a string body's `content-type`);
 * - `content-encoding` decoded as undici's `fetch` decodes it (gzip, x-gzip, deflate as zlib or raw, br, several
 *   codings last first, at most 5; a list holding any coding it does not know is passed on undecoded as a whole);
 *   a null-body status (204, 205, 304) and a redirect answer are not decoded;
 * - the failures in `fetch`'s shapes: a request that fails before the headers rejects with `TypeError("fetch
 *   failed")` whose `cause` is undici's error (the system error of a refused connection, a certificate code, an
 *   `HPE_*` parser error); a body that fails while read rejects with `TypeError("terminated")` with the cause; an
 *   abort with the signal's `AbortError` (the caller, `./fetch.ts`, names it); a compressed stream that ends early
 *   is decoded as far as it goes, without an error, as `fetch` does (its JSON cut short then makes `json()` reject
 *   with {@link ResponseCutError}).
 * Not kept: the Fetch standard's CORS and cache modes, cookies, `redirect: "follow"` (`./fetch.ts` follows
 * redirects itself), streamed response bodies (a chat completion is read whole, within the limit, by the caller).
 *
 * One `Agent` per process, made at the first chat completion: undici's defaults, as the platform `fetch`'s global
 * dispatcher (keep-alive, no connection limit per origin, idle sockets unreferenced so they never keep the process
 * alive).
 */

import { pipeline, Transform, type Readable } from "node:stream";
import zlib from "node:zlib";
import Agent from "undici/lib/dispatcher/agent.js";
import request from "undici/lib/api/api-request.js";
import { noteUnconnected } from "./no-answer.js";

let agent: Agent | undefined;

/** Statuses whose body is never decoded (and must be null in a `Response`). */
export const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** A failed request in `fetch`'s shape: `TypeError(message)` whose `cause` is what failed. */
export function fetchShaped(message: "fetch failed" | "terminated", cause: unknown): TypeError {
  return Object.assign(new TypeError(message), { cause });
}

/** Drop a body not read to its end: its connection is closed, not reused (the error undici emits for it is expected). */
export function dropBody(body: Readable): void {
  body.on("error", () => undefined);
  body.destroy();
}

/** One chat completion's answer before its body is read: status, headers and the (raw) body stream. */
export interface RawAnswer {
  status: number;
  /** "" (undici's `request()` does not pass the reason phrase on; neither the client nor the fault policy reads it) */
  statusText: string;
  headers: Headers;
  /** the body as undici delivers it (not decoded) */
  body: Readable;
}

/** The request headers as flat `[name, value, ...]` pairs with the ones `fetch` adds when absent (module docstring). */
function requestHeaders(url: URL, h: RequestInit["headers"], body: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (k: string, v: string) => {
    out.push(k, v);
    seen.add(k.toLowerCase());
  };
  if (h instanceof Headers) h.forEach((v, k) => add(k, v));
  else if (Array.isArray(h)) for (const [k, v] of h) add(k, v);
  else if (h) for (const k of Object.keys(h)) add(k, String((h as Record<string, string>)[k]));
  if (!seen.has("content-type") && typeof body === "string") add("content-type", "text/plain;charset=UTF-8");
  if (!seen.has("accept")) add("accept", "*/*");
  if (!seen.has("accept-language")) add("accept-language", "*");
  if (!seen.has("sec-fetch-mode")) add("sec-fetch-mode", "cors");
  if (!seen.has("user-agent")) add("user-agent", "node");
  if (!seen.has("accept-encoding")) add("accept-encoding", url.protocol === "https:" ? "br, gzip, deflate" : "gzip, deflate");
  return out;
}

/** The response headers undici parsed (names lower-cased, repeated ones as arrays) as a `Headers`. */
function responseHeaders(h: Record<string, string | string[] | undefined>): Headers {
  const out = new Headers();
  for (const k of Object.keys(h)) {
    const v = h[k];
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) out.append(k, x);
    else out.append(k, v);
  }
  return out;
}

/**
 * Send one request (`init.body` a string, a `Uint8Array` or none) and resolve at its headers.
 * @throws `TypeError("fetch failed")` with undici's error as `cause` (module docstring); the signal's abort reason
 *   when `init.signal` aborts first (the caller tells it by the signal).
 */
export async function sendRaw(url: URL, init: RequestInit): Promise<RawAnswer> {
  const body = init.body as string | Uint8Array | null | undefined;
  let r;
  // whether the request was written to a connected socket (undici calls the handler's onConnect then): a failure
  // before that got no answer from the server (`./no-answer.ts`: a connect timeout is not a busy server)
  let connected = false;
  const dispatcher = {
    dispatch(opts: object, handler: { onConnect: (...a: unknown[]) => unknown }) {
      const onConnect = handler.onConnect;
      handler.onConnect = function (this: unknown, ...a: unknown[]) {
        connected = true;
        return onConnect.apply(this, a);
      };
      return (agent ??= new Agent()).dispatch(opts as never, handler as never);
    },
  };
  try {
    r = await untilAborted(
      request.call(dispatcher as unknown as Agent, {
        origin: url.origin,
        path: url.pathname + url.search,
        method: (init.method ?? "GET").toUpperCase() as "POST",
        headers: requestHeaders(url, init.headers, body),
        body: body ?? null,
        signal: init.signal ?? null,
      }),
      init.signal ?? undefined,
    );
  } catch (e) {
    if (!connected) noteUnconnected(body);
    throw fetchShaped("fetch failed", e);
  }
  let headers: Headers;
  try {
    headers = responseHeaders(r.headers);
  } catch (e) {
    dropBody(r.body);
    throw fetchShaped("fetch failed", e);
  }
  return { status: r.statusCode, statusText: "", headers, body: r.body };
}

/**
 * The request's promise, or its signal's reason as soon as the signal aborts, whichever comes first. undici 6.24.1
 * ignores the signal of a request not yet written to a socket, and loses a request whose socket the server closed
 * while undici compiled its HTTP parser (the first connection of the process, `await llhttpPromise` in
 * `connectH1`): such a request never settled, its timeout did not end it, and a judge waited on it forever (a
 * server that accepts and at once closes every connection, as a port forward with nothing behind it does). `fetch`
 * rejects at the abort whatever the dispatcher does; so does this. An answer that comes after the abort is dropped.
 */
function untilAborted<T extends { body: Readable }>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const onAbort = () => {
      if (done) return;
      done = true;
      reject(signal.reason);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (r) => {
        signal.removeEventListener("abort", onAbort);
        if (done) return dropBody(r.body);
        done = true;
        resolve(r);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        if (done) return;
        done = true;
        reject(e);
      },
    );
  });
}

const KNOWN_CODINGS = new Set(["gzip", "x-gzip", "deflate", "br"]);

/**
 * The codings of a `content-encoding` that undici's `fetch` decodes, last applied first (module docstring), or
 * none when the body is passed on as it is (a null-body status, HEAD, a coding it does not know).
 * @throws `TypeError("fetch failed")` for more than 5 codings, as `fetch` rejects.
 */
export function decodedCodings(status: number, method: string, contentEncoding: string | null): string[] {
  if (!contentEncoding || NULL_BODY_STATUS.has(status) || method === "HEAD" || method === "CONNECT") return [];
  const codings = contentEncoding.toLowerCase().split(",");
  if (codings.length > 5) throw fetchShaped("fetch failed", new Error(`too many content-encodings in response: ${codings.length}, maximum allowed is 5`));
  const out: string[] = [];
  for (let i = codings.length - 1; i >= 0; --i) {
    const coding = codings[i].trim();
    if (!KNOWN_CODINGS.has(coding)) return [];
    out.push(coding);
  }
  return out;
}

/**
 * A `content-encoding`'s decoders, undici's `fetch` rule (module docstring); none when it is not decoded. Like
 * `fetch`'s, they take a stream that ends early without an error (what arrived is decoded): a chat completion cut
 * that way is told by its JSON ({@link BytesResponse}'s `json`, {@link ResponseCutError}).
 */
export function decodersFor(status: number, method: string, contentEncoding: string | null): Transform[] {
  return decodedCodings(status, method, contentEncoding).map((coding) =>
    coding === "deflate"
      ? inflateEither()
      : coding === "br"
        ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
        : zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  );
}

/**
 * A chat completion body decoded from a `content-encoding` whose JSON stops mid-way: the compressed stream ended
 * early (a proxy or the provider cut it: the decoders, like `fetch`'s, give what arrived). Not the server's
 * answer: `sendChat` (`./send.ts`) retries it like a dropped connection, then error `decode_error`.
 */
export class ResponseCutError extends Error {
  constructor(
    readonly encoding: string,
    readonly decodedBytes: number,
  ) {
    super(
      decodedBytes === 0
        ? `the response body could not be decompressed (its ${encoding} stream decoded to nothing: it ended before its first ` +
            `block, or held nothing) — a proxy or the provider cut it`
        : `the response body could not be decompressed whole (its ${encoding} stream ended early: ${decodedBytes} bytes decoded, ` +
            `the JSON stops mid-way) — a proxy or the provider cut it`,
    );
    this.name = "ResponseCutError";
  }
}

/**
 * Whether a text that is not valid JSON is a JSON object or array cut short: it opens with `{` or `[` and ends
 * inside a string or with a bracket still open (its top-level value never closed). A page that is not JSON
 * (HTML, text) or JSON with a fault before its end is not.
 */
export function endsMidJson(text: string): boolean {
  let i = 0;
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  if (text[i] !== "{" && text[i] !== "[") return false;
  let depth = 0;
  let inString = false;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return false;
  }
  return true;
}

/**
 * A `deflate` decoder that takes either framing, as undici's `fetch` does: zlib (RFC 1950, first byte's low nibble
 * 8) or raw deflate (RFC 1951), told by the first byte.
 */
function inflateEither(): Transform {
  const opts = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  let inner: zlib.Inflate | zlib.InflateRaw | undefined;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (!inner) {
        if (chunk.length === 0) return cb();
        inner = (chunk[0] & 0x0f) === 0x08 ? zlib.createInflate(opts) : zlib.createInflateRaw(opts);
        inner.on("data", (d: Buffer) => this.push(d));
        inner.on("error", (e) => this.destroy(e));
      }
      inner.write(chunk, cb);
    },
    flush(cb) {
      if (!inner) return cb();
      inner.once("end", () => cb());
      inner.end();
    },
  });
}

/**
 * A body read whole: the raw stream through `decoders`, at most `limit` decoded bytes.
 * @param tooLarge the error past the limit (the body is destroyed: its connection is not reused)
 * @throws `tooLarge`; the decoder's or the stream's own error otherwise.
 */
export function readWhole(body: Readable, decoders: Transform[], limit: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const fail = (e: Error) => {
      if (done) return;
      done = true;
      reject(e);
    };
    let out: Readable = body;
    if (decoders.length > 0) {
      out = pipeline([body, ...decoders] as unknown as [Readable, Transform], (e) => {
        if (e) fail(e);
      }) as unknown as Readable;
    }
    out.on("data", (c: Buffer) => {
      if (done) return;
      total += c.length;
      if (total > limit) {
        done = true;
        dropBody(body);
        for (const d of decoders) d.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    });
    out.on("error", fail);
    body.on("error", fail);
    out.on("end", () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
    });
  });
}

export { REDIRECT_STATUS };

/**
 * A response whose body was read whole: the part of `Response` the `openai` client and a caller use (status,
 * headers, `text`/`json`/`arrayBuffer`/`bytes`/`blob`, `body` as a stream made when asked, `clone`). Cheaper than
 * a `Response`, which wraps its bytes in a web stream at construction.
 */
export class BytesResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = "basic" as const;
  #bytes: Uint8Array | null;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null = null;
  /** The `content-encoding` the bytes were decoded from (`json` tells a cut stream by it), if any. */
  readonly #decodedFrom: string | undefined;
  constructor(
    bytes: Uint8Array | null,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    readonly url: string,
    decodedFrom?: string,
  ) {
    this.#bytes = bytes;
    this.#decodedFrom = decodedFrom;
    this.ok = status >= 200 && status <= 299;
  }
  get bodyUsed(): boolean {
    return this.#used;
  }
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#bytes === null) return null;
    if (!this.#stream) {
      const bytes = this.#bytes;
      this.#stream = new ReadableStream<Uint8Array>({
        start: (c) => {
          this.#used = true;
          if (bytes.byteLength > 0) c.enqueue(bytes);
          c.close();
        },
      });
    }
    return this.#stream;
  }
  #take(): Uint8Array {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.#bytes ?? new Uint8Array(0);
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.#take();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.arrayBuffer());
  }
  /**
   * The body as text (UTF-8). The `openai` client reads a 2xx body whose content type is not JSON (or missing) this
   * way and hands the string on as the completion; so a cut compressed stream is told here too, whatever the
   * content type (nits12: with no content type it got the "not OpenAI-compatible, fix base_url" advice).
   * @throws {@link ResponseCutError} on a 2xx body decoded from a `content-encoding` that is cut (`#throwIfCut`); an
   *   error status's text (the client's error message) is returned as it is.
   */
  async text(): Promise<string> {
    const text = utf8.decode(this.#take());
    if (this.ok) this.#throwIfCut(text);
    return text;
  }
  /**
   * The body parsed as JSON.
   * @throws {@link ResponseCutError} when the body was decoded from a `content-encoding` and its JSON stops mid-way
   *   or it decoded to nothing (the stream ended early); the `SyntaxError` of any other text that is not JSON.
   */
  async json(): Promise<unknown> {
    const text = utf8.decode(this.#take());
    try {
      return JSON.parse(text);
    } catch (e) {
      this.#throwIfCut(text);
      throw e;
    }
  }
  /**
   * Throws {@link ResponseCutError} when the body was decoded from a `content-encoding` and its text is not whole:
   * a JSON object or array that stops mid-way ({@link endsMidJson}), or nothing at all (a stream cut before its
   * first decodable block decodes to nothing, red team 11). Whole JSON and any other text (an HTML page) pass.
   */
  #throwIfCut(text: string): void {
    if (this.#decodedFrom !== undefined && (text.trim() === "" || endsMidJson(text))) throw new ResponseCutError(this.#decodedFrom, Buffer.byteLength(text));
  }
  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get("content-type") ?? "" });
  }
  async formData(): Promise<FormData> {
    throw new TypeError("formData() is not supported on a chat completion response");
  }
  clone(): BytesResponse {
    if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
    return new BytesResponse(this.#bytes, this.status, this.statusText, new Headers(this.headers), this.url, this.#decodedFrom);
  }
}

const utf8 = new TextDecoder();
