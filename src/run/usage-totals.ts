/**
 * One verdict into its judge's token and cost totals and the run's cost total (`./summary.ts`), leaving out usage no
 * request could have used (`storedUsageImplausible`, `../providers/plausible-usage.ts`): its tokens are in no token
 * total and its cost is unknown (`cost.implausible`), counted in `usage.left_out` so the summary warns naming the judge
 * and the count. The verdict itself keeps its raw usage.
 */
import { addCost, type CostTotal, type StoredBasis } from "../providers/cost.js";
import { storedUsageImplausible } from "../store/stored-usage.js";
import type { Verdict } from "../types.js";

/** Verdicts whose usage is left out of the token totals, with their tokens as reported and one example. */
export interface UsageLeftOut {
  verdicts: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** The first such verdict's trajectory and why. */
  example: { trajectory_id: string; why: string };
}

/** A judge's token totals (`JudgeSummary.usage`). */
export interface UsageTotals {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  responses_without_usage: number;
  verdicts_without_cached_figure: number;
  /** Verdicts with implausible usage, left out of the figures above (absent when none). */
  left_out?: UsageLeftOut;
}

/** A finite number or 0 (for the tokens of a verdict left out, summed as reported where they are numbers). */
const num = (x: unknown): number => (typeof x === "number" && Number.isFinite(x) ? x : 0);

/**
 * Add one verdict's usage to `usage` and its cost to `judgeCost` and `runCost`, in place (module docstring).
 * @param basis the basis its cost is at (`./batch-basis.ts`: one without `cost_basis` found in a Batch API chunk);
 *   default its `cost_basis`.
 */
export function addVerdictUsage(
  usage: UsageTotals,
  judgeCost: CostTotal,
  runCost: CostTotal,
  v: Pick<Verdict, "trajectory_id" | "usage" | "cost_usd" | "cost_basis" | "attempts">,
  basis: StoredBasis | undefined = v.cost_basis,
): void {
  const why = storedUsageImplausible(v);
  if (why !== undefined) {
    const l = (usage.left_out ??= { verdicts: 0, prompt_tokens: 0, completion_tokens: 0, example: { trajectory_id: v.trajectory_id, why } });
    l.verdicts++;
    l.prompt_tokens += num(v.usage?.prompt_tokens);
    l.completion_tokens += num(v.usage?.completion_tokens);
    addCost(judgeCost, null, "implausible_usage");
    addCost(runCost, null, "implausible_usage");
    return;
  }
  usage.prompt_tokens += v.usage?.prompt_tokens ?? 0;
  usage.completion_tokens += v.usage?.completion_tokens ?? 0;
  usage.cached_tokens += v.usage?.cached_tokens ?? 0;
  if ((v.usage?.prompt_tokens ?? 0) > 0 && v.usage?.cached_tokens === undefined) usage.verdicts_without_cached_figure++;
  usage.reasoning_tokens += v.usage?.reasoning_tokens ?? 0;
  usage.responses_without_usage += v.usage?.responses_without_usage ?? 0;
  addCost(judgeCost, v.cost_usd, basis);
  addCost(runCost, v.cost_usd, basis);
}

/** The summary's warning for a judge whose verdicts' usage was left out of its totals, or undefined when none. */
export function leftOutWarning(judgeId: string, usage: UsageTotals): string | undefined {
  const l = usage.left_out;
  if (!l) return undefined;
  return (
    `judge "${judgeId}": ${l.verdicts} verdict(s) report implausible token counts (${l.prompt_tokens} prompt, ${l.completion_tokens} completion tokens as reported; ` +
    `e.g. trajectory ${l.example.trajectory_id}: ${l.example.why}): left out of its token and cost totals (cost unknown), kept as reported on each verdict in verdicts.jsonl`
  );
}
