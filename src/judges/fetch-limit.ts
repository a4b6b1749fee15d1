/**
 * A `fetch` for the `openai` v6 client (its `fetch` option) that bounds the size of a chat completion's response
 * body. Without it a 200 reply of 84 MB is read whole (and kept in every raw reply of the verdict), and a 2 MB
 * gzip body that expands to 2 GB is decompressed whole (2.1 GB RSS): fetch (undici) decodes `content-encoding`
 * before the body reaches the client, so counting the bytes of `response.body` counts decoded bytes and stops a
 * decompression bomb at the limit too.
 *
 * Only `POST .../chat/completions` responses are limited: the Batch API path (`./batch.ts`) downloads result
 * files through the same client, and those are legitimately large.
 */

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
function isChatCompletion(input: string | URL | Request, init?: RequestInit): boolean {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const method = (init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET")).toUpperCase();
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  return method === "POST" && /\/chat\/completions\/?$/.test(path);
}

/**
 * `body` as a stream that passes at most `limit` bytes: the chunk that goes past errors the stream with a
 * {@link ResponseTooLargeError} and cancels the source (the connection is released, nothing more is decoded).
 */
export function limitStream(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      const { done, value } = await reader.read();
      if (done) {
        ctrl.close();
        return;
      }
      seen += value.byteLength;
      if (seen > limit) {
        const err = new ResponseTooLargeError(limit);
        ctrl.error(err);
        reader.cancel(err).catch(() => undefined);
        return;
      }
      ctrl.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * A `fetch` that limits chat completion response bodies to `limit` decoded bytes (other requests pass as is).
 * Reading the body (`response.json()` / `.text()` in the client) rejects with a {@link ResponseTooLargeError}
 * once more than `limit` bytes have arrived (fetch itself never throws it: the client would take that for a
 * connection failure). Status, headers and everything else of the response are unchanged.
 * @param limit bytes (default {@link MAX_RESPONSE_BYTES}); must be > 0.
 * @param base the underlying fetch (default `globalThis.fetch`).
 */
export function limitedFetch(limit: number = MAX_RESPONSE_BYTES, base: typeof fetch = globalThis.fetch): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await base(input, init);
    if (!res.body || !isChatCompletion(input, init)) return res;
    return new Response(limitStream(res.body, limit), { status: res.status, statusText: res.statusText, headers: res.headers });
  }) as typeof fetch;
}
