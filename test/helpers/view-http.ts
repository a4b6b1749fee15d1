/**
 * Raw HTTP to a running `ipi-judge view` server for the view's tests: the token in the query, a loopback Host
 * header, and on POST the JSON content type and the `x-ipi-view` header the server requires.
 */
import http from "node:http";
import type { ViewServer } from "../../src/view/index.js";

/** A response: status, headers, body text. */
export type Res = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** GET (or `o.method`) `p` on server `s`, with its token; `o.headers` override the defaults. */
export function req(s: ViewServer, p: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const full = `${p}${p.includes("?") ? "&" : "?"}token=${s.token}`;
    const headers = { host: `127.0.0.1:${s.port}`, ...(o.headers ?? {}) };
    if (o.method === "POST") Object.assign(headers, { "content-type": "application/json", "x-ipi-view": "1" });
    const r = http.request({ host: "127.0.0.1", port: s.port, path: full, method: o.method ?? "GET", headers }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    r.on("error", reject);
    r.end(o.body);
  });
}

/** POST `data` as JSON to `p` on server `s`. */
export const post = (s: ViewServer, p: string, data: unknown, headers: Record<string, string> = {}) => req(s, p, { method: "POST", body: JSON.stringify(data), headers });

/**
 * The headers a blind browser sends after this response: the annotator secret the server gave back
 * (`x-ipi-annotator-secret`; the page keeps it in localStorage), as a header to send.
 */
export const secretOf = (r: Res): Record<string, string> => ({ "x-ipi-annotator-secret": String(r.headers["x-ipi-annotator-secret"] ?? "") });
