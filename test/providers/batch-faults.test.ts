/**
 * Issue 15 point 4: Batch API connection faults are retried like the chat requests' (a reset on upload, on
 * creation, on a poll): the run completes and nothing is paid twice. Real `openai` client, loopback Batch API.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";
import { userMessageOf as userOf } from "../helpers/fake-batch.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-faults-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});


describe("Batch API connection faults", () => {
  it("a reset on the upload, on the creation and on a poll: each retried with backoff, every item labelled once", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    const resets = new Map<string, number>();
    fake.fault = (m, p) => {
      const key = `${m} ${p.startsWith("/batches/") ? "/batches/:id" : p}`;
      if (!["POST /files", "POST /batches", "GET /batches/:id"].includes(key)) return undefined;
      const n = resets.get(key) ?? 0;
      resets.set(key, n + 1);
      return n === 0 ? { status: 0, body: null, reset: true } : undefined;
    };
    const waits: number[] = [];
    const judge = createOpenAIJudge(
      { id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true, max_tokens: 1000 },
      { retries: 2, minQuoteChars: 12 },
    );
    const res = await labelRun({
      inputs: [SAMPLES],
      run: "reset",
      labelsDir: tmp,
      judges: [judge],
      limit: 3,
      batch: { pollMs: 5, sleep: async (ms: number) => void waits.push(ms) },
    });
    expect(res.stoppedJudges).toEqual({});
    expect(res.summary.verdicts).toBe(3);
    expect(fake.batches).toHaveLength(1);
    expect(fake.answered).toHaveLength(3);
    for (const k of ["POST /files", "POST /batches", "GET /batches/:id"]) expect(resets.get(k)).toBeGreaterThanOrEqual(2);
    // the backoff of the retried calls (1 s first step), beside the 5 ms polls
    expect(waits.filter((w) => w >= 1000).length).toBeGreaterThanOrEqual(3);
  });
});
