/**
 * Implausible token counts in the totals (src/run/usage-totals.ts): a verdict whose server reported usage no request
 * could hold kept its tokens in the judge's token totals (its cost was already left out), and a verdict stored by an
 * older build with 1e9 prompt tokens, or a negative count, was summed as it was, cost included. Now each keeps its raw
 * usage in verdicts.jsonl, and the token and cost totals of `label` (text, `--json`) and `report` leave it out, with a
 * warning naming the judge and the count. Real `openai` client against a loopback server (test/helpers/fake-openai.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { runInputsAndCosts } from "../../src/report/run-inputs.js";
import { storedUsageImplausible, STORED_TOKENS_PER_REQUEST_BOUND } from "../../src/store/stored-usage.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { jsonlLines, userMessageOf as userOf } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

const PRICE = { input_per_mtok: 1, output_per_mtok: 10 };
let tmp: string;
let fake: FakeOpenAI;
let served = 0;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-usage-totals-"));
  // the second request is answered with a billion prompt tokens; the others with 100 prompt + 20 completion
  fake = await startFakeOpenAI((req) => completion(benchReply(userOf(req.body)), { usage: ++served === 2 ? { prompt_tokens: 1e9, completion_tokens: 20 } : { prompt_tokens: 100, completion_tokens: 20 } }));
});
afterAll(async () => {
  await fake?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
const judge = () => createOpenAIJudge({ id: "oj", model: "gpt-4o-mini", family: "openai", base_url: fake.url, max_tokens: 1000, price: PRICE }, { retries: 0, minQuoteChars: 12 });
const label = () => labelRun({ inputs: [SAMPLES], run: "u", labelsDir: tmp, judges: [judge()], limit: 5, concurrency: 1 });
/** The judge's token and cost totals recomputed by hand from verdicts.jsonl, over the verdicts whose usage is plausible. */
const byHand = (vs: any[]) => {
  const ok = vs.filter((v) => v.cost_basis !== "implausible_usage" && v.usage.prompt_tokens >= 0 && v.usage.prompt_tokens <= 2e7 && v.usage.completion_tokens >= 0);
  return { prompt: ok.reduce((a, v) => a + v.usage.prompt_tokens, 0), completion: ok.reduce((a, v) => a + v.usage.completion_tokens, 0), usd: ok.reduce((a, v) => a + v.cost_usd, 0), n: ok.length };
};

describe("storedUsageImplausible", () => {
  it("flags what was flagged when judged, counts that are not counts, and more than 20M tokens per request", () => {
    expect(storedUsageImplausible({ cost_basis: "implausible_usage", usage: { prompt_tokens: 10, completion_tokens: 1 } })).toMatch(/flagged when it was judged/);
    expect(storedUsageImplausible({ attempts: 1, usage: { prompt_tokens: -5, completion_tokens: 1 } })).toBe("prompt_tokens -5 is not a count");
    expect(storedUsageImplausible({ attempts: 1, usage: { prompt_tokens: 10, completion_tokens: "9" } })).toMatch(/completion_tokens "9" is not a count/);
    expect(storedUsageImplausible({ attempts: 2, usage: { prompt_tokens: 1e9, completion_tokens: 1 } })).toBe(`1000000000 prompt tokens for 2 request(s), over ${STORED_TOKENS_PER_REQUEST_BOUND} per request`);
    expect(storedUsageImplausible({ attempts: 3, usage: { prompt_tokens: 3 * STORED_TOKENS_PER_REQUEST_BOUND, completion_tokens: 1 } })).toBeUndefined();
    expect(storedUsageImplausible({ attempts: 1, usage: { prompt_tokens: 120_000, completion_tokens: 4000, cached_tokens: 0 } })).toBeUndefined();
  });
  it("a cost below 0 or not a number, and an attempts count label could not have made (task s40: 1e9 scaled the token bound)", () => {
    expect(storedUsageImplausible({ attempts: 1, cost_usd: -1000, usage: { prompt_tokens: 10, completion_tokens: 1 } })).toBe("cost_usd -1000 is not a cost");
    expect(storedUsageImplausible({ attempts: 1, cost_usd: "0.1" })).toBe('cost_usd "0.1" is not a cost');
    expect(storedUsageImplausible({ attempts: 1e9, usage: { prompt_tokens: 1e15, completion_tokens: 1 } })).toMatch(/^attempts 1000000000 is not a count of requests label could have made \(0 \.\. 10000\)$/);
    expect(storedUsageImplausible({ attempts: 1.5 })).toMatch(/^attempts 1.5 is not a count/);
    expect(storedUsageImplausible({ attempts: 0, cost_usd: 0 })).toBeUndefined();
    expect(storedUsageImplausible({ attempts: 4, cost_usd: 0.02, usage: { prompt_tokens: 10, completion_tokens: 1 } })).toBeUndefined();
  });
});

