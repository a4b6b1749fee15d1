/**
 * The run store's snapshot file (`store.json`, lowdb): its shape, its check, and the run name that names its folder.
 */
import { isObj } from "./records.js";

/** The lowdb snapshot `store.json`: run metadata and batched counters. The journals are the source of truth. */
export interface RunSnapshot {
  version: 1;
  run: string;
  created_at: string;
  updated_at: string;
  inputs: string[];
  /**
   * The judges of the run, latest configuration per id: `judge_config_sha256` and `config` (the verdict-affecting
   * configuration it hashes, without credentials) are what a resumed run compares against (issue 12, point 5).
   */
  judges: Array<{
    id: string;
    model: string;
    family: string;
    prompt_sha256: string;
    rubric_version: string;
    judge_config_sha256?: string;
    config?: Record<string, unknown>;
    /** The configuration key's version (`TRANSPORT_KEY_VERSION` of src/run/config-change.ts): absent before it. */
    config_key_version?: number;
  }>;
  counts: { trajectories: number; verdicts: number; errors: number };
  /** Judges stopped by a fatal error (bad key, no quota), with the message. */
  stopped_judges: Record<string, string>;
  /** What the last `label` invocation asked for. */
  last_invocation?: { at: string; inputs: string[]; judges: string[]; options: Record<string, unknown> };
  /** Free space for later stages (batch ids, committee settings, ...). */
  extra: Record<string, unknown>;
  /**
   * How the last `label` invocation ended: `running` while it runs (and left so by a process that was killed),
   * `complete`, `interrupted` (Ctrl-C / SIGTERM), `stopped_judges` (a judge stopped by a fatal error), `cost_cap`
   * (stopped by `--max-cost` with items left un-judged), `failed`
   * (the process ended without finishing: a store write error, a crash). Read with `readRunState`.
   */
  label_state?: LabelState;
}

/** The state of a run's last `label` invocation, kept in `store.json`. */
export interface LabelState {
  state: "running" | "complete" | "interrupted" | "stopped_judges" | "cost_cap" | "failed";
  started_at: string;
  finished_at?: string;
  pid: number;
  host: string;
  /** Judges stopped by a fatal error in that invocation. */
  stopped_judges?: string[];
  /** `--max-cost` cap that stopped that invocation (state `cost_cap`): the cap and the run's spend (USD) then. */
  cost_cap?: { cap_usd: number; spent_usd: number };
  /** `--limit N` of that invocation: only the first N trajectories of the inputs were read. */
  limit?: number;
  /** Trajectories the run holds whose input file no longer exists, as that invocation found (`../run/removed-inputs.ts`). */
  inputs_removed?: { count: number; examples: string[] };
  /** The passes with --limit or --where whose inputs no full pass has covered since (`./partial-passes.ts`); absent: none recorded. */
  partial_passes?: PartialPass[];
  /** The inputs (absolute) a pass without --limit/--where read to the end (`./partial-passes.ts`); absent: recorded by an older build. */
  covered_inputs?: string[];
  /**
   * Label invocations of this run killed before this one (left `running`: `kill -9`, a crash, a power cut), carried
   * from pass to pass: the requests they had in flight were sent (and may be billed) but no verdict records them, so
   * the run's cost is a lower bound from then on (break55 #3; docs/cost.md "Known limit"). Absent: none recorded.
   */
  killed_before?: { count: number; last_started_at: string };
}

/** A label pass that left the run short of its inputs: its `--limit` (it stopped the reading) and/or `--where` (it left some out). */
export interface PartialPass {
  started_at: string;
  limit?: number;
  /** the filter's text */
  where?: string;
  /** trajectories the filter read and left out */
  left_out?: number;
  /** the inputs it read (as given) that no full pass has covered since; absent: not recorded (session 51's build) */
  inputs?: string[];
  /** {@link inputs} as absolute paths, in the same order */
  resolved?: string[];
  /** set on the entry of inputs an older build read without recording how (./partial-passes.ts) */
  history_unknown?: true;
}

export function validSnapshot(d: unknown): d is RunSnapshot {
  return isObj(d) && Array.isArray(d.inputs) && Array.isArray(d.judges) && isObj(d.counts) && isObj(d.stopped_judges) && isObj(d.extra) && typeof d.created_at === "string";
}

/** A run name that cannot be a folder name under the labels folder. */
export class RunNameError extends Error {
  constructor(run: string) {
    super(`invalid run name "${run}": use letters, digits, '.', '_' and '-' (it names a folder under the labels folder)`);
    this.name = "RunNameError";
  }
}

/** @throws RunNameError unless `run` is a plain folder name (no separators, not `.` or `..`). */
export function checkRunName(run: string): void {
  if (!/^[A-Za-z0-9._-]+$/.test(run) || run === "." || run === "..") throw new RunNameError(run);
}

