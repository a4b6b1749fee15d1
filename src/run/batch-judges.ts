/**
 * Which judges of a label run go through the Batch API under `--batch`, and the check that their folders
 * (`batches/<safeName(id)>/`, `./batch-chunk.ts`) are their own.
 */
import { UsageError } from "../errors.js";
import type { Judge } from "../judges/judge.js";
import type { OpenAIJudge } from "../judges/llm-judge.js";
import { batchCapable } from "../providers/batch-api.js";
import { safeName } from "./batch-chunk.js";

/** Whether a judge goes through the Batch API under `--batch`: an OpenAI-compatible judge that is `batchCapable`. */
export function isBatchJudge(j: Judge): j is OpenAIJudge {
  const oj = j as Partial<OpenAIJudge>;
  return Boolean(oj.begin && oj.config && batchCapable(oj.config));
}

/**
 * Refuse batch judges of one invocation whose ids give the same folder `batches/<safeName(id)>/` ("j/a" and "j_a",
 * red team): their chunk files would share one folder. (Their chunk keys differ by the judge's tag, `judgeTag`, so
 * runs written before this check are still read; one folder per judge is what a reader of the run expects.) Call
 * before the run store is opened; nothing is checked without `settings` (no `--batch`).
 * @throws UsageError (exit 2) naming both ids and the folder.
 */
export function refuseSharedBatchFolders(judges: readonly Judge[], settings: unknown): void {
  if (!settings) return;
  const byFolder = new Map<string, string>();
  for (const j of judges) {
    if (!isBatchJudge(j)) continue;
    const folder = safeName(j.id);
    const other = byFolder.get(folder);
    if (other !== undefined && other !== j.id)
      throw new UsageError(
        `batch judges "${other}" and "${j.id}" would share the folder batches/${folder}/ (a judge id becomes a folder name with every character but letters, digits, ".", "_" and "-" turned into "_"): rename one of them`,
      );
    byFolder.set(folder, j.id);
  }
}
