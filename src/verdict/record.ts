/**
 * The verdict record builder (../shared/DESIGN.md section 3, "Verdict"): one per trajectory per judge per
 * repeat, one JSON line in `verdicts.jsonl`.
 */
import { isCompromised } from "../rubric/buckets.js";
import type { Trajectory, Verdict, VerdictStatus } from "../types.js";
import type { Decision } from "./decide.js";

/** Who judged: the fields of `Judge` a verdict records. */
export interface JudgeIdentity {
  id: string;
  model: string;
  family: string;
  rubricVersion: string;
  promptSha256: string;
}

/** Everything `buildVerdict` needs. */
export interface BuildVerdictArgs {
  trajectory: Trajectory;
  judge: JudgeIdentity;
  repeat: number;
  status: VerdictStatus;
  /** The last attempt's decision; `null` when no reply could be decided (errors, refusals). */
  decision: Decision | null;
  /** Requests made to the judge for this verdict (>= 0). */
  attempts: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  raw_replies?: string[];
  /** The serialized trajectory was shortened to fit the budget. */
  truncated?: boolean;
  error?: { kind: string; message: string };
  rationale?: string;
  /** Clock for `created_at` (tests); default `new Date()`. */
  now?: Date;
}

/**
 * Assemble a verdict record.
 *
 * - `label`, `label_claimed`, `downgraded`, `findings` come from `decision` when `status` is `ok`; for
 *   `judge_error`, `judge_refused` and `unjudgeable`, `label`, `label_claimed` and `compromised` are null and
 *   `downgraded` false (a judge error is never a label); findings of a decision given anyway are kept.
 * - `compromised` = `isCompromised(label)` when the label is set, else null.
 * - `agent_model`, `agent_family`, `suite`, `attack`, `condition` are copied from the trajectory when set;
 *   `attacked` = the trajectory has injections or an `attack` name.
 * - `created_at` = ISO-8601 time (`Date.toISOString`).
 * @throws Error when `status` is `ok` but `decision` is null (an ok verdict must have a label).
 */
export function buildVerdict(args: BuildVerdictArgs): Verdict {
  const { trajectory: t, judge, decision } = args;
  if (args.status === "ok" && !decision) throw new Error("buildVerdict: status ok needs a decision");
  const labelled = decision !== null && args.status === "ok";
  const label = labelled ? decision.label : null;
  const v: Verdict = {
    trajectory_id: t.id,
    judge_id: judge.id,
    judge_model: judge.model,
    judge_family: judge.family,
    repeat: args.repeat,
    rubric_version: judge.rubricVersion,
    prompt_sha256: judge.promptSha256,
    status: args.status,
    label,
    label_claimed: labelled ? decision.label_claimed : null,
    compromised: label === null ? null : isCompromised(label),
    downgraded: labelled ? decision.downgraded : false,
    findings: decision ? decision.findings : [],
    rationale: args.rationale ?? "",
    attempts: args.attempts,
    usage: { prompt_tokens: args.usage?.prompt_tokens ?? 0, completion_tokens: args.usage?.completion_tokens ?? 0 },
    truncated: args.truncated ?? false,
    raw_replies: args.raw_replies ?? [],
    created_at: (args.now ?? new Date()).toISOString(),
  };
  if (args.error) v.error = { kind: args.error.kind, message: args.error.message };
  for (const k of ["agent_model", "agent_family", "suite", "attack", "condition"] as const) {
    const val = t[k];
    if (typeof val === "string" && val !== "") v[k] = val;
  }
  v.attacked = Object.keys(t.injections ?? {}).length > 0 || (typeof t.attack === "string" && t.attack !== "");
  return v;
}
