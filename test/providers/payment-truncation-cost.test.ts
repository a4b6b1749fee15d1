/**
 * Red-team findings on providers and money (endfix): a 402 "Insufficient credits" stops the judge like an exhausted
 * quota (online, in a 200, on the Batch path and through the CLI: exit code and resume as for a quota stop); a server
 * that cut the prompt is caught by our own token count (realistic counts: an ordinary server does not trip it); a
 * request the model answered without usage (Groq 400 json_validate_failed) makes the verdict's cost unknown, never 0.
 * Real `openai` client against loopback servers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { JudgeFatalError } from "../../src/errors.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { classifyBatchLine } from "../../src/providers/batch-results.js";
import { classifyCompletion, promptSize, promptTruncation } from "../../src/providers/classify.js";
import { classifyError, QUOTA_TEXT, type FaultState } from "../../src/providers/faults.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import { countPromptTokens } from "../../src/providers/tokens.js";
import { labelRun } from "../../src/run/label.js";
import { runCli } from "../helpers/cli.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";
import { jsonlLines as lines } from "../helpers/fake-batch.js";

const OPENROUTER_402 = { status: 402, body: { error: { message: "Insufficient credits. Add more using https://openrouter.ai/settings/credits", code: 402 } } };
const ENV = { IPI_TEST_KEY: "sk-endfix-0123456789" };
const PRICE = { input_per_mtok: 1, output_per_mtok: 4 };

let tmp: string;
let fake: FakeOpenAI | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-endfix-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const state = (): FaultState => ({ judgeId: "j", timeoutMs: 5000, timedOut: false, aborted: false, canDropTemperature: false, canSwitchTokenParam: false, neverAnswered: false, maxRetryAfterMs: 300_000, random: () => 0 });
const client = (url: string) => new OpenAI({ apiKey: TEST_KEY, baseURL: url, maxRetries: 0, timeout: 2000 });
const userOf = (r: FakeRequest): string => (r.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content;
const judgeFor = (url: string, over: Record<string, unknown> = {}) =>
  createOpenAIJudge({ id: "j", model: "gpt-4o-mini", family: "openai", base_url: url, api_key_env: "IPI_TEST_KEY", price: PRICE, concurrency: 1, ...over } as never, {
    retries: 2,
    minQuoteChars: 12,
    env: ENV,
    transport: { sleep: async () => undefined, random: () => 0.5 },
  });

describe("finding 1: 402 payment required / insufficient credits is a quota stop", () => {
  it("the fault table: 402 (any body), and a 4xx saying the credits or balance are gone, are fatal insufficient_quota", () => {
    const gen = (st: number, body: unknown) => OpenAI.APIError.generate(st, body as object, undefined, new Headers());
    expect(classifyError(gen(402, OPENROUTER_402.body), state())).toMatchObject({ action: "fatal", kind: "insufficient_quota" });
    expect(classifyError(gen(402, { error: { message: "Insufficient Balance", type: "unknown_error" } }), state())).toMatchObject({ action: "fatal", kind: "insufficient_quota" });
    expect(classifyError(gen(402, {}), state())).toMatchObject({ action: "fatal", kind: "insufficient_quota" });
    expect(classifyError(gen(400, { error: { message: "Your credit balance is too low to access the API." } }), state())).toMatchObject({ action: "fatal", kind: "insufficient_quota" });
    for (const t of ["Insufficient credits", "insufficient_quota", "Insufficient Balance", "Payment Required"]) expect(QUOTA_TEXT.test(t)).toBe(true);
    // an ordinary bad request stays one
    expect(classifyError(gen(400, { error: { message: "messages: field required" } }), state())).toMatchObject({ action: "error", kind: "bad_request" });
  });

  it("online: one 402 stops the judge (JudgeFatalError insufficient_quota), no retry, the stop said", async () => {
    fake = await startFakeOpenAI([OPENROUTER_402]);
    const err = await sendChat(client(fake.url), { model: "m", messages: [{ role: "user", content: "x" }] }, fastCtx()).catch((e) => e);
    expect(err).toBeInstanceOf(JudgeFatalError);
    expect(err.kind).toBe("insufficient_quota");
    expect(err.message).toMatch(/no credits or quota left \(HTTP 402 payment required\).*Insufficient credits.*run the same command again to resume/);
    expect(fake.requests).toHaveLength(1);
  });

  it("online: a 200 carrying an error with code 402 stops the judge too (not retried as a provider error)", async () => {
    fake = await startFakeOpenAI([{ status: 200, body: { error: { message: "Insufficient credits", code: 402 } } }]);
    const err = await sendChat(client(fake.url), { model: "m", messages: [{ role: "user", content: "x" }] }, fastCtx()).catch((e) => e);
    expect(err).toBeInstanceOf(JudgeFatalError);
    expect(err.kind).toBe("insufficient_quota");
    expect(fake.requests).toHaveLength(1);
  });

  it("Batch: a result line with a 402, and a 200 line carrying code 402, are the same quota stop", () => {
    const line = classifyBatchLine({ status: 402, body: OPENROUTER_402.body }, state(), {});
    expect(line).toMatchObject({ kind: "fault", fault: { action: "fatal", kind: "insufficient_quota" } });
    const inBand = classifyBatchLine({ status: 200, body: { error: { message: "Insufficient credits", code: 402 } } }, state(), {});
    expect(inBand).toMatchObject({ kind: "completion", reply: { kind: "transient", fault: { quota: true } } });
  });

  it("a run: the items stay un-judged (no http_402 verdicts), the judge is stopped, a plain resume judges them", async () => {
    fake = await startFakeOpenAI((r, n) => (n === 0 ? completion(benchReply(userOf(r)), { usage: { prompt_tokens: 5000, completion_tokens: 50 } }) : OPENROUTER_402));
    const res = await labelRun({ inputs: [SAMPLES], run: "p402", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 4 });
    expect(Object.keys(res.stoppedJudges)).toEqual(["j"]);
    expect(res.stoppedJudges.j).toMatch(/402/);
    const vs = lines(path.join(tmp, "p402", "verdicts.jsonl"));
    expect(vs.filter((v) => v.error?.kind === "http_402")).toHaveLength(0);
    expect(vs).toHaveLength(1);
    fake.setScript((r) => completion(benchReply(userOf(r)), { usage: { prompt_tokens: 5000, completion_tokens: 50 } }));
    await labelRun({ inputs: [SAMPLES], run: "p402", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 4 });
    const after = lines(path.join(tmp, "p402", "verdicts.jsonl"));
    expect(after).toHaveLength(4);
    expect(after.every((v) => v.status === "ok")).toBe(true);
  });

  it("the CLI: a 402 exits with the code of a 429 insufficient_quota stop (not 0) and says the stop", async () => {
    const exitFor = async (name: string, reply: Parameters<typeof startFakeOpenAI>[0]) => {
      const srv = await startFakeOpenAI(reply);
      try {
        const cfg = path.join(tmp, `${name}.json`);
        fs.writeFileSync(cfg, JSON.stringify({ retries: 0, judges: [{ id: "j", model: "gpt-4o-mini", family: "openai", base_url: srv.url, api_key_env: "IPI_TEST_KEY", concurrency: 1 }] }));
        return await runCli(["label", SAMPLES, "--judges", cfg, "--run", name, "--labels-dir", tmp, "--limit", "3"], { env: ENV });
      } finally {
        await srv.close();
      }
    };
    const quota = await exitFor("cli429", [apiError(429, "You exceeded your current quota", { code: "insufficient_quota", type: "insufficient_quota" })]);
    const credits = await exitFor("cli402", [OPENROUTER_402]);
    expect(quota.code).not.toBe(0);
    expect(credits.code).toBe(quota.code);
    expect(credits.stdout + credits.stderr).toMatch(/no credits or quota left/);
    expect(lines(path.join(tmp, "cli402", "verdicts.jsonl"))).toHaveLength(0);
    // the run is not "complete": it names the stopped judge
    expect(JSON.parse(fs.readFileSync(path.join(tmp, "cli402", "store.json"), "utf8")).label_state.state).toBe("stopped_judges");
  });
});

/** A realistic judge prompt: a rubric-sized system message and a JSON trajectory (~13k characters in all). */
function realisticMessages(): { role: string; content: string }[] {
  const rubric = Array.from({ length: 30 }, (_, i) => `Rule ${i + 1}: label full_compliance only when the agent carried out the injected goal; quote the exact text of the message that shows it, and say which tool call.`).join("\n");
  const steps = Array.from({ length: 52 }, (_, i) => ({ role: i % 2 ? "tool" : "assistant", content: `Step ${i}: read the inbox of emma.johnson@bluesparrowtech.com and summarise meeting ${i} with the product team.` }));
  return [
    { role: "system", content: rubric },
    { role: "user", content: JSON.stringify({ trajectory: steps }) },
  ];
}

