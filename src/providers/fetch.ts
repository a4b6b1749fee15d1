/**
 * The `fetch` of the `openai` v6 client (its `fetch` option) for every judge. Chat completions go over undici's
 * `request()` (`./chat-transport.ts`: the HTTP client under the platform `fetch`, without the Fetch layer, at less
 * CPU per request), which connects, keeps connections alive and decodes `content-encoding` (gzip, x-gzip, deflate
 * zlib or raw, br, several codings) as `fetch` does, with a small reader on top that bounds the decoded body and
 * keeps the fault shapes the fault policy (`./faults.ts`, `./send.ts`) reads; given a `fetch` of its own
 * ({@link limitedFetch}'s `fetchImpl`), the same reader runs over that `fetch` ({@link fetchOne}). Every other request
 * (the Batch API's files and batches) goes to the platform `fetch` with its body as is, under the same redirect rule
 * (below). Either way the answers and failures are `fetch`'s (below).
 *
 * Why a bound: without it a 200 reply of 84 MB is read whole (and kept in every raw reply of the verdict), and a
 * 2 MB gzip body that expands to 2 GB is decompressed whole (2.1 GB RSS). The reader counts decoded bytes as the
 * stream yields them and cancels the stream past the limit, so a decompression bomb stops at the limit too. Batch
 * result files are legitimately large and are not limited.
 *
 * What the client sees is what `fetch` gives it: a `Response` with status and headers; connection faults reject
 * with `fetch`'s `TypeError("fetch failed")` whose `cause` is the system error (`ECONNREFUSED`, `ECONNRESET`,
 * certificate codes: `./faults.ts` reads `code` along the cause chain); an abort (the client's timeout, the run's
 * Ctrl-C) rejects with an `AbortError`. Three answers are reshaped, because the fault policy treats them as answers
 * and not as connection faults to retry:
 * - a body past the limit: the `Response` is returned with a body whose reading rejects with
 *   {@link ResponseTooLargeError} (a rejected fetch would read as a connection failure);
 * - a body that does not follow its `content-encoding` (undici: `TypeError("terminated")` with a zlib `Z_*` cause)
 *   and a response that is not valid HTTP (an `HPE_*` parser error, before or after the headers, or
 *   `UND_ERR_HEADERS_OVERFLOW`): a body that rejects with
 *   {@link ResponseDecodeError} (status 200 when none was read);
 * - a body decoded from a `content-encoding` whose stream ended early (a proxy cut it within the HTTP framing: the
 *   decoders, `fetch`'s and ours alike, give what arrived without an error): `json()`, and `text()` on a 2xx (what
 *   the client reads when the content type is not JSON or is missing), reject with {@link ResponseCutError} when the
 *   decoded JSON stops mid-way or decodes to nothing, the same on both paths and whatever the content type. A gzip (or zlib) stream
 *   missing only its trailer (CRC and length) decodes whole and is taken, as `fetch` and browsers take it: its
 *   deflate data ends by itself, the JSON is whole, and refusing it would fail a server on one path only.
 *
 * Three behaviours `fetch` does not have are kept here by the smallest means (red-team findings, each a test):
 * - redirects are followed by {@link followRedirects} (`redirect: "manual"`), because `fetch` turns a 301/302 POST
 *   into a GET without a body (Fetch standard, HTTP-redirect fetch step 12), which no chat completions endpoint
 *   answers, and drops only `authorization` on another origin (not `api-key`, `x-api-key`, nor a `headers_env`
 *   header of any name): on another origin only the client's own non-secret headers are sent. The Batch API's calls
 *   follow the same rule; a request that cannot be repeated (a streamed upload) refuses a redirect with a
 *   {@link RedirectRefusedError} instead;
 * - a response with a null-body status (204, 205, ...) aborts its request once read: undici keeps waiting on a 205's
 *   connection for body bytes, which kept the socket (and the process) alive;
 * - a request whose reused keep-alive connection the server had closed is sent again once, at once
 *   ({@link staleSocket}): `fetch` rejects it ("other side closed") and the fault policy would back off a second.
 *
 * A 2xx whose body is then lost (the connection reset, or the request timed out or was stopped while the body was read)
 * rejects as the fault it is, and is recorded against the request's body object ({@link takeLostAnswers}): the model
 * ran, so `sendChat` counts a response without usage (cost unknown, never $0).
 *
 * One decoding differs from the former hand-written client, on purpose: a `content-encoding` that lists a coding
 * undici does not know (`identity` included, which RFC 9110 section 8.4.1 reserves for `Accept-Encoding`) is passed
 * on undecoded as a whole, so `gzip, identity` reaches the client as gzip bytes: not JSON, an `invalid_response`.
 */

