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

/** A JSON GET of the page's own server (the token travels in the cookie the first page load set). */
export async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { credentials: "same-origin" });
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error((body as { error?: string }).error ?? `HTTP ${r.status}`);
  return body as T;
}

/** A JSON POST to the page's own server (with the header the server requires of every POST). */
export async function postJson<T>(url: string, data: unknown): Promise<T> {
  const r = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-ipi-view": "1" },
    body: JSON.stringify(data),
  });
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error((body as { error?: string }).error ?? `HTTP ${r.status}`);
  return body as T;
}
