/**
 * Verdicts stored without `cost_basis` (src/run/batch-basis.ts). A build older than `cost_basis` priced Batch API
 * verdicts at the online price and recorded nothing; every cost total read them as online-priced, the bill (about
 * twice it). The run's Batch API chunk files (store.json's chunks, each chunk's keys file) tell which conversations went
 * through a batch: those are an upper bound, said so; when a judge's chunk files are gone, the cost total counts the
 * verdicts whose basis cannot be told. Real `openai` client against a loopback Batch API (test/helpers/fake-batch.ts);
 * the old build's verdicts are made by rewriting the stored lines as it wrote them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { runInputsAndCosts } from "../../src/report/run-inputs.js";
import { describeCost } from "../../src/providers/cost.js";
import { completion } from "../helpers/fake-openai.js";
import { jsonlLines, startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

const ONLINE = { input_per_mtok: 2, output_per_mtok: 8 };
const BATCH = { batch_input_per_mtok: 1, batch_output_per_mtok: 4 };
/** The run folder's parent and the loopback Batch API of the test, made and removed by {@link withBatchServer}. */
let tmp: string;
let fake: FakeBatchServer;

/** Run `body` with a loopback Batch API answering each request with the bench's reply, in a fresh folder. */
async function withBatchServer(body: () => Promise<void>): Promise<void> {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-basis-"));
  fake = await startFakeBatch((req) => ({ status: 200, body: completion(benchReply(userOf(req))).body }));
  try {
    await body();
  } finally {
    await fake.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Rewrite the run's stored verdicts as a build older than cost_basis wrote them: at the online price, no basis. */
function asOlderBuild(run: string): number {
  const file = path.join(tmp, run, "verdicts.jsonl");
  const vs = jsonlLines(file);
  for (const v of vs) {
    delete v.cost_basis;
    v.cost_usd = (v.usage.prompt_tokens * ONLINE.input_per_mtok + v.usage.completion_tokens * ONLINE.output_per_mtok) / 1e6;
  }
  fs.writeFileSync(file, vs.map((v) => JSON.stringify(v)).join("\n") + "\n");
  return vs.reduce((a, v) => a + v.cost_usd, 0);
}

describe("verdicts of an older build without cost_basis", () => {
  it("those in a Batch API chunk are an upper bound (said); with the chunk files gone, their basis is counted unknown; online verdicts stay the bill", () =>
    withBatchServer(async () => {
    const judge = (batch: boolean) => createOpenAIJudge({ id: batch ? "bj" : "oj", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch, max_tokens: 1000, price: { ...ONLINE, ...BATCH } }, { retries: 2, minQuoteChars: 12 });
    const opts = { inputs: [SAMPLES], run: "old", labelsDir: tmp, judges: [judge(true), judge(false)], limit: 3, batch: { pollMs: 2 } };
    await labelRun(opts);
    const stored = jsonlLines(path.join(tmp, "old", "verdicts.jsonl"));
    expect(stored.filter((v) => v.judge_id === "bj").every((v) => v.cost_basis === "batch")).toBe(true);
    const online = asOlderBuild("old");

    // resumed (nothing to judge): the summary reads the batch judge's verdicts as an upper bound, the online judge's as the bill
    const r = await labelRun(opts);
    const bj = r.summary.judges.find((j) => j.judge_id === "bj")!.cost;
    const oj = r.summary.judges.find((j) => j.judge_id === "oj")!.cost;
    expect(bj).toMatchObject({ counted: 3, upper_bound: 3, old_batch: 3, priced_at: { online_upper_bound: 3 } });
    expect(oj).toMatchObject({ counted: 3 });
    // the loopback server reports no tokens, so these cost $0: billed nothing, at no price (break49 F5), never "batch"
    expect(oj.priced_at).toEqual(oj.usd ? { online: 3 } : { unbilled: 3 });
    expect(oj.upper_bound).toBeUndefined();
    expect(r.summary.cost.usd).toBeCloseTo(online, 12);
    expect(describeCost(bj)).toMatch(/^at most \$.*UPPER BOUND: 3 verdict\(s\) sent through the Batch API .*3 of them stored by an older build, without cost_basis/);
    expect(r.summary.warnings.join("\n")).toMatch(/judge "bj": its cost is an UPPER BOUND, not the bill: .*3 of them stored by an older build/);
    expect(JSON.parse(fs.readFileSync(path.join(tmp, "old", "summary.json"), "utf8")).cost).toMatchObject({ upper_bound: 3, old_batch: 3 });
    // the report's cost figures read them alike
    const rep = runInputsAndCosts(path.join(tmp, "old"), jsonlLines(path.join(tmp, "old", "verdicts.jsonl"))).costs;
    expect(rep.run).toMatchObject({ upper_bound: 3, old_batch: 3 });

    // the batch judge's chunk files gone: whether its verdicts went through the batch cannot be told: counted and said
    fs.rmSync(path.join(tmp, "old", "batches"), { recursive: true, force: true });
    const gone = await labelRun(opts);
    const bj2 = gone.summary.judges.find((j) => j.judge_id === "bj")!.cost;
    expect(bj2).toMatchObject({ counted: 3, basis_unknown: 3, priced_at: { unknown: 3 } });
    expect(bj2.upper_bound).toBeUndefined();
    expect(gone.summary.judges.find((j) => j.judge_id === "oj")!.cost.basis_unknown).toBeUndefined(); // no chunk of its own
    expect(gone.summary.cost).toMatchObject({ basis_unknown: 3 });
    expect(describeCost(gone.summary.cost)).toMatch(/BASIS UNKNOWN: 3 verdict\(s\) stored without cost_basis by an older build/);
    expect(gone.summary.warnings.join("\n")).toMatch(/judge "bj": the basis of its cost is UNKNOWN for 3 verdict\(s\)/);
    expect(fake.answered).toHaveLength(3); // nothing judged again
    }));
});
