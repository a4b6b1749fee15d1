/**
 * Red team 33 F7: a result file whose body is cut or stalls midway (`BatchApi.download`, src/providers/batch-api.ts).
 * The body is read inside the retry wrapper and under the judge's timeout; a failure names the judge and the file
 * and says that a rerun resumes; a stop of the run (Ctrl-C) ends a stalled download at once. Real `openai` client,
 * loopback Batch API.
 */
import { spawn } from "node:child_process";
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
import { CLI, runCli } from "../helpers/cli.js";
import { userMessageOf as userOf } from "../helpers/fake-batch.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-download-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const judgeOn = (url: string, timeout_s = 120) =>
  createOpenAIJudge({ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000, timeout_s }, { retries: 2, minQuoteChars: 12 });
const outputDownloads = (f: FakeBatchServer) => f.log.filter((l) => l.method === "GET" && /^\/files\/.+\/content$/.test(l.path)).length;

describe("Batch API result downloads cut or stalled midway", () => {
  it("a body cut once is downloaded again: every item labelled, nothing sent twice", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    fake.partialDownload = (_id, n) => (n === 1 ? "cut" : undefined);
    const res = await labelRun({ inputs: [SAMPLES], run: "cut", labelsDir: tmp, judges: [judgeOn(fake.url)], limit: 3, batch: { pollMs: 5, sleep: async () => {} } });
    expect(res.summary.verdicts).toBe(3);
    expect(res.summary.judges[0].by_status).toEqual({ ok: 3 });
    expect(fake.batches).toHaveLength(1);
    expect(fake.answered).toHaveLength(3);
    expect(outputDownloads(fake)).toBe(2);
  });

  it("a body that stalls every time: retried under timeout_s, then the judge stops naming itself and the file (summary written); the rerun resumes", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    fake.partialDownload = () => "stall";
    // timeout_s 1: the stall detector's bound; on a loaded machine 0.3 s was shorter than the request's own
    // headers took, so the request timed out before the body stalled (a different failure than the one tested)
    const run = () => labelRun({ inputs: [SAMPLES], run: "stall", labelsDir: tmp, judges: [judgeOn(fake!.url, 1)], limit: 3, batch: { pollMs: 5, sleep: async () => {} } });
    // no longer thrown out of label (no summary.json then): the judge is stopped with it (test/run/batch-download-failed.test.ts)
    const first = await run();
    expect(first.summary.batch_unfinished?.["gpt-batch"]?.requests).toBe(3);
    expect(first.stoppedJudges["gpt-batch"]).toMatch(/^judge "gpt-batch": could not download the result file file-\d+ of batch batch_1 \(Batch API\): the result file's body stalled: no bytes for 1 s \(timeout_s\)\. .*run the same command again to resume/);
    // 6 attempts of 1 s each (the backoff sleeps are the test's), not the minutes of a stall: the count says it,
    // not a clock (a hang would meet the test's own timeout)
    expect(outputDownloads(fake)).toBe(6);
    expect(fs.readdirSync(path.join(tmp, "stall", "batches", "gpt-batch")).filter((f) => f.endsWith(".part"))).toEqual([]);
    fake.partialDownload = undefined;
    const res = await run();
    expect(res.summary.verdicts).toBe(3);
    expect(fake.batches).toHaveLength(1);
    expect(fake.answered).toHaveLength(3);
  });

  it("the run's stop (first Ctrl-C) ends a stalled download at once: interrupted, the batch kept for the rerun", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    const ac = new AbortController();
    fake.partialDownload = () => {
      setTimeout(() => ac.abort(), 200);
      return "stall";
    };
    // timeout_s 600: were the stop not to end the stalled download, the test would meet its own timeout (180 s)
    const res = await labelRun({ inputs: [SAMPLES], run: "sigint", labelsDir: tmp, judges: [judgeOn(fake.url, 600)], limit: 3, signal: ac.signal, batch: { pollMs: 5 } });
    expect(res.interrupted).toBe(true);
    expect(res.summary.verdicts).toBe(0);
    fake.partialDownload = undefined;
    const again = await labelRun({ inputs: [SAMPLES], run: "sigint", labelsDir: tmp, judges: [judgeOn(fake.url)], limit: 3, batch: { pollMs: 5 } });
    expect(again.summary.verdicts).toBe(3);
    expect(fake.batches).toHaveLength(1);
  });

  it("the CLI: the first SIGINT during a stalled download stops label (exit 130, --json still printed); the rerun resumes", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    const judges = path.join(tmp, "judges-cli.json");
    fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true, max_tokens: 1000, timeout_s: 600 }] }));
    const args = [CLI, "label", SAMPLES, "--judges", judges, "--run", "cli", "--labels-dir", tmp, "--limit", "3", "--batch", "--batch-poll", "0.01", "--progress", "off", "--json"];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    fake.partialDownload = () => {
      setTimeout(() => child.kill("SIGINT"), 200);
      return "stall";
    };
    // timeout_s 600: were the first SIGINT not to end the stalled download, the test would meet its own timeout
    const code = await exited;
    expect(stderr).toMatch(/stopping: finishing the requests in flight and saving/);
    expect(code).toBe(130);
    expect(JSON.parse(stdout)).toMatchObject({ interrupted: true, verdicts: 0 });
    fake.partialDownload = undefined;
    const again = await runCli(args.slice(1));
    expect(JSON.parse(again.stdout).verdicts).toBe(3);
    expect(fake.batches).toHaveLength(1);
  });
});
