// src/judges/: the judges: the judge conversation (prompt, parse, verify, feedback, downgrade) and the LLM judge that
// runs it over a provider; the signature judge (rules, no model); the judges config.
import type { Judge } from "./judge.js";
import { createSignatureJudge } from "./signature/index.js";
import { loadJudgesConfig } from "../config/judges.js";
import { createOpenAIJudge } from "./llm-judge.js";
import { UsageError } from "../errors.js";

export interface ResolvedJudges {
  judges: Judge[];
  common: { retries: number; minQuoteChars: number; budgetChars?: number };
}

/**
 * Build the judges of a label run: the built-in `signature` judge (the default), or the LLM judges of a
 * config file (`--judges FILE`). `signatureTimeLimitS`: the signature judge's time limit per trajectory, seconds
 * (`SignatureJudgeOptions.timeLimitS`; default its own).
 * @throws UsageError for an unknown built-in judge, or a signature time limit given with a config file (it limits
 *   only the signature judge); JudgesConfigError for a bad config file or a missing key.
 */
export async function resolveJudges(o: { judge?: string; judgesFile?: string; dryRun?: boolean; signatureTimeLimitS?: number }): Promise<ResolvedJudges> {
  if (o.judgesFile && o.signatureTimeLimitS !== undefined)
    throw new UsageError("--signature-time-limit applies to the signature judge (--judge signature) only; LLM judges of --judges FILE have timeout_s");
  if (o.judgesFile) {
    // a dry run sends nothing: it needs no API key (unset variables get a placeholder that is never sent)
    const cfg = loadJudgesConfig(o.judgesFile, { checkKeys: !o.dryRun });
    const common = { retries: cfg.retries, minQuoteChars: cfg.min_quote_chars };
    if (o.dryRun) {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const j of cfg.judges)
        for (const v of [j.api_key_env, ...Object.values(j.headers_env ?? {}), ...Object.values(j.query_env ?? {})])
          if (v !== undefined && !env[v]) env[v] = "dry-run-sends-nothing";
      return { judges: cfg.judges.map((j) => createOpenAIJudge(j, { ...common, env })), common };
    }
    return { judges: cfg.judges.map((j) => createOpenAIJudge(j, common)), common };
  }
  const name = o.judge ?? "signature";
  if (name !== "signature") throw new UsageError(`unknown built-in judge "${name}" (available: signature); LLM judges come from --judges FILE`);
  return { judges: [createSignatureJudge({ timeLimitS: o.signatureTimeLimitS })], common: { retries: 0, minQuoteChars: 12 } };
}
