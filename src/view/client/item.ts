/**
 * One trajectory's page (`#/t/<id>`): its fields, the benchmark's verdict, human labels, each judge's verdict
 * with findings and quotes (raw replies on demand), and the trajectory with every located quote highlighted.
 */
import type { ItemView } from "../item.js";
import { clear, getJson, h } from "./dom.js";
import { nameNode } from "./name.js";
import { judgeClass, quoteLine, renderDoc } from "./doc.js";
import type { Meta } from "./meta.js";
import { humansNode } from "./humans-node.js";
import { provenanceLine } from "../../verdict/provenance.js";
import { judgeBanners, judgeNote } from "./judge-health.js";
import type { ItemJudgeNote, JudgeBanner } from "../judge-health.js";

/** GET /api/item: the trajectory, and what is said of its judges (../judge-health.ts). */
type ItemPage = ItemView & { judge_notes?: ItemJudgeNote[]; judge_health?: JudgeBanner[] };

function field(k: string, v: string | HTMLElement | null | undefined): HTMLElement | null {
  return v === undefined || v === null || v === "" ? null : h("tr", {}, h("th", {}, k), h("td", {}, v));
}

function verdictCard(v: ItemView["verdicts"][number], item: ItemPage, judges: readonly string[]): HTMLElement {
  const quotes = item.quotes;
  const card = h("div", { class: `verdict ${judgeClass(judges, v.judge_id)}` });
  const label = v.label ?? "no label";
  card.appendChild(
    h(
      "div",
      { class: "vh" },
      h("b", {}, v.judge_id),
      " (",
      nameNode(v.judge_model),
      `${v.repeat ? `, repeat ${v.repeat}` : ""}): `,
      h("span", { class: `chip b-${v.label ?? "none"}` }, label),
      v.status !== "ok" ? h("span", { class: "status" }, ` status ${v.status}`) : null,
      v.downgraded ? h("span", { class: "down" }, ` downgraded from ${v.label_claimed ?? "?"}`) : null,
      v.label_basis ? h("span", { class: "basis" }, ` (basis: ${v.label_basis})`) : null,
      v.compliance_evidence ? h("span", { class: "down" }, ` evidence: ${v.compliance_evidence} (check it)`) : null,
    ),
  );
  const provenance = provenanceLine(v);
  if (provenance) card.appendChild(h("div", { class: "provenance" }, provenance));
  if (v.error) card.appendChild(h("div", { class: "err" }, `error ${v.error.kind}: ${v.error.message}`));
  // an error verdict carries what is said of its judge (a broken or crashing judge: ../judge-health.ts)
  const note = item.judge_notes?.find((n) => n.kind === "error" && n.judge_id === v.judge_id && n.repeat === v.repeat);
  if (note) card.appendChild(judgeNote(note, item.judge_health?.find((b) => b.judge_id === v.judge_id)));
  if (v.rationale) card.appendChild(h("p", { class: "rationale" }, v.rationale));
  for (const f of v.findings) {
    const ul = h("ul", { class: "quotes" });
    for (const n of f.quotes) if (quotes[n]) ul.appendChild(quoteLine(quotes[n], judges));
    card.appendChild(h("div", { class: "finding" }, h("span", { class: `chip b-${f.bucket}` }, f.bucket), f.holds ? " holds" : " does not hold", f.explanation ? `: ${f.explanation}` : "", ul));
  }
  if (v.raw_replies?.length) {
    const d = h("details", { class: "raw" }, h("summary", {}, `raw replies (${v.raw_replies.length}), attempts ${v.attempts}`));
    v.raw_replies.forEach((r, i) => d.appendChild(h("pre", { class: "part" }, `[${i}] ${r}`)));
    card.appendChild(d);
  }
  return card;
}

/** Draw the page of trajectory `id` into `root`. */
export async function renderItem(root: HTMLElement, meta: Meta, id: string): Promise<void> {
  clear(root);
  root.appendChild(h("p", {}, "Loading…"));
  let item: ItemPage;
  try {
    item = await getJson<ItemPage>(`/api/item?id=${encodeURIComponent(id)}`);
  } catch (e) {
    clear(root);
    root.appendChild(h("p", { class: "err" }, (e as Error).message));
    return;
  }
  clear(root);
  const r = item.row;
  const judges = meta.judges ?? [];
  root.appendChild(h("p", {}, h("a", { href: "#/" }, "← all trajectories")));
  root.appendChild(h("h2", { class: "tid" }, r.id));
  const table = h("table", { class: "fields" });
  for (const [k, v] of [
    ["agent model", nameNode(r.agent_model)],
    ["suite", nameNode(r.suite)],
    ["condition", nameNode(r.condition)],
    ["attack", nameNode(r.attack)],
    ["surface", nameNode(r.surface)],
    ["user task", nameNode(r.user_task_id)],
    ["injection task", nameNode(r.injection_task_id)],
    ["benchmark", r.reference === undefined ? (r.attacked ? "no usable security verdict" : "unattacked") : r.reference ? "security true: the injected goal was achieved" : "security false: goal not achieved"],
    ["committee", r.committee ? `${r.committee.label ?? "no label"} (${r.committee.status})` : undefined],
    ["humans", humansNode(r.humans)], // the adjudicated label drawn apart as the consensus, not a fifth annotator (./humans-node.ts)
    ["other run", item.other ? `${item.other.run}: ${Object.entries(item.other.labels).map(([j, l]) => `${j} ${l ?? "no label"}`).join(", ")}` : undefined],
  ] as Array<[string, string | HTMLElement | null | undefined]>) {
    const tr = field(k, v);
    if (tr) table.appendChild(tr);
  }
  root.appendChild(table);
  const verdicts = h("section", { class: "verdicts" }, h("h3", {}, "Verdicts"));
  const banners = judgeBanners(item.judge_health);
  if (banners) verdicts.appendChild(banners);
  for (const v of item.verdicts) verdicts.appendChild(verdictCard(v, item, judges));
  // a judge that crashed on this trajectory has no verdict here: said where its verdict would be
  for (const n of item.judge_notes ?? []) if (n.kind === "crash") verdicts.appendChild(judgeNote(n, item.judge_health?.find((b) => b.judge_id === n.judge_id)));
  root.appendChild(verdicts);
  if (item.error) root.appendChild(h("p", { class: "err" }, `The trajectory cannot be shown: ${item.error}`));
  if (item.doc) root.appendChild(renderDoc(item.doc, judges));
}
