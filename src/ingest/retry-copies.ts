/**
 * Inspect's `eval-retry` copies (red team 37 F3): `inspect eval-retry` writes a new log holding the completed samples
 * of the log it retries, copied, beside the retried ones. Both logs in one read gave each such sample twice, under
 * two ids (`<log>/<sample>_epoch_<n>`), counted twice without a word. The same sample (task, sample id, epoch) with
 * the same content (`contentSha256`: messages, injections, tools) in another log of the read is now read once: the
 * later one is a `duplicate_input` naming the first. A sample of the same id and epoch whose content differs is a
 * sample run again (kept, both count). So is a sample of another task (`task_id`: eval-retry keeps it, a new
 * `inspect eval` draws another) or of another cell (model, condition, attack, suite, tasks): newuser54 #1, two logs
 * of two conditions with the same task name and sample ids whose agent said the same lost one condition as a copy.
 * Equal content across cells is real (a defense that did not fire) and stays unsaid, as for AgentDojo files.
 *
 * Cost: one content hash per Inspect sample read and one map entry each (Inspect logs only).
 */
import { contentSha256 } from "../io/hash.js";
import type { IngestError, Trajectory } from "../types.js";
import { ingestError } from "./errors.js";

/** The fields naming a sample's cell: samples that differ in one are distinct runs, however equal their content. */
const CELL = ["agent_model", "agent_family", "condition", "attack", "suite", "user_task_id", "injection_task_id"] as const;

/** One read's Inspect samples by task id, sample id, epoch, content and cell: the first place and id of each. */
export class RetryCopies {
  private readonly first = new Map<string, { file: string; place: string; id?: string }>();

  /**
   * The `duplicate_input` error for an Inspect sample read before from another log with the same content, else
   * undefined (the sample is recorded as the first of its key).
   * @param file the sample's log, resolved; `kept` whether the read keeps the sample otherwise (false: its id was
   *   taken, the reader's own `duplicate_id` or `duplicate_input`; it is recorded all the same, so its copy in another
   *   log is no new trajectory either).
   */
  error(t: Trajectory, file: string, kept = true): IngestError | undefined {
    if (t.source.format !== "inspect") return undefined;
    const m = t.metadata ?? {};
    if (m.sample_id === undefined) return undefined;
    // the task's identity (`task_id`, kept by eval-retry; the task name in logs without one) and what names the
    // sample's cell: two logs of two conditions or models whose samples hold the same messages are two runs (newuser54 #1)
    const key = JSON.stringify([m.task_id ?? m.task ?? null, m.sample_id, m.epoch ?? null, contentSha256(t), ...CELL.map((f) => t[f] ?? null)]);
    const had = this.first.get(key);
    const place = `${file}${t.source.entry !== undefined ? ` (${t.source.entry})` : ""}`;
    if (had === undefined) {
      this.first.set(key, kept ? { file, place, id: t.id } : { file, place });
      return undefined;
    }
    if (had.file === file || !kept) return undefined; // one log's own entries, or an id taken: the reader's own check
    return ingestError(
      "duplicate_input",
      t.source.path,
      `${t.source.entry !== undefined ? `${t.source.entry}: ` : ""}the same Inspect sample (sample ${JSON.stringify(m.sample_id)}, epoch ${String(m.epoch ?? 1)}, ` +
        `the same content) as ${had.place}, ${had.id !== undefined ? `read as "${had.id}"` : "not read there either (an input error)"}: a copy (an \`inspect eval-retry\` log holds the completed samples of the log it retries): ` +
        `read once, not counted as "${t.id}"; give only one of the logs to keep the other's id`,
      { trajectory_id: t.id },
    );
  }
}
