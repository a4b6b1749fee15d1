/**
 * `ipi-judge view`: a local browser workspace over a run (browse, one trajectory with its verified quotes in
 * place, two judges or two runs side by side) and a sample (blinded annotation, adjudication).
 * Server side here (node:http, JSON API); the page's script is `client/` (bundled by esbuild into dist/view/assets).
 */
import path from "node:path";
import { loadViewRun, type ViewRun } from "./run-data.js";
import { loadOtherRun } from "./other-run.js";
import type { ReadProgress } from "../store/lean-read.js";
import { loadTrajectory } from "./item.js";
import { SampleStore } from "./annotations.js";
import { startViewServer, type ViewServer } from "./server.js";

export { loadViewRun, type ViewRun, type ViewRow } from "./run-data.js";
export { loadOtherRun, type OtherRun } from "./other-run.js";
export { checkedListQuery, listPage, parseListQuery, facets } from "./query.js";
export { trajectoryDoc, type TrajectoryDoc } from "./document.js";
export { itemView } from "./item.js";
export { SampleStore, annotatorFileName, ANNOTATIONS_DIR, ADJUDICATION_FILE } from "./annotations.js";
export { startViewServer, CSP, type ViewServer } from "./server.js";

/** What {@link openView} needs. */
export interface OpenViewOptions {
  /** The run folder (`<labels-dir>/<run>`). */
  runDir: string;
  /** Where the reading of the run's journals is (a progress display). */
  progress?: ReadProgress;
  /** Another run folder, for side-by-side comparison. */
  otherDir?: string;
  /** A sample folder written by `ipi-judge sample --out`. */
  sampleDir?: string;
  humanFile?: string;
  /** Serve only the blinded annotation pages. */
  blind?: boolean;
  /** Folder relative source paths of the run are resolved from (default: the current directory). */
  sourceRoot?: string;
  host?: string;
  port?: number;
  token?: string;
  /** More Host header names to accept (see ViewServerOptions.allowHosts). */
  allowHosts?: string[];
}

/**
 * Load the run (and the other run, the sample) and start the server.
 * @returns the server (its `url` carries the token) and the loaded run, with the warnings of loading.
 * @throws HumanLabelsError, AnnotationImportError (manifest), Error (no manifest, page not built, port in use).
 */
export async function openView(o: OpenViewOptions): Promise<{ server: ViewServer; run: ViewRun; warnings: string[] }> {
  const run = await loadViewRun(o.runDir, { humanFile: o.humanFile, progress: o.progress, keepContent: o.otherDir !== undefined });
  // of the other run only what the pages show of it, its ids in the run's id table, its texts compared with this
  // run's (./other-run.ts)
  const other = o.otherDir ? await loadOtherRun(o.otherDir, { main: run.ids, mainContent: run.takeContentCodes?.(), progress: o.progress }) : undefined;
  const sourceRoot = path.resolve(o.sourceRoot ?? process.cwd());
  const sample = o.sampleDir ? new SampleStore(o.sampleDir, (id) => loadTrajectory(run, id, sourceRoot)) : undefined;
  // labels imported from a filled tasks.csv or Label Studio are in the --human file: adjudicated too (new-user report 31, L4)
  if (sample && o.humanFile) sample.useImported(o.humanFile);
  if (sample && sample.manifest.header.run !== run.name) {
    sample.warnings.push(`the sample was drawn from run "${sample.manifest.header.run}", not "${run.name}": items are re-read through this run's index`);
  }
  const server = await startViewServer({ run, other, sample, blind: o.blind, sourceRoot, host: o.host, port: o.port, token: o.token, allowHosts: o.allowHosts });
  return { server, run, warnings: [...run.warnings, ...(other?.warnings ?? []), ...(sample?.warnings ?? []), ...(sample?.adjudicationWarnings() ?? [])] };
}
