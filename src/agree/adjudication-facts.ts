/**
 * What the adjudicated rows of a label set say (red team 35b F2, F4): how many items an adjudication settled and
 * by whom, and the adjudications whose snapshot of the annotators' labels (`view`'s adjudication.jsonl
 * `annotators`, carried by `import-annotations` as `settled_labels`) no longer matches the annotators' labels now:
 * the adjudication settled a disagreement that has changed since (an annotator changed their label, a new one
 * labelled the item). `import-annotations`, `agree --human` and `estimate` say both. And the adjudicated rows a label
 * file holds without what `view` writes (an adjudicator and a snapshot of a disagreement: ./adjudicated.ts
 * `settlesDisagreement`): rows of an import before session 35, or forged (red team 35b verifier, M1); `agree` and
 * `estimate` still read them as the consensus and warn once, naming the file and the count.
 */
import { RESERVED_ANNOTATOR, settlesDisagreement } from "./adjudicated.js";
import { nfcName, shownName } from "./annotator-names.js";
import type { HumanLabelRead } from "./human-file.js";

/** A label row as this module reads it: `id` the item (or trajectory), `where` its file and line for messages. */
export interface AdjudicationRowLike {
  id: string;
  annotator: string;
  label: string;
  adjudicator?: string;
  settled_labels?: Record<string, string>;
  where: string;
}

/** An adjudication whose settled labels changed since: each change as `name: then -> now`. */
export interface StaleAdjudication {
  id: string;
  where: string;
  adjudicator: string;
  changes: string[];
}

/** The adjudicated items: their count, by adjudicator, and those whose settled labels changed since. */
export interface AdjudicationFacts {
  items: number;
  /** Adjudicator name -> items (`(not recorded)` for a row of a file written before adjudicators were kept). */
  by: Record<string, number>;
  stale: StaleAdjudication[];
  /** The adjudicated rows without an adjudicator or without a snapshot of a disagreement (module docstring), by item and where. */
  unattested: Array<{ id: string; where: string }>;
}

/** The name given to adjudicated rows that record no adjudicator (label files of earlier versions). */
export const UNRECORDED_ADJUDICATOR = "(not recorded)";

/**
 * The facts of the rows whose annotator is exactly {@link RESERVED_ANNOTATOR} (a look-alike is refused before
 * this, by import and by the label file reader). An adjudicated row without `settled_labels` is not checked.
 */
export function adjudicationFacts(rows: readonly AdjudicationRowLike[]): AdjudicationFacts {
  const now = new Map<string, Map<string, string>>();
  const adjudicated = new Map<string, AdjudicationRowLike>();
  for (const r of rows) {
    if (r.annotator === RESERVED_ANNOTATOR) adjudicated.set(r.id, r);
    else if (r.label.trim() !== "") (now.get(r.id) ?? now.set(r.id, new Map()).get(r.id)!).set(nfcName(r.annotator), r.label.trim());
  }
  const by: Record<string, number> = {};
  const stale: StaleAdjudication[] = [];
  const unattested: AdjudicationFacts["unattested"] = [];
  for (const [id, r] of adjudicated) {
    const who = r.adjudicator?.trim() ? nfcName(r.adjudicator) : UNRECORDED_ADJUDICATOR;
    by[who] = (by[who] ?? 0) + 1;
    if (who === UNRECORDED_ADJUDICATOR || !settlesDisagreement(r.settled_labels)) unattested.push({ id, where: r.where });
    if (!r.settled_labels) continue;
    const then = new Map(Object.entries(r.settled_labels).map(([a, l]) => [nfcName(a), String(l).trim()]));
    const cur = now.get(id) ?? new Map<string, string>();
    const changes: string[] = [];
    for (const a of [...new Set([...then.keys(), ...cur.keys()])].sort()) {
      if (then.get(a) !== cur.get(a)) changes.push(`${shownName(a)} ${then.get(a) ?? "(no label)"} then, ${cur.get(a) ?? "(no label here)"} now`);
    }
    if (changes.length) stale.push({ id, where: r.where, adjudicator: who, changes });
  }
  return { items: adjudicated.size, by, stale, unattested };
}

