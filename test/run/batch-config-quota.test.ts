/**
 * Red team 26 on the Batch API path: (1) a chunk sent under one judge configuration and finished under another kept
 * the new one's model and configuration hash on the old one's verdicts; (2) a chunk processed again after a stop
 * while its verdicts were being stored appended every stored verdict again (the stored check left the configuration
 * out of its key); (3) an `insufficient_quota` line in a batch's results stopped the judge on every resume (the
 * downloaded line was read again), and the lines after it were not stored.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { JudgeConfigChangedError } from "../../src/run/config-change.js";
import { UsageError } from "../../src/errors.js";
import { dryRun } from "../../src/run/dry-run.js";
import { completion } from "../helpers/fake-openai.js";
import { jsonlLines, startFakeBatch, userMessageOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-rt26-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const N = 8;
const judgeOf = (url: string, model: string) =>
  createOpenAIJudge({ id: "gb", model, family: "openai", base_url: url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
const verdictsOf = (run: string) => jsonlLines(path.join(tmp, run, "verdicts.jsonl"));
const keysOf = (vs: Array<{ trajectory_id: string; repeat: number }>) => vs.map((v) => `${v.trajectory_id}#${v.repeat}`);

/** A model-A batch of N requests sent in run `run` and left in flight (the run stopped once it was created); the server then answers. */
async function leftInFlight(run: string) {
  fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userMessageOf(body))).body }));
  const f = fake;
  f.hold = true;
  const ac = new AbortController();
  f.fault = (method, p) => {
    if (method === "POST" && p === "/batches") setImmediate(() => ac.abort());
    return undefined;
  };
  const first = await labelRun({ inputs: [SAMPLES], run, labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N, signal: ac.signal, batch: { pollMs: 2 } });
  f.fault = undefined;
  f.hold = false;
  return { f, first };
}

