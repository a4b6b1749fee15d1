/**
 * The items behind the summary's "not labelled, by reason" counts (red team 35a F9: "unparseable 3, invalid_label 2"
 * named no item): per reason (`error.kind`, else the status), the trajectory ids, each once, in the order met. Bounded:
 * at most {@link NOT_LABELLED_IDS} ids per reason in `--json`, the verdicts past it counted in `more`; the text names
 * the first {@link NOT_LABELLED_SHOWN}.
 */
import type { Verdict } from "../types.js";

/** Ids kept per reason (the JSON lists them all up to this). */
export const NOT_LABELLED_IDS = 1000;
/** Ids the text names per reason. */
export const NOT_LABELLED_SHOWN = 3;

/** One reason's items: `ids` (each once), and `more`, the verdicts of that reason past the bound (not listed). */
export interface NotLabelledItems {
  ids: string[];
  more: number;
}

/** A running tally per reason (ids each once, bounded). */
export class NotLabelledFold {
  private readonly by = new Map<string, { ids: Set<string>; more: number }>();

  /** Count a verdict that is not a label (status other than `ok`) under its reason. */
  add(v: Verdict, kind: string): void {
    let r = this.by.get(kind);
    if (!r) this.by.set(kind, (r = { ids: new Set(), more: 0 }));
    const id = String(v.trajectory_id);
    if (r.ids.has(id)) return;
    if (r.ids.size < NOT_LABELLED_IDS) r.ids.add(id);
    else r.more++;
  }

  /** The items per reason, in the order the reasons were met; undefined when there are none. */
  result(): Record<string, NotLabelledItems> | undefined {
    if (this.by.size === 0) return undefined;
    return Object.fromEntries([...this.by].map(([k, r]) => [k, { ids: [...r.ids], more: r.more }]));
  }
}

/** `unparseable: a, b, c and 4 more; refused: d` (the first ids per reason), "" when none. */
export function notLabelledText(items: Record<string, NotLabelledItems> | undefined): string {
  if (!items) return "";
  return Object.entries(items)
    .map(([k, r]) => {
      const left = r.ids.length - NOT_LABELLED_SHOWN + r.more;
      return `${k}: ${r.ids.slice(0, NOT_LABELLED_SHOWN).join(", ")}${left > 0 ? ` and ${left} more` : ""}`;
    })
    .join("; ");
}
