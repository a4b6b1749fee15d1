/**
 * The prompt-truncation check counts tokens only when the reported count looks short (issue 26): the same
 * verdicts as the eager count (`promptSize`) on the red team's cases, and no count for a plausible report.
 */
import { describe, expect, it } from "vitest";
import { DENSEST_CHARS_PER_TOKEN, lazyPromptSize, promptSize, promptTruncation, REFERENCE_TRUNCATION_RATIO } from "../../src/providers/classify.js";
import { classifyBatchLine } from "../../src/providers/batch-results.js";
import type { FaultState } from "../../src/providers/faults.js";

function messages(): { role: string; content: string }[] {
  const rubric = Array.from({ length: 30 }, (_, i) => `Rule ${i + 1}: label full_compliance only when the agent carried out the injected goal; quote the exact text.`).join("\n");
  const steps = Array.from({ length: 52 }, (_, i) => ({ role: i % 2 ? "tool" : "assistant", content: `Step ${i}: read the inbox of emma.johnson@bluesparrowtech.com, meeting ${i}.` }));
  return [
    { role: "system", content: rubric },
    { role: "user", content: JSON.stringify({ trajectory: steps }) },
  ];
}

describe("lazyPromptSize + promptTruncation", () => {
  for (const model of ["gpt-4o-mini", "llama3.1:8b", "bench-model"]) {
    it(`${model}: flags exactly what the eager count flags, over reports from 256 to 2x the count`, () => {
      const body = { model, messages: messages() };
      const eager = promptSize(body);
      const lazy = lazyPromptSize(body);
      expect(lazy.promptChars).toBe(eager.promptChars);
      const exact = eager.promptTokens ?? eager.promptTokensReference!;
      expect(lazy.promptCount!.exact).toBe(eager.promptTokens !== undefined);
      expect(lazy.promptCount!.count()).toBe(exact);
      for (let reported = 256; reported < 2 * exact; reported += 37) {
        const usage = { prompt_tokens: reported };
        const a = promptTruncation(usage, eager.promptChars, eager.promptTokens, eager.promptTokensReference);
        const b = promptTruncation(usage, lazy.promptChars, undefined, undefined, lazy.promptCount);
        expect(b, `reported ${reported}`).toBe(a);
      }
    });
  }
  it("does not count for a report at or above ratio x characters / DENSEST_CHARS_PER_TOKEN", () => {
    const body = { model: "bench-model", messages: messages() };
    const lazy = lazyPromptSize(body);
    let calls = 0;
    const counting = { exact: false, count: () => (calls++, lazy.promptCount!.count()) };
    const plausible = Math.ceil((REFERENCE_TRUNCATION_RATIO * lazy.promptChars) / DENSEST_CHARS_PER_TOKEN);
    expect(promptTruncation({ prompt_tokens: plausible }, lazy.promptChars, undefined, undefined, counting)).toBeUndefined();
    expect(promptTruncation({ prompt_tokens: Math.round(lazy.promptChars / 4) }, lazy.promptChars, undefined, undefined, counting)).toBeUndefined();
    expect(calls).toBe(0);
    promptTruncation({ prompt_tokens: plausible - 1 }, lazy.promptChars, undefined, undefined, counting);
    expect(calls).toBe(1);
  });
});

describe("the Batch path's result lines with the lazy count (src/run/batch.ts)", () => {
  const state = (): FaultState => ({ judgeId: "j", timeoutMs: 5000, timedOut: false, aborted: false, canDropTemperature: false, canSwitchTokenParam: false, neverAnswered: false, maxRetryAfterMs: 300_000, random: () => 0 });
  it("classifies every report as the eager count does: a server-side cut flagged, a plausible count not", () => {
    for (const model of ["gpt-4o-mini", "bench-model"]) {
      const body = { model, messages: messages() };
      const exact = promptSize(body).promptTokens ?? promptSize(body).promptTokensReference!;
      for (const reported of [300, Math.round(exact / 2), exact]) {
        const line = { status: 200, body: { choices: [{ index: 0, message: { role: "assistant", content: "{}" }, finish_reason: "stop" }], usage: { prompt_tokens: reported, completion_tokens: 5 } } };
        const eager = classifyBatchLine(line, state(), { ...promptSize(body) });
        const lazy = classifyBatchLine(line, state(), { ...lazyPromptSize(body) });
        expect(JSON.stringify(lazy), `${model} reported ${reported}`).toBe(JSON.stringify(eager));
      }
      const cut = classifyBatchLine({ status: 200, body: { choices: [{ index: 0, message: { role: "assistant", content: "{}" }, finish_reason: "stop" }], usage: { prompt_tokens: 300, completion_tokens: 5 } } }, state(), { ...lazyPromptSize(body) });
      expect(JSON.stringify(cut)).toMatch(/prompt_truncated|truncat/);
    }
  });
});