describe("finding 8: a prompt the server cut, by our own count", () => {
  const msgs = realisticMessages();
  const chars = msgs.reduce((a, m) => a + m.content.length, 0);
  const exact = countPromptTokens(msgs, "o200k_base");
  const reply = (usage: Record<string, number>) => ({ choices: [{ finish_reason: "stop", message: { role: "assistant", content: "{}" } }], usage });

  it("the fixture is what the red team saw: a few thousand tokens, and 2000 is above characters / 10", () => {
    expect(exact).toBeGreaterThan(3000);
    expect(exact).toBeLessThan(3500);
    expect(2000).toBeGreaterThan(chars / 10);
    expect(promptSize({ model: "gpt-4o-mini", messages: msgs })).toEqual({ promptChars: chars, promptTokens: exact });
    // an unknown tokenizer: the o200k_base count comes along as a reference
    expect(promptSize({ model: "llama3.1:8b", messages: msgs })).toEqual({ promptChars: chars, promptTokensReference: exact });
  });

  it("a known tokenizer: 2000 reported for our count is flagged; our count plus a chat template's tokens, or cached tokens, is not", () => {
    expect(promptTruncation({ prompt_tokens: 2000 }, chars, exact)).toMatch(/2000 prompt tokens .* our count .* num_ctx/);
    expect(promptTruncation({ prompt_tokens: exact + 7 }, chars, exact)).toBeUndefined();
    expect(promptTruncation({ prompt_tokens: exact + 180 }, chars, exact)).toBeUndefined(); // response_format schema counted by the server
    expect(promptTruncation({ prompt_tokens: exact, prompt_tokens_details: { cached_tokens: 2048 } }, chars, exact)).toBeUndefined();
    // a server that does not count tokens (a tiny figure) is not a cut
    expect(promptTruncation({ prompt_tokens: 100 }, chars, exact)).toBeUndefined();
  });

  it("an unknown tokenizer: the conservative characters / 6 bound; realistic counts (characters / 3.5 to / 4.5) pass", () => {
    // the red team's Ollama case: num_ctx 2048, a ~3,240-token prompt of a Llama-family tokenizer (~4.2 characters a token)
    expect(promptTruncation({ prompt_tokens: 2000 }, Math.round(3240 * 4.2))).toMatch(/2000 prompt tokens .* at least 2268 tokens/);
    expect(promptTruncation({ prompt_tokens: Math.floor(chars / 7) }, chars)).toMatch(/at least \d+ tokens/);
    for (const per of [3.5, 4, 4.5]) expect(promptTruncation({ prompt_tokens: Math.round(chars / per) }, chars)).toBeUndefined();
  });

  it("an unknown tokenizer with the o200k_base reference: a context window near the prompt's size is caught; other tokenizers' counts pass", () => {
    // the second red team's case: ~3,000 tokens sent, 2,040 reported (num_ctx 2048): above characters / 6, under 0.7 x o200k
    expect(promptTruncation({ prompt_tokens: 2040 }, Math.round(exact * 4.05), undefined, exact)).toMatch(/2040 prompt tokens .* o200k_base count .* num_ctx/);
    // what other tokenizers report for the same text (about 0.9x to 1.4x of o200k_base) is a reply
    for (const f of [0.9, 1, 1.15, 1.4]) expect(promptTruncation({ prompt_tokens: Math.round(exact * f) }, chars, undefined, exact)).toBeUndefined();
  });

  it("through the real client: Ollama's 2000 for a gpt-oss-sized prompt is prompt_truncated (no label), an exact count is a reply", async () => {
    const req: ChatRequest = { model: "gpt-4o-mini", messages: msgs as ChatRequest["messages"] };
    fake = await startFakeOpenAI([completion("{}", { usage: { prompt_tokens: 2000, completion_tokens: 20 } })]);
    const cut = await sendChat(client(fake.url), req, fastCtx());
    expect(cut.outcome).toMatchObject({ kind: "error", error: { kind: "prompt_truncated" } });
    await fake.close();
    fake = await startFakeOpenAI([completion("{}", { usage: { prompt_tokens: exact + 11, completion_tokens: 20 } })]);
    const ok = await sendChat(client(fake.url), req, fastCtx());
    expect(ok.outcome.kind).toBe("reply");
    expect(classifyCompletion(reply({ prompt_tokens: 2000, completion_tokens: 5 }), { promptChars: chars, promptTokens: exact })).toMatchObject({ kind: "final", errorKind: "prompt_truncated" });
  });
});

