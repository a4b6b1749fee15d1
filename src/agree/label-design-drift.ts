/**
 * Does the label file still carry the design of the sample it names? (session 41). `estimate` and `agree --human`
 * weight by the strata, stratum sizes and inclusion probabilities on the label rows, which `import-annotations` copied
 * from the sample's manifest (and checked against the design there: ../sample/manifest-design.ts). A label file
 * edited by hand since (an item's stratum or probability changed), or a manifest changed after the import, leaves the
 * rows on another design than the one the manifest records: one of the two no longer says how the sample was drawn.
 * When the manifest the rows name (`sample_manifest`, relative to the label file) is found, each labelled item's
 * `stratum`, `stratum_size` and `inclusion_probability` are compared with its manifest row, and a mismatch is one
 * warning naming the items (`label_design_drift`). Nothing is said when the manifest is not found (the moved-file note
 * of ./sample-adjudications.ts says so) or the file is not an import's JSONL.
 */
import fs from "node:fs";
import path from "node:path";
import { jsonLines } from "../io/jsonl.js";

/** The design fields of one item, as a label row or a manifest row holds them. */
interface ItemDesign {
  stratum: unknown;
  stratum_size: unknown;
  inclusion_probability: unknown;
}

const FIELDS = ["stratum", "stratum_size", "inclusion_probability"] as const;

/** The JSON objects of a JSONL file (unreadable lines skipped); null when the file cannot be read. */
function objects(file: string): Array<Record<string, unknown>> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const out: Array<Record<string, unknown>> = [];
  for (const l of jsonLines(text)) if (l.error === undefined && l.value && typeof l.value === "object" && !Array.isArray(l.value)) out.push(l.value as Record<string, unknown>);
  return out;
}

const same = (a: unknown, b: unknown) => (typeof a === "number" && typeof b === "number" ? Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)) : a === b);

/**
 * The warning for a label file whose rows carry another design than the manifest they name (module docstring), or
 * undefined when they agree, the manifest is not found, or the file holds no item ids.
 */
export function labelDesignDriftWarning(labelFile: string): string | undefined {
  const rows = objects(labelFile);
  if (!rows) return undefined;
  const base = path.dirname(path.resolve(labelFile));
  const byManifest = new Map<string, Map<string, ItemDesign>>();
  const drift: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    if (typeof r.item_id !== "string" || typeof r.sample_manifest !== "string" || !r.sample_manifest) continue;
    const file = path.resolve(base, r.sample_manifest);
    let m = byManifest.get(file);
    if (!m) {
      m = new Map((objects(file) ?? []).filter((o) => typeof o.item_id === "string").map((o) => [o.item_id as string, o as unknown as ItemDesign]));
      byManifest.set(file, m);
    }
    const want = m.get(r.item_id);
    if (!want || seen.has(r.item_id)) continue;
    const diff = FIELDS.filter((f) => !same(r[f], want[f])).map((f) => `${f} ${JSON.stringify(r[f])} here, ${JSON.stringify(want[f])} in the manifest`);
    if (diff.length) {
      seen.add(r.item_id);
      drift.push(`item ${r.item_id}: ${diff.join(", ")}`);
    }
  }
  if (drift.length === 0) return undefined;
  const shown = drift.slice(0, 5).join("; ") + (drift.length > 5 ? `; and ${drift.length - 5} more` : "");
  return (
    `label_design_drift: label file ${labelFile} carries another design than the sample manifest its rows name for ${drift.length} item${drift.length === 1 ? "" : "s"} (${shown}): ` +
    `the label file or the manifest was edited since the import, and the figures weight by the label file's strata and probabilities, which may not be those that drew the sample; ` +
    `import the annotations again with the manifest ipi-judge sample wrote`
  );
}