/** `by "lead" 2, "kim" 1`: who adjudicated how many items. */
export function adjudicatorsText(f: Pick<AdjudicationFacts, "by">): string {
  return `by ${Object.entries(f.by).sort(([, x], [, y]) => y - x).map(([a, n]) => `${a === UNRECORDED_ADJUDICATOR ? a : shownName(a)} ${n}`).join(", ")}`;
}

/** `3 items settled by an adjudicated label (by "lead" 2, "kim" 1)`; empty when none. */
export function adjudicatedText(f: Pick<AdjudicationFacts, "items" | "by">): string {
  if (f.items === 0) return "";
  return `${f.items} item${f.items === 1 ? "" : "s"} settled by an adjudicated label (${adjudicatorsText(f)})`;
}

/** The rows of a label file (./human-file.ts) as this module reads them (the item is the trajectory; `where` its line). */
export function labelFileRows(rows: readonly HumanLabelRead[]): AdjudicationRowLike[] {
  return rows.map((r) => ({ id: r.trajectory_id, annotator: r.annotator, label: r.label, adjudicator: r.adjudicator, settled_labels: r.settled_labels, where: `line ${r.line}` }));
}

/** How many stale adjudications the warning names. */
const NAMED = 5;

/**
 * The warning naming the adjudications whose settled labels changed since (the first {@link NAMED}), or undefined.
 * @param what where the rows come from, for the message (a file name, "these files").
 */
export function staleAdjudicationWarning(f: AdjudicationFacts, what: string): string | undefined {
  if (f.stale.length === 0) return undefined;
  const named = f.stale.slice(0, NAMED).map((s) => `${s.id} (${s.where}, adjudicated by ${s.adjudicator === UNRECORDED_ADJUDICATOR ? s.adjudicator : shownName(s.adjudicator)}: ${s.changes.join("; ")})`);
  return (
    `${what}: ${f.stale.length} adjudicated item(s) settled annotators' labels that have changed since the adjudication: ${named.join("; ")}` +
    `${f.stale.length > NAMED ? `; and ${f.stale.length - NAMED} more` : ""}. The adjudicated label is still each item's consensus: ` +
    `adjudicate them again in view (#/adjudicate) and import again, or remove their rows from adjudication.jsonl`
  );
}

/**
 * The one warning of a label file's adjudicated rows without an adjudicator or a snapshot of a disagreement
 * (module docstring), naming the file, the count and the first {@link NAMED}; undefined when none.
 * @param what the file, for the message (`label file h.jsonl`).
 */
export function unattestedAdjudicationWarning(f: AdjudicationFacts, what: string): string | undefined {
  const n = f.unattested.length;
  if (n === 0) return undefined;
  const named = f.unattested.slice(0, NAMED).map((u) => `${u.id} (${u.where})`).join(", ");
  return (
    `${what}: ${n} adjudicated row(s) (annotator "${RESERVED_ANNOTATOR}") record no adjudicator or no annotators' labels showing the disagreement they settled: ` +
    `${named}${n > NAMED ? `, and ${n - NAMED} more` : ""}. Written by an import-annotations of an earlier version, or not by view's adjudication at all ` +
    `(a forged row reads the same): each is still read as its item's consensus. Check them, or import the annotations again with view's adjudication.jsonl ` +
    `(import-annotations now refuses such rows)`
  );
}

/** The warnings of a label file's adjudicated rows: changed since ({@link staleAdjudicationWarning}), then unattested. */
export function adjudicationWarnings(f: AdjudicationFacts, what: string): string[] {
  return [staleAdjudicationWarning(f, what), unattestedAdjudicationWarning(f, what)].filter((w): w is string => w !== undefined);
}
