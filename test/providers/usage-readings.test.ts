/**
 * How one response's `usage` is read when it is not a plain count (red team 37b F2, F3): 0 completion tokens beside
 * a non-empty reply is no count (a response without usage, cost unknown, a note), a fractional count is rounded up
 * and said, and cache figures over `prompt_tokens` follow one rule in both dialects (OpenAI `cached_tokens`, DeepSeek
 * hits + misses): the largest consistent reading, never the cheapest. Unit checks of `readUsage`, then through the
 * real `openai` client against the scripted loopback server, and a judge's verdict with its cost and notes.
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { readTrajectories } from "../../src/ingest/index.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { tokensCost } from "../../src/providers/cost.js";
import { limitedFetch } from "../../src/providers/fetch.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import { cacheReading, readUsage } from "../../src/providers/usage.js";
import type { Trajectory } from "../../src/types.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const REQ: ChatRequest = { model: "fake-model", messages: [{ role: "user", content: "trajectory" }], temperature: 0 };
const PRICE = { input_per_mtok: 1, cached_input_per_mtok: 0.5, output_per_mtok: 10 };

async function sent(usage: Record<string, unknown>, content = "a reply of some length") {
  const c = completion(content);
  (c.body as { usage: unknown }).usage = usage;
  fake = await startFakeOpenAI([c]);
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.url, maxRetries: 0, fetch: limitedFetch() });
  return sendChat(client, REQ, fastCtx());
}

describe("F2: completion counts that are not counts", () => {
  it("0 completion tokens beside a non-empty reply: a response without usage (figures kept), as 0 prompt tokens", async () => {
    const r = await sent({ prompt_tokens: 3106, completion_tokens: 0, total_tokens: 3106 });
    expect(r.outcome).toMatchObject({ kind: "reply" });
    expect(r.usage).toEqual({ prompt_tokens: 3106, completion_tokens: 0, missing: 1, zero_completion: 1 });
  });

  it("0 completion tokens with no reply text is taken (an empty reply may be 0 tokens)", () => {
    expect(readUsage({ prompt_tokens: 50, completion_tokens: 0 }, { replyChars: 0 })).toEqual({ prompt_tokens: 50, completion_tokens: 0 });
    expect(readUsage({ prompt_tokens: 50, completion_tokens: 0 })).toEqual({ prompt_tokens: 50, completion_tokens: 0 });
  });

  it("a fractional count is rounded up (never under-billed) and counted in `fractional`", async () => {
    const r = await sent({ prompt_tokens: 3106, completion_tokens: 100.7, total_tokens: 3206.7 });
    expect(r.usage).toEqual({ prompt_tokens: 3106, completion_tokens: 101, fractional: 1 });
    expect(readUsage({ prompt_tokens: 10.2, completion_tokens: 3 })).toEqual({ prompt_tokens: 11, completion_tokens: 3, fractional: 1 });
  });
});

describe("F3: cache figures over prompt_tokens, one rule for both dialects", () => {
  it("cacheReading: the larger total, max(prompt, misses) uncached, only the rest cached; undefined when they fit", () => {
    expect(cacheReading(3106, 31060, undefined, undefined)).toEqual({ prompt: 31060, cached: 27954 });
    expect(cacheReading(3106, 15530, 15530, 0)).toEqual({ prompt: 15530, cached: 12424 });
    expect(cacheReading(1000, 900, 900, 200)).toEqual({ prompt: 1100, cached: 100 });
    expect(cacheReading(1000, 900, 900, 100)).toBeUndefined();
    expect(cacheReading(1000, 1000, undefined, undefined)).toBeUndefined();
  });

  it("the reading costs at least either plain reading at any cached price up to the input price", () => {
    for (const [pt, hit, miss] of [
      [3106, 31060, undefined],
      [3106, 15530, 0],
      [1000, 900, 200],
      [1000, 1500, 10],
    ] as [number, number, number | undefined][]) {
      const r = cacheReading(pt, hit, hit, miss)!;
      for (const cachedPrice of [0, 0.1, 0.5, 1]) {
        const p = { input_per_mtok: 1, cached_input_per_mtok: cachedPrice, output_per_mtok: 10 };
        const read = tokensCost(r.prompt, r.cached, 0, p);
        expect(read).toBeGreaterThanOrEqual(tokensCost(pt, 0, 0, p) - 1e-12); // prompt_tokens, all uncached
        expect(read).toBeGreaterThanOrEqual(tokensCost(hit + (miss ?? 0), hit, 0, p) - 1e-12); // the cache figures as they are
      }
    }
  });

  it("OpenAI cached_tokens 10x prompt_tokens: no longer every prompt token at the cached price", async () => {
    const r = await sent({ prompt_tokens: 3106, completion_tokens: 100, total_tokens: 3206, prompt_tokens_details: { cached_tokens: 31060 } });
    expect(r.usage).toEqual({ prompt_tokens: 31060, completion_tokens: 100, cached_tokens: 27954, inconsistent: 1 });
    // by hand: 3,106 uncached at $1 + 27,954 cached at $0.5 + 100 out at $10 per Mtok = $0.018083 (was $0.002553)
    expect(tokensCost(31060, 27954, 100, PRICE)).toBeCloseTo(0.018083, 9);
  });

  it("DeepSeek hits 5x prompt_tokens: the same rule (was the prompt raised to the hits, all cached)", async () => {
    const r = await sent({ prompt_tokens: 3106, completion_tokens: 100, total_tokens: 3206, prompt_cache_hit_tokens: 15530, prompt_cache_miss_tokens: 0 });
    expect(r.usage).toEqual({ prompt_tokens: 15530, completion_tokens: 100, cached_tokens: 12424, inconsistent: 1 });
    // by hand: 3,106 at $1 + 12,424 at $0.5 + 100 at $10 per Mtok = $0.010318
    expect(tokensCost(15530, 12424, 100, PRICE)).toBeCloseTo(0.010318, 9);
  });

  it("consistent figures are read as before", () => {
    expect(readUsage({ prompt_tokens: 3106, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 3006 } })).toEqual({ prompt_tokens: 3106, completion_tokens: 100, cached_tokens: 3006 });
    expect(readUsage({ prompt_tokens: 3106, completion_tokens: 100, prompt_cache_hit_tokens: 3006, prompt_cache_miss_tokens: 100 })).toEqual({
      prompt_tokens: 3106,
      completion_tokens: 100,
      cached_tokens: 3006,
    });
  });
});

describe("through createOpenAIJudge: the verdict says it", () => {
  async function firstSample(): Promise<Trajectory> {
    for await (const it of readTrajectories([SAMPLES], {})) if (it.kind === "trajectory") return it.trajectory;
    throw new Error("no sample");
  }
  async function judged(usage: Record<string, unknown>) {
    fake = await startFakeOpenAI(() => {
      const c = completion(JSON.stringify({ label: "not_exposed", rationale: "x", findings: [{ bucket: "not_exposed", evidence: [], explanation: "x" }] }));
      (c.body as { usage: unknown }).usage = usage;
      return c;
    });
    const j = createOpenAIJudge(
      { id: "j", model: "fake-model", family: "openai", base_url: fake.url, api_key_env: "IPI_T_KEY", price: PRICE },
      { retries: 2, minQuoteChars: 12, env: { IPI_T_KEY: TEST_KEY }, transport: { sleep: async () => {} } },
    );
    return j.judge(await firstSample(), { repeat: 0 });
  }

  it("0 completion tokens: cost_usd null with a provider note; tokens kept as reported", async () => {
    const v = await judged({ prompt_tokens: 3106, completion_tokens: 0, total_tokens: 3106 });
    expect(v).toMatchObject({ cost_usd: null, usage: { prompt_tokens: 3106, completion_tokens: 0, responses_without_usage: 1 } });
    expect(v.provider_notes?.join(" ")).toMatch(/reported 0 completion tokens beside a non-empty reply/);
  });

  it("a fractional count: rounded up, priced, and noted", async () => {
    const v = await judged({ prompt_tokens: 3106, completion_tokens: 100.7 });
    expect(v.usage).toMatchObject({ prompt_tokens: 3106, completion_tokens: 101 });
    expect(v.cost_usd).toBeCloseTo((3106 + 1010) / 1e6, 9);
    expect(v.provider_notes?.join(" ")).toMatch(/not a whole number: counted rounded up/);
  });

  it("cached over prompt: the largest consistent reading, and the note says which", async () => {
    const v = await judged({ prompt_tokens: 3106, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 31060 } });
    expect(v.cost_usd).toBeCloseTo(0.018083, 9);
    expect(v.provider_notes?.join(" ")).toMatch(/largest consistent reading \(the larger prompt total, only the tokens beyond prompt_tokens at the cached price/);
  });
});

describe("token counts sent as plain digit strings (hostile52 F5)", () => {
  it("are read as their number; other strings stay unread (the response without usage)", () => {
    expect(readUsage({ prompt_tokens: "100", completion_tokens: "20" })).toEqual({ prompt_tokens: 100, completion_tokens: 20 });
    expect(readUsage({ prompt_tokens: "100", completion_tokens: 20, prompt_tokens_details: { cached_tokens: "40" } })).toMatchObject({ prompt_tokens: 100, completion_tokens: 20, cached_tokens: 40 });
    for (const bad of ["1e9", "-5", "12.5", "0x10", ""]) expect(readUsage({ prompt_tokens: bad, completion_tokens: 3 }), bad).toEqual({ prompt_tokens: 0, completion_tokens: 0, missing: 1 });
  });
});
