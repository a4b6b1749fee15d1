/**
 * A batch's `request_counts` as the provider reports them, checked before anything reads them (task s41 #4): the
 * progress line printed them as given (`completed 21/20, -1 failed`, a figure that read as real), and the result
 * download took a `completed` of 1.5 or "21" as it came. A count is a non-negative integer; `total`, once counted
 * (OpenAI reports 0 while validating), is the number of requests sent in the batch; `completed` and `failed`
 * together are at most that number. A field that fails is not known (`null` in the progress, `?` on the line) and
 * said once per batch and field, naming the judge, the batch and the field (`BatchRunner`). A `completed` that fails
 * is `implausible`: the download (`./batch-download.ts`) cannot tell from it which requests ran, so a request without
 * a result line is stored as lost (judge_error batch_result_missing, cost unknown, `--retry-errors` judges it again),
 * never sent again on the word of counts that cannot be true (a request the provider ran is billed: twice paid).
 */
import type { RequestCounts } from "./batch-download.js";

const FIELDS = ["total", "completed", "failed"] as const;
const isCount = (x: unknown): x is number => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;

/** {@link checkRequestCounts}' answer: the counts known, and what was wrong with the others. */
export interface CheckedCounts {
  /** Each field the provider gave that holds (absent: not given, or not plausible). */
  counts: RequestCounts;
  /** One sentence per field that does not hold, naming it, e.g. `request_counts.failed is -1, not a count of requests`. */
  problems: string[];
}

/**
 * Check a polled batch's `request_counts` (module docstring).
 * @param raw the field as the provider sent it (any JSON, or absent).
 * @param sent the requests sent in the batch (its request file's lines).
 */
export function checkRequestCounts(raw: unknown, sent: number): CheckedCounts {
  const counts: RequestCounts = {};
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { counts, problems };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    problems.push(`request_counts is ${JSON.stringify(raw)}, not an object of counts`);
    return { counts: { implausible: problems[0] }, problems };
  }
  const r = raw as Record<string, unknown>;
  for (const f of FIELDS) {
    if (r[f] === undefined) continue;
    if (isCount(r[f])) counts[f] = r[f] as number;
    else problems.push(`request_counts.${f} is ${JSON.stringify(r[f]) ?? String(r[f])}, not a count of requests`);
  }
  if (counts.total !== undefined && counts.total > 0 && counts.total !== sent) {
    problems.push(`request_counts.total is ${counts.total}, not the ${sent} request(s) sent in this batch`);
    delete counts.total;
  }
  const done = (counts.completed ?? 0) + (counts.failed ?? 0);
  if (done > sent) {
    problems.push(`request_counts.completed ${counts.completed ?? "?"} and failed ${counts.failed ?? "?"} add up to more than the ${sent} request(s) sent in this batch`);
    delete counts.completed;
    delete counts.failed;
  }
  const completedBad = r.completed !== undefined && counts.completed === undefined;
  if (completedBad) counts.implausible = problems.join("; ");
  return { counts, problems };
}
