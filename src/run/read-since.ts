/**
 * Which input errors stored by an earlier invocation this invocation's read has answered: the file (or the file's
 * line, for a JSON Lines row) the error is about was read without error since. A broken run file that was fixed and
 * labelled again used to stay among the run's errors for good (`errors.jsonl` is append-only); such an error is now
 * counted apart as superseded (`./superseded-errors.ts`), the old line kept in `errors.jsonl`.
 *
 * An error is superseded only when all of these hold:
 * - it is about the input's content or reading (`read_error`, `invalid_utf8`, `invalid_json`, `schema`,
 *   `no_messages`, `unknown_format`, `too_large`, `empty_placeholder`, `unresolved_attachment`, `changed_during_read`,
 *   and `prepare_failed`: a trajectory read but not prepared, told by {@link ReadSince.raise}), not about ids
 *   (`duplicate_id`, `duplicate_input`: about what else was read) nor a judge's or the run's errors;
 * - this invocation read a trajectory from its input: a file-level error (no line) by any trajectory of the file,
 *   or by the file taken as unchanged unread (its stamp was stored by a successful read); a line's error by a
 *   trajectory of that line;
 * - this invocation did not raise the same error again (a file holding several items, e.g. an Inspect log with one
 *   bad sample, reads some items and fails again on the same one: that error stands);
 * - the read ran to the end of the input (not stopped by Ctrl-C, `--limit`, the cost cap or stopped judges): a read
 *   cut short may not have met the error again.
 *
 * Memory: only the inputs named by the stored errors are tracked (a handful), never every file read.
 */
import path from "node:path";
import type { IngestError } from "../types.js";
import { errorKey } from "../store/run-store.js";

/** The error kinds a later good read of the same input answers (module docstring). */
const INPUT_KINDS: ReadonlySet<string> = new Set([
  "read_error",
  "invalid_utf8",
  "invalid_json",
  "schema",
  "no_messages",
  "unknown_format",
  "too_large",
  "empty_placeholder",
  "unresolved_attachment",
  "changed_during_read",
  "prepare_failed",
]);

/** The key of an input: its resolved path, and its line when it is a JSON Lines row. */
function inputKey(file: string, line?: number): string {
  const abs = path.resolve(file);
  return line === undefined ? abs : `${abs}\u0000${line}`;
}

/** Tracks one invocation's read against the input errors stored before it (module docstring). */
export class ReadSince {
  /** input key named by a stored input error -> whether this invocation read a trajectory from it */
  private readonly named = new Map<string, boolean>();
  /** keys (`errorKey`) of the input errors this invocation raised about a named input */
  private readonly raisedNow = new Set<string>();
  private complete = false;

  /** @param stored the run's errors before this invocation's read (`RunStore.storedErrors`). */
  /** resolved file -> the keys of its named lines: a whole-document trajectory of the file answers them too */
  private readonly linesOf = new Map<string, string[]>();

  constructor(stored: readonly IngestError[]) {
    for (const e of stored) {
      if (!INPUT_KINDS.has(e.kind)) continue;
      const k = inputKey(e.path, e.line);
      this.named.set(k, false);
      if (e.line !== undefined) {
        const abs = path.resolve(e.path);
        this.linesOf.set(abs, [...(this.linesOf.get(abs) ?? []), k]);
      }
    }
  }

  /**
   * The read's items, watched: a trajectory (or a file taken as unchanged) marks its input read, an error is noted as
   * raised now; when the items run out (not when the consumer stops early), the read is complete. Yields them as given.
   * `also` watches the same items in the same pass (`./removed-inputs.ts`): no second generator per item.
   */
  async *watch<T extends { kind: string }>(items: AsyncIterable<T>, also?: { see(item: { kind: string }): void; done(): void }): AsyncGenerator<T> {
    for await (const item of items) {
      if (this.named.size > 0) this.see(item as unknown as Seen);
      also?.see(item);
      yield item;
    }
    this.complete = true;
    also?.done();
  }

  private see(item: Seen): void {
    if (item.kind === "trajectory") {
      const { path: file, line } = item.trajectory.source;
      this.mark(inputKey(file));
      if (line !== undefined) this.mark(inputKey(file, line));
      // a one-document file read whole now answers its earlier errors that named a line of it (rev2a #3: an
      // AgentDojo file's invalid UTF-8 at line 13, fixed, stood in every figure command's input_errors)
      else for (const k of this.linesOf.get(path.resolve(file)) ?? []) this.mark(k);
    } else if (item.kind === "unchanged") this.mark(inputKey(item.path));
    else if (item.kind === "error" && this.named.has(inputKey(item.error.path, item.error.line))) this.raisedNow.add(errorKey(item.error));
  }

  /** An input error raised about a trajectory after the read gave it (`prepare_failed`): that error stands. */
  raise(e: IngestError): void {
    if (this.named.has(inputKey(e.path, e.line))) this.raisedNow.add(errorKey(e));
  }

  private mark(k: string): void {
    if (this.named.has(k)) this.named.set(k, true);
  }

  /** Whether a stored error is answered by this invocation's read (module docstring). */
  answered(e: IngestError): boolean {
    return this.complete && INPUT_KINDS.has(e.kind) && this.named.get(inputKey(e.path, e.line)) === true && !this.raisedNow.has(errorKey(e));
  }
}

/** The read items {@link ReadSince.watch} looks into (`IngestItem`, `UnchangedItem` of ../ingest). */
type Seen =
  | { kind: "trajectory"; trajectory: { source: { path: string; line?: number } } }
  | { kind: "unchanged"; path: string }
  | { kind: "error"; error: IngestError };
