/**
 * Inspect samples run for several epochs (`inspect eval --epochs N`): one trajectory per sample and epoch
 * (`./inspect.ts`), each a run of its cell that counts in every figure. The rates' Wilson intervals treat every run as
 * independent; epochs of one sample share its task and injection, so over such runs an interval is narrower than the
 * number of samples supports (break51 finding 6: 8 samples x 3 epochs read as `asr_goal 41.7% [24.5, 61.2] (10/24)`,
 * unsaid). Said once per read (once per run, not once per log: session 51 left one line per log file), naming the
 * logs and counting the epochs past the first; and epochs of one sample that gave the same
 * trajectory are real runs, not copies (`../run/same-content.ts` tells them apart by id, {@link sameSampleEpochs}).
 */
import type { ItemWarning } from "./warnings.js";

/** The warning kind of a log whose samples ran for several epochs. */
export const INSPECT_EPOCHS = "inspect_epochs";

/** The scope of that warning: the read (every log of it), so it is said once, naming the logs. */
export const EPOCHS_SCOPE = "(the Inspect logs read)";

/**
 * The warning for one sample's epoch past the first (undefined for epoch 1): aggregated over the whole read (scope
 * {@link EPOCHS_SCOPE}), naming the logs it was raised in; its count is the number of such epochs.
 * @param path the log's path (named in the aggregated message); @param where the sample's place (`samples/3_epoch_2.json (sample 3, epoch 2)`).
 */
export function epochWarning(epoch: number, path: string, where: string): ItemWarning | undefined {
  if (epoch <= 1) return undefined;
  return {
    kind: INSPECT_EPOCHS,
    scope: EPOCHS_SCOPE,
    file: path,
    message:
      `Inspect samples run for several epochs: each epoch is read as a run of its own and counts in every figure as one; ` +
      `the rates' Wilson intervals treat runs as independent, but epochs of one sample share its task and injection, so over them ` +
      `an interval is narrower than the number of samples supports (counted here: the epochs past the first)`,
    item: where,
  };
}

const EPOCH_ID = /_epoch_\d+$/;

/**
 * Whether two trajectory ids are epochs of one Inspect sample: both end in `_epoch_<n>` (`./inspect.ts`' ids,
 * `<log path>/<sample id>_epoch_<epoch>`) and are equal before it.
 */
export function sameSampleEpochs(a: string, b: string): boolean {
  return EPOCH_ID.test(a) && EPOCH_ID.test(b) && a.replace(EPOCH_ID, "") === b.replace(EPOCH_ID, "");
}
