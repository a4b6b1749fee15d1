/**
 * Annotation (`#/annotate/<n>`) and adjudication (`#/adjudicate`) of a sample. The item is the blinded
 * trajectory (no judge, model or source); labels by keyboard (1-6 or 1-3), evidence by selecting text and pressing
 * E, a note; every change is sent to the server at once, which writes the annotator's file before answering.
 */
import type { AnnotationRow, AdjudicationRow } from "../annotations.js";
import type { TrajectoryDoc } from "../document.js";
import { clear, getJson, h, postJson } from "./dom.js";
import { renderDoc } from "./doc.js";
import type { Meta } from "./meta.js";
import { showInvisibleExactly } from "../../format/invisible.js";
import { inlineSpans, parseMiniMarkdown, type Span } from "./mini-markdown.js";

/** Spans as nodes: `code` in <code>, the rest as text (never markup). */
function spans(list: Span[]): Array<HTMLElement | string> {
  return list.map((x) => (x.code ? h("code", {}, x.text) : x.text));
}

/** The rubric's Markdown subset (./mini-markdown.ts) as <p> and <ul> elements built from text nodes. */
function markdownNodes(text: string): HTMLElement[] {
  return parseMiniMarkdown(text).map((b) => (b.kind === "p" ? h("p", {}, ...spans(b.spans)) : h("ul", {}, ...b.items.map((i) => h("li", {}, ...spans(i))))));
}

const NAME_KEY = "ipi-view-annotator";

/** The server's answer for an item: its document, or why it cannot be shown and the text the sample drew. */
type ItemAnswer = { doc: TrajectoryDoc | null; error?: string; drawn_text?: string };

/** The item's document, or its reason and the sample's own text of it (as text, never markup). */
function itemBody(a: ItemAnswer): HTMLElement {
  if (a.doc) return renderDoc(a.doc);
  return h("div", { class: "item-unavailable" }, h("p", { class: "warn", role: "alert" }, a.error ?? "this item cannot be shown"), a.drawn_text !== undefined ? h("pre", {}, a.drawn_text) : null);
}

/** Keyboard handler of the current annotation page (replaced on each draw). */
let keyHandler: ((e: KeyboardEvent) => void) | null = null;
/** Remove the annotation page's keyboard handler (when another page is drawn). */
export function detachKeys(): void {
  if (keyHandler) document.removeEventListener("keydown", keyHandler);
  keyHandler = null;
}

function nameForm(root: HTMLElement, then: () => void): void {
  const input = h("input", { type: "text", name: "annotator", placeholder: "your name", autofocus: true }) as HTMLInputElement;
  const form = h(
    "form",
    { class: "name" },
    h("p", {}, "Your name as annotator (each annotator's labels go to their own file):"),
    input,
    h("button", { type: "submit" }, "Start"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!input.value.trim()) return;
    localStorage.setItem(NAME_KEY, input.value.trim().normalize("NFC"));
    then();
  });
  root.appendChild(form);
  input.focus();
}

