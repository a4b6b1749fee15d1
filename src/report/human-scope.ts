/**
 * How many of the human-label file's labelled trajectories a report is over (new-user report 31, item 7): under
 * `--where` the report had said "human labels on 85 trajectories" when the filter kept 19 of them (the other 66
 * `outside_where`, in no figure). The count inside the filter, and of how many, wherever the report names it.
 * The count inside is the agreement's own `items_in_where` (the items the run holds inside the filter). The file's
 * items less those `outside_where`, the count before, also counted the items not in the run and those left out first
 * for another reason (unattacked, content changed) wherever they lay (break45: "300 of them inside --where
 * attacked=true", 6 of which were not in the run).
 */
import { OUTSIDE_WHERE } from "../agree/human-items.js";

/** The labelled trajectories of the file, and those inside `--where` (all of them without a filter). */
export function humanScope(h: { items: number; excluded_items: Record<string, number>; items_in_where?: number }, where: boolean): { items: number; in_where: number } {
  return { items: h.items, in_where: !where ? h.items : (h.items_in_where ?? h.items - (h.excluded_items[OUTSIDE_WHERE] ?? 0)) };
}

/** `85 trajectories`, or under `--where` `19 of its 85 labelled trajectories inside --where` (`file`: the label file's name). */
export function humanScopeText(h: { items: number; excluded_items: Record<string, number>; items_in_where?: number }, where: boolean, file?: string): string {
  const s = humanScope(h, where);
  if (!where) return `${s.items.toLocaleString("en-US")} trajectories`;
  return `${s.in_where.toLocaleString("en-US")} trajectories inside --where (of the ${s.items.toLocaleString("en-US")} labelled in ${file ?? "the label file"})`;
}