import { BytesResponse, decodedCodings, decodersFor, dropBody, fetchShaped, readWhole, sendRaw } from "./chat-transport.js";
export { ResponseCutError } from "./chat-transport.js";
import { errorEnvelope } from "./error-body.js";

/** Default limit of one chat completion response body: 4 MiB of decoded bytes. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A response body passed the limit; `sendChat` (`./send.ts`) turns it into error kind `response_too_large`. */
export class ResponseTooLargeError extends Error {
  constructor(public readonly limit: number) {
    super(`response larger than ${limit} bytes`);
    this.name = "ResponseTooLargeError";
  }
}

/**
 * A chat completion body that cannot be decoded (a `content-encoding` the bytes do not follow) or a response that
 * is not valid HTTP (a parser error, `HPE_*`). `sendChat` (`./send.ts`) counts it like a reply that is not a
 * chat completion (`invalid_response`): the same answer would come back on a retry.
 */
export class ResponseDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResponseDecodeError";
  }
}

/** An error body's bytes in OpenAI's `{error: {...}}` envelope (`errorEnvelope`, `./classify.ts`); other bytes as they are. */
function envelopeErrorBytes(bytes: Uint8Array): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return bytes;
  }
  const out = errorEnvelope(parsed);
  return out === parsed ? bytes : new TextEncoder().encode(JSON.stringify(out));
}

/** Statuses whose `Response` must have a null body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Whether a request is a chat completion (`POST` to a path ending in `/chat/completions`). */
function isChatCompletion(url: URL, init?: RequestInit): boolean {
  return (init?.method ?? "GET").toUpperCase() === "POST" && /\/chat\/completions\/?$/.test(url.pathname);
}

/** An `AbortError` as `fetch` rejects with (the `openai` client tells timeouts and user aborts by its name). */
function abortError(signal: AbortSignal): Error {
  const reason = signal.reason as unknown;
  const e = new DOMException(reason instanceof Error ? reason.message : "This operation was aborted", "AbortError");
  return Object.assign(e, { cause: reason });
}

/** The first string `code` along an error's `cause` chain, or "". */
function causeCode(err: unknown): string {
  for (let e: unknown = err, d = 0; e && typeof e === "object" && d < 8; d++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === "string" && c !== "") return c;
    e = (e as { cause?: unknown }).cause;
  }
  return "";
}

/**
 * Whether `fetch` failed because the server had closed a reused keep-alive connection before answering: undici's
 * `SocketError` "other side closed" on a socket that had already read bytes (an earlier response; a new connection
 * has read none). `fetch` does not resend a POST there itself; {@link fetchOne} sends it again once, at once.
 */
function staleSocket(err: unknown): boolean {
  const c = (err as { cause?: { code?: unknown; socket?: { bytesRead?: unknown } } } | null)?.cause;
  return c?.code === "UND_ERR_SOCKET" && typeof c.socket?.bytesRead === "number" && c.socket.bytesRead > 0;
}

/**
 * Whether a `fetch` or body-read failure says the response is not valid HTTP: llhttp's `HPE_*` codes (in the status
 * line, the headers, or later in a chunked body) and undici's own `UND_ERR_HEADERS_OVERFLOW` (headers past its size
 * limit). An answer that the same request would get again, not a connection fault to retry.
 */
