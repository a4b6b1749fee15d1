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

/**
 * Under `--batch` (`settings` set), the judges that cannot use the Batch API said before anything is sent (break54 #2:
 * the help's own example, three judges on OpenRouter, paid the online price in real time while the user thought a
 * half-price batch was queued): refused when no OpenAI-compatible judge of the run can (nothing would go through it),
 * else one warning naming the ones sent online. The offline signature judge is never batched and never named.
 * @param warn where a warning goes (`LabelOptions.onWarning`).
 * @throws UsageError (exit 2) when the run has OpenAI-compatible judges and none is batch-capable.
 */
export function checkBatchJudges(judges: readonly Judge[], settings: unknown, warn: ((w: string) => void) | undefined): void {
  if (!settings) return;
  const online = judges.filter((j) => {
    const oj = j as Partial<OpenAIJudge>;
    return Boolean(oj.begin && oj.config) && !isBatchJudge(j);
  }) as OpenAIJudge[];
  if (!online.length) return;
  const named = online.map((j) => `"${j.id}" (${j.config.base_url ? `base_url ${j.config.base_url}` : "no base_url"}${j.config.batch === false ? ', "batch": false' : ""})`).join(", ");
  const how = `a judge goes through the Batch API with "batch": true in its configuration (its server has the OpenAI Batch API) or on api.openai.com`;
  if (!judges.some(isBatchJudge))
    throw new UsageError(`--batch: no judge of this run can use the Batch API: ${named}; ${how}. Drop --batch to judge online, at the online price`);
  warn?.(`--batch: judge${online.length === 1 ? "" : "s"} ${named} cannot use the Batch API (${how}): ${online.length === 1 ? "its" : "their"} requests are sent online, at the online price, as the run goes`);
}
