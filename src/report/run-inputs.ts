/**
 * The run's inputs and costs for the report (`./data.ts` and `./model-columns.ts` both read them this way).
 */
import { killedCostText } from "../run/killed-cost.js";
import { storedUsageImplausible } from "../store/stored-usage.js";
import fs from "node:fs";
import path from "node:path";
import { addCost, emptyCost, type CostTotal } from "../providers/cost.js";
import type { Verdict } from "../types.js";
import { storedBasisOf } from "../run/batch-basis.js";

/**
 * The report's money figures (`ReportModel.costs` of ./data.ts), over every verdict of the run (all repeats): the
 * cost and the tokens it was billed on count the same verdicts (`verdicts`, `repeats`), which the judges table's
 * repeat-0 rates do not (new-user report 31, L1).
 */
export interface RunCosts {
  per_judge: Array<{
    judge_id: string;
    cost: CostTotal;
    /** Verdicts the cost and tokens are over (every repeat), and the repeats they span. */
    verdicts: number;
    repeats: number;
    usage: { prompt_tokens: number; completion_tokens: number };
    temperature_used?: number | null;
    token_param?: string;
    adapted?: string[];
  }>;
  run: CostTotal;
}

/**
 * The run's inputs (from `store.json`; empty when it has none) and its cost, per judge with the request
 * parameters the judge settled on, and in total (`providers/cost.ts`: unknown costs marked, never 0).
 */
export function runInputsAndCosts(runDir: string, verdicts: Iterable<Pick<Verdict, "trajectory_id" | "judge_id" | "cost_usd" | "cost_basis" | "repeat" | "attempts"> & { usage?: Partial<Verdict["usage"]> }>): { inputs: string[]; costs: RunCosts } {
  let inputs: string[] = [];
  let killed: string | undefined;
  let snapJudges: Array<{ id?: string; request_params?: { temperature?: number | null; token_param?: string; adapted?: string[] } }> = [];
  try {
    const snap = JSON.parse(fs.readFileSync(path.join(runDir, "store.json"), "utf8"));
    inputs = snap.inputs ?? [];
    if (Array.isArray(snap.judges)) snapJudges = snap.judges;
    killed = killedCostText(snap.label_state?.killed_before); // a killed label invocation's requests: not recorded (break55 #3)
  } catch {
    /* no snapshot: inputs unknown */
  }
  const runCost = emptyCost();
  // a verdict an older build stored without cost_basis: at the basis the run's Batch API chunks tell (../run/batch-basis.ts)
  const basisOf = storedBasisOf(runDir);
  const judgeCost = new Map<string, { cost: CostTotal; verdicts: number; repeats: number; usage: { prompt_tokens: number; completion_tokens: number } }>();
  for (const v of verdicts) {
    let c = judgeCost.get(v.judge_id);
    if (!c) judgeCost.set(v.judge_id, (c = { cost: emptyCost(), verdicts: 0, repeats: 0, usage: { prompt_tokens: 0, completion_tokens: 0 } }));
    c.verdicts++;
    c.repeats = Math.max(c.repeats, (v.repeat ?? 0) + 1);
    // usage no request could have used: in no token or cost total, as in label's summary (../run/usage-totals.ts)
    if (storedUsageImplausible(v) !== undefined) {
      addCost(c.cost, null, "implausible_usage");
      addCost(runCost, null, "implausible_usage");
      continue;
    }
    const basis = basisOf ? basisOf(v) : v.cost_basis;
    addCost(c.cost, v.cost_usd, basis);
    addCost(runCost, v.cost_usd, basis);
    c.usage.prompt_tokens += v.usage?.prompt_tokens ?? 0;
    c.usage.completion_tokens += v.usage?.completion_tokens ?? 0;
  }
  const costs: RunCosts = {
    per_judge: [...judgeCost].map(([judge_id, c]) => {
      const p = snapJudges.find((j) => j?.id === judge_id)?.request_params;
      return { judge_id, ...c, ...(p ? { temperature_used: p.temperature ?? null, token_param: p.token_param, adapted: p.adapted ?? [] } : {}) };
    }),
    run: runCost.usd !== null && killed ? { ...runCost, lower_bound: killed } : runCost,
  };
  return { inputs, costs };
}

