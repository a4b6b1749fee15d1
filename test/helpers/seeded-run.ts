/**
 * A seeded run folder of one judge `j1` over two agent models on the banking suite, with a human file: the fixture of
 * the `(all)` row and paper table tests (test/estimate/table-all*.test.ts, test/report/calibrated-all.test.ts,
 * test/report/paper-table-all-marks.test.ts). The caller draws what differs between them (attacked, model, label,
 * benchmark verdict, run error) from `r` in its own order; the rows, verdicts and human lines are built here.
 */
import fs from "node:fs";
import path from "node:path";
import { Rand } from "./rand.js";

/** The six labels, in the rubric's order: a label is drawn as `LABELS[r.int(0, 5)]`. */
export const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

/** The fields of an index row the caller draws or decides. */
export interface SeededRow {
  model: string;
  attacked: boolean;
  /** Draw a condition (`no_defense` or `spotlight`). */
  conditions?: boolean;
  /** The benchmark's goal verdict (`reference.security`); none when undefined. */
  security?: boolean;
  /** The agent crashed (`run_error`). */
  runError?: boolean;
}

/** The lines of a seeded run as they are added, written by {@link SeededRun.write}. */
export class SeededRun {
  readonly r: Rand;
  private readonly rows: string[] = [];
  private readonly verdicts: string[] = [];
  private readonly human: string[] = [];

  /** @param dir the run folder (`trajectories.jsonl`, `verdicts.jsonl`); its trajectories' sources do not exist. */
  constructor(
    readonly dir: string,
    seed: number,
  ) {
    this.r = new Rand(seed);
  }

  /**
   * The index row of trajectory `t${i}`. Draws from `r`, in this order: the condition (when `o.conditions`), the
   * injection task (attacked runs, of 4), the user task (of 6), the benchmark's utility verdict.
   */
  row(i: number, o: SeededRow): void {
    const r = this.r;
    this.rows.push(
      JSON.stringify({
        id: `t${i}`,
        source: { format: "agentdojo", path: path.join(this.dir, "missing", `${i}.json`) },
        agent_model: o.model,
        suite: "banking",
        ...(o.conditions ? { condition: r.pick(["no_defense", "spotlight"]) } : {}),
        attacked: o.attacked,
        ...(o.attacked ? { attack: "important", injection_task_id: `injection_task_${r.int(0, 3)}` } : {}),
        user_task_id: `user_task_${r.int(0, 5)}`,
        reference: { utility: r.int(0, 1) === 0, ...(o.security === undefined ? {} : { security: o.security }) },
        ...(o.runError ? { run_error: "agent crashed" } : {}),
        content_sha256: `c${i}`,
      }),
    );
  }

  /**
   * Judge j1's repeat-0 verdict on `t${i}`: `label`, or a judge error (a timeout) when `label` is null; then, on an
   * attacked run, a human label one time in three: the judge's four times in five (a draw of the six when the judge
   * gave none or the human disagrees). Draws from `r` only for the human line.
   */
  judged(i: number, model: string, attacked: boolean, label: string | null): void {
    const id = `t${i}`;
    const ok = label !== null;
    this.verdicts.push(
      JSON.stringify({ trajectory_id: id, judge_id: "j1", judge_model: "m", judge_family: "openai", repeat: 0, prompt_sha256: "p", status: ok ? "ok" : "judge_error", label, downgraded: false, findings: [], attacked, label_basis: attacked ? "findings" : "unattacked", agent_model: model, ...(ok ? {} : { error: { kind: "timeout", message: "x" } }) }),
    );
    const r = this.r;
    if (attacked && r.int(0, 2) === 0) this.human.push(JSON.stringify({ trajectory_id: id, annotator: "a1", label: label && r.int(0, 4) !== 0 ? label : LABELS[r.int(0, 5)] }));
  }

  /** Write the run folder's two files and the human labels to `humanFile`; @returns `humanFile`. */
  write(humanFile: string): string {
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(path.join(this.dir, "trajectories.jsonl"), this.rows.join("\n") + "\n");
    fs.writeFileSync(path.join(this.dir, "verdicts.jsonl"), this.verdicts.join("\n") + "\n");
    fs.writeFileSync(humanFile, this.human.join("\n") + "\n");
    return humanFile;
  }
}