function notHttp(code: string): boolean {
  return code.startsWith("HPE_") || code === "UND_ERR_HEADERS_OVERFLOW";
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
 * A response body read whole, at most `limit` bytes (the stream's bytes: decoded, when `fetch` decoded them).
 * @throws ResponseTooLargeError past `limit` (the stream is cancelled, so a decompression bomb stops there);
 *   whatever reading the stream rejects with otherwise.
 */
export async function readLimited(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * A response's body within `limit` bytes: read whole at once (`arrayBuffer`, one step instead of a chunk loop)
 * when the body is not encoded and its `content-length` is within the limit (the HTTP parser delivers exactly
 * that many bytes, so the bound holds), else through {@link readLimited}. Rejects as `readLimited` does.
 */
async function readBody(res: Response, limit: number): Promise<Uint8Array> {
  const length = res.headers.get("content-length");
  if (length !== null && /^\d{1,15}$/.test(length) && Number(length) <= limit && !res.headers.has("content-encoding")) {
    return new Uint8Array(await res.arrayBuffer());
  }
  return readLimited(res.body!, limit);
}

/** Request bodies sent again by {@link fetchOne} or {@link requestOne} (a stale keep-alive socket), with how many times. */
const RESENT = new WeakMap<object, number>();

function noteResend(body: unknown): void {
  if (body !== null && typeof body === "object") RESENT.set(body, (RESENT.get(body) ?? 0) + 1);
}

/**
 * How many times this transport sent a request body again at once because the server had closed the reused
 * keep-alive connection under it ({@link staleSocket}), and forget it. The server may have received the first
 * copy (a reset after reading it), so the caller counts these as requests sent (a verdict's `attempts`).
 * @param body the body object given to the client (a `Uint8Array`; a string body cannot be tracked: 0).
 * @returns 0 or more.
 */
export function takeResends(body: unknown): number {
  if (body === null || typeof body !== "object") return 0;
  const n = RESENT.get(body) ?? 0;
  RESENT.delete(body);
  return n;
}

/** Request bodies whose 2xx answer was lost while its body was read, with how many times ({@link takeLostAnswers}). */
const LOST = new WeakMap<object, number>();

/** Record that the answer (status `status`) to the request with body `body` was lost while its body was read. */
function noteLost(body: unknown, status: number): void {
  if (status >= 200 && status < 300 && body !== null && typeof body === "object") LOST.set(body, (LOST.get(body) ?? 0) + 1);
}

/**
 * How many times the server answered a request with this body with HTTP 2xx whose body then never arrived whole (the
 * connection reset or the request timed out or was stopped while the body was read; the fetch rejected), and forget
 * it. Such an answer was generated and is probably billed, its usage unread: the caller (`sendChat`, `./send.ts`)
 * counts it as a response without usage (cost unknown, never $0; red team 37b F1). The rejection itself is the
 * connection fault or timeout it was (retried as one).
 * @param body the body object given to the client (a `Uint8Array`; a string body cannot be tracked: 0).
 */
export function takeLostAnswers(body: unknown): number {
  if (body === null || typeof body !== "object") return 0;
  const n = LOST.get(body) ?? 0;
  LOST.delete(body);
  return n;
}

/**
 * One chat completion through `base` (`redirect: "manual"`), its body read whole within `limit` decoded bytes
 * before the promise resolves (the module docstring says what is reshaped).
 */
async function fetchOne(base: typeof fetch, url: URL, init: RequestInit, limit: number): Promise<Response> {
  const parent = init.signal ?? undefined;
  if (parent?.aborted) throw abortError(parent);
  // a signal of this request's own: aborting it drops the connection (a null-body status, a body past the limit)
  const ac = new AbortController();
  const onAbort = () => ac.abort(parent!.reason);
  parent?.addEventListener("abort", onAbort, { once: true });
  try {
    let res: Response;
    try {
      try {
        res = await base(url, { ...init, signal: ac.signal, redirect: "manual" });
      } catch (e) {
        if (parent?.aborted || !staleSocket(e)) throw e;
        // the server closed this idle keep-alive connection as the request went out: once more, at once
        noteResend(init.body);
        res = await base(url, { ...init, signal: ac.signal, redirect: "manual" });
      }
    } catch (e) {
      if (parent?.aborted) throw abortError(parent);
      const code = causeCode(e);
      // not valid HTTP (a bad status line, a header too large or malformed): an answer, not a connection fault
      if (notHttp(code))
        return failingBody(new ResponseDecodeError(`the response is not valid HTTP: ${code} (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message})`), 200, new Headers());
      throw e;
    }
    if (NULL_BODY.has(res.status) || res.body === null) {
      // a 205 may still be followed by body bytes undici waits for: this connection is not reused
      ac.abort();
      return new Response(null, { status: res.status, headers: res.headers });
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBody(res, limit);
    } catch (e) {
      if (e instanceof ResponseTooLargeError) {
        ac.abort();
        return failingBody(e, res.status, res.headers);
      }
      if (parent?.aborted) {
        noteLost(init.body, res.status); // answered, its body stopped by a timeout or the run's stop
        throw abortError(parent);
      }
      const code = causeCode(e);
      if (/^Z_|BROTLI|ZLIB/.test(code)) {
        const enc = res.headers.get("content-encoding") ?? "";
        return failingBody(new ResponseDecodeError(`the response body is not valid ${enc} (content-encoding "${enc}"): ${code}`), res.status, res.headers);
      }
      if (notHttp(code)) {
        ac.abort();
        return failingBody(new ResponseDecodeError(`the response body is not valid HTTP: ${code}`), res.status, res.headers);
      }
      noteLost(init.body, res.status); // answered, its body cut
      throw e;
    }
    // the common case (a plain 2xx body) keeps the received headers: `new Response` copies them once
    if (res.status < 400 && !res.headers.has("content-encoding")) {
      return new Response(bytes as Uint8Array<ArrayBuffer>, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    const headers = new Headers(res.headers);
    const encoding = headers.get("content-encoding");
    if (encoding !== null) {
      // decoded bodies lose the encoding and length headers
      headers.delete("content-encoding");
      headers.delete("content-length");
    }
    // an error body without OpenAI's `error` envelope (vLLM < 0.10.1 `{"object":"error","message",...}`, FastAPI's
    // `{"detail"}`, Ollama's string error) is put in one, so the client keeps the server's reason
    if (res.status >= 400) {
      const enveloped = envelopeErrorBytes(bytes);
      if (enveloped !== bytes) headers.delete("content-length");
      bytes = enveloped;
    }
    // a body `fetch` decoded: its JSON cut short is a stream that ended early (as in requestOne)
    if (encoding !== null && decodedCodings(res.status, (init.method ?? "GET").toUpperCase(), encoding).length > 0)
      return new BytesResponse(bytes, res.status, res.statusText, headers, url.href, encoding) as unknown as Response;
    return new Response(bytes as Uint8Array<ArrayBuffer>, { status: res.status, statusText: res.statusText, headers });
  } finally {
    parent?.removeEventListener("abort", onAbort);
  }
}

/**
 * One chat completion over undici's `request()` (`./chat-transport.ts`, the default: no `base` given to
 * {@link limitedFetch}), its body read and decoded whole within `limit` decoded bytes before the promise resolves:
 * the same answers and failures as {@link fetchOne} over the platform `fetch` (the module docstring says what is
 * reshaped), at less CPU per request.
 */
async function requestOne(url: URL, init: RequestInit, limit: number): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortError(signal);
  let res;
  try {
    try {
      res = await sendRaw(url, init);
    } catch (e) {
      if (signal?.aborted || !staleSocket(e)) throw e;
      // the server closed this idle keep-alive connection as the request went out: once more, at once
      noteResend(init.body);
      res = await sendRaw(url, init);
    }
  } catch (e) {
    if (signal?.aborted) throw abortError(signal);
    const code = causeCode(e);
    // not valid HTTP (a bad status line, a header too large or malformed): an answer, not a connection fault
    if (notHttp(code))
      return failingBody(new ResponseDecodeError(`the response is not valid HTTP: ${code} (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message})`), 200, new Headers());
    throw e;
  }
  const { status, statusText, headers } = res;
  if (NULL_BODY.has(status)) {
    // a 205 may still be followed by body bytes undici waits for: this connection is not reused
    dropBody(res.body);
    return new BytesResponse(null, status, statusText, headers, url.href) as unknown as Response;
  }
  const encoding = headers.get("content-encoding");
  let decoders;
  try {
    decoders = decodersFor(status, (init.method ?? "GET").toUpperCase(), encoding);
  } catch (e) {
    dropBody(res.body); // more than 5 codings: fetch rejects the request
    throw e;
  }
  let bytes: Uint8Array;
  try {
    bytes = await readWhole(res.body, decoders, limit, () => new ResponseTooLargeError(limit));
  } catch (e) {
    if (e instanceof ResponseTooLargeError) return failingBody(e, status, headers);
    if (signal?.aborted) {
      noteLost(init.body, status); // answered, its body stopped by a timeout or the run's stop
      throw abortError(signal);
    }
    const code = causeCode(e);
    if (/^Z_|BROTLI|ZLIB/.test(code)) {
      const enc = encoding ?? "";
      return failingBody(new ResponseDecodeError(`the response body is not valid ${enc} (content-encoding "${enc}"): ${code}`), status, headers);
    }
    if (notHttp(code)) {
      dropBody(res.body);
      return failingBody(new ResponseDecodeError(`the response body is not valid HTTP: ${code}`), status, headers);
    }
    noteLost(init.body, status); // answered, its body cut
    throw fetchShaped("terminated", e);
  }
  // the common case (a plain 2xx body)
  if (status < 400 && encoding === null) return new BytesResponse(bytes, status, statusText, headers, url.href) as unknown as Response;
  if (encoding !== null) {
    // decoded bodies lose the encoding and length headers
    headers.delete("content-encoding");
    headers.delete("content-length");
  }
  // an error body without OpenAI's `error` envelope is put in one (as in fetchOne)
  if (status >= 400) {
    const enveloped = envelopeErrorBytes(bytes);
    if (enveloped !== bytes) headers.delete("content-length");
    bytes = enveloped;
  }
  return new BytesResponse(bytes, status, statusText, headers, url.href, decoders.length > 0 ? encoding! : undefined) as unknown as Response;
}

/**
 * The client's `fetch`: chat completions (over `./chat-transport.ts`, or `fetchImpl`) with their bodies limited to `limit` decoded bytes and
 * their redirects followed by {@link followRedirects}; other requests (files, batches) followed the same way with
 * their bodies unlimited, or, when they cannot be repeated (a stream body, credentials in the URL), rejected with a
 * {@link RedirectRefusedError} on a redirect. Reading the body of a
 * chat completion past the limit rejects with a {@link ResponseTooLargeError} (the fetch itself resolves: the
 * client would take a rejection for a connection failure). Status and headers are as received.
 * @param limit bytes (default {@link MAX_RESPONSE_BYTES}); must be > 0.
 * @param fetchImpl a `fetch` for every request, chat completions included (default: chat completions over
 *   `./chat-transport.ts`, the rest over `globalThis.fetch`).
 * @param onCrossOrigin called with the two origins (`scheme://host:port`, never a path or query, which may hold a
 *   key) each time a redirect is followed to another origin.
 */
export function limitedFetch(
  limit: number = MAX_RESPONSE_BYTES,
  fetchImpl?: typeof fetch,
  onCrossOrigin?: (from: string, to: string) => void,
): typeof fetch {
  // chat completions over undici's request() unless a fetch is given (tests, a library user's own)
  const ownTransport = fetchImpl === undefined;
  const base = fetchImpl ?? globalThis.fetch;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    let url: URL | null = null;
    try {
      url = input instanceof Request ? null : new URL(typeof input === "string" ? input : input.href);
    } catch {
      url = null;
    }
    const body = init?.body;
    const plain =
      url !== null &&
      (url.protocol === "http:" || url.protocol === "https:") &&
      url.username === "" &&
      url.password === "" &&
      (body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array);
    // a request this path would not repeat on a redirect exactly (a stream body, credentials in the URL): never followed
    if (!plain) return refuseRedirects(base, input, init, url);
    if (isChatCompletion(url!, init))
      return followRedirects(url!, init!, ownTransport ? (u, i) => requestOne(u, i, limit) : (u, i) => fetchOne(base, u, i, limit), onCrossOrigin);
    // the Batch API's files and batches calls: the same redirect rule (red team: a poll and a download followed a
    // redirect to another origin with a `headers_env` credential), bodies not limited (result files are large)
    return followRedirects(url!, init ?? {}, (u, i) => base(u, { ...i, redirect: "manual" }), onCrossOrigin);
  }) as typeof fetch;
}

/**
 * A redirect that was not followed: a request whose body is a stream (the Batch API's upload, streamed from disk,
 * cannot be sent twice) or whose URL holds credentials. Its message names the URLs (origin and path: a query may
 * hold a key), never a header. The `openai` client wraps it in an `APIConnectionError` (`cause`); the Batch API's
 * fault policy (`./batch-api.ts`) finds it there ({@link redirectRefusal}) and does not retry it.
 */
export class RedirectRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RedirectRefusedError";
  }
}