/** Draw item `n` (0-based) of the sample for the stored annotator. */
export async function renderAnnotate(root: HTMLElement, meta: Meta, n: number): Promise<void> {
  detachKeys();
  clear(root);
  const s = meta.sample!;
  const name = localStorage.getItem(NAME_KEY);
  if (!name) return nameForm(root, () => void renderAnnotate(root, meta, n));
  const items = s.items;
  const idx = Math.max(0, Math.min(items.length - 1, n));
  const itemId = items[idx];
  const [{ rows }, item] = await Promise.all([
    getJson<{ rows: AnnotationRow[] }>(`/api/sample/annotations?annotator=${encodeURIComponent(name)}`),
    getJson<ItemAnswer>(`/api/sample/item?item_id=${encodeURIComponent(itemId)}`),
  ]);
  const byItem = new Map(rows.map((r) => [r.item_id, r]));
  let mine = byItem.get(itemId);
  const labelled = () => [...byItem.values()].filter((r) => r.label).length;
  const progress = h("div", { id: "progress", class: "progress" });
  const status = h("div", { id: "saved", class: "saved", role: "status" });
  const evList = h("ul", { class: "evidence" });
  const buttons: HTMLElement[] = [];
  const drawState = () => {
    // the name as typed may hold a right-to-left override that would reverse the header: shown as markers (red team 30 L4)
    progress.textContent = `${showInvisibleExactly(name)}: ${labelled()} of ${items.length} labelled · item ${idx + 1} of ${items.length} (${itemId})`;
    buttons.forEach((b) => b.classList.toggle("on", b.getAttribute("data-label") === mine?.label));
    clear(evList);
    for (const q of mine?.evidence ?? []) {
      evList.appendChild(h("li", { class: q.verified ? "verified" : "unverified" }, q.verified ? "✓ verified " : "✗ not verified ", h("q", {}, q.quote), q.reason ? ` (${q.reason})` : ""));
    }
  };
  const save = async (change: Record<string, unknown>) => {
    status.textContent = "saving…";
    try {
      const { row } = await postJson<{ row: AnnotationRow }>("/api/sample/annotate", { annotator: name, item_id: itemId, ...change });
      mine = row;
      byItem.set(itemId, row);
      status.textContent = `saved ${row.label ? row.label : ""}`;
      drawState();
    } catch (e) {
      status.textContent = `NOT saved: ${(e as Error).message}`;
    }
  };
  const labelBar = h("div", { class: "labels" });
  s.labels.forEach((l, i) => {
    const b = h("button", { type: "button", "data-label": l.value, title: l.definition, onclick: () => void save({ label: l.value }) }, `${i + 1} ${l.value}`);
    buttons.push(b);
    labelBar.appendChild(b);
  });
  const addEvidence = () => {
    const sel = window.getSelection();
    const text = sel?.toString() ?? "";
    const node = sel?.anchorNode ? (sel.anchorNode.nodeType === 1 ? (sel.anchorNode as Element) : sel.anchorNode.parentElement) : null;
    const pre = node?.closest("[data-part]");
    if (!text.trim() || !pre) {
      status.textContent = "select text inside one part of the trajectory first";
      return;
    }
    void save({ evidence: { part: Number(pre.getAttribute("data-part")), quote: text } });
  };
  const note = h("textarea", { name: "note", rows: 2, placeholder: "note (optional)" }) as HTMLTextAreaElement;
  note.value = mine?.note ?? "";
  // saved as typed (a second after the last key) and when the field is left: closing the tab loses nothing
  let timer: ReturnType<typeof setTimeout> | undefined;
  note.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void save({ note: note.value }), 1000);
  });
  note.addEventListener("change", () => {
    clearTimeout(timer);
    void save({ note: note.value });
  });
  const go = (k: number) => (location.hash = `#/annotate/${Math.max(0, Math.min(items.length - 1, k))}`);
  const nextUnlabelled = () => {
    for (let k = 1; k <= items.length; k++) {
      const j = (idx + k) % items.length;
      if (!byItem.get(items[j])?.label) return go(j);
    }
  };
  const panel = h(
    "div",
    { class: "annot" },
    progress,
    labelBar,
    h(
      "div",
      { class: "tools-row" },
      h("button", { type: "button", onclick: addEvidence }, "E add selection as evidence"),
      h("button", { type: "button", onclick: () => void save({ clear_evidence: true }) }, "clear evidence"),
      h("button", { type: "button", onclick: () => go(idx - 1) }, "← P previous"),
      h("button", { type: "button", onclick: () => go(idx + 1) }, "N next →"),
      h("button", { type: "button", onclick: nextUnlabelled }, "U next unlabelled"),
      status,
    ),
    evList,
    note,
    // the rubric's Markdown as DOM nodes with text only (./mini-markdown.ts): backticks as code, "- " as bullets
    h("details", { class: "defs" }, h("summary", {}, "label definitions"), h("ol", {}, ...s.labels.map((l) => h("li", {}, h("b", {}, l.value), ": ", ...spans(inlineSpans(l.definition))))), ...markdownNodes(s.precedence)),
  );
  root.append(panel, itemBody(item));
  drawState();
  keyHandler = (e: KeyboardEvent) => {
    const t = e.target as HTMLElement;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const d = Number(e.key);
    if (Number.isInteger(d) && d >= 1 && d <= s.labels.length) {
      e.preventDefault();
      void save({ label: s.labels[d - 1].value });
    } else if (e.key === "e" || e.key === "E") addEvidence();
    else if (e.key === "n" || e.key === "ArrowRight") go(idx + 1);
    else if (e.key === "p" || e.key === "ArrowLeft") go(idx - 1);
    else if (e.key === "u") nextUnlabelled();
  };
  document.addEventListener("keydown", keyHandler);
}

