/**
 * Does the label file still carry the design of the sample it names? (session 41). `estimate` and `agree --human`
 * weight by the strata, stratum sizes and inclusion probabilities on the label rows, which `import-annotations` copied
 * from the sample's manifest (and checked against the design there: ../sample/manifest-design.ts). A label file
 * edited by hand since (an item's stratum or probability changed), or a manifest changed after the import, leaves the
 * rows on another design than the one the manifest records: one of the two no longer says how the sample was drawn.
 * When the manifest the rows name (`sample_manifest`, relative to the label file) is found, each labelled item's
 * `stratum`, `stratum_size` and `inclusion_probability` are compared with its manifest row, and a mismatch is one
 * warning naming the items (`label_design_drift`). A labelled item the found manifest does not hold is said too, and
 * a manifest that is there but cannot be read as import-annotations reads it (bad lines named) is said with the items
 * left unchecked (break45: both were skipped in silence). Nothing is said when the manifest is not found (the
 * moved-file note of ./sample-adjudications.ts says so) or the file is not an import's JSONL.
 *
 * The item's identity is compared too (break50): a row whose `trajectory_id` (or `content_sha256`, when both hold
 * one) is not its manifest row's puts a label on another trajectory than the one the sample drew for that item (rows
 * joined to trajectories by a wrong key, or swapped by hand, with their hashes moved along, so the content-hash check
 * passes). The figures count the label for the row's trajectory under the item's weight: said as its own part of the
 * warning, naming the items, never taken in silence.
 */
import fs from "node:fs";
import path from "node:path";
import { jsonLines } from "../io/jsonl.js";

/** The design fields of one item, as a label row or a manifest row holds them. */
interface ItemDesign {
  trajectory_id?: unknown;
  content_sha256?: unknown;
  stratum: unknown;
  stratum_size: unknown;
  inclusion_probability: unknown;
}

const FIELDS = ["stratum", "stratum_size", "inclusion_probability"] as const;
/** The item's identity: compared when the label row and the manifest row both hold the field. */
const IDENTITY = ["trajectory_id", "content_sha256"] as const;

/** The JSON objects of a label file (lines its reader, ./human-file.ts, reports are skipped here); null when the file cannot be read. */
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

/**
 * A manifest's item rows by item id, each line checked as import-annotations checks it (../sample/import.ts
 * `parseManifest`, which this layer does not import): the header first, then objects with a string `item_id`, each
 * item once. `problem` names the lines that fail (file and line) or an unreadable file (break45: the bad lines were
 * skipped in silence, an unreadable manifest read as holding no item, and the items it would have checked went
 * unchecked without a word); the rows read are kept either way. Not found: no rows and no problem
 * (./sample-adjudications.ts says the recorded manifest is not found).
 */
function manifestItems(file: string): { rows: Map<string, ItemDesign>; problem?: string } {
  const rows = new Map<string, ItemDesign>();
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { rows, ...(code === "ENOENT" ? {} : { problem: `the sample manifest ${file} could not be read (${code ?? (e as Error).name})` }) };
  }
  const name = path.basename(file);
  const problems: string[] = [];
  let header = false;
  for (const l of jsonLines(text)) {
    if (l.error !== undefined) {
      problems.push(l.span ? `${name} ${l.error}` : `${name} line ${l.line}: not valid JSON (${l.error})`);
      continue;
    }
    const o = l.value as Record<string, unknown> | null;
    if (!header) {
      header = true;
      if (!o || typeof o !== "object" || o.ipi_judge_manifest !== 1) problems.push(`${name} line ${l.line}: not an ipi-judge sample manifest (the first line must be its header)`);
    } else if (!o || typeof o !== "object" || Array.isArray(o) || typeof o.item_id !== "string") problems.push(`${name} line ${l.line}: not a manifest item row (no item_id)`);
    else if (rows.has(o.item_id)) problems.push(`${name} line ${l.line}: item_id ${o.item_id} appears twice`);
    else rows.set(o.item_id, o as unknown as ItemDesign);
  }
  if (!problems.length) return { rows };
  const shown = problems.slice(0, 3).join("; ") + (problems.length > 3 ? `; and ${problems.length - 3} more` : "");
  return { rows, problem: `the sample manifest ${file} cannot be read whole (${shown})` };
}

const same = (a: unknown, b: unknown) => (typeof a === "number" && typeof b === "number" ? Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)) : a === b);

