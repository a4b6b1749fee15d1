/**
 * The humans line as page elements (./humans-text.ts): the annotators' votes as text, the adjudicated consensus in
 * its own element (class `consensus`, drawn apart), which no annotator name can produce (red team 37c F3).
 */
import { h } from "./dom.js";
import { CONSENSUS_TEXT, humansParts } from "./humans-text.js";

/**
 * A span of class `hum` with the votes and, when adjudicated, a `consensus` element; null when there is no label.
 * @param title the span's tooltip.
 */
export function humansNode(humans: Record<string, string> | undefined, title?: string): HTMLElement | null {
  const p = humansParts(humans);
  if (p.votes === undefined && p.consensus === undefined) return null;
  const consensus =
    p.consensus !== undefined ? h("span", { class: "consensus", title: "the adjudicated label: the item's consensus, not an annotator's vote" }, h("b", {}, CONSENSUS_TEXT), `: ${p.consensus}`) : null;
  return h("span", { class: "hum", ...(title ? { title } : {}) }, p.votes ?? "", p.votes !== undefined && consensus ? "; " : "", consensus);
}
