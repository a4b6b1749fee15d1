/**
 * What `label` does before it reads an input: the pre-count (every input walked once for the progress total), and
 * the stop that comes then. A resume's first seconds are the run's journals read back (`RunStore.open`) and the
 * pre-count; a Ctrl-C in them used to wait for both to end, then marked the run `interrupted` (a complete run
 * included) and printed a summary of figures called partial, though nothing had been read or judged. Now the pre-count
 * stops at the signal, and a stop before the reading loop leaves the run as the last invocation left it
 * (`RunStore.abandon`) and throws {@link StoppedBeforeWorkError}: the CLI says so and exits 130.
 */
import { countInputItems } from "../ingest/index.js";
import { StoppedBeforeWorkError } from "../errors.js";
import { LOAD_CHECK_EVERY, RunStore } from "../store/run-store.js";
import type { LabelProgress } from "./label-core.js";
import type { LabelOptions } from "./label-options.js";

/**
 * Set `progress.total`: `opts.limit` when given, else (with a progress callback) the inputs counted; a progress
 * report with no total goes out first, so a reporter shows the wait. The count stops at `opts.signal` (the total is
 * then what was counted: {@link stopIfNothingRead} follows).
 */
export async function preCount(opts: LabelOptions, progress: LabelProgress): Promise<void> {
  if (opts.limit !== undefined) {
    progress.total = opts.limit;
    return;
  }
  if (!opts.onProgress) return;
  opts.onProgress({ ...progress });
  // the empty placeholders are passed over at once: left out of the total, so the ETA is for the work (session 48)
  const c = await countInputItems(opts.inputs, { format: opts.format, maxItemBytes: opts.maxItemBytes, labelsRoot: opts.labelsDir, signal: opts.signal }).catch(() => ({ items: 0, placeholders: 0 }));
  progress.total = c.items - c.placeholders;
  if (c.placeholders > 0) progress.placeholders_counted = c.placeholders;
}

/**
 * A stop (`opts.signal`) that came before the reading loop began: the run's snapshot goes back to what the last
 * invocation left (`RunStore.abandon`) and the stop is thrown, saying so. Nothing is done when there was no stop.
 * @param during what was under way, for the message: e.g. `counting the inputs`.
 * @throws StoppedBeforeWorkError when the signal is aborted.
 */
export function stopIfNothingRead(store: RunStore, opts: LabelOptions, during: string): void {
  if (!opts.signal?.aborted) return;
  store.abandon();
  const st = store.snapshot.label_state;
  throw new StoppedBeforeWorkError(
    `stopped while ${during}, before any input was read: nothing was judged or stored by this invocation, and run "${opts.run}" is as ` +
      (st ? `the last label invocation left it (${st.state})` : "it was (nothing labelled yet)") +
      "; the same command starts again from there",
  );
}

/**
 * The run store's load check (`RunStore.open`'s `onLoadCheck`, called every few thousand journal lines): the heap
 * check, then a stop that came while the run's journals were read back is thrown (nothing opened for writing yet).
 * The store keeps the check for the summary's reads of its held verdicts and rows (`RunStore.load`), which come after
 * the work: once `opening.done` is set (the open returned) it is the heap check alone (verifier 39: a Ctrl-C while
 * judging a run of more than 1,024 verdicts threw this stop from the summary, "nothing was judged or stored by this
 * invocation" after thousands were stored, and the partial summary was never printed).
 * While the journals are read back it also passes the lines read so far to `opts.onLoadProgress`.
 * @param opening set `done` once `RunStore.open` has returned.
 * @throws StoppedBeforeWorkError when the signal is aborted while the journals are read back.
 */
export function loadCheck(opts: LabelOptions, opening: { done: boolean }): (() => void) | undefined {
  if (!opts.signal && !opts.onHeapCheck && !opts.onLoadProgress) return undefined;
  let calls = 0;
  return () => {
    opts.onHeapCheck?.();
    if (!opening.done) opts.onLoadProgress?.(++calls * LOAD_CHECK_EVERY);
    if (!opening.done && opts.signal?.aborted)
      throw new StoppedBeforeWorkError(`stopped while reading back run "${opts.run}"'s journals, before any input was read: nothing was judged or stored by this invocation, and the run is as the last label invocation left it; the same command starts again from there`);
  };
}

/**
 * `RunStore.open` for `label`: the run's journals read back with {@link loadCheck} (a stop while they are read is
 * thrown), which is the heap check alone once the open has returned.
 */
export async function openForLabel(opts: LabelOptions): Promise<RunStore> {
  const opening = { done: false };
  const store = await RunStore.open(opts.labelsDir, opts.run, { inputs: opts.inputs, onLoadCheck: loadCheck(opts, opening) });
  opening.done = true;
  return store;
}