/**
 * The warning for a label file whose rows carry another design than the manifest they name, label items it lacks, or
 * name a manifest that cannot be read (module docstring): parts joined by `; `. Undefined when they agree, the
 * manifest is not found, or the file holds no item ids.
 */
export function labelDesignDriftWarning(labelFile: string): string | undefined {
  const rows = objects(labelFile);
  if (!rows) return undefined;
  const base = path.dirname(path.resolve(labelFile));
  const byManifest = new Map<string, { rows: Map<string, ItemDesign>; problem?: string; unchecked: Set<string>; absent: Set<string> }>();
  const drift: string[] = [];
  const moved: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    if (typeof r.item_id !== "string" || typeof r.sample_manifest !== "string" || !r.sample_manifest) continue;
    const file = path.resolve(base, r.sample_manifest);
    let m = byManifest.get(file);
    if (!m) byManifest.set(file, (m = { ...manifestItems(file), unchecked: new Set(), absent: new Set() }));
    const want = m.rows.get(r.item_id);
    if (!want) {
      // the manifest could not be read (said once, with the items), or is found and lacks the item: not checked, said
      if (m.problem !== undefined) m.unchecked.add(r.item_id); // perhaps on a line not read
      else if (fs.existsSync(file)) m.absent.add(r.item_id);
      continue;
    }
    if (seen.has(r.item_id)) continue;
    const other = IDENTITY.filter((f) => r[f] !== undefined && want[f] !== undefined && r[f] !== want[f]).map((f) => `${f} ${JSON.stringify(r[f])} here, ${JSON.stringify(want[f])} in the manifest`);
    if (other.length) {
      seen.add(r.item_id);
      moved.push(`item ${r.item_id}: ${other.join(", ")}`);
      continue;
    }
    const diff = FIELDS.filter((f) => !same(r[f], want[f])).map((f) => `${f} ${JSON.stringify(r[f])} here, ${JSON.stringify(want[f])} in the manifest`);
    if (diff.length) {
      seen.add(r.item_id);
      drift.push(`item ${r.item_id}: ${diff.join(", ")}`);
    }
  }
  const said: string[] = [];
  if (moved.length) {
    const shown = moved.slice(0, 5).join("; ") + (moved.length > 5 ? `; and ${moved.length - 5} more` : "");
    said.push(
      `label_design_drift: label file ${labelFile} puts ${moved.length} item${moved.length === 1 ? "" : "s"} on another trajectory (or another version of it) than the sample manifest its rows name (${shown}): ` +
        `the figures count each such label for the row's trajectory, which is not the one the sample drew for that item (rows joined to trajectories by another key, or edited since the import), so agreement and the human and calibrated estimates may rest on labels of the wrong trajectories; ` +
        `import the annotations again with the manifest ipi-judge sample wrote`,
    );
  }
  if (drift.length) {
    const shown = drift.slice(0, 5).join("; ") + (drift.length > 5 ? `; and ${drift.length - 5} more` : "");
    said.push(
      `label_design_drift: label file ${labelFile} carries another design than the sample manifest its rows name for ${drift.length} item${drift.length === 1 ? "" : "s"} (${shown}): ` +
        `the label file or the manifest was edited since the import, and the figures weight by the label file's strata and probabilities, which may not be those that drew the sample; ` +
        `import the annotations again with the manifest ipi-judge sample wrote`,
    );
  }
  for (const [file, m] of byManifest) {
    const items = (s: Set<string>) => [...s].sort().slice(0, 5).join(", ") + (s.size > 5 ? `, and ${s.size - 5} more` : "");
    if (m.problem !== undefined) {
      said.push(
        m.unchecked.size
          ? `label_design_drift not checked: ${m.problem}: the design of the ${m.unchecked.size} item${m.unchecked.size === 1 ? "" : "s"} of label file ${labelFile} not among its readable rows (${items(m.unchecked)}) could not be compared with the manifest`
          : `${m.problem}: every item of label file ${labelFile} that names it is among its readable rows and was compared`,
      );
    }
    if (m.absent.size) {
      said.push(
        `label_design_drift: label file ${labelFile} labels ${m.absent.size} item${m.absent.size === 1 ? "" : "s"} (${items(m.absent)}) that the sample manifest its rows name (${file}) does not hold: ` +
          `their strata and probabilities are the label file's alone, not the design's (the manifest was edited since the import, or the rows were); import the annotations again with the manifest ipi-judge sample wrote`,
      );
    }
  }
  return said.length ? said.join("; ") : undefined;
}
