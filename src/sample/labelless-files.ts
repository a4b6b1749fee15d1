/**
 * Annotation files given to `import-annotations` that carry no label (review rev2b #8). An untouched tasks file (or a
 * Label Studio export whose tasks were all skipped) given alone was refused (newuser54 #4), but not when the sample
 * folder's `adjudication.jsonl` supplied a row: human.jsonl was rewritten with the adjudications only (10 label rows
 * became 1, a warning). Adjudications settle the annotators' labels; they are none themselves. Now:
 * - no given file carries a label: refused, whatever the adjudications supply ({@link labellessRefusal});
 * - some do, others do not: each file without one is named in a warning ({@link labellessWarning}).
 */

/** What one given annotation file held: rows (or annotations) with a label, and without one. */
export interface GivenFileLabels {
  file: string;
  /** `csv`, `jsonl`, `label-studio`, `json-rows` (./import.ts `ParsedAnnotations.format`). */
  format: string;
  labelled: number;
  without: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What to do about files with no label: Label Studio's own words for an export, the tasks file's for the rest. */
function advice(files: readonly GivenFileLabels[]): string {
  if (files.every((f) => f.format === "label-studio"))
    return "complete the tasks in Label Studio (a skipped or cancelled task carries no label) and export again, or import the annotators' own files";
  return "fill in the label column of the sample's tasks file, or import the annotators' own files";
}

/**
 * The parenthesis after "no row of FILES carries a label": how many rows/annotations are without one, or, when there is
 * none at all, that the files hold no row (newuser55 #5: "(0 rows/annotations without one)" read as contradicting the
 * refusal, for a header-only file).
 * @param without the rows/annotations read without a label; @param files how many files were given.
 */
export function withoutLabelText(without: number, files: number): string {
  if (without === 0) return `${files === 1 ? "the file holds" : "the files hold"} no data row or annotation at all: a header only, or empty`;
  return `${without} row${without === 1 ? "" : "s"}/annotation${without === 1 ? "" : "s"} without one`;
}

/**
 * The refusal when no given file carries a label, or undefined when one does (or no file was given).
 * @param out the output path, and whether it exists (then it is said to be unchanged).
 * @param adjudications the adjudication rows the import read beside the files (the sample folder's adjudication.jsonl).
 */
export function labellessRefusal(given: readonly GivenFileLabels[], out: string, outExists: boolean, adjudications: number): string | undefined {
  if (given.length === 0 || given.some((f) => f.labelled > 0)) return undefined;
  const without = given.reduce((s, f) => s + f.without, 0);
  const adj =
    adjudications > 0
      ? `; the sample folder's ${plural(adjudications, "adjudication", "adjudications")} (adjudication.jsonl) ${adjudications === 1 ? "is" : "are"} not imported alone: an adjudication settles annotators' labels, it is none itself`
      : "";
  return (
    `no row of ${given.map((f) => f.file).join(", ")} carries a label (${withoutLabelText(without, given.length)})${adj}: ` +
    `nothing was written${outExists ? `; ${out} is unchanged` : ""} (${advice(given)})`
  );
}

/** The warning naming each given file with no label when another given file carries one; undefined when none is without. */
export function labellessWarning(given: readonly GivenFileLabels[]): string | undefined {
  const none = given.filter((f) => f.labelled === 0);
  if (none.length === 0 || none.length === given.length) return undefined;
  const named = none.map((f) => `${f.file} (${f.without === 0 ? "no data row at all" : `${plural(f.without, "row", "rows")} without one`})`).join(", ");
  return (
    `${none.length === 1 ? "a file given carries" : `${none.length} files given carry`} no label: ${named}; nothing was imported from ${none.length === 1 ? "it" : "them"} ` +
    `(an annotator's file not yet filled in, or the sample's blank tasks file? ${advice(none)})`
  );
}
