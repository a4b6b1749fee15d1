/**
 * Labels given outside the view, read for its adjudication page (new-user report 31, L4): a sample annotated the
 * other documented way (a filled `tasks.csv` or a Label Studio export, then `import-annotations --out FILE`) has its
 * labels in that file, not in the sample's `annotations/*.jsonl`, and the view's disagreements list was empty while
 * `agree --human FILE` listed items for adjudication. `view --sample DIR --human FILE` now reads FILE's labels of the
 * sample's items too: matched to items through the manifest (trajectory id, and the content the item was drawn
 * with when the row records it), on the sample's scale, the `adjudicated` rows left out (an adjudication is not
 * an annotator's label: it is read from `adjudication.jsonl`).
 */
import path from "node:path";
import { readHumanLabels } from "../agree/human-file.js";
import { RESERVED_ANNOTATOR } from "../agree/adjudicated.js";
import { canonicalScaleLabel, type Scale } from "../rubric/scale.js";
import type { Manifest } from "../sample/import.js";

/** The imported labels: annotator -> item id -> label, and what was left out, said once. */
export interface ImportedLabels {
  file: string;
  labels: Map<string, Map<string, string>>;
  warnings: string[];
}

/**
 * The labels of `file` (any `agree --human` file) given to the items of the sample `manifest`.
 * @throws HumanLabelsError when the file cannot be read.
 */
export function importedSampleLabels(file: string, manifest: Manifest, scale: Scale): ImportedLabels {
  const read = readHumanLabels(file);
  const itemOf = new Map(manifest.rows.map((r) => [r.trajectory_id, r]));
  const labels = new Map<string, Map<string, string>>();
  let otherText = 0;
  let offScale = 0;
  for (const r of read.rows) {
    const item = itemOf.get(r.trajectory_id);
    if (!item || r.annotator === RESERVED_ANNOTATOR) continue;
    if (r.content_sha256 && item.content_sha256 && r.content_sha256 !== item.content_sha256) {
      otherText++;
      continue;
    }
    const label = canonicalScaleLabel(r.label, scale);
    if (label === null) {
      offScale++;
      continue;
    }
    let m = labels.get(r.annotator);
    if (!m) labels.set(r.annotator, (m = new Map()));
    m.set(item.item_id, label);
  }
  const warnings: string[] = [];
  const name = path.basename(file);
  if (otherText) warnings.push(`${name}: ${otherText} label(s) were given for another text than the sample's item: not shown for adjudication`);
  if (offScale) warnings.push(`${name}: ${offScale} label(s) are not on the sample's ${scale} scale: not shown for adjudication`);
  return { file, labels, warnings };
}

/**
 * What the adjudication page says when fewer than two annotators' labels were found (nothing to disagree on):
 * where the view reads them, and where labels collected the other way are (null with two or more).
 */
export function adjudicationNote(annotators: number, imported: string | undefined): string | null {
  if (annotators >= 2) return null;
  return (
    `${annotators === 1 ? "only one annotator's labels" : "no annotator's labels"} found: the view reads the sample folder's annotations/*.jsonl` +
    (imported ? ` and ${path.basename(imported)} (--human)` : "") +
    `. Labels collected in tasks.csv or Label Studio are in the file import-annotations wrote (--out): start the view with --human FILE to adjudicate them`
  );
}
