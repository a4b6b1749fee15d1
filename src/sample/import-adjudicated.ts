/**
 * Which imported rows are adjudicated labels, and which annotator names are refused (red team 35b F2, F3):
 * - an adjudicated row is what `view` writes to adjudication.jsonl: the annotator exactly `adjudicated`, an
 *   `adjudicator` name, and the snapshot of the annotators' labels it settled (`annotators`: {name: label}; in an
 *   import-annotations output imported again, its `settled_labels`) holding at least two different labels (a disagreement: ../agree/adjudicated.ts `settlesDisagreement`). A CSV an
 *   annotator filled with `ADJUDICATED`, `adjudicated\u200b` or a full-width form (any look-alike of the reserved
 *   name: `isReservedAnnotator`), `adjudicated` without an adjudicator, or `adjudicated` with an `adjudicator`
 *   column (a CSV cannot carry the snapshot: verifier of red team 35b, M1), is refused naming its file and line:
 *   before, 3 such rows replaced the consensus of 3 items (one of them an item both annotators had labelled alike)
 *   and moved estimate's human asr_behaviour from 16.7% to 31.6% while the output still said "2 annotators";
 * - two annotator names equal after NFKC, case folding and removing invisible characters, or once look-alike letters
 *   of another script are read as Latin (`Zое`, Cyrillic о and е, and `Zoe`), but different as typed
 *   (../agree/annotator-names.ts) are refused, naming both and where each is first used; a name mixing scripts is
 *   said in the import's notes ({@link mixedScriptNotes}).
 */
import { isReservedAnnotator, RESERVED_ANNOTATOR, settlesDisagreement } from "../agree/adjudicated.js";
import { howTheyDiffer, lookAlikePairs, mixedScriptNote, nfcName, shownName } from "../agree/annotator-names.js";

/** An adjudicated record's adjudicator and settled labels (names NFC). */
export interface AdjudicatedRecord {
  adjudicator: string;
  settled_labels: Record<string, string>;
}

/**
 * Whether a record is an adjudicated label.
 * @param annotator the record's annotator field as the file gives it (not trimmed), or the `--annotator` name.
 * @param problems where a refusal goes (its message names `where`).
 * @returns the adjudication; null for an annotator's row; undefined, with a problem, for a look-alike of the reserved
 *   name, or an adjudicated row without an adjudicator or without a snapshot of a disagreement.
 */
export function adjudicatedRecord(
  rec: { where: string; adjudicator?: string; settled_labels?: Record<string, string> },
  annotator: string | undefined,
  problems: string[],
): AdjudicatedRecord | null | undefined {
  if (annotator === undefined || !isReservedAnnotator(annotator)) return null;
  if (annotator !== RESERVED_ANNOTATOR) {
    problems.push(
        `${rec.where}: annotator ${shownName(annotator)} looks like the reserved name "${RESERVED_ANNOTATOR}" (letter case, invisible characters or compatibility forms): refused. ` +
        `Adjudicated labels come only from view's adjudication.jsonl (annotator exactly "${RESERVED_ANNOTATOR}" with an adjudicator); an annotator must use another name`,
    );
    return undefined;
  }
  const who = typeof rec.adjudicator === "string" ? nfcName(rec.adjudicator) : "";
  if (!who) {
    problems.push(`${rec.where}: annotator "${RESERVED_ANNOTATOR}" without an adjudicator: refused. Adjudicated labels are the rows of view's adjudication.jsonl, which name their adjudicator; an annotator must use another name`);
    return undefined;
  }
  if (!rec.settled_labels) {
    problems.push(
        `${rec.where}: annotator "${RESERVED_ANNOTATOR}" without the annotators' labels it settled (the "annotators" snapshot view writes): refused. ` +
        `Adjudications come only from view's adjudication.jsonl (adjudicate in view, #/adjudicate, and import that file); a CSV cannot carry them, and an annotator must use another name`,
    );
    return undefined;
  }
  if (!settlesDisagreement(rec.settled_labels)) {
    const had = Object.entries(rec.settled_labels).map(([a, l]) => `${shownName(a)}=${l}`).join(", ");
    problems.push(
        `${rec.where}: annotator "${RESERVED_ANNOTATOR}" settling no disagreement (the annotators' labels it records: ${had || "none"}): refused. ` +
        `Adjudication settles items two or more annotators labelled differently; adjudications come only from view's adjudication.jsonl`,
    );
    return undefined;
  }
  return { adjudicator: who, settled_labels: Object.fromEntries(Object.entries(rec.settled_labels).map(([a, l]) => [nfcName(a), l])) };
}

/**
 * The problems of look-alike annotator names (module docstring).
 * @param firstWhere annotator name (NFC) -> where it is first used, in the order met.
 */
export function lookAlikeProblems(firstWhere: ReadonlyMap<string, string>): string[] {
  return lookAlikePairs(firstWhere.keys()).map(
    ([a, b]) =>
      `${firstWhere.get(b)}: annotator ${shownName(b)} and annotator ${shownName(a)} (${firstWhere.get(a)}) differ only in ${howTheyDiffer(a, b)}: ` +
      `one person or two? refused; write the name the same way in every file (or give two people names that differ visibly)`,
  );
}

/**
 * A note per annotator name that mixes scripts (../agree/annotator-names.ts `mixedScriptNote`), in the order met.
 * @param firstWhere annotator name (NFC) -> where it is first used.
 */
export function mixedScriptNotes(firstWhere: ReadonlyMap<string, string>): string[] {
  return [...firstWhere].flatMap(([name, where]) => mixedScriptNote(name, where) ?? []);
}
