/**
 * Which price each cost total is at (`CostTotal.priced_at`, `pricedAtText`, src/providers/cost.ts): a run mixing an
 * online judge, a Batch API judge with a batch price and one without said one figure with no word of the prices
 * under it, and a verdict stored before `cost_basis` existed (priced at the online price, even through the Batch API)
 * could not be told apart. Now every judge's cost and the run's say what price their verdicts are at, as each verdict
 * recorded it. Real `openai` client against loopback servers (test/helpers/fake-openai.ts, fake-batch.ts).
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
import { pricedAtText } from "../../src/providers/cost.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { jsonlLines, startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

const ONLINE = { input_per_mtok: 2, output_per_mtok: 8 };
const BATCH = { batch_input_per_mtok: 1, batch_output_per_mtok: 4 };
let tmp: string;
let online: FakeOpenAI;
let batch: FakeBatchServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-priced-at-"));
  online = await startFakeOpenAI((req) => completion(benchReply(userOf(req.body))));
  batch = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
});
afterAll(async () => {
  await online?.close();
  await batch?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
const judges = () => [
  createOpenAIJudge({ id: "on", model: "gpt-4o-mini", family: "openai", base_url: online.url, batch: false, max_tokens: 1000, price: { ...ONLINE, ...BATCH } }, { retries: 0, minQuoteChars: 12 }),
  createOpenAIJudge({ id: "bp", model: "gpt-4o-mini", family: "openai", base_url: batch.url, batch: true, max_tokens: 1000, price: { ...ONLINE, ...BATCH } }, { retries: 0, minQuoteChars: 12 }),
  createOpenAIJudge({ id: "bu", model: "gpt-4o-mini", family: "openai", base_url: batch.url, batch: true, max_tokens: 1000, price: ONLINE }, { retries: 0, minQuoteChars: 12 }),
];
const run = () => labelRun({ inputs: [SAMPLES], run: "p", labelsDir: tmp, judges: judges(), limit: 3, batch: { pollMs: 2 } });
/** Each judge's USD recomputed by hand from verdicts.jsonl: 100 prompt + 20 completion tokens per request, at its price. */
const byHand = (vs: any[], id: string, input: number, output: number) =>
  vs.filter((v) => v.judge_id === id).reduce((a, v) => a + (v.attempts * (100 * input + 20 * output)) / 1e6, 0);

describe("cost totals say which price they are at", () => {
  it("online, batch price and online-for-batch (upper bound): per judge and for the run; an older build's batch verdict without cost_basis reads as an upper bound (its chunk is in store.json: ../run/batch-basis.ts)", async () => {
    const r = await run();
    const vfile = path.join(tmp, "p", "verdicts.jsonl");
    let vs = jsonlLines(vfile);
    expect(vs).toHaveLength(9);
    const j = Object.fromEntries(r.summary.judges.map((x) => [x.judge_id, x.cost]));
    expect(j.on.priced_at).toEqual({ online: 3 });
    expect(j.bp.priced_at).toEqual({ batch: 3 });
    expect(j.bu.priced_at).toEqual({ online_upper_bound: 3 });
    expect(r.summary.cost.priced_at).toEqual({ online: 3, batch: 3, online_upper_bound: 3 });
    // the figures: by hand from the verdicts at the price each recorded
    expect(j.on.usd).toBeCloseTo(byHand(vs, "on", 2, 8), 12);
    expect(j.bp.usd).toBeCloseTo(byHand(vs, "bp", 1, 4), 12);
    expect(j.bu.usd).toBeCloseTo(byHand(vs, "bu", 2, 8), 12);
    const text = formatSummary(r.summary);
    expect(text).toMatch(/^ {2}priced at the online price \(3 verdict\(s\)\), as each verdict recorded it \(cost_basis\)$/m);
    expect(text).toMatch(/^ {2}priced at the batch price \(3 verdict\(s\)\), as each/m);
    expect(text).toMatch(/^ {2}priced at the online price for Batch API requests \(no batch price: an upper bound\) \(3 verdict\(s\)\)/m);
    expect(unwrapText(text)).toMatch(/cost of the run: .* priced at the online price \(3 verdict\(s\)\), the batch price \(3 verdict\(s\)\), the online price for Batch API requests \(no batch price: an upper bound\) \(3 verdict\(s\)\): a mix of prices/);

    // a verdict stored by a build older than cost_basis (priced at the online price, through the Batch API too)
    const lines = fs.readFileSync(vfile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    for (const v of lines.filter((x) => x.judge_id === "bu")) delete v.cost_basis;
    fs.writeFileSync(vfile, lines.map((l) => JSON.stringify(l) + "\n").join(""));
    const r2 = await run();
    vs = jsonlLines(vfile);
    const bu = r2.summary.judges.find((x) => x.judge_id === "bu")!.cost;
    expect(bu.priced_at).toEqual({ online_upper_bound: 3 });
    expect(bu.upper_bound).toBeDefined();
    expect(pricedAtText(bu)).toMatch(/online price for Batch API requests/);
    expect(bu.usd).toBeCloseTo(byHand(vs, "bu", 2, 8), 12);
  });
});