describe("implausible token counts are left out of the token and cost totals, with a warning", () => {
  it("a server's 1e9 prompt tokens on one verdict, then two verdicts of an older build (1e9 tokens costed at $1000, a negative count)", async () => {
    const r = await label();
    const vfile = path.join(tmp, "u", "verdicts.jsonl");
    let vs = jsonlLines(vfile);
    expect(vs).toHaveLength(5);
    // the verdict keeps its raw usage; before, the judge's prompt total read 1,000,000,400
    expect(vs.filter((v) => v.usage.prompt_tokens === 1e9 && v.cost_basis === "implausible_usage")).toHaveLength(1);
    const h = byHand(vs);
    const u = r.summary.judges[0].usage;
    expect([u.prompt_tokens, u.completion_tokens]).toEqual([h.prompt, h.completion]);
    expect([u.prompt_tokens, u.completion_tokens]).toEqual([400, 80]);
    expect(u.left_out).toMatchObject({ verdicts: 1, prompt_tokens: 1e9, completion_tokens: 20 });
    expect(r.summary.cost).toMatchObject({ counted: 4, unknown: 1, implausible: 1 });
    expect(r.summary.cost.usd).toBeCloseTo(h.usd, 12);
    expect(r.summary.warnings.join("\n")).toMatch(/judge "oj": 1 verdict\(s\) report implausible token counts \(1000000000 prompt, 20 completion tokens as reported; e\.g\. trajectory .*: implausible usage flagged when it was judged\): left out of its token and cost totals/);
    expect(unwrapText(formatSummary(r.summary))).toMatch(/tokens: 400 prompt \(cached: not reported by the provider\), 80 completion; 1 verdict\(s\) with implausible token counts left out \(1000000000 prompt, 20 completion as reported\)/);

    // an older build's verdicts: 1e9 prompt tokens costed at $1000 (no cost_basis), and a negative count
    const lines = fs.readFileSync(vfile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const plain = lines.filter((v) => v.cost_basis !== "implausible_usage");
    Object.assign(plain[0], { usage: { ...plain[0].usage, prompt_tokens: 1e9 }, cost_usd: 1000 });
    Object.assign(plain[1], { usage: { ...plain[1].usage, prompt_tokens: -5 }, cost_usd: -0.0000048 });
    fs.writeFileSync(vfile, lines.map((l) => JSON.stringify(l) + "\n").join(""));
    const r2 = await label(); // nothing to judge: the summary over the stored verdicts
    vs = jsonlLines(vfile);
    const h2 = byHand(vs);
    const u2 = r2.summary.judges[0].usage;
    expect([u2.prompt_tokens, u2.completion_tokens, h2.n]).toEqual([h2.prompt, h2.completion, 2]);
    expect([u2.prompt_tokens, u2.completion_tokens]).toEqual([200, 40]);
    expect(u2.left_out).toMatchObject({ verdicts: 3, prompt_tokens: 2e9 - 5, completion_tokens: 60 });
    expect(r2.summary.cost).toMatchObject({ counted: 2, unknown: 3, incomplete: true, implausible: 3 });
    expect(r2.summary.cost.usd).toBeCloseTo(h2.usd, 12);
    expect(r2.summary.cost.usd).toBeLessThan(0.001); // before: $1000.00 and more
    expect(r2.summary.warnings.join("\n")).toMatch(/judge "oj": 3 verdict\(s\) report implausible token counts/);
    // the cost cap's spent: the same rule (before: $1000 spent, "already over the cap" of $1)
    const capped = await labelRun({ inputs: [SAMPLES], run: "u", labelsDir: tmp, judges: [judge()], limit: 5, concurrency: 1, maxCostUsd: 1 });
    expect(capped.costCap?.spent_before_usd).toBeCloseTo(h2.usd, 12);
    expect(capped.costCap).toMatchObject({ unknown_cost_before: 3, reached: false });
    // the report's cost table: the same rule
    const { costs } = runInputsAndCosts(path.join(tmp, "u"), vs);
    expect(costs.per_judge[0].usage).toEqual({ prompt_tokens: 200, completion_tokens: 40 });
    expect(costs.run).toMatchObject({ counted: 2, unknown: 3, implausible: 3 });
  });
});