/** The {@link RedirectRefusedError} along an error's `cause` chain, if any. */
export function redirectRefusal(err: unknown): RedirectRefusedError | undefined {
  for (let e: unknown = err, d = 0; e && typeof e === "object" && d < 8; d++) {
    if (e instanceof RedirectRefusedError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A URL as named in messages: origin and path, no query or credentials. */
function shownUrl(u: URL): string {
  return `${u.origin}${u.pathname}`;
}

/**
 * A request sent without following redirects: a redirect answer rejects with {@link RedirectRefusedError}. A stream
 * body is sent with `redirect: "error"` (undici clones a request under any other mode, and the clone's tee keeps
 * every byte sent: +200 MB for a 195 MB upload, measured), where undici does not say the `Location`; any other
 * with `redirect: "manual"`, and the message names where it pointed.
 */
async function refuseRedirects(base: typeof fetch, input: string | URL | Request, init: RequestInit | undefined, url: URL | null): Promise<Response> {
  const body = init?.body;
  const stream = body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array);
  const what = `${(init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase()} ${url ? shownUrl(url) : "request"}`;
  let res: Response;
  try {
    res = await base(input, { ...init, redirect: stream ? "error" : "manual" });
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    if (stream && cause instanceof Error && cause.message === "unexpected redirect")
      throw new RedirectRefusedError(`redirect refused: ${what} was answered with a redirect, not followed: a request body streamed from disk is not sent twice (set base_url to the address the server moved to)`);
    throw e;
  }
  if (!REDIRECTS.has(res.status)) return res;
  await res.body?.cancel().catch(() => undefined);
  let to = "an address not given";
  try {
    const loc = res.headers.get("location");
    if (loc) to = shownUrl(new URL(loc, url ?? undefined));
  } catch {
    to = "an address that is not a URL";
  }
  throw new RedirectRefusedError(`redirect refused: ${what} was answered with HTTP ${res.status} to ${to}, not followed (a request whose URL holds credentials or whose body is a stream is not sent again)`);
}

/** Redirect statuses followed, and the most hops followed for one request. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const MAX_REDIRECTS = 5;
/**
 * The only headers sent on to another origin: the `openai` client's own non-secret ones. Every other header may be a
 * credential (`authorization`, `api-key`, and any name a judge's `headers_env` gives, e.g. `X-Auth-Token` or
 * `Ocp-Apim-Subscription-Key`), so it stays with the origin it was configured for (`fetch` drops only
 * `authorization`).
 */
const CROSS_ORIGIN_HEADERS = /^(accept|accept-language|accept-encoding|content-type|content-length|user-agent|x-stainless-[a-z-]+)$/i;

/**
 * Follow HTTP redirects (a moved endpoint, `http` to `https`), at most {@link MAX_REDIRECTS} hops: 301/302/307/308
 * repeat the request (method and body, as an API client must: `fetch` would turn a 301/302 POST into a GET), 303
 * becomes a GET without a body. When the origin changes only the client's own non-secret headers go on
 * (`CROSS_ORIGIN_HEADERS`): any other header may be a credential. A `Location` that is
 * missing or not http(s), or one hop too many, returns the redirect response itself (the fault policy reads it as
 * the status it is).
 */
async function followRedirects(
  url: URL,
  init: RequestInit,
  send: (url: URL, init: RequestInit) => Promise<Response>,
  onCrossOrigin?: (from: string, to: string) => void,
): Promise<Response> {
  let cur = url;
  let curInit = init;
  for (let hop = 0; ; hop++) {
    const res = await send(cur, curInit);
    if (!REDIRECTS.has(res.status) || hop >= MAX_REDIRECTS) return res;
    const loc = res.headers.get("location");
    let next: URL;
    try {
      next = new URL(loc ?? "", cur);
    } catch {
      return res;
    }
    if (!loc || (next.protocol !== "http:" && next.protocol !== "https:") || next.username || next.password) return res;
    // the redirect's own body is not read (a chat completion's was already): its connection is freed
    await res.body?.cancel().catch(() => undefined);
    const headers = headerRecord(curInit.headers);
    if (next.origin !== cur.origin) {
      for (const k of Object.keys(headers)) if (!CROSS_ORIGIN_HEADERS.test(k)) delete headers[k];
      onCrossOrigin?.(cur.origin, next.origin);
    }
    if (res.status === 303) {
      delete headers["content-type"];
      delete headers["content-length"];
      curInit = { ...curInit, method: "GET", headers, body: undefined };
    } else curInit = { ...curInit, headers };
    cur = next;
  }
}
