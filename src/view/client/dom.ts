/**
 * The page's only way to make DOM: elements with attributes set by `setAttribute` and children added as text
 * nodes (`textContent`) or elements. Nothing here (or anywhere in the page's script) assigns `innerHTML`, so text
 * from a trajectory is never parsed as HTML. Attribute names are fixed in the code; `href` values are built by the
 * page (`#/...`), never taken from data.
 */

/** A child: an element, a text (added as a text node), or nothing. */
export type Child = Node | string | number | null | undefined | false;

/**
 * Create an element.
 * @param tag the tag name (a constant of the page's code).
 * @param attrs attributes (`class`, `id`, `title`, `href`, `data-*`, ...); `on<event>` keys take listeners.
 * @param children appended in order; strings become text nodes.
 */
export function h(tag: string, attrs: Record<string, string | number | boolean | ((e: Event) => void) | undefined> = {}, ...children: Child[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") e.addEventListener(k.slice(2).toLowerCase(), v as EventListener);
    else if (k === "href" && !String(v).startsWith("#")) throw new Error("links are page routes only");
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  append(e, ...children);
  return e;
}

/** Append children (strings as text nodes). */
export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

/** Remove every child of an element. */
export function clear(e: Node): void {
  while (e.firstChild) e.removeChild(e.firstChild);
}

/** Where the page keeps the server's token: sessionStorage (per origin, so per port; this tab only). */
const TOKEN_KEY = "ipi-view-token";
/** The localStorage key of a blind view's annotator secret (GET /api/meta `sample.claim_key`), once known. */
let claimKey: string | null = null;

/**
 * Take the token out of the address bar (`?token=`, the URL the server printed) into sessionStorage, and the address
 * bar back to `/` + the hash. No credential goes into a cookie: a browser sends 127.0.0.1's cookies to every server
 * on 127.0.0.1, whatever its port (red team 35b F1).
 * @returns whether the page has a token.
 */
export function takeToken(): boolean {
  const t = new URLSearchParams(location.search).get("token");
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  if (location.search.includes("token=")) history.replaceState(null, "", `/${location.hash}`);
  return !!sessionStorage.getItem(TOKEN_KEY);
}

/** Send the blind view's annotator secret kept under `key` in localStorage with every request (null: none). */
export function useClaimKey(key: string | null): void {
  claimKey = key;
}

/** The headers of every request: the token, and a blind annotator's secret when the page holds one. */
function authHeaders(): Record<string, string> {
  const out: Record<string, string> = { "x-ipi-token": sessionStorage.getItem(TOKEN_KEY) ?? "" };
  const secret = claimKey ? localStorage.getItem(claimKey) : null;
  if (secret) out["x-ipi-annotator-secret"] = secret;
  return out;
}

/**
 * The server refused the page's token (403 with `x-ipi-refused: token`, ../server.ts `REFUSED_HEADER`): the view was
 * restarted, which prints a new token, or started with another token (`openView`'s `token`), while this tab keeps the old one.
 */
export class TokenRefused extends Error {
  constructor() {
    super(
      "the view no longer accepts this page's token: it was restarted (each start prints a new token) or its token changed. " +
        "Open the URL the terminal printed when the view started (http://…/?token=…) in this tab; labels already saved are kept",
    );
    this.name = "TokenRefused";
  }
}

/** Keep the annotator secret a blind server gives back (response header), per origin in localStorage; a refused token is {@link TokenRefused}. */
async function answer<T>(r: Response): Promise<T> {
  if (r.status === 403 && r.headers.get("x-ipi-refused") === "token") throw new TokenRefused();
  const secret = r.headers.get("x-ipi-annotator-secret");
  if (secret && claimKey) localStorage.setItem(claimKey, secret);
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error((body as { error?: string }).error ?? `HTTP ${r.status}`);
  return body as T;
}

/** A JSON GET of the page's own server (with the token header). */
export async function getJson<T>(url: string): Promise<T> {
  return answer<T>(await fetch(url, { credentials: "omit", headers: authHeaders() }));
}

/** A JSON POST to the page's own server (with the token and the header the server requires of every POST). */
export async function postJson<T>(url: string, data: unknown): Promise<T> {
  return answer<T>(
    await fetch(url, {
      method: "POST",
      credentials: "omit",
      headers: { ...authHeaders(), "content-type": "application/json", "x-ipi-view": "1" },
      body: JSON.stringify(data),
    }),
  );
}