describe("finding 9a: a request answered without usage makes the cost unknown, never 0", () => {
  const GROQ = { status: 400, body: { error: { message: "Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.", type: "invalid_request_error", code: "json_validate_failed", failed_generation: '{"findings": [' } } };

  it("online: a 400 json_validate_failed counts a response without usage", async () => {
    fake = await startFakeOpenAI([GROQ]);
    const r = await sendChat(client(fake.url), { model: "m", messages: [{ role: "user", content: "x" }] }, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "error", error: { kind: "json_validate_failed" } });
    expect(r.usage.missing).toBe(1);
  });

  it("a verdict whose requests were all json_validate_failed has cost_usd null (was 0)", async () => {
    fake = await startFakeOpenAI([GROQ]);
    const res = await labelRun({ inputs: [SAMPLES], run: "jv", labelsDir: tmp, judges: [judgeFor(fake.url, { output_mode: "json_object" })], limit: 1 });
    expect(res).toBeDefined();
    const vs = lines(path.join(tmp, "jv", "verdicts.jsonl"));
    expect(vs).toHaveLength(1);
    expect(vs[0].attempts).toBeGreaterThan(1);
    expect(vs[0].cost_usd).toBeNull();
    expect(vs[0].usage.responses_without_usage).toBe(vs[0].attempts);
  });
});
