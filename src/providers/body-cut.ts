/**
 * The error of a request whose transport retries are spent (`./send.ts`, `retryOrFail`), and the `body_cut` kind
 * (hostile 51, finding 2): when EVERY request of the call was answered HTTP 2xx and its body then cut or stalled
 * mid-way (`usage.lost`: a reset, a close or a timeout while the body was read), the call's error is kind `body_cut`,
 * not the last fault's `connection` or `timeout`. Before, it read "connection failed", and the judge's stop "the server
 * has not answered once. Check base_url, the server and the network", while the server had answered every time and
 * something between (a proxy with a body or size limit, a buffering load balancer, an idle timeout) cut the bodies,
 * each one generated and probably billed. The lost-endpoint rule (`../judges/lost-endpoint.ts`) already counts such a
 * request as an answer; the never-answered stop (`endpoint_unavailable`, `../judges/llm-judge.ts`) says it in its own
 * words for this kind.
 */

/** The transport fault kinds that, on a body already answered HTTP 2xx, are a body cut or stalled mid-way. */
const BODY_CUT_FROM: ReadonlySet<string> = new Set(["connection", "timeout", "transport"]);

/**
 * The message of a `body_cut` error: `n` requests, each answered HTTP 2xx and its body cut or stalled mid-way, the last
 * fault `last`; e.g. "the server answered HTTP 2xx 7 times, but each body was cut or stalled mid-way (the last:
 * connection failed: other side closed): ...".
 */
export function bodyCutMessage(n: number, last: string): string {
  return (
    `the server answered HTTP 2xx ${n} time${n === 1 ? "" : "s"}, but each body was cut or stalled mid-way (the last: ${last}): ` +
    `a proxy, load balancer or the server closing the connection or holding the body; the ${n} replies were generated and probably billed (cost unknown)`
  );
}

/**
 * The error of a call that gave up after its transport retries (module docstring).
 * @param kind the last fault's kind (`connection`, `timeout`, `server_error`, ...); `message` its message.
 * @param requests the call's requests; `lost` how many of them were answered HTTP 2xx and lost their body.
 * @returns `body_cut` when every request lost its body after a 2xx and the last fault is a transport fault; else the
 *   last fault's kind, its message saying how many requests were sent and how many of them were cut after a 2xx.
 */
export function gaveUp(kind: string, message: string, requests: number, lost: number): { kind: string; message: string } {
  if (BODY_CUT_FROM.has(kind) && requests > 0 && lost >= requests) return { kind: "body_cut", message: bodyCutMessage(requests, message) };
  return { kind, message: `${message} (gave up after ${requests} requests${lost > 0 ? `; ${lost} of them answered HTTP 2xx and then cut mid-body` : ""})` };
}
