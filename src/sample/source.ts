/**
 * Re-reading sampled trajectories from their source files (the run index keeps `source.path`, `source.line`
 * and `content_sha256`, not the messages), for rendering them to annotators.
 *
 * Each source file is read once (src/ingest `readTrajectories`, forced to the recorded format). A trajectory is
 * matched by its line (chat-jsonl) or, in a one-trajectory file (AgentDojo), by being the file's trajectory; the
 * match must have the recorded `content_sha256` (src/io/hash.ts `contentSha256`), so a file edited since the
 * run was labelled is an error rather than a silently different trajectory.
 *
 * An attacked run whose log records no injected text (AgentDyn's DRIFT logs) was labelled with the text `label`
 * recovered from its sibling runs or the clean run (`../run/siblings.ts`), which its content hash covers: such a run is
 * recovered the same way here (`./recover.ts`), over the run's recorded inputs (`store.json` `inputs`), before the
 * hash is compared.
 */
import fs from "node:fs";
import path from "node:path";
import { readTrajectories, type InputFormat, INPUT_FORMATS } from "../ingest/index.js";
import { contentSha256 } from "../io/hash.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { Trajectory } from "../types.js";
import { recoveredAsLabelled, type SiblingCache } from "./recover.js";

/** A sampled trajectory that cannot be re-read (missing file, changed content, unknown format). */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SourceError";
  }
}

/**
 * Load the trajectories of the given index rows from their sources.
 * @param rows index rows of the sampled trajectories.
 * @param opts.sourceRoot folder that relative `source.path`s are resolved from (default: the current directory,
 *   i.e. where `ipi-judge label` ran); `opts.inputs` the run's recorded input paths (`store.json` `inputs`), read
 *   again (only when a sampled run needs it) to recover a DRIFT run's injected text as `label` did (module docstring);
 *   `opts.cache` keeps the index that read builds, for callers that load trajectories one at a time (`view`);
 *   `opts.siblingFiles` names the few files that can serve a DRIFT run (`view`: from the run's index), read instead of
 *   every input (`./recover.ts`).
 * @returns trajectory id -> trajectory (with the index row's id, whatever id re-reading gives it).
 * @throws SourceError listing every trajectory that could not be loaded (up to 20 named).
 */
export async function loadSampledTrajectories(
  rows: readonly TrajectoryIndexRow[],
  opts: { sourceRoot?: string; inputs?: readonly string[]; cache?: SiblingCache; siblingFiles?: (t: Trajectory) => readonly string[] | undefined } = {},
): Promise<Map<string, Trajectory>> {
  const cache = opts.cache ?? {};
  const root = opts.sourceRoot ?? process.cwd();
  const byFile = new Map<string, { format: string; rows: TrajectoryIndexRow[] }>();
  const problems: string[] = [];
  for (const r of rows) {
    const file = path.resolve(root, r.source.path);
    const g = byFile.get(file);
    if (g) g.rows.push(r);
    else byFile.set(file, { format: r.source.format, rows: [r] });
  }
  const out = new Map<string, Trajectory>();
  for (const [file, g] of [...byFile.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!fs.existsSync(file)) {
      for (const r of g.rows) {
        problems.push(
          `${r.id}: source file not found at ${file} (relative paths are resolved from ${root}; pass --source-root): moved or deleted since label last read it, and the run ` +
            `still counts it; run label on the run's inputs at their place now: a moved file's row then records its new path (no judge call), a deleted one is left out of the ` +
            `figures and of the sample frame (input_removed)`,
        );
      }
      continue;
    }
    if (!(INPUT_FORMATS as readonly string[]).includes(g.format)) {
      for (const r of g.rows) problems.push(`${r.id}: unknown source format "${g.format}"`);
      continue;
    }
    const found: Trajectory[] = [];
    const errors: string[] = [];
    for await (const item of readTrajectories([file], { format: g.format as InputFormat })) {
      if (item.kind === "error") {
        errors.push(item.error.message);
        continue;
      }
      found.push(item.trajectory);
    }
    for (const r of g.rows) {
      let t: Trajectory | undefined;
      if (r.source.line !== undefined) t = found.find((x) => x.source.line === r.source.line);
      else t = found.length === 1 ? found[0] : found.find((x) => x.id === r.id);
      if (!t) {
        const at = r.source.line !== undefined ? ` line ${r.source.line}` : "";
        const why = errors.length ? `: ${errors[0]}` : "";
        problems.push(`${r.id}: no trajectory at ${file}${at}${why}`);
        continue;
      }
      let sha = contentSha256(t);
      if (sha !== r.content_sha256) {
        // labelled with its injected text recovered from sibling runs or the clean run (module docstring)
        const recovered = await recoveredAsLabelled(t, opts.inputs, root, cache, opts.siblingFiles);
        if (recovered !== t && contentSha256(recovered) === r.content_sha256) {
          t = recovered;
          sha = r.content_sha256;
        }
      }
      if (sha !== r.content_sha256) {
        problems.push(`${r.id}: ${file} has changed since the run was labelled (content hash ${sha.slice(0, 12)}…, run has ${r.content_sha256.slice(0, 12)}…)`);
        continue;
      }
      out.set(r.id, { ...t, id: r.id });
    }
  }
  if (problems.length) {
    const shown = problems.slice(0, 20).map((p) => `  ${p}`);
    if (problems.length > 20) shown.push(`  ... and ${problems.length - 20} more`);
    throw new SourceError(`cannot re-read ${problems.length} sampled trajector${problems.length === 1 ? "y" : "ies"} for rendering:\n${shown.join("\n")}`);
  }
  return out;
}
