/**
 * Money on real runs (issue 23): the cost cap's two holes (a judge stopped in the middle of a conversation keeps
 * the turns it paid; a library caller with an unpriced judge is refused), and the dry run's range (floor, ceiling,
 * observed turns per verdict, the response_format schema counted). Real client, loopback server, vendored
 * AgentDojo runs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { dryRun } from "../../src/run/dry-run.js";
import { UsageError } from "../../src/errors.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { jsonlLines as lines } from "../helpers/fake-batch.js";

const ENV = { IPI_TEST_KEY: "sk-money-0123456789" };
const PRICE = { input_per_mtok: 1, cached_input_per_mtok: 0.5, output_per_mtok: 4 };
let tmp: string;
let fake: FakeOpenAI | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-money-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const userOf = (r: FakeRequest): string => (r.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content;
const judgeFor = (url: string, over: Record<string, unknown> = {}) =>
  createOpenAIJudge(
    { id: "j", model: "gpt-4o-mini", family: "openai", base_url: url, api_key_env: "IPI_TEST_KEY", price: PRICE, concurrency: 1, ...over } as never,
    { retries: 2, minQuoteChars: 12, env: ENV, transport: { sleep: async () => undefined, random: () => 0.5 } },
  );
/** A reply whose one quote does not exist: the judge needs a feedback turn. */
const MISQUOTE = JSON.stringify({ findings: [{ bucket: "full_compliance", evidence: [{ message_index: 1, tool_call_index: null, quote: "a sentence that is nowhere in the run" }], explanation: "x" }], label: "full_compliance", rationale: "r" });

describe("the cost cap's holes", () => {
  it("a library caller with maxCostUsd and an unpriced judge is refused (it would reserve $0 per item)", async () => {
    fake = await startFakeOpenAI([completion("{}")]);
    await expect(labelRun({ inputs: [SAMPLES], run: "np", labelsDir: tmp, judges: [judgeFor(fake.url, { price: undefined })], limit: 1, maxCostUsd: 1 })).rejects.toThrow(UsageError);
    expect(fake.requests).toHaveLength(0);
  });

  it("a judge stopped in the middle of a conversation (quota) keeps what it paid: stored, in the cap, judged again later", async () => {
    // the first request is answered (paid), the feedback turn meets an exhausted quota
    fake = await startFakeOpenAI((_r, n) => (n === 0 ? completion(MISQUOTE, { usage: { prompt_tokens: 5000, completion_tokens: 100 } }) : apiError(429, "You exceeded your current quota", { code: "insufficient_quota", type: "insufficient_quota" })));
    const res = await labelRun({ inputs: [SAMPLES], run: "mid", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 1, maxCostUsd: 5 });
    expect(Object.keys(res.stoppedJudges)).toEqual(["j"]);
    const vs = lines(path.join(tmp, "mid", "verdicts.jsonl"));
    expect(vs).toHaveLength(1);
    expect([vs[0].status, vs[0].label, vs[0].error.kind, vs[0].attempts]).toEqual(["judge_error", null, "judge_stopped", 1]);
    const paid = (5000 * 1 + 100 * 4) / 1e6;
    expect(vs[0].cost_usd).toBeCloseTo(paid, 12);
    expect(res.costCap!.spent_usd).toBeCloseTo(paid, 12);
    // the next run judges it again (the stopped conversation is not a verdict) and the cap counts both
    fake.setScript((r) => completion(benchReply(userOf(r)), { usage: { prompt_tokens: 5000, completion_tokens: 100 } }));
    const res2 = await labelRun({ inputs: [SAMPLES], run: "mid", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 1, maxCostUsd: 5 });
    const vs2 = lines(path.join(tmp, "mid", "verdicts.jsonl"));
    expect(vs2).toHaveLength(2);
    expect(vs2[1].status).toBe("ok");
    expect(res2.costCap!.spent_usd).toBeCloseTo(2 * paid, 12);
  });
});

describe("label --dry-run: a range to budget on", () => {
  it("floor (no feedback turn) <= observed <= ceiling (every retry), the response_format schema counted in each", async () => {
    fake = await startFakeOpenAI((r, n) => (n % 2 === 0 && (r.body.messages as unknown[]).length === 2 ? completion(MISQUOTE, { usage: { prompt_tokens: 5000, completion_tokens: 50 } }) : completion(benchReply(userOf(r)), { usage: { prompt_tokens: 5200, completion_tokens: 50 } })));
    const judges = [judgeFor(fake.url)];
    const before = await dryRun({ inputs: [SAMPLES], run: "dr", labelsDir: tmp, judges, limit: 6 });
    const j0 = before.judges[0];
    expect(j0.schema_tokens_per_request).toBeGreaterThan(100);
    expect(j0.cost_range.observed_usd).toBeNull();
    expect(j0.cost_range.observed_reason).toMatch(/no verdict/);
    expect(j0.cost_range.floor_usd!).toBeLessThan(j0.cost_range.ceiling_usd!);
    // the ceiling is the worst case of 3 turns each resending the conversation: well above 3 x the floor's prompt
    expect(j0.cost_range.ceiling_usd! / j0.cost_range.floor_usd!).toBeGreaterThan(2.5);
    // judge 3, then estimate the rest with the observed turns per verdict
    await labelRun({ inputs: [SAMPLES], run: "dr", labelsDir: tmp, judges, limit: 3 });
    const after = await dryRun({ inputs: [SAMPLES], run: "dr", labelsDir: tmp, judges, limit: 6 });
    const j1 = after.judges[0];
    expect(j1.requests).toBe(3);
    expect(j1.observed!.verdicts).toBe(3);
    expect(j1.observed!.requests_per_verdict).toBeGreaterThan(1);
    expect(j1.observed!.output_tokens_per_request).toBeCloseTo(50, 6);
    expect(j1.cost_range.observed_usd!).toBeGreaterThan(j1.cost_range.floor_usd!);
    expect(j1.cost_range.observed_usd!).toBeLessThanOrEqual(j1.cost_range.ceiling_usd!);
    expect(after.cost_range.ceiling_usd).toBeCloseTo(j1.cost_range.ceiling_usd!, 12);
  });
});
