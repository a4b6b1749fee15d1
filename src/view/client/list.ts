/**
 * The run's list: filter menus (from the server's facet counts), text search, the side-by-side choice, and a
 * virtualized list: only the rows in view exist in the DOM, fetched from the server a page at a time as the list
 * scrolls (a 40,000-trajectory run never sends its rows at once).
 */
import { clear, getJson, h } from "./dom.js";
import { displayName } from "../../serialize/display-cut.js";
import type { ListItem } from "../query.js";
import type { Meta } from "./meta.js";
import { humansNode } from "./humans-node.js";
import { judgeBanners } from "./judge-health.js";

const ROW_H = 30;
const PAGE = 200;

/** The list's filters live in the hash (`#/?suite=x&label.j=...`), so a filtered list has a URL too. */
export function listParams(): URLSearchParams {
  const hash = location.hash.replace(/^#\/?/, "");
  return new URLSearchParams(hash.startsWith("?") ? hash.slice(1) : "");
}

function setParam(k: string, v: string): void {
  const sp = listParams();
  if (v) sp.set(k, v);
  else sp.delete(k);
  location.hash = `#/?${sp.toString()}`;
}

/** A filter menu; an option is `[value, text]`, or `[value, text, full text]` when its text is a shortened name (the full one its title). */
function select(name: string, label: string, options: Array<[string, string, string?]>, current: string, unset = "any"): HTMLElement {
  const s = h("select", { name, "aria-label": label, onchange: (e: Event) => setParam(name, (e.target as HTMLSelectElement).value) }) as HTMLSelectElement;
  s.appendChild(h("option", { value: "" }, `${label}: ${unset}`));
  for (const [v, text, full] of options) s.appendChild(h("option", { value: v, selected: v === current, title: full }, text));
  return h("label", { class: "f" }, s);
}

function facetOptions(meta: Meta, key: string): Array<[string, string, string?]> {
  const f = meta.facets?.[key] ?? {};
  // a value is a name from the run files: shortened as in the rows, the full one the option's title
  return Object.keys(f)
    .sort()
    .map((v) => (displayName(v) === v ? [v, `${v} (${f[v]})`] : [v, `${displayName(v)} (${f[v]})`, v]));
}

function raters(meta: Meta): Array<[string, string]> {
  const out: Array<[string, string]> = (meta.judges ?? []).map((j) => [`j:${j}`, `judge ${j}`]);
  if (meta.committee?.source) out.push(["committee", "committee"]);
  for (const j of meta.other?.judges ?? []) out.push([`o:${j}`, `${meta.other!.run}: judge ${j}`]);
  return out;
}

function chip(label: string | null | undefined, title: string): HTMLElement {
  const l = label === undefined ? "–" : label === null ? "no label" : label;
  return h("span", { class: `chip b-${label ?? "none"}`, title }, l);
}

/** Characters of an id's tail kept whole in a list row (its last two path parts, at most this many). */
const ID_TAIL_MAX = 64;

/**
 * An id in a list row as a head that is cut with an ellipsis when the row is narrow and a tail kept whole: its last two
 * `/` parts (AgentDojo: attack and injection task), where ids of neighbouring rows differ (new user 43: cut at the end,
 * `.../user_task_10/important_instructi…`, consecutive rows looked the same). The text is the id, unchanged.
 */
function idParts(id: string): HTMLElement[] {
  const cut = id.lastIndexOf("/", id.lastIndexOf("/") - 1);
  const at = cut > 0 && id.length - cut - 1 <= ID_TAIL_MAX ? cut + 1 : -1;
  if (at < 0) return [h("span", { class: "id-head" }, id)];
  return [h("span", { class: "id-head" }, id.slice(0, at)), h("span", { class: "id-tail" }, id.slice(at))];
}

function rowEl(r: ListItem, meta: Meta, top: number, diff: boolean): HTMLElement {
  const cells: HTMLElement[] = [
    h("a", { class: "id", href: `#/t/${encodeURIComponent(r.id)}`, title: r.id }, ...idParts(r.id)),
    // names cut for display as markdown and the report cut them, the full name on hover
    h("span", { class: "c", title: r.agent_model }, displayName(r.agent_model ?? "")),
    h("span", { class: "c", title: r.condition }, displayName(r.condition ?? "")),
  ];
  if (diff && r.diff) {
    cells.push(chip(r.diff[0], "A"), h("span", { class: "vs" }, "≠"), chip(r.diff[1], "B"));
  } else {
    // the judge's mark (LOOKS BROKEN, STOPPED) in the chip's title, as beside its rates
    const mark = (j: string) => meta.judge_health?.find((b) => b.judge_id === j)?.marker;
    for (const j of meta.judges ?? []) cells.push(chip(r.labels[j], `judge ${j}${r.status[j] && r.status[j] !== "ok" ? ` (${r.status[j]})` : ""}${mark(j) ? ` ${mark(j)}` : ""}`));
    if (meta.committee?.source) cells.push(chip(r.committee?.label, `committee (${r.committee?.status ?? "none"})`));
  }
  cells.push(h("span", { class: "ref", title: "benchmark's security verdict" }, r.reference === undefined ? "" : r.reference ? "bench: goal met" : "bench: not met"));
  // the adjudicated consensus in its own element, apart from the annotators' names (./humans-node.ts)
  const hum = humansNode(r.humans, "human labels");
  if (hum) cells.push(hum);
  const row = h("div", { class: "row", "data-id": r.id }, ...cells);
  row.style.top = `${top}px`; // CSSOM, which the CSP allows (a style attribute it would refuse)
  return row;
}

/** Draw the list view into `root`. */
export function renderList(root: HTMLElement, meta: Meta): void {
  const sp = listParams();
  const bar = h("div", { class: "filters" });
  for (const f of meta.fields ?? []) bar.appendChild(select(f, f.replace("_", " "), facetOptions(meta, f), sp.get(f) ?? ""));
  for (const j of meta.judges ?? []) bar.appendChild(select(`label.${j}`, `judge ${j}`, facetOptions(meta, `label.${j}`), sp.get(`label.${j}`) ?? ""));
  if (meta.committee?.source) bar.appendChild(select("committee", "committee", facetOptions(meta, "committee"), sp.get("committee") ?? ""));
  const dis: Array<[string, string]> = [["reference", "with the benchmark"], ["judges", "among judges"]];
  if (meta.humans) dis.push(["human", "with the humans (consensus)"]);
  bar.appendChild(select("disagree", "disagreement", dis, sp.get("disagree") ?? ""));
  // unset, the server compares the committee, else the first judge (query.ts defaultRater): said so, not "any",
  // which read as the union over the judges (new-user report 38 F3: 16 rows, the committee's, where 28 were expected)
  const byDefault = meta.committee?.source ? "the committee (default)" : meta.judges?.[0] !== undefined ? `judge ${meta.judges[0]} (default)` : "none";
  const vsOptions = raters(meta).filter(([v]) => !v.startsWith("o:"));
  if ((meta.judges ?? []).length > 1) vsOptions.push(["any", "any judge (union over the judges)"]);
  bar.appendChild(select("vs", "rater compared", vsOptions, sp.get("vs") ?? "", byDefault));
  bar.appendChild(
    select("status", "status", [["unverified", "unverified verdict"], ["errors", "judge errors, refusals"], ["downgraded", "downgraded"], ["unverified_quotes", "unverified quotes"]], sp.get("status") ?? ""),
  );
  const search = h("input", { type: "search", name: "q", placeholder: "search ids, tasks, rationales", value: sp.get("q") ?? "" }) as HTMLInputElement;
  search.addEventListener("change", () => setParam("q", search.value.trim()));
  bar.appendChild(h("label", { class: "f" }, search));
  const side = h("div", { class: "filters side" }, h("span", {}, "side by side: "));
  const [a, b] = (sp.get("diff") ?? ",").split(",");
  const pick = (which: 0 | 1, cur: string) => {
    const s = h("select", { name: `diff${which}`, "aria-label": which ? "B" : "A" }) as HTMLSelectElement;
    s.appendChild(h("option", { value: "" }, which ? "B: choose" : "A: choose"));
    for (const [v, t] of raters(meta)) s.appendChild(h("option", { value: v, selected: v === cur }, t));
    s.addEventListener("change", () => {
      const cur2 = (listParams().get("diff") ?? ",").split(",");
      cur2[which] = s.value;
      setParam("diff", cur2[0] && cur2[1] ? cur2.join(",") : cur2[0] || cur2[1] ? cur2.join(",") : "");
    });
    return s;
  };
  const bin = h("input", { type: "checkbox", name: "binary", checked: sp.get("binary") === "1" }) as HTMLInputElement;
  bin.addEventListener("change", () => setParam("binary", bin.checked ? "1" : ""));
  side.append(pick(0, a), pick(1, b), h("label", {}, bin, " compare compromised / not only"));
  const count = h("div", { id: "count", class: "count" }, "…");
  const viewport = h("div", { id: "list", class: "list", tabindex: 0 });
  const spacer = h("div", { class: "spacer" });
  viewport.appendChild(spacer);
  clear(root);
  // a judge whose labels are in the list with something said of it (a broken judge, crashes, ...): said above them
  const banners = judgeBanners(meta.judge_health);
  if (banners) root.append(banners);
  // the other run's judges, whose labels the side-by-side choice shows
  const others = judgeBanners(meta.other?.judge_health);
  if (others) root.append(h("p", { class: "count" }, `run ${meta.other!.run}:`), others);
  root.append(bar, side, count, viewport);
  const diff = !!(a && b);
  const query = new URLSearchParams(sp);
  if (!diff) query.delete("diff");
  const pages = new Map<number, Promise<{ total: number; rows: ListItem[] }>>();
  const page = (n: number) => {
    let p = pages.get(n);
    if (!p) {
      const q = new URLSearchParams(query);
      q.set("offset", String(n * PAGE));
      q.set("limit", String(PAGE));
      p = getJson(`/api/list?${q.toString()}`);
      pages.set(n, p);
    }
    return p;
  };
  let total = 0;
  const draw = async () => {
    const first = Math.max(0, Math.floor(viewport.scrollTop / ROW_H) - 10);
    const last = Math.min(total, first + Math.ceil(viewport.clientHeight / ROW_H) + 20);
    const wanted = new Set<number>();
    for (let n = Math.floor(first / PAGE); n * PAGE < last; n++) wanted.add(n);
    const loaded = await Promise.all([...wanted].map((n) => page(n).then((p) => [n, p] as const)));
    for (const el of [...viewport.querySelectorAll(".row")]) el.remove();
    for (const [n, p] of loaded) {
      p.rows.forEach((r, k) => {
        const i = n * PAGE + k;
        if (i >= first && i < last) viewport.appendChild(rowEl(r, meta, i * ROW_H, diff));
      });
    }
  };
  page(0)
    .then((p) => {
      total = p.total;
      spacer.style.height = `${total * ROW_H}px`;
      count.textContent = `${total} of ${meta.trajectories} trajectories${diff ? ` where ${a} and ${b} differ` : ""}`;
      return draw();
    })
    .catch((e: Error) => (count.textContent = `error: ${e.message}`));
  let pending = false;
  viewport.addEventListener("scroll", () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      void draw();
    });
  });
}
