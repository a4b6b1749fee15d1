import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { dryRun } from "../../src/run/dry-run.js";
import { completion } from "../helpers/fake-openai.js";
import { jsonlLines, startFakeBatch, userMessageOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-rv28-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const N = 8;
const judgeOf = (url: string, model: string) =>
  createOpenAIJudge({ id: "gb", model, family: "openai", base_url: url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });

async function inFlight(run: string) {
  fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userMessageOf(body))).body }));
  const f = fake;
  f.hold = true;
  const ac = new AbortController();
  f.fault = (method, p) => {
    if (method === "POST" && p === "/batches") setImmediate(() => ac.abort());
    return undefined;
  };
  await labelRun({ inputs: [SAMPLES], run, labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N, signal: ac.signal, batch: { pollMs: 2 } });
  f.fault = undefined;
  return f;
}

describe("review 28: chunks in flight", () => {
  it("dry run without --batch says label would refuse (label does: UsageError)", async () => {
    const f = await inFlight("dry");
    await expect(labelRun({ inputs: [SAMPLES], run: "dry", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N })).rejects.toThrow(/still in flight/);
    const dry = await dryRun({ inputs: [SAMPLES], run: "dry", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N });
    expect(dry.label_would_refuse).toBe(true);
  });

  it("a batch the provider no longer has (404 on retrieve): --batch stores its requests as judge_error batch_result_gone and the run finishes", async () => {
    const f = await inFlight("gone");
    // the provider lost the batch (purged, other account/key, other base_url)
    f.fault = (method, p) => (method === "GET" && /^\/batches\/[^/]+$/.test(p) ? { status: 404, body: { error: { message: "No batch found" } } } : undefined);
    const viaBatch = await labelRun({ inputs: [SAMPLES], run: "gone", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N, batch: { pollMs: 2 } }).then(() => "ok", (e) => `err: ${e.message}`);
    const online = await labelRun({ inputs: [SAMPLES], run: "gone", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N }).then(() => "ok", (e) => `err: ${e.message}`);
    // one of the two must be able to finish the run
    expect([viaBatch, online], `${viaBatch}\n${online}`).toContain("ok");
    expect(jsonlLines(path.join(tmp, "gone", "verdicts.jsonl")).length).toBe(N);
  });

  it("a chunk of model-A whose batch creation never reached the server ('creating') is dropped under rejudge to model-B, never sent as model-A", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userMessageOf(body))).body }));
    const f = fake;
    // the batch creation fails every time (400 is not retried): the entry is left 'creating', nothing created
    f.fault = (method, p) => (method === "POST" && p === "/batches" ? { status: 400, body: { error: { message: "bad", type: "invalid_request_error" } } } : undefined);
    await labelRun({ inputs: [SAMPLES], run: "creating", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N, batch: { pollMs: 2 } }).catch(() => undefined);
    const st = JSON.parse(fs.readFileSync(path.join(tmp, "creating", "store.json"), "utf8")).extra.batches;
    expect(st.map((e: { status: string }) => e.status)).toEqual(["creating"]);
    f.fault = undefined;
    await labelRun({ inputs: [SAMPLES], run: "creating", labelsDir: tmp, judges: [judgeOf(f.url, "model-B")], limit: N, onConfigChange: "rejudge", batch: { pollMs: 2 } });
    // nothing was ever sent as model-A: under rejudge to model-B, no model-A request should be paid now
    expect(new Set(f.answered.map((a) => a.body.model))).toEqual(new Set(["model-B"]));
  });
});
