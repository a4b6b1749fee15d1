/**
 * The batch path of a label run (`./batch.ts` does one judge's chunks): opening every batch judge's state at the
 * start of a run and finishing them after the online path, storing their verdicts.
 */
import type { Judge } from "../judges/judge.js";
import { JudgeFatalError } from "../errors.js";
import { BatchApiError } from "../providers/batch-api.js";
import { contentSha256 } from "../io/hash.js";
import type { LabelRunState } from "./label-core.js";
import { BatchJudgeRun, type BatchSettings } from "./batch.js";
import { isBatchJudge } from "./batch-judges.js";
import { settleBatchVerdict } from "./batch-cap.js";

/**
 * The batch path of a label run: one {@link BatchJudgeRun} per batch-capable LLM judge (`batchCapable(config)`;
 * other judges stay online), opened (the conversations of chunks sent by an earlier process are loaded, so they
 * are awaited, not paid twice).
 * @returns judge id -> its batch run; empty when `settings` is undefined (no `--batch`).
 */
export async function openBatchPaths(
  run: LabelRunState,
  judges: readonly Judge[],
  settings: Omit<BatchSettings, "signal"> | undefined,
): Promise<Map<string, BatchJudgeRun>> {
  const batchers = new Map<string, BatchJudgeRun>();
  if (settings)
    for (const j of judges) {
      if (!isBatchJudge(j)) continue;
      // its warnings go to the summary's `warnings` (summary.json, --json) too, not only to stderr (verifier 37)
      const onWarning = (w: string): void => {
        run.batchWarnings.push(w);
        settings.onWarning?.(w);
      };
      const b = new BatchJudgeRun(run.store, j, { ...settings, onWarning, signal: run.signal, configSha256: run.configs.get(j.id)?.sha });
      // the paid turns of a chunk dropped under a changed configuration: stored as they are (not a judgment: no
      // progress, no judge-health count)
      await b.open((v, t, content) => {
        v.content_sha256 = content ?? contentSha256(t);
        run.store.addVerdict(v);
      });
      batchers.set(j.id, b);
    }
  return batchers;
}

/**
 * Send, poll and store every batch judge's verdicts (after the online path is done), judge by judge; a
 * `JudgeFatalError` stops that judge and the next goes on. So does a files/batches call that kept failing
 * (`BatchApiError`: a result download's 5xx or cut body after its retries): the judge is stopped with that reason, what
 * it left uncollected is recorded in `run.batchUnfinished` (the summary's `batch_unfinished`), the verdicts stored
 * before are kept, and the summary is still written; the same command resumes (the batch's state is on disk). Stops
 * early when the store failed, the run was aborted or the judge was stopped.
 * @returns true when a batch run was stopped before all its verdicts were stored (the run is interrupted).
 * @throws what `BatchJudgeRun.finish` throws besides `JudgeFatalError` and `BatchApiError` (a store that cannot be written).
 */
export async function finishBatchPaths(run: LabelRunState, batchers: Map<string, BatchJudgeRun>): Promise<boolean> {
  let interrupted = false;
  for (const [id, b] of batchers) {
    if (run.fatal || run.signal?.aborted || run.stopped[id]) break;
    let done = true;
    let stored = 0;
    try {
      done = await b.finish((v, t, content) => {
        stored++;
        v.judge_config_sha256 ??= run.configs.get(id)!.sha; // the chunk's own, when it recorded one
        // the hash the state line kept (its index row's, of this same trajectory), or hashed now for older lines
        v.content_sha256 = content ?? contentSha256(t);
        // a result of a batch sent before its trajectory was edited: stored (paid), judged again (`labelRun`)
        const now = run.store.storedContent(v.trajectory_id);
        if (now !== undefined && now !== v.content_sha256) (run.batchStale ??= new Set()).add(v.trajectory_id);
        run.store.addVerdict(v);
        settleBatchVerdict(run, id, v); // the cost cap: its cost replaces its reservation (./batch-cap.ts)
        run.progress.judged++;
        run.track(v);
        run.report();
      });
    } catch (e) {
      // a files/batches call ended by the run's stop (Ctrl-C during a result download): an interruption, state kept
      if (run.signal?.aborted && !(e instanceof JudgeFatalError)) {
        interrupted = true;
        break;
      }
      if (e instanceof BatchApiError) {
        // red team: a result download that kept failing threw out of label, and no summary.json said what was missing
        const left = b.unfinished();
        run.batchUnfinished[id] = { reason: e.message, requests: left.requests, batches: left.batches, verdicts_stored: stored };
        run.stopJudge(
          id,
          `${e.message} [${left.requests} request(s) in ${left.batches.length} batch(es) not collected (${left.batches.map((x) => x.batch_id ?? x.key).join(", ")}); the ${stored} verdict(s) stored before are kept]`,
        );
        continue;
      }
      if (!(e instanceof JudgeFatalError)) throw e;
      run.stopJudge(id, e.message);
    }
    if (!done) interrupted = true;
  }
  return interrupted;
}
