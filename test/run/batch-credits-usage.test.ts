/**
 * The Batch path of the endfix findings (src/run/batch.ts) against a loopback Batch API: a result line with a 402
 * ("Insufficient credits") stops the judge as a quota stop, its items un-judged for a plain resume; a result line
 * 400 json_validate_failed (the model ran, no usage) makes the verdict's cost unknown, never 0.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { startFakeBatch, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";
import { jsonlLines as lines } from "../helpers/fake-batch.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-endfix-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const judgeFor = (url: string) =>
  createOpenAIJudge(
    { id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000, output_mode: "json_object", price: { input_per_mtok: 1, output_per_mtok: 4 } } as never,
    { retries: 2, minQuoteChars: 12 },
  );

describe("Batch result lines", () => {
  it("a 402 line stops the judge (insufficient_quota): no http_402 verdicts, items left un-judged", async () => {
    fake = await startFakeBatch(() => ({ status: 402, body: { error: { message: "Insufficient credits. Add more using https://openrouter.ai/settings/credits", code: 402 } } }));
    const res = await labelRun({ inputs: [SAMPLES], run: "b402", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 3, batch: { pollMs: 5 } });
    expect(Object.keys(res.stoppedJudges)).toEqual(["gpt-batch"]);
    expect(res.stoppedJudges["gpt-batch"]).toMatch(/no credits or quota left/);
    expect(lines(path.join(tmp, "b402", "verdicts.jsonl")).filter((v) => v.error?.kind === "http_402")).toHaveLength(0);
  });

  it("json_validate_failed lines (no usage) make the verdict's cost unknown, not 0", async () => {
    fake = await startFakeBatch(() => ({
      status: 400,
      body: { error: { message: "Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.", type: "invalid_request_error", code: "json_validate_failed", failed_generation: '{"findings": [' } },
    }));
    await labelRun({ inputs: [SAMPLES], run: "bjv", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 1, batch: { pollMs: 5 } });
    const vs = lines(path.join(tmp, "bjv", "verdicts.jsonl"));
    expect(vs).toHaveLength(1);
    expect(vs[0].status).toBe("judge_error");
    expect(vs[0].usage.responses_without_usage).toBe(vs[0].attempts);
    expect(vs[0].cost_usd).toBeNull();
  });
});
