/**
 * Drawing a trajectory document (src/view/document.ts `TrajectoryDoc`): injected content, the tools offered,
 * the messages with their tool calls; each part's segments as text nodes, highlighted segments in `<mark>`
 * elements whose class names the judge (never markup from the data).
 */
import type { DocQuote, TrajectoryDoc } from "../document.js";
import { append, h, type Child } from "./dom.js";
import { displayName } from "../../serialize/display-cut.js";

/** Colour slot of a judge (`j0`..`j5`), by its position in the run's judge list. */
export function judgeClass(judges: readonly string[], judge: string): string {
  return `j${Math.max(0, judges.indexOf(judge)) % 6}`;
}

function partBody(doc: TrajectoryDoc, i: number, judges: readonly string[], cls: string): HTMLElement {
  const p = doc.parts[i];
  const pre = h("pre", { class: `part ${cls}`, "data-part": i });
  const firstMark = new Set<string>();
  for (const s of p.segments) {
    const quotes = (s.marks ?? []).filter((m) => m.startsWith("q")).map((m) => doc.quotes[Number(m.slice(1))]);
    const inj = (s.marks ?? []).includes("inj");
    if (s.omitted !== undefined) {
      // a stretch of a long text left out for display: the marker says how many characters
      pre.appendChild(h("span", { class: "cut" }, s.text));
      continue;
    }
    if (!quotes.length && !inj) {
      pre.appendChild(document.createTextNode(s.text));
      continue;
    }
    const classes = ["hl"];
    if (inj) classes.push("inj");
    for (const q of quotes) classes.push("q", judgeClass(judges, q.judge_id));
    if (new Set(quotes.map((q) => q.judge_id)).size > 1) classes.push("multi");
    const title = [...(inj ? ["injected text"] : []), ...quotes.map((q) => `${q.judge_id}: ${q.bucket}`)].join("; ");
    const m = h("mark", { class: [...new Set(classes)].join(" "), title }, s.text);
    for (const q of quotes) {
      if (!firstMark.has(`q${q.n}`)) {
        firstMark.add(`q${q.n}`);
        m.setAttribute("data-q", String(q.n));
        if (!m.id) m.id = `q${q.n}`;
      }
    }
    pre.appendChild(m);
  }
  return pre;
}

function injectedNote(doc: TrajectoryDoc, i: number): Child {
  const inj = doc.parts[i].injected;
  return inj.length ? h("div", { class: "injnote" }, `contains injected content: ${inj.join(", ")}`) : null;
}

/**
 * The trajectory's DOM.
 * @param judges the run's judges (colour slots); [] for an annotator's blinded item.
 */
export function renderDoc(doc: TrajectoryDoc, judges: readonly string[] = []): HTMLElement {
  const root = h("div", { class: "doc" });
  const inj = Object.entries(doc.injections);
  if (inj.length) {
    // closed by default: the messages that carry it are marked, and the trajectory comes first
    const box = h("details", { class: "injbox" }, h("summary", {}, h("h3", {}, `Injected content (${inj.length})`)));
    for (const [k, v] of inj) box.appendChild(h("div", { class: "msg r-inj" }, h("div", { class: "mh", title: displayName(k) === k ? undefined : k }, displayName(k)), h("pre", { class: "part" }, v)));
    root.appendChild(h("section", { class: "injections" }, box));
  }
  if (doc.tools.length) {
    const sec = h("section", { class: "tools" }, h("h3", {}, "Tools offered to the agent"));
    for (const t of doc.tools) {
      const d = h("details", { class: "msg r-tooldef", open: doc.parts[t.part]?.injected.length > 0 || doc.parts[t.part]?.segments.some((s) => s.marks?.length) });
      // a long tool name cut for display as the message heads cut it, the full name on hover
      d.appendChild(h("summary", { class: "mh", title: displayName(t.name) === t.name ? undefined : t.name }, `tool ${t.index} · ${displayName(t.name)}`));
      append(d, injectedNote(doc, t.part));
      d.appendChild(partBody(doc, t.part, judges, "pt"));
      sec.appendChild(d);
    }
    root.appendChild(sec);
  }
  const msgs = h("section", { class: "messages" }, h("h3", {}, "Messages"));
  for (const m of doc.messages) {
    // a long tool name or call id cut for display (as markdown and the report cut names), the full head on hover
    const full = `#${m.index} ${m.role}${m.tool_name ? ` · ${m.tool_name}` : ""}${m.tool_call_id ? ` (call ${m.tool_call_id})` : ""}`;
    const head = `#${m.index} ${displayName(m.role)}${m.tool_name ? ` · ${displayName(m.tool_name)}` : ""}${m.tool_call_id ? ` (call ${displayName(m.tool_call_id)})` : ""}`;
    const box = h("div", { class: `msg r-${/^[a-z]+$/.test(m.role) ? m.role : "other"}`, id: `m${m.index}` }, h("div", { class: "mh", title: head === full ? undefined : full }, head));
    for (const pi of m.parts) {
      const p = doc.parts[pi];
      append(box, injectedNote(doc, pi));
      if (p.kind === "tool_call") box.appendChild(h("div", { class: "cl" }, `tool call ${p.tool_call_index}`));
      else if (p.kind === "harness_note") box.appendChild(h("div", { class: "cl" }, "error recorded by the provider or harness (not the agent's words)"));
      box.appendChild(partBody(doc, pi, judges, p.kind === "tool_call" ? "pc" : "pt"));
    }
    msgs.appendChild(box);
  }
  root.appendChild(msgs);
  return root;
}

/** One quote of a verdict, as a line: badge, the quote, where it is or why it is not shown. */
export function quoteLine(q: DocQuote, judges: readonly string[]): HTMLElement {
  const ok = q.part !== null;
  const badge = q.quote.verified ? (ok ? "✓ verified" : "✓ verified, not shown") : "✗ unverified";
  const li = h(
    "li",
    { class: `quote ${q.quote.verified ? "verified" : "unverified"} ${judgeClass(judges, q.judge_id)}` },
    h("span", { class: "badge" }, badge),
    " ",
    ok ? h("a", { href: `#q${q.n}`, "data-jump": q.n, onclick: (e: Event) => jump(e, q.n) }, "“", q.quote.quote, "”") : h("q", {}, q.quote.quote),
  );
  const where =
    q.quote.tool_index !== undefined ? `tool ${q.quote.tool_index}` : `message ${q.quote.message_index}${q.quote.tool_call_index !== undefined ? ` call ${q.quote.tool_call_index}` : ""}`;
  li.appendChild(h("span", { class: "why" }, ` cites ${where}${q.quote.corrected_index !== undefined ? `, found in message ${q.quote.corrected_index}` : ""}${q.why ? ` (${q.why})` : ""}`));
  if (q.quote.closest) li.appendChild(h("div", { class: "closest" }, `closest existing text (similarity ${q.quote.closest.similarity.toFixed(2)}): `, h("q", {}, q.quote.closest.text)));
  return li;
}

function jump(e: Event, n: number): void {
  e.preventDefault();
  const m = document.getElementById(`q${n}`);
  if (!m) return;
  m.scrollIntoView({ block: "center" });
  m.classList.add("flash");
  setTimeout(() => m.classList.remove("flash"), 1200);
}
