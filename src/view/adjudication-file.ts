/**
 * The adjudications the view shows as an item's consensus, checked as `import-annotations` checks them (red team 37c
 * F1, F6). Before, the view showed every row of the sample folder's `adjudication.jsonl` under the row's own
 * `annotator` field: an adjudication of an agreement, one without a snapshot of the annotators' labels, an off-scale
 * label, a row `{annotator: "bob"}` that replaced bob's label, and the later of two rows of one item were all shown as
 * labels import refuses. Now:
 * - {@link checkedAdjudications}: the rows of `adjudication.jsonl` that pass import's checks
 *   (../sample/import-adjudicated.ts `adjudicatedRecord`: the annotator exactly `adjudicated`, an adjudicator, a
 *   snapshot of a disagreement; the label on the sample's scale; one label per item); every other row is not shown,
 *   and a warning names its file, line and why. Rows of items outside the sample are not shown (one warning) and are
 *   kept in the file.
 * - {@link rewrittenAdjudications}: the file's text after one adjudication: every other row kept as it is (rows of
 *   items outside the sample, rows the view does not show), the item's rows replaced by the new one.
 * - {@link humanFileAdjudicationProblem}: the same checks for an adjudicated row of a `--human` file.
 */
import { RESERVED_ANNOTATOR } from "../agree/adjudicated.js";
import { shownName } from "../agree/annotator-names.js";
import type { HumanLabelRead } from "../agree/human-file.js";
import { repeatedKeyProblem } from "../io/jsonl.js";
import { eachSampleLine } from "./sample-lines.js";
import { adjudicatedRecord } from "../sample/import-adjudicated.js";
import { canonicalScaleLabel, labelOnScale, scaleValues, type Scale } from "../rubric/scale.js";

/** One adjudicated label, as stored in `adjudication.jsonl`. */
export interface AdjudicationRow {
  item_id: string;
  annotator: "adjudicated";
  label: string;
  note?: string;
  adjudicator: string;
  annotators: Record<string, string>;
  adjudicated_at: string;
}

/** What {@link checkedAdjudications} returns: item id -> the adjudication shown, and a warning per row not shown. */
export interface CheckedAdjudications {
  rows: Map<string, AdjudicationRow>;
  warnings: string[];
}

