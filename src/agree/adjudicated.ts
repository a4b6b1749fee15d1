/**
 * Adjudicated labels in a human label file: rows whose annotator is the reserved name `adjudicated` (written by
 * `view`'s adjudication page to `adjudication.jsonl`, imported beside the annotators' files). They are not one more
 * annotator's vote: an adjudicated label is the item's consensus, and the annotators' own agreement is over the
 * annotators only (new user 30, M3: imported with alice and bob, "adjudicated" was counted as a third annotator,
 * `adjudicated vs bob: n 1 ... kappa 0.000`; imported alone, only the adjudicated items were labelled).
 */
import { canonicalSpelling } from "../rubric/buckets.js";
import { confusableKeys } from "./annotator-names.js";

/**
 * Split the adjudicated labels off items' annotator -> label maps: the annotator exactly {@link RESERVED_ANNOTATOR}
 * (a look-alike is refused by import and not read by ./human-file.ts: red team 35b F2).
 * @param items trajectory id -> annotator -> label (the label as the caller keeps it).
 * @returns `items` without the adjudicated annotator (an item labelled only by adjudication keeps an empty map) and
 *   `adjudicated`: trajectory id -> the adjudicated label. `items` is returned as is when no row is adjudicated.
 */
export function splitAdjudicated<L>(items: ReadonlyMap<string, ReadonlyMap<string, L>>): { items: Map<string, Map<string, L>>; adjudicated: Map<string, L> } {
  const adjudicated = new Map<string, L>();
  const out = new Map<string, Map<string, L>>();
  for (const [id, m] of items) {
    let kept: Map<string, L> | undefined;
    for (const [a, l] of m) {
      if (a !== RESERVED_ANNOTATOR) continue;
      adjudicated.set(id, l);
      kept ??= new Map([...m].filter(([x]) => x !== RESERVED_ANNOTATOR));
    }
    out.set(id, kept ?? new Map(m));
  }
  return { items: out, adjudicated };
}

/** The annotator name of the adjudicated labels (`adjudication.jsonl`), which no annotator may take. */
export const RESERVED_ANNOTATOR = "adjudicated";

/**
 * Whether `name` is {@link RESERVED_ANNOTATOR} written another way (red team 30 L3: an annotator named so in the
 * view had rows that import read as adjudicated labels): compared after NFKC, lower case, and with whitespace and
 * invisible format characters (zero-width, bidi controls) removed, so ` Adjudicated `, `ADJUDICATED` and
 * `adjudi\u200bcated` are all refused, and so are its look-alikes (`\u0430djudicated` with a Cyrillic `а`).
 */
export function isReservedAnnotator(name: string): boolean {
  if (name.normalize("NFKC").toLowerCase().replace(/[\s\p{Cf}]/gu, "") === RESERVED_ANNOTATOR) return true;
  // and its TR39 look-alikes (a Cyrillic `а`, a small capital: ./annotator-names.ts), as any two names are compared (fix 39)
  const [k, r] = [confusableKeys(name), RESERVED_KEYS];
  return k[0] === r[0] || k[1] === r[1];
}

const RESERVED_KEYS = confusableKeys(RESERVED_ANNOTATOR);

/**
 * Whether an adjudicated row's snapshot of the annotators' labels (`view`'s adjudication.jsonl `annotators`, kept by
 * `import-annotations` as `settled_labels`) shows a disagreement: at least two different labels (compared in
 * {@link canonicalSpelling}). `view` adjudicates nothing else (red team 35b F4); a row without such a snapshot is not
 * one `view` wrote (red team 35b, verifier M1: a filled CSV with an `adjudicator` column forged 3 adjudications).
 */
export function settlesDisagreement(settled: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!settled) return false;
  const labels = Object.values(settled).filter((l): l is string => typeof l === "string" && l.trim() !== "");
  return new Set(labels.map(canonicalSpelling)).size >= 2;
}