describe("Batch API: configuration, re-processing, quota (red team 26)", () => {
  it("a chunk sent as model-A and finished after the config became model-B keeps model-A and its configuration, said in a warning", async () => {
    const { f, first } = await leftInFlight("cfg");
    expect(first.interrupted).toBe(true);
    const warnings: string[] = [];
    // the default refuses: the chunk in flight was sent under another configuration (review 27, M3); --dry-run says so
    const dry = await dryRun({ inputs: [SAMPLES], run: "cfg", labelsDir: tmp, judges: [judgeOf(f.url, "model-B")], limit: N });
    expect(dry.label_would_refuse).toBe(true);
    expect(dry.config_changes.map((c) => c.message).join("\n")).toMatch(/still in flight .*model "model-A".*label would REFUSE/);
    const refused = labelRun({ inputs: [SAMPLES], run: "cfg", labelsDir: tmp, judges: [judgeOf(f.url, "model-B")], limit: N, batch: { pollMs: 2 } });
    await expect(refused).rejects.toThrow(JudgeConfigChangedError);
    await expect(refused).rejects.toThrow(new RegExp(`${N} request\\(s\\) in 1 Batch API chunk\\(s\\) still in flight were written with another configuration than the one given now \\(model "model-A"\\)`));
    expect(f.answered).toHaveLength(0);
    await labelRun({ inputs: [SAMPLES], run: "cfg", labelsDir: tmp, judges: [judgeOf(f.url, "model-B")], limit: N, onConfigChange: "keep", onWarning: (w) => warnings.push(w), batch: { pollMs: 2, onWarning: (w) => warnings.push(w) } });
    const vs = verdictsOf("cfg");
    expect(vs).toHaveLength(N);
    expect(new Set(vs.map((v) => v.judge_model))).toEqual(new Set(["model-A"]));
    expect(new Set(f.answered.map((a) => a.body.model))).toEqual(new Set(["model-A"]));
    const store = JSON.parse(fs.readFileSync(path.join(tmp, "cfg", "store.json"), "utf8"));
    const sent = store.extra.batches[0];
    expect(sent).toMatchObject({ judge_model: "model-A" });
    expect(new Set(vs.map((v) => v.judge_config_sha256))).toEqual(new Set([sent.config_sha256]));
    expect(warnings.join("\n")).toMatch(/sent with another configuration of the judge \(model model-A, .*\) than the current one \(model model-B/);
  });

  it("a chunk written as model-A but never sent is dropped under --on-config-change rejudge: its items are judged as model-B (red team 28, M1)", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userMessageOf(body))).body }));
    const f = fake;
    // every upload fails (a 400 is not retried): the chunk stays pending, never sent
    f.fault = (method, p) => (method === "POST" && p === "/files" ? { status: 400, body: { error: { message: "upload refused", type: "invalid_request_error" } } } : undefined);
    await labelRun({ inputs: [SAMPLES], run: "pend", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N, batch: { pollMs: 2 } }).catch(() => undefined);
    const before = JSON.parse(fs.readFileSync(path.join(tmp, "pend", "store.json"), "utf8")).extra.batches;
    expect(before.map((e: { status: string; judge_model: string }) => [e.status, e.judge_model])).toEqual([["pending", "model-A"]]);
    f.fault = undefined;
    const warnings: string[] = [];
    await labelRun({ inputs: [SAMPLES], run: "pend", labelsDir: tmp, judges: [judgeOf(f.url, "model-B")], limit: N, onConfigChange: "rejudge", onWarning: (w) => warnings.push(w), batch: { pollMs: 2, onWarning: (w) => warnings.push(w) } });
    expect(new Set(f.answered.map((a) => a.body.model))).toEqual(new Set(["model-B"]));
    expect(new Set(verdictsOf("pend").map((v) => v.judge_model))).toEqual(new Set(["model-B"]));
    expect(verdictsOf("pend")).toHaveLength(N);
    expect(warnings.join("\n")).toMatch(/written under another configuration \(model "model-A"\) and never sent are dropped/);
  });

  it("label without --batch while a chunk is in flight is refused: the items would be paid twice (red team 28, M2)", async () => {
    const { f } = await leftInFlight("online");
    const online = labelRun({ inputs: [SAMPLES], run: "online", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N });
    await expect(online).rejects.toThrow(UsageError);
    await expect(online).rejects.toThrow(/still in flight \(judge "gb": 8 request\(s\) in 1 chunk\(s\)\): run label with --batch to collect them/);
    expect(f.answered).toHaveLength(0);
    expect(fs.existsSync(path.join(tmp, "online", "verdicts.jsonl")) ? verdictsOf("online") : []).toHaveLength(0);
    await labelRun({ inputs: [SAMPLES], run: "online", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N, batch: { pollMs: 2 } });
    expect(verdictsOf("online")).toHaveLength(N);
    expect(f.answered).toHaveLength(N);
  });

  it("a chunk processed again (stopped while storing: still 'submitted' in store.json) stores no verdict twice", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userMessageOf(body))).body }));
    const f = fake;
    await labelRun({ inputs: [SAMPLES], run: "again", labelsDir: tmp, judges: [judgeOf(f.url, "m")], limit: N, batch: { pollMs: 2 } });
    expect(verdictsOf("again")).toHaveLength(N);
    // as if the process died after storing the verdicts and before marking the chunk processed
    const file = path.join(tmp, "again", "store.json");
    const store = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const e of store.extra.batches) if (e.round === 0) e.status = "submitted";
    store.extra.batches = store.extra.batches.filter((e: { round: number }) => e.round === 0);
    fs.writeFileSync(file, JSON.stringify(store));
    await labelRun({ inputs: [SAMPLES], run: "again", labelsDir: tmp, judges: [judgeOf(f.url, "m")], limit: N, batch: { pollMs: 2 } });
    const vs = verdictsOf("again");
    expect(keysOf(vs)).toHaveLength(new Set(keysOf(vs)).size);
    expect(vs).toHaveLength(N);
  });

  it("a result file the provider no longer has (HTTP 404): warned, its requests judge_error batch_result_gone with an unknown cost, not a stop of the whole command", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userMessageOf(body))).body }));
    const f = fake;
    let gone = 0;
    f.fault = (method, p) => {
      // the first output file's content is gone once
      if (method === "GET" && /^\/files\/[^/]+\/content$/.test(p) && gone++ === 0) return { status: 404, body: { error: { message: "No such File object" } } };
      return undefined;
    };
    const warnings: string[] = [];
    const r = await labelRun({ inputs: [SAMPLES], run: "gone", labelsDir: tmp, judges: [judgeOf(f.url, "m")], limit: N, batch: { pollMs: 2, onWarning: (w) => warnings.push(w) } });
    expect(r.interrupted).toBeFalsy();
    expect(warnings.join("\n")).toMatch(/its output file \S+ is gone \(HTTP 404\): its requests without a result are stored as judge_error batch_result_gone/);
    const vs = verdictsOf("gone");
    expect(vs).toHaveLength(N);
    expect(vs.every((v) => v.status === "judge_error" && v.error.kind === "batch_result_gone" && v.cost_usd === null && v.usage.responses_without_usage === 1)).toBe(true);
    // --retry-errors judges them again, each stored once more (review 27: a stored verdict hid the retried one)
    await labelRun({ inputs: [SAMPLES], run: "gone", labelsDir: tmp, judges: [judgeOf(f.url, "m")], limit: N, retryErrors: true, batch: { pollMs: 2 } });
    const again = verdictsOf("gone");
    expect(again).toHaveLength(2 * N);
    expect(again.slice(N).every((v) => v.status === "ok")).toBe(true);
  });

  it("--retry-errors on the batch path stores the retried verdict (review 27: the earlier error's key hid it, paid again every run)", async () => {
    let bad = true;
    let third = "";
    fake = await startFakeBatch((body, id) => {
      if (!third && id.endsWith("-2")) third = id;
      if (bad && id === third) return { status: 400, body: { error: { code: "invalid_request_error", message: "some bad request" } } };
      return { status: 200, body: completion(benchReply(userMessageOf(body))).body };
    });
    const f = fake;
    const run = (retry: boolean) => labelRun({ inputs: [SAMPLES], run: "re", labelsDir: tmp, judges: [judgeOf(f.url, "m")], limit: N, retryErrors: retry, batch: { pollMs: 2 } });
    await run(false);
    expect(verdictsOf("re").filter((v) => v.status === "judge_error")).toHaveLength(1);
    bad = false;
    const before = f.answered.length;
    await run(true);
    expect(f.answered.length - before).toBe(1);
    const vs = verdictsOf("re");
    expect(vs).toHaveLength(N + 1);
    expect(vs[N].status).toBe("ok");
    await run(true);
    expect(f.answered.length - before).toBe(1);
  });

  it("a judge-level stop (every reply empty: paid) is thrown at once, its replies never sent again and again (review 27)", async () => {
    fake = await startFakeBatch(() => ({ status: 200, body: completion("").body }));
    const f = fake;
    const run = () => labelRun({ inputs: [SAMPLES], run: "empty", labelsDir: tmp, judges: [judgeOf(f.url, "m")], limit: N, batch: { pollMs: 2 } });
    await run();
    const first = f.answered.length;
    await run();
    await run();
    expect(f.answered.length).toBe(first);
  });

  it("an insufficient_quota line stops the judge, the other lines are stored, and once topped up the same command sends it again", async () => {
    let quota = false;
    let third = "";
    fake = await startFakeBatch((body, id) => {
      if (!third && id.endsWith("-2")) third = id;
      if (id === third && !quota) return { status: 429, body: { error: { code: "insufficient_quota", type: "insufficient_quota", message: "You exceeded your current quota" } } };
      return { status: 200, body: completion(benchReply(userMessageOf(body))).body };
    });
    const f = fake;
    const stopped: string[] = [];
    const run = () => labelRun({ inputs: [SAMPLES], run: "quota", labelsDir: tmp, judges: [judgeOf(f.url, "m")], limit: N, onJudgeStopped: (id) => stopped.push(id), batch: { pollMs: 2 } });
    await run();
    expect(stopped).toEqual(["gb"]);
    expect(verdictsOf("quota").filter((v) => v.status === "ok")).toHaveLength(N - 1);
    quota = true;
    await run();
    await run();
    const vs = verdictsOf("quota");
    expect(vs.filter((v) => v.status === "ok")).toHaveLength(N);
    expect(keysOf(vs)).toHaveLength(new Set(keysOf(vs)).size);
    expect(stopped).toEqual(["gb"]);
  });
});

