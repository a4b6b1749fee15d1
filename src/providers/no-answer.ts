/**
 * Whether a failed chat request got no answer at all from the server: not one byte of a response. The lost-endpoint
 * rule (`../judges/lost-endpoint.ts`) counts items whose every request failed so (`SendResult.unconnected`); anything
 * else (a reply, a status, a timeout after the request was sent, a body cut after its headers) reached a server that
 * is alive, if slow or broken, and keeps its own policy.
 *
 * No answer (the rule's three kinds of dead server):
 * - the connection was refused, or the host or network cannot be reached (`ECONNREFUSED`, `ENOTFOUND`, `EHOSTUNREACH`,
 *   a certificate that does not verify...: `isUnreachable` of `./faults.ts`): nothing listens there;
 * - no connection was made in time: undici's connect timeout (`UND_ERR_CONNECT_TIMEOUT`, 10 s), or the request's own
 *   timeout while it was still connecting (the transport says so: {@link takeUnconnected}): a host that is off or
 *   behind a firewall drops the packets. A busy server is not this: its kernel accepts connections while the model
 *   works, so its requests time out after they were sent (a `timeout` that reached it);
 * - the connection was closed or reset before any response byte (`ECONNRESET`, `EPIPE`, `ECONNABORTED`, undici's
 *   "other side closed" / "closed"): a port forward or proxy with nothing behind it (docker's port proxy accepts and
 *   closes when the container's server is gone), a server at its connection limit. A reset after a response began is
 *   not this (its body was lost: `answered`).
 * A server that answers some requests is never taken for lost: one reply ends the streak, and each counted item took
 * every retry (7 requests by default) without one byte of answer.
 */

/** Codes along an error's cause chain that say the connection closed before any response byte. */
const CLOSED_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/** Request bodies whose last request failed before a connection carried it ({@link noteUnconnected}). */
const UNCONNECTED = new WeakSet<object>();

/** Record that the request with body `body` failed (or timed out) before it was written to a connected socket. */
export function noteUnconnected(body: unknown): void {
  if (body !== null && typeof body === "object") UNCONNECTED.add(body);
}

/**
 * Whether the transport recorded that the request with this body failed before any connection carried it, and
 * forget it. Only the default transport (`./chat-transport.ts`) knows; a `fetchImpl` of its own never records it
 * (false: such a timeout counts as one that reached the server).
 * @param body the body object given to the client (a `Uint8Array`).
 */
export function takeUnconnected(body: unknown): boolean {
  if (body === null || typeof body !== "object") return false;
  const had = UNCONNECTED.has(body);
  UNCONNECTED.delete(body);
  return had;
}

/** The string codes along an error's `cause` chain (and inside an `AggregateError`'s `errors`). */
function causeCodes(err: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): void => {
    if (!e || typeof e !== "object" || seen.has(e) || depth > 8) return;
    seen.add(e);
    const o = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof o.code === "string" && o.code !== "") out.push(o.code);
    if (Array.isArray(o.errors)) for (const x of o.errors) visit(x, depth + 1);
    visit(o.cause, depth + 1);
  };
  visit(err, 0);
  return out;
}

/** How a request that got no answer failed, for messages: refused or unreachable, no connection in time, or closed. */
export type NoAnswer = "unreachable" | "connect_timeout" | "closed";

/**
 * Whether a failed request got no answer from the server (module docstring), and how.
 * @param err what the client threw.
 * @param fault what `./faults.ts` made of it: `connection` (a connection failure), `timeout` (a retry of kind
 *   `timeout`), or anything else (never "no answer").
 * @param unreachable whether the connection failure is one of `isUnreachable` (`./faults.ts`).
 * @param unconnected whether the transport saw the request fail before a connection carried it ({@link takeUnconnected}).
 * @param lost 2xx answers lost while their bodies were read (an answer: never "no answer").
 * @returns the kind, or undefined when the server answered something.
 */
export function noAnswer(err: unknown, fault: "connection" | "timeout" | "other", unreachable: boolean, unconnected: boolean, lost: number): NoAnswer | undefined {
  if (lost > 0 || fault === "other") return undefined;
  const codes = causeCodes(err);
  // the `openai` client makes undici's connect timeout an `APIConnectionTimeoutError` ("Connect Timeout Error"): a timeout
  if (codes.includes("UND_ERR_CONNECT_TIMEOUT") || (fault === "timeout" && unconnected)) return "connect_timeout";
  if (fault === "timeout") return undefined;
  if (unreachable) return "unreachable";
  if (codes.some((c) => CLOSED_CODES.has(c))) return "closed";
  return undefined;
}

/**
 * The message of a request that made no connection in time: the request's own timeout (`timeoutMs`) when its timer
 * fired (`timedOut`), else undici's connect timeout (10 s; the `openai` client drops undici's error for its own
 * `APIConnectionTimeoutError`, so only the state tells them apart).
 */
export function connectTimeoutMessage(timedOut: boolean, timeoutMs: number): string {
  return timedOut
    ? `no connection made within ${timeoutMs / 1000} s, the request's timeout (the host did not answer the connection request)`
    : `no connection made within 10 s, the transport's connect timeout (the host did not answer the connection request)`;
}
