/**
 * The resume fast path under `label --batch` (issue 26, point 5): an unchanged input file whose trajectory has
 * nothing left but new repeats a batch of an earlier invocation holds is passed over unread (a resumed run of
 * 1,000,000 read every file again in each invocation while its batches ran). The counts stay those a read gives
 * (awaited repeats neither judged nor skipped), and the verdicts are those of the same invocations with the fast
 * path off (`verifyContent`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun, type LabelResult } from "../../src/run/label.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, jsonlLines as lines, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-fast-resume-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** Three invocations on one run: submit (stopped once every batch is created), poll (stopped), finish. */
async function threeInvocations(runName: string, verifyContent: boolean): Promise<{ results: LabelResult[]; verdicts: any[]; uploads: number }> {
  fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
  const f = fake;
  const judge = () => createOpenAIJudge({ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: f.url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
  const run = (signal?: AbortSignal) => labelRun({ inputs: [SAMPLES], run: runName, labelsDir: tmp, judges: [judge()], limit: 30, signal, verifyContent, batch: { pollMs: 2, maxRequests: 7 } });
  const results: LabelResult[] = [];
  f.hold = true;
  for (let k = 0; k < 2; k++) {
    const ac = new AbortController();
    let polls = 0;
    f.fault = (method, p) => {
      if (method === "GET" && /^\/batches\/batch_\d+$/.test(p) && ++polls === 12) setImmediate(() => ac.abort());
      return undefined;
    };
    results.push(await run(ac.signal));
  }
  f.fault = undefined;
  f.hold = false;
  results.push(await run());
  const uploads = f.log.filter((l) => l.method === "POST" && l.path === "/files").length;
  return { results, verdicts: lines(path.join(tmp, runName, "verdicts.jsonl")), uploads };
}

/**
 * A verdict without what differs between two runs of the same work: times, durations, the random nonce, and the
 * configuration hash (it holds the base_url: each run has its own loopback server's port).
 */
function stable(v: Record<string, unknown>): Record<string, unknown> {
  const { created_at: _c, duration_ms: _d, latency_ms: _l, nonce: _n, judge_config_sha256: _h, ...rest } = v;
  return rest;
}

describe("label --batch: files whose trajectories are in a batch are not read again", () => {
  it("passes them over while the batches run; counts as a read gives them, the same verdicts", async () => {
    const fast = await threeInvocations("fast", false);
    const slow = await threeInvocations("slow", true);
    // every invocation after the first passes over every file: all 30 trajectories are in batches
    expect(fast.results.map((r) => r.progress.unread)).toEqual([0, 30, 30]);
    expect(slow.results.map((r) => r.progress.unread)).toEqual([0, 0, 0]);
    for (let i = 0; i < 3; i++) {
      const { unread: _a, ...a } = fast.results[i].progress;
      const { unread: _b, ...b } = slow.results[i].progress;
      expect(a).toEqual(b);
      expect(fast.results[i].interrupted).toBe(slow.results[i].interrupted);
    }
    // awaited, not skipped: nothing judged or skipped in the second invocation
    expect(fast.results[1].progress.skipped).toBe(0);
    expect(fast.results[1].progress.read).toBe(30);
    // nothing sent twice; one verdict each, the same as with every file read
    expect(fast.uploads).toBe(slow.uploads);
    expect(fast.verdicts).toHaveLength(30);
    const byId = (vs: any[]) => new Map(vs.map((v) => [v.trajectory_id, JSON.stringify(stable(v))]));
    expect(byId(fast.verdicts)).toEqual(byId(slow.verdicts));
  });
});
