/**
 * How many of a sample's drawn items the label file labels (break 51 #7: `estimate`, `agree --human` and `report`
 * said "29 labelled trajectories" of a sample of 40 whose other 11 rows were left blank; `import-annotations` warned
 * once, and a label file estimated from later, or a colleague's, said nothing). The label file's rows record the
 * manifest of their sample (`sample_manifest`, relative to the label file); its items are the drawn ones.
 * The estimates treat an item without a label as missing at random within its stratum (the Hájek weights of the
 * labelled items of a stratum stand for it): rarely true when annotators skip, so it is said in text and JSON.
 */
import fs from "node:fs";
import path from "node:path";
import { jsonLines } from "../io/jsonl.js";

/** The drawn items of the sample(s) a label file records, and how many of them it labels. */
export interface DrawnItems {
  /** items of the recorded manifest(s) (every line with an `item_id`) */
  drawn: number;
  /** of them, items with a labelled row in the label file (any annotator, or an adjudication) */
  labelled: number;
  /** drawn - labelled */
  without_label: number;
  /** the manifests read (absolute paths) */
  manifests: string[];
}

/** The JSON objects of a JSONL file's lines (unreadable file: null; lines that are not objects skipped). */
function objects(file: string): Record<string, unknown>[] | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (!text.replace(/^\ufeff/, "").trimStart().startsWith("{")) return null; // a CSV label file records no manifest
  const out: Record<string, unknown>[] = [];
  for (const l of jsonLines(text)) if (l.error === undefined && l.value && typeof l.value === "object" && !Array.isArray(l.value)) out.push(l.value as Record<string, unknown>);
  return out;
}

const itemOf = (o: Record<string, unknown>) => (typeof o.item_id === "string" && o.item_id.trim() ? o.item_id.trim() : undefined);

/**
 * The drawn items of the manifests a label file's rows record, and how many it labels.
 * @param labelFile an `import-annotations` output (JSONL); a CSV, a file with no `sample_manifest`, or one whose
 *   recorded manifest is not found (said by ./sample-adjudications.ts) gives undefined: the count is not known.
 */
export function drawnItems(labelFile: string): DrawnItems | undefined {
  const rows = objects(labelFile);
  if (!rows) return undefined;
  const labelled = new Set<string>();
  const recorded = new Set<string>();
  for (const o of rows) {
    const id = itemOf(o);
    if (id && typeof o.label === "string" && o.label.trim()) labelled.add(id);
    if (typeof o.sample_manifest === "string" && o.sample_manifest) recorded.add(path.resolve(path.dirname(path.resolve(labelFile)), o.sample_manifest));
  }
  if (recorded.size === 0) return undefined;
  const drawn = new Set<string>();
  for (const m of recorded) {
    const items = objects(m);
    if (!items) return undefined;
    for (const o of items) {
      const id = itemOf(o);
      if (id) drawn.add(id);
    }
  }
  if (drawn.size === 0) return undefined;
  const n = [...drawn].filter((id) => labelled.has(id)).length;
  return { drawn: drawn.size, labelled: n, without_label: drawn.size - n, manifests: [...recorded].sort() };
}

/**
 * `29 labelled of the 40 drawn; 11 without a label: treated as missing at random within their strata`, or
 * `all 40 drawn labelled`; undefined without a count.
 */
export function drawnText(d: DrawnItems | undefined): string | undefined {
  if (!d) return undefined;
  if (d.without_label === 0) return `all ${d.drawn} drawn items labelled`;
  return `${d.labelled} labelled of the ${d.drawn} drawn; ${d.without_label} without a label: treated as missing at random within their strata`;
}

/** The warning for drawn items without a label (every figure command with --human FILE says it); undefined when none. */
export function drawnWarning(labelFile: string, d: DrawnItems | undefined): string | undefined {
  if (!d || d.without_label === 0) return undefined;
  const pct = ((100 * d.without_label) / d.drawn).toFixed(1);
  return (
    `drawn_without_label: ${d.without_label} of the ${d.drawn} items drawn in the sample of label file ${labelFile} (${pct}%) have no label: the human and ` +
    `calibrated estimates treat them as missing at random within their strata (the labelled items of a stratum stand for them); if annotators skipped ` +
    `items for a reason (hard, or judged one way), those estimates are biased: label them and import again`
  );
}
