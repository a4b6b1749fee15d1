/**
 * Cost (issue 15 point 1): `price` per judge, cached and reasoning tokens on every verdict, cost per verdict, per
 * judge and per run in the label summary (text and JSON); missing usage is null and marks totals incomplete.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseJudgesConfig } from "../../src/config/judges.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { addCost, batchPrice, costWarnings, describeCost, emptyCost, pricedAtText, tokensCost, usageCost } from "../../src/providers/cost.js";
import { labelRun } from "../../src/run/label.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";

const PRICE = { input_per_mtok: 2.5, cached_input_per_mtok: 1.25, output_per_mtok: 10 };
const OK = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing" });

let fake: FakeOpenAI | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A reply whose usage reports cached and reasoning tokens the way OpenAI does. */
function withDetails(prompt: number, cached: number, completionTokens: number, reasoning: number) {
  const r = completion(OK, { usage: { prompt_tokens: prompt, completion_tokens: completionTokens } });
  Object.assign((r.body as any).usage, { prompt_tokens_details: { cached_tokens: cached }, completion_tokens_details: { reasoning_tokens: reasoning } });
  return r;
}

function chatFile(n: number): string {
  dir = mkdtempSync(path.join(os.tmpdir(), "ipi-cost-"));
  const f = path.join(dir, "in.jsonl");
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `t${i}`, messages: [{ role: "user", content: `question number ${i}` }, { role: "assistant", content: "an answer here" }] }),
  );
  writeFileSync(f, lines.join("\n") + "\n");
  return f;
}

describe("cost arithmetic", () => {
  it("prices cached prompt tokens apart, completion (reasoning included) at the output price", () => {
    // 600 uncached * 2.5 + 400 cached * 1.25 + 100 completion * 10 = 1500 + 500 + 1000 = 3000 per 1e6
    expect(tokensCost(1000, 400, 100, PRICE)).toBeCloseTo(0.003, 12);
    expect(tokensCost(1000, 400, 100, { input_per_mtok: 2.5, output_per_mtok: 10 })).toBeCloseTo(0.0035, 12);
    expect(usageCost({ prompt_tokens: 10, completion_tokens: 1 }, undefined)).toBeNull();
    expect(usageCost({ prompt_tokens: 10, completion_tokens: 1, missing: 1 }, PRICE)).toBeNull();
  });
  it("a total over an unknown cost is incomplete, never a silent 0", () => {
    const t = emptyCost();
    addCost(t, null);
    expect(t).toMatchObject({ usd: null, incomplete: true, unknown: 1 });
    addCost(t, 0.5);
    expect(t).toMatchObject({ usd: 0.5, incomplete: true, counted: 1 });
  });
  it("the schema accepts price and refuses a negative or missing output price", () => {
    const cfg = (price: unknown) => ({ judges: [{ id: "j", model: "m", family: "openai", price }] });
    expect(parseJudgesConfig(cfg(PRICE)).judges[0].price).toEqual(PRICE);
    expect(() => parseJudgesConfig(cfg({ input_per_mtok: -1, output_per_mtok: 1 }))).toThrow(/price.input_per_mtok/);
    expect(() => parseJudgesConfig(cfg({ input_per_mtok: 1 }))).toThrow(/output_per_mtok/);
  });
});