/** Draw the adjudication page: items the annotators label differently, side by side. */
export async function renderAdjudicate(root: HTMLElement, meta: Meta): Promise<void> {
  detachKeys();
  clear(root);
  const s = meta.sample!;
  const { items, note } = await getJson<{ items: Array<{ item_id: string; rows: AnnotationRow[]; adjudicated?: AdjudicationRow }>; note?: string }>("/api/sample/disagreements");
  root.appendChild(h("h2", {}, `Adjudication: ${items.length} item(s) where annotators disagree`));
  if (note) root.appendChild(h("p", { class: "note" }, note));
  const who = localStorage.getItem(NAME_KEY) ?? "";
  for (const it of items) {
    const box = h("div", { class: "adj", "data-item": it.item_id }, h("h3", {}, it.item_id));
    const cols = h("div", { class: "cols" });
    for (const r of it.rows) {
      cols.appendChild(
        h("div", { class: "col" }, h("b", {}, r.annotator), r.imported_from ? ` (from ${r.imported_from})` : "", ": ", h("span", { class: `chip b-${r.label}` }, r.label), r.note ? h("p", {}, r.note) : null, h("ul", {}, ...(r.evidence ?? []).map((q) => h("li", {}, q.verified ? "✓ " : "✗ ", h("q", {}, q.quote))))),
      );
    }
    box.appendChild(cols);
    const sel = h("select", { name: "label" }) as HTMLSelectElement;
    sel.appendChild(h("option", { value: "" }, "adjudicated label"));
    for (const l of s.labels) sel.appendChild(h("option", { value: l.value, selected: it.adjudicated?.label === l.value }, l.value));
    const note = h("input", { type: "text", name: "note", placeholder: "note", value: it.adjudicated?.note ?? "" }) as HTMLInputElement;
    const adj = h("input", { type: "text", name: "adjudicator", placeholder: "adjudicator", value: it.adjudicated?.adjudicator ?? who }) as HTMLInputElement;
    const st = h("span", { class: "saved" }, it.adjudicated ? `adjudicated: ${it.adjudicated.label} by ${it.adjudicated.adjudicator}` : "");
    const btn = h("button", { type: "button" }, "save");
    btn.addEventListener("click", async () => {
      try {
        const { row } = await postJson<{ row: AdjudicationRow }>("/api/sample/adjudicate", { item_id: it.item_id, label: sel.value, adjudicator: adj.value, note: note.value });
        st.textContent = `adjudicated: ${row.label} by ${row.adjudicator}`;
      } catch (e) {
        st.textContent = `NOT saved: ${(e as Error).message}`;
      }
    });
    const show = h("details", {}, h("summary", {}, "the item"));
    show.addEventListener("toggle", async () => {
      if (show.childElementCount > 1) return;
      show.appendChild(itemBody(await getJson<ItemAnswer>(`/api/sample/item?item_id=${encodeURIComponent(it.item_id)}`)));
    });
    box.append(h("div", { class: "tools-row" }, sel, note, adj, btn, st), show);
    root.appendChild(box);
  }
}