describe("review 28: chunks in flight", () => {
  it("dry run without --batch says label would refuse (label does: UsageError)", async () => {
    const { f } = await leftInFlight("dry-inflight");
    await expect(labelRun({ inputs: [SAMPLES], run: "dry-inflight", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N })).rejects.toThrow(/still in flight/);
    const dry = await dryRun({ inputs: [SAMPLES], run: "dry-inflight", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N });
    expect(dry.label_would_refuse).toBe(true);
  });

  it("a batch the provider no longer has (404 on retrieve): --batch stores its requests as judge_error batch_result_gone and the run finishes", async () => {
    const { f } = await leftInFlight("gone-batch");
    // the provider lost the batch (purged, other account/key, other base_url)
    f.fault = (method, p) => (method === "GET" && /^\/batches\/[^/]+$/.test(p) ? { status: 404, body: { error: { message: "No batch found" } } } : undefined);
    const viaBatch = await labelRun({ inputs: [SAMPLES], run: "gone-batch", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N, batch: { pollMs: 2 } }).then(() => "ok", (e) => `err: ${e.message}`);
    const online = await labelRun({ inputs: [SAMPLES], run: "gone-batch", labelsDir: tmp, judges: [judgeOf(f.url, "model-A")], limit: N }).then(() => "ok", (e) => `err: ${e.message}`);
    // one of the two must be able to finish the run
    expect([viaBatch, online], `${viaBatch}\n${online}`).toContain("ok");
    expect(jsonlLines(path.join(tmp, "gone-batch", "verdicts.jsonl")).length).toBe(N);
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
