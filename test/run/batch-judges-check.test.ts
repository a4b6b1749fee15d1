/**
 * break54 #2: `--batch` with judges that cannot use the Batch API ran every request online at the online price with no
 * word (the help's example: three judges on OpenRouter). Now `checkBatchJudges` (src/run/batch-judges.ts) refuses a run
 * none of whose OpenAI-compatible judges can batch, before anything is sent, and names the ones sent online in a mixed
 * run. Real `openai` client against loopback servers (test/helpers/fake-openai.ts, fake-batch.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { UsageError } from "../../src/errors.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { dryRun } from "../../src/run/dry-run.js";
import { labelRun } from "../../src/run/label.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let online: FakeOpenAI;
let batch: FakeBatchServer;
let requests = 0;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-check-"));
  online = await startFakeOpenAI((req) => {
    requests++;
    return completion(benchReply(userOf(req.body)));
  });
  batch = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
});
afterAll(async () => {
  await online?.close();
  await batch?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
const onlineJudge = () => createOpenAIJudge({ id: "router", model: "m", family: "openai", base_url: online.url, max_tokens: 1000 }, { retries: 0, minQuoteChars: 12 });
const batchJudge = () => createOpenAIJudge({ id: "bj", model: "m", family: "openai", base_url: batch.url, batch: true, max_tokens: 1000 }, { retries: 0, minQuoteChars: 12 });

describe("--batch with judges that cannot use the Batch API (break54 #2)", () => {
  it("refused, sending nothing, when no judge can: label and --dry-run alike", async () => {
    const opts = { inputs: [SAMPLES], run: "none", labelsDir: tmp, judges: [onlineJudge()], limit: 3, batch: { pollMs: 2 } };
    await expect(labelRun(opts)).rejects.toThrow(UsageError);
    await expect(labelRun(opts)).rejects.toThrow(/--batch: no judge of this run can use the Batch API: "router" \(base_url http:\/\/127\.0\.0\.1:\d+.*\); a judge goes through the Batch API with "batch": true/);
    await expect(dryRun(opts)).rejects.toThrow(/--batch: no judge of this run can use the Batch API/);
    expect(requests).toBe(0);
    expect(fs.existsSync(path.join(tmp, "none", "verdicts.jsonl"))).toBe(false);
  });

  it("in a mixed run, the judges sent online are named once, before the run", async () => {
    const warnings: string[] = [];
    const r = await labelRun({ inputs: [SAMPLES], run: "mixed", labelsDir: tmp, judges: [onlineJudge(), batchJudge()], limit: 3, batch: { pollMs: 2 }, onWarning: (w) => warnings.push(w) });
    expect(r.summary.verdicts).toBe(6);
    const said = warnings.filter((w) => w.startsWith("--batch:"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^--batch: judge "router" \(base_url http:\/\/127\.0\.0\.1:\d+[^)]*\) cannot use the Batch API .*: its requests are sent online, at the online price/);
  });

  it("a run whose judges all batch says nothing of the kind", async () => {
    const warnings: string[] = [];
    await labelRun({ inputs: [SAMPLES], run: "all", labelsDir: tmp, judges: [batchJudge()], limit: 2, batch: { pollMs: 2 }, onWarning: (w) => warnings.push(w) });
    expect(warnings.filter((w) => w.startsWith("--batch:"))).toEqual([]);
  });
});
