import { textTable } from "../format/text-table.js";
import { countText } from "../format/count-text.js";
import { statText } from "../format/stat-text.js";
import { warnLine } from "./warn.js";
import { adjudicatorsText } from "../agree/adjudication-facts.js";
import path from "node:path";
import type { Command } from "commander";
import { importAnnotations } from "../sample/index.js";
import { printJson } from "./util.js";

/**
 * What import's label shares are over, said beside them (new-user report 17: import printed 25.5% compromised as a
 * "population estimate" while estimate --human printed 22.0% for the same sample, with nothing to tell them apart).
 */
export const SHARES_OVER =
  "a check of what was imported, not a rate to report: every sampled item (attacked or not), each annotator's label " +
  "taking an equal part of the item's weight (a tie split), an adjudicated item's weight going to its adjudicated label; the human rate to report is estimate --human's (one " +
  "consensus label per item, ties left out, over attacked trajectories, stratum weights N_h/n_h)";

/** `ipi-judge import-annotations`: check human annotations against a sample's manifest and write the human-label file. */
export function registerImportAnnotations(program: Command): void {
  program
    .command("import-annotations")
    .description(
      "Import human labels of a sample (our CSV/JSONL, or a Label Studio JSON export), check every row against the sample's private manifest, and write the human-label file (with strata, phases, inclusion probabilities and weights) that agree --human reads.",
    )
    .argument("<file...>", "annotation files: .csv / .jsonl with item_id (or trajectory_id), annotator, label; or Label Studio's JSON export (.json)")
    .requiredOption("--manifest <file>", "the sample's private manifest (DIR/manifest.jsonl of ipi-judge sample --out DIR)")
    .requiredOption("--out <file>", "human-label JSONL to write")
    .option("--annotator <name>", "annotator for rows without one (a one-person file)")
    .option("--no-sample-adjudication", "do not read the sample folder's adjudication.jsonl when it is not among the files (read by default, and said)")
    .option("--json", "print the summary as one JSON object")
    .addHelpText(
      "after",
      `
Examples:
  ipi-judge import-annotations project-3-export.json --manifest study1/manifest.jsonl --out study1/human.jsonl
  ipi-judge import-annotations alice.csv bob.csv --manifest study1/manifest.jsonl --out study1/human.jsonl
  ipi-judge import-annotations filled-tasks.csv --annotator alice --manifest study1/manifest.jsonl --out human.jsonl

The adjudications view saves to the sample folder (DIR/adjudication.jsonl, beside DIR/annotations/) are read
too when the files or the manifest are in that folder and it is not given ("read N adjudications from ...");
--no-sample-adjudication leaves them out, with a warning.

Checks every row: unknown item or trajectory ids, labels outside the study's scale (case, spaces and dashes are
normalized, nothing else), missing annotators, and an annotator labelling an item twice with different labels.
The manifest is checked against the design it records (each item's stratum, stratum_size and
inclusion_probability against design.cells; each cell's item count; 1/pi summing to N_h in a phase-1 cell): a
manifest edited by hand is refused, since the rows would carry probabilities that did not draw the sample. A
sampled stratum left with no labelled item is warned (strata_without_labels): no estimate represents it (label
one if it was sampled; if none was drawn, draw again with coarser --strata or report the gap).
Problems are listed with their file and row, and nothing is written. Rows without a label are counted, not
imported. Output rows: {trajectory_id, annotator, label, item_id, stratum, phase, inclusion_probability, weight,
sampling_stratum, committee_stratum, stratum_size, scale, content_sha256, sample_frame}: weight is 1/inclusion_probability
as sampled (a design weight: over the labelled items it sums to N only for a phase-1 sample with every item labelled;
a warning gives the sums when items are unlabelled or the probabilities do not fit the recorded design, --json
design_weights), estimate --human weights by stratum_size instead; content_sha256 is the
trajectory's content hash when it was sampled, and estimate, agree --human, report and view refuse a label whose
trajectory the run now holds with other content (content_changed_since_sample).
Exit: 0 written, 1 problems in the files (nothing written), 2 usage error.`,
    )
    .action(async (files: string[], o) => {
      const res = await importAnnotations({ files, manifest: o.manifest, out: o.out, annotator: o.annotator, sampleAdjudication: o.sampleAdjudication !== false });
      const s = res.summary;
      for (const w of res.warnings) warnLine(w);
      if (o.json) {
        printJson({ out: path.resolve(o.out), formats: res.formats, warnings: res.warnings, sample_adjudications: res.sample_adjudications, ...s, ...(s.weighted_label_shares ? { weighted_label_shares_over: SHARES_OVER } : {}), design_weights: res.design_weights, strata_without_labels: res.strata_without_labels });
        return;
      }
      const lines = [
        // the sample folder's adjudication file, read without being named (new-user report 38 F1): said first
        ...res.sample_adjudications.filter((a) => a.read).map((a) => `read ${countText(a.adjudications, "adjudication")} from ${path.relative(process.cwd(), a.file) || a.file} (the sample folder's adjudication file; --no-sample-adjudication leaves it out)`),
        // adjudicated is not an annotator (new-user report 31, L5): counted apart, as estimate and agree count them
        `imported ${s.adjudicated_labels ? `${countText(s.labels, "label")}: ${countText(s.labels - s.adjudicated_labels, "label")} from ${countText(s.n_annotators, "annotator")} and ${countText(s.adjudicated_labels, "adjudicated label")} (${adjudicatorsText(s.adjudication)}),` : `${countText(s.labels, "label")} from ${countText(s.n_annotators, "annotator")}`} on ${s.items_labelled} of ${s.items_in_manifest} items (scale ${s.scale})`,
        `  phase 1: ${s.labelled_by_phase["1"]} items, phase 2: ${s.labelled_by_phase["2"]} items; Kish effective n ${statText(s.kish_n_eff, "empty_input", 1)}`,
      ];
      if (s.unlabelled) {
        const k = s.unlabelled_by_kind;
        const parts = [
          k.skipped ? `${k.skipped} skipped in Label Studio` : "",
          k.empty ? `${k.empty} submitted empty (no choice)` : "",
          k.pending ? `${k.pending} pending (task not annotated)` : "",
          k.blank ? `${k.blank} rows without a label` : "",
        ].filter(Boolean);
        lines.push(`  ${s.unlabelled} rows/annotations without a label (not imported): ${parts.join(", ")}`);
      }
      if (s.repeated_identical) lines.push(`  ${s.repeated_identical} repeated identical labels (kept once)`);
      if (s.items_unlabelled) lines.push(`  ${s.items_unlabelled} items have no label yet`);
      if (s.weighted_label_shares) {
        lines.push(`  design-weighted label shares (w = 1/pi): ${SHARES_OVER}:`);
        lines.push(...textTable(Object.entries(s.weighted_label_shares).map(([k, v]) => [k, `${(100 * v).toFixed(1)}%`]), { indent: "    ", minWidths: [22] }));
      }
      lines.push(`written to ${path.resolve(o.out)}`); // absolute, as label, committee and sample name what they write
      process.stdout.write(lines.join("\n") + "\n");
    });
}
