/**
 * The sample's annotator labels for the run's list (`view --run R --sample DIR`: the human column and filter), each
 * shown only beside the text it was given for: the manifest's `content_sha256` of the item against the run's content
 * hash of the trajectory now (../agree/label-pairing.ts, the check every consumer of human labels makes). A
 * trajectory edited since the sample and labelled again keeps its labels off its row; said once on stderr.
 */
import path from "node:path";
import type { HumanLabelRead } from "../agree/human-file.js";
import { checkLabelPairing } from "../agree/label-pairing.js";
import type { SampleStore } from "./annotations.js";
import type { ViewRun } from "./run-data.js";

/**
 * The sample's labels by trajectory id (annotator -> label) whose trajectory the run holds with the content the sample
 * drew (or records none to compare).
 * @param said the warnings already written (each is written to `log` once, when it first appears).
 */
export function pairedSampleLabels(
  sample: Pick<SampleStore, "humanLabels" | "manifest" | "dir">,
  run: Pick<ViewRun, "index">,
  said: Set<string>,
  log: (message: string) => void = (m) => process.stderr.write(`ipi-judge: view: warning: ${m}\n`),
): Map<string, Record<string, string>> {
  const hashOf = new Map(sample.manifest.rows.map((r) => [r.trajectory_id, r.content_sha256]));
  const labels = sample.humanLabels();
  const rows: HumanLabelRead[] = [];
  for (const [tid, byAnnotator] of labels) {
    const content_sha256 = hashOf.get(tid);
    for (const [annotator, label] of Object.entries(byAnnotator)) rows.push({ trajectory_id: tid, annotator, label, line: 0, ...(content_sha256 ? { content_sha256 } : {}) });
  }
  const warnings: string[] = [];
  const contentOf = (id: string) => (run.index.has(id) ? run.index.get(id)?.content_sha256 : null);
  const kept = checkLabelPairing({ format: "jsonl", rows, bad_rows: [] }, path.join(sample.dir, "annotations", "*.jsonl"), contentOf, warnings, "their labels are not shown in the run's list");
  for (const w of warnings) {
    if (said.has(w)) continue;
    said.add(w);
    log(w);
  }
  if (kept.refused_rows === 0) return labels;
  const out = new Map<string, Record<string, string>>();
  for (const r of kept.file.rows) out.set(r.trajectory_id, { ...(out.get(r.trajectory_id) ?? {}), [r.annotator]: r.label });
  return out;
}
