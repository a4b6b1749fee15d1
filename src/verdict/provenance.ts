/**
 * The line shown beside a verdict whose label is not its judge's own call on this id under today's rules (verify41):
 * re-verified from its stored findings under newer verification rules (`../run/reverify.ts`), or carried from the
 * trajectory's earlier id after its input moved (`../run/moved-content.ts`). Plain text, escaped by whoever shows it
 * (the view's card puts it in a text node, `../view/client/item.ts`; the report escapes it, `../report/items-html.ts`).
 * Pure (no Node API): the view's browser bundle imports it.
 */
import type { Verdict } from "../types.js";

/**
 * Where a verdict's label came from when not from its judge's call on this id under today's rules: re-verified under
 * newer rules with no judge call (the label and rules before), and carried from the trajectory's earlier id (a moved
 * or renamed input). Null when neither.
 */
export function provenanceLine(v: Pick<Verdict, "reverified" | "carried_from" | "label">): string | null {
  const parts: string[] = [];
  const r = v.reverified;
  if (r && typeof r === "object") {
    const before = r.label_before ?? `none (${r.status_before})`;
    const moved = r.label_before !== v.label;
    parts.push(
      `re-verified under newer verification rules with no judge call${typeof r.at === "string" ? ` (${r.at})` : ""}: ` +
        `${moved ? `the label was ${before}` : `the label ${before} stands`} under ${r.from_rules === null || r.from_rules === undefined ? "an older build's rules (version not recorded)" : `rules ${r.from_rules}`}`,
    );
  }
  if (typeof v.carried_from === "string") parts.push(`carried from the earlier id ${v.carried_from} (the same content moved or renamed; no judge call)`);
  return parts.length ? parts.join("; ") : null;
}
