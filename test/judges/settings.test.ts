/**
 * Issue 27: judge defaults applied in one place (`judgeSettings`, config/judges.ts). The judge's requests, its
 * sender's timeout and the configuration hashed into the resume key (`verdictConfig`) read the same resolved
 * values (llm-judge.ts, providers/sender.ts and judges/verdict-config.ts each applied them before).
 */
import { describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { judgeSettings, JUDGE_DEFAULTS } from "../../src/config/judges.js";
import { verdictConfig } from "../../src/judges/verdict-config.js";

describe("judge defaults in one place", () => {
  it("run-level defaults (retries, minimum quote length) and per-judge ones come from judgeSettings alone", () => {
    const s = judgeSettings({ id: "a", model: "m", family: "openai" }, {});
    expect(s).toMatchObject({
      retries: JUDGE_DEFAULTS.retries,
      min_quote_chars: JUDGE_DEFAULTS.min_quote_chars,
      budget_chars: null,
      timeout_ms: JUDGE_DEFAULTS.timeout_s * 1000,
      config: { temperature: 0, output_mode: "json_schema", concurrency: 4, timeout_s: 120 },
    });
    const j = createOpenAIJudge({ id: "a", model: "m", family: "openai", api_key_env: "K" }, { env: { K: "x" } });
    expect(j.verdictConfig).toMatchObject({ retries: s.retries, min_quote_chars: s.min_quote_chars, budget_chars: null, temperature: 0, output_mode: "json_schema" });
    expect(j.concurrency).toBe(s.config.concurrency);
    // the key's configuration is what the judge runs with, whoever computes it
    expect(verdictConfig({ id: "a", model: "m", family: "openai", api_key_env: "K" }, {})).toEqual(j.verdictConfig);
    const given = judgeSettings({ id: "a", model: "m", family: "openai", timeout_s: 5, temperature: 0.7 }, { retries: 0, minQuoteChars: 20, budgetChars: 9000 });
    expect(given).toMatchObject({ retries: 0, min_quote_chars: 20, budget_chars: 9000, timeout_ms: 5000, config: { temperature: 0.7 } });
  });
});