describe("cost through a run", () => {
  it("every verdict has cached/reasoning tokens and cost_usd; judge and run totals in the summary", async () => {
    fake = await startFakeOpenAI(() => withDetails(1000, 400, 100, 60));
    const j = createOpenAIJudge({ id: "j", model: "m", family: "openai", base_url: fake.url, price: PRICE }, { retries: 0, minQuoteChars: 12 });
    const res = await labelRun({ inputs: [chatFile(3)], run: "r", labelsDir: dir!, judges: [j] });
    const js = res.summary.judges[0];
    expect(js.usage).toMatchObject({ prompt_tokens: 3000, cached_tokens: 1200, completion_tokens: 300, reasoning_tokens: 180 });
    expect(js.cost.usd).toBeCloseTo(0.009, 10);
    expect(js.cost.incomplete).toBe(false);
    expect(res.summary.cost.usd).toBeCloseTo(0.009, 10);
    const text = formatSummary(res.summary);
    expect(text).toMatch(/cost: \$0\.00900/);
    expect(text).toMatch(/cost of the run: \$0\.00900/);
  });

  it("a response without usage: that verdict's cost is null and the totals say incomplete", async () => {
    fake = await startFakeOpenAI((_r, n) => (n === 1 ? completion(OK, { usage: null }) : withDetails(1000, 0, 100, 0)));
    const j = createOpenAIJudge({ id: "j", model: "m", family: "openai", base_url: fake.url, price: PRICE, concurrency: 1 }, { retries: 0, minQuoteChars: 12 });
    const res = await labelRun({ inputs: [chatFile(3)], run: "r", labelsDir: dir!, judges: [j] });
    const js = res.summary.judges[0];
    expect(js.usage.responses_without_usage).toBe(1);
    expect(js.cost).toMatchObject({ counted: 2, unknown: 1, incomplete: true });
    expect(res.summary.cost.incomplete).toBe(true);
    expect(formatSummary(res.summary)).toMatch(/INCOMPLETE: 1 verdict/);
  });

  it("a judge without a price: cost unknown, named as such", async () => {
    fake = await startFakeOpenAI(() => withDetails(1000, 0, 100, 0));
    const j = createOpenAIJudge({ id: "j", model: "m", family: "openai", base_url: fake.url }, { retries: 0, minQuoteChars: 12 });
    const res = await labelRun({ inputs: [chatFile(2)], run: "r", labelsDir: dir!, judges: [j] });
    expect(res.summary.cost.usd).toBeNull();
    expect(formatSummary(res.summary)).toMatch(/cost: unknown \(2 verdict\(s\) without a known cost: no price in the judge's config\)/);
  });
});

describe("Batch API price and cost bases (red team 33 F6, F9)", () => {
  it("batchPrice: the batch_* prices (cached defaulting to batch input), or none", () => {
    expect(batchPrice(PRICE)).toBeUndefined();
    expect(batchPrice(undefined)).toBeUndefined();
    expect(batchPrice({ ...PRICE, batch_input_per_mtok: 1.25, batch_output_per_mtok: 5 })).toEqual({ input_per_mtok: 1.25, cached_input_per_mtok: 1.25, output_per_mtok: 5 });
    expect(batchPrice({ ...PRICE, batch_input_per_mtok: 1.25, batch_cached_input_per_mtok: 0.6, batch_output_per_mtok: 5 })?.cached_input_per_mtok).toBe(0.6);
  });
  it("totals: an upper bound is 'at most', never the bill; mixed with unknown costs, neither floor nor ceiling", () => {
    const t = emptyCost();
    addCost(t, 0.5, "online_upper_bound");
    addCost(t, 0.25, "batch");
    expect(t).toMatchObject({ usd: 0.75, counted: 2, upper_bound: 1 });
    expect(describeCost(t)).toMatch(/^at most \$0\.750 \(UPPER BOUND: 1 verdict\(s\) sent through the Batch API and priced at the online price/);
    expect(costWarnings("j", t)).toEqual([expect.stringMatching(/^judge "j": its cost is an UPPER BOUND, not the bill: 1 verdict/)]);
    addCost(t, null, "implausible_usage");
    expect(t).toMatchObject({ unknown: 1, implausible: 1, incomplete: true });
    expect(describeCost(t)).toMatch(/^\$0\.750 counted, NOT the bill \(INCOMPLETE: 1 verdict\(s\) without a known cost: .*1 with implausible usage; UPPER BOUND: 1 verdict/);
    expect(costWarnings("j", t)[1]).toMatch(/^judge "j": 1 verdict\(s\) have no cost: the server reported usage far beyond/);
    expect(describeCost(emptyCost())).toBe("$0 (no verdicts)");
  });
  it("a $0 verdict (a line that failed unbilled) is exact at any price, not an upper bound (verify 33 L3)", () => {
    const t = emptyCost();
    addCost(t, 0, "online_upper_bound");
    expect(t.upper_bound).toBeUndefined();
    expect(describeCost(t)).toBe("$0");
    expect(costWarnings("j", t)).toEqual([]);
  });
  it("a $0 verdict is priced at no price, and beside one price it is not 'a mix of prices' (break49 F5)", () => {
    const t = emptyCost();
    for (let i = 0; i < 19; i++) addCost(t, 0.01, "batch");
    addCost(t, 0); // a Batch API line never sent: no basis, cost 0
    expect(t.priced_at).toEqual({ batch: 19, unbilled: 1 });
    expect(pricedAtText(t)).toBe("priced at the batch price (19 verdict(s)), no price: $0, nothing billed (1 verdict(s)), as each verdict recorded it (cost_basis)");
    const z = emptyCost();
    addCost(z, 0); // an offline judge's verdict
    expect(pricedAtText(z)).toBe("");
    const o = emptyCost();
    addCost(o, 0, "online"); // a judge priced at $0 (a local model): its price, recorded
    expect(o.priced_at).toEqual({ online: 1 });
  });
  it("the upper-bound warning speaks of the verdicts as stored, not of today's config (verify 33 L2: a batch price added later)", () => {
    const t = emptyCost();
    addCost(t, 0.5, "online_upper_bound");
    const w = costWarnings("j", t)[0];
    expect(w).toContain("no batch price (price.batch_input_per_mtok / batch_output_per_mtok) was configured when they were stored");
    expect(w).toContain("verdicts already stored keep the price they were stored with");
    expect(w).not.toContain("the config gives no batch price");
  });
});