/** How many rows of items outside the sample the one warning about them names. */
const FOREIGN_NAMED = 5;
const NOT_SHOWN = "not shown as the item's consensus";
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The snapshot of the labels an adjudication settled (`annotators`, or an import output's `settled_labels`), string labels only. */
function snapshotOf(o: Record<string, unknown>): Record<string, string> | undefined {
  const s = isObj(o.annotators) ? o.annotators : isObj(o.settled_labels) ? o.settled_labels : undefined;
  return s ? (Object.fromEntries(Object.entries(s).filter(([, l]) => typeof l === "string")) as Record<string, string>) : undefined;
}

/**
 * Why a row of `adjudication.jsonl` is not an adjudication import accepts (null when it is): not the reserved
 * annotator exactly, no adjudicator, no snapshot of a disagreement, a label off the scale.
 */
function rowProblem(o: Record<string, unknown>, where: string, scale: Scale): string | null {
  const annotator = o.annotator as string;
  const problems: string[] = [];
  const adj = adjudicatedRecord({ where, adjudicator: typeof o.adjudicator === "string" ? o.adjudicator : undefined, settled_labels: snapshotOf(o) }, annotator, problems);
  if (adj === undefined) return problems[0];
  if (adj === null) {
    return `${where}: annotator ${shownName(annotator)}, not "${RESERVED_ANNOTATOR}": not an adjudication (an annotator's labels are in annotations/; the view writes only annotator "${RESERVED_ANNOTATOR}" rows here)`;
  }
  if (canonicalScaleLabel(o.label, scale) === null) {
    const shown = JSON.stringify(typeof o.label === "string" ? o.label.slice(0, 80) : (o.label ?? null));
    return `${where}: label ${shown} is not on the sample's ${scale} scale (allowed: ${scaleValues(scale).join(", ")})`;
  }
  return null;
}

/**
 * The rows of a sample's `adjudication.jsonl` the view shows as consensus (module docstring), read now.
 * @param file the adjudication file (none: no rows, no warning).
 * @param items the sample's item ids.
 * @param scale the sample's scale.
 */
export function checkedAdjudications(file: string, items: { has(id: string): boolean }, scale: Scale): CheckedAdjudications {
  const out: CheckedAdjudications = { rows: new Map(), warnings: [] };
  const kept = new Map<string, { row: AdjudicationRow; line: number }>();
  const conflicted = new Set<string>();
  const foreign: string[] = [];
  eachSampleLine(file, out.warnings, "", (v, line, where, n) => {
    if (!isObj(v) || typeof v.item_id !== "string" || typeof v.annotator !== "string") return out.warnings.push(`${where}: not an annotation row (item_id, annotator), skipped`);
    const twice = repeatedKeyProblem(line, v); // JSON.parse kept the last of two labels in silence (break44)
    if (twice !== null) return out.warnings.push(`${where}: ${twice}: ${NOT_SHOWN}`);
    if (!items.has(v.item_id)) return foreign.push(`line ${n} item ${JSON.stringify(v.item_id.slice(0, 80))}`);
    const problem = rowProblem(v, where, scale);
    if (problem) return out.warnings.push(`${problem}: ${NOT_SHOWN}`);
    const row = { ...(v as unknown as AdjudicationRow), label: canonicalScaleLabel(v.label, scale)! };
    const prev = kept.get(v.item_id);
    if (conflicted.has(v.item_id) || (prev && prev.row.label === row.label)) return; // the same label again is kept once, as import keeps it
    if (prev) {
      conflicted.add(v.item_id);
      return out.warnings.push(
        `${where}: item ${v.item_id} adjudicated "${row.label}" here and "${prev.row.label}" at line ${prev.line}: neither is shown as its consensus ` +
          `(import-annotations refuses the file; keep one adjudication per item: adjudicate the item again in the view)`,
      );
    }
    kept.set(v.item_id, { row, line: n });
  });
  for (const [id, k] of kept) if (!conflicted.has(id)) out.rows.set(id, k.row);
  if (foreign.length) {
    const named = foreign.slice(0, FOREIGN_NAMED).join(", ") + (foreign.length > FOREIGN_NAMED ? `, and ${foreign.length - FOREIGN_NAMED} more` : "");
    out.warnings.push(`${file}: ${foreign.length} row(s) name items not in this sample's manifest (${named}): not shown; kept in the file`);
  }
  return out;
}

/**
 * The text of `adjudication.jsonl` after adjudicating `row.item_id`: the rows of the sample's items in task order
 * (the item's own rows replaced by `row`; others, even rows the view does not show, kept as they are), then the rows
 * of items outside the sample in the file's order (red team 37c F6: one adjudication deleted 1,000 such rows).
 * @param onDisk the file's rows as read (every line a row: a line that is not is refused before, see annotations.ts).
 * @param order the sample's item id -> task position.
 */
export function rewrittenAdjudications(onDisk: readonly AdjudicationRow[], row: AdjudicationRow, order: ReadonlyMap<string, number>): string {
  const others = onDisk.filter((r) => r.item_id !== row.item_id);
  const inSample = [...others.filter((r) => order.has(r.item_id)), row].sort((a, b) => order.get(a.item_id)! - order.get(b.item_id)!);
  const outside = others.filter((r) => !order.has(r.item_id));
  return [...inSample, ...outside].map((r) => JSON.stringify(r)).join("\n") + "\n";
}

/**
 * Why an adjudicated row of a `--human` file is not shown as the consensus (null when it passes): the checks of
 * import-annotations (an adjudicator, a snapshot of a disagreement) and a label on a known scale.
 * @param name the file's name, for the message.
 */
export function humanFileAdjudicationProblem(r: HumanLabelRead, name: string): string | null {
  const where = `${name} line ${r.line}`;
  const problems: string[] = [];
  if (adjudicatedRecord({ where, adjudicator: r.adjudicator, settled_labels: r.settled_labels }, r.annotator, problems) === undefined) return `${problems[0]}: ${NOT_SHOWN}`;
  if ("reason" in labelOnScale(r.label, "binary")) {
    return `${where}: adjudicated label ${JSON.stringify(r.label.slice(0, 80))} is on no label scale: ${NOT_SHOWN}`;
  }
  return null;
}

/**
 * A warning per shown adjudication whose snapshot of the annotators' labels is not their labels now (an item
 * relabelled since, or a row whose snapshot names labels nobody gave: red team 37c, an adjudication of an item no
 * annotator labelled). It stays shown, as import-annotations takes it (import notes the change too).
 * @param now item id -> annotator -> label, as the view reads them now.
 */
export function changedSnapshotWarnings(file: string, shown: ReadonlyMap<string, AdjudicationRow>, now: (itemId: string) => Record<string, string>): string[] {
  const text = (m: Record<string, string>) => Object.entries(m).map(([a, l]) => `${shownName(a)}=${l}`).sort().join(", ") || "none";
  const out: string[] = [];
  for (const [id, r] of shown) {
    const had = text(isObj(r.annotators) ? r.annotators : {});
    const is = text(now(id));
    if (had === is) continue;
    // none seen: most often labels collected in tasks.csv or Label Studio, which the view reads only from --human
    // (new user 43: "they are now none" read as labels lost)
    const now_ =
      is === "none"
        ? `the view sees none of their labels now (labels collected in tasks.csv or Label Studio are in the file import-annotations wrote: start the view with --human FILE to see them; if they were given in the view, they were removed since)`
        : `they are now ${is}`;
    out.push(`${file}: item ${id} was adjudicated ${JSON.stringify(r.label)} when the annotators' labels were ${had}; ${now_}: shown as its consensus, as import-annotations takes it; adjudicate the item again if it no longer settles them`);
  }
  return out;
}
