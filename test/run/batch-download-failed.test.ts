/**
 * A Batch API result download that keeps failing (HTTP 5xx after its retries, a body cut every time) used to throw out
 * of `label`: no summary.json, no `--json`, nothing saying which results were missing. Now the judge is stopped with
 * the reason, `batch_unfinished` says what is not collected, every verdict stored before is kept, and the next
 * invocation downloads the results (never sending the requests again). Real `openai` client, loopback Batch API
 * (test/helpers/fake-batch.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { completion } from "../helpers/fake-openai.js";
import { jsonlLines as lines, startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-dlfail-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const PRICE = { input_per_mtok: 1, output_per_mtok: 10, batch_input_per_mtok: 0.5, batch_output_per_mtok: 5 };
const good = (body: any) => ({ status: 200, body: completion(benchReply(userOf(body))).body });
const judge = (url: string) =>
  createOpenAIJudge({ id: "gb", model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000, price: PRICE, timeout_s: 2 }, { retries: 2, minQuoteChars: 12 });
const run = (name: string, f: FakeBatchServer, limit: number) =>
  labelRun({ inputs: [SAMPLES], run: name, labelsDir: tmp, judges: [judge(f.url)], limit, batch: { pollMs: 2, sleep: async () => {} } });
const downloads = (f: FakeBatchServer) => f.log.filter((x) => x.method === "GET" && /^\/files\/.+\/content$/.test(x.path)).length;

describe("label --batch: a result download that keeps failing", () => {
  for (const fault of ["HTTP 503", "body cut"] as const)
    it(`${fault}: summary.json and the result say what is missing and why, the verdicts stored before are kept, the rerun downloads the rest`, async () => {
      fake = await startFakeBatch(good);
      const name = fault === "HTTP 503" ? "s503" : "cut";
      const dir = path.join(tmp, name);
      // an earlier invocation stored 3 verdicts
      await run(name, fake, 3);
      expect(lines(path.join(dir, "verdicts.jsonl"))).toHaveLength(3);
      // the next one sends 3 more, and their result file cannot be downloaded
      let failing = true;
      if (fault === "HTTP 503") fake.fault = (m, p) => (failing && m === "GET" && /^\/files\/.+\/content$/.test(p) ? { status: 503, body: { error: { message: "down" } } } : undefined);
      else fake.partialDownload = () => (failing ? "cut" : undefined);
      const before = downloads(fake);
      const r = await run(name, fake, 6);
      expect(downloads(fake) - before).toBe(6); // the first try and 5 retries
      expect(r.stoppedJudges.gb).toMatch(/could not download the result file file-\d+ of batch batch_2 .*run the same command again to resume.*3 request\(s\) in 1 batch\(es\) not collected \(batch_2\); the 0 verdict\(s\) stored before are kept/);
      const summary = JSON.parse(fs.readFileSync(path.join(dir, "summary.json"), "utf8"));
      expect(summary.label_started_at).toBe(JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8")).label_state.started_at); // this invocation's
      expect(summary.batch_unfinished.gb).toMatchObject({ requests: 3, verdicts_stored: 0, batches: [{ batch_id: "batch_2", status: "completed", requests: 3 }] });
      expect(summary.batch_unfinished.gb.reason).toMatch(fault === "HTTP 503" ? /HTTP 503/ : /connection was cut/);
      expect(r.summary.batch_unfinished).toEqual(summary.batch_unfinished); // what --json prints
      expect(summary.stopped_judges.gb).toBe(r.stoppedJudges.gb);
      expect(summary.verdicts).toBe(3); // the verdicts stored before, kept
      expect(formatSummary(r.summary)).toMatch(/BATCH RESULTS NOT COLLECTED \(judge "gb"\): 3 request\(s\) in 1 batch\(es\) \(batch_2 completed\) have no stored verdict/);
      expect(JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8")).label_state.state).toBe("stopped_judges");
      expect(lines(path.join(dir, "verdicts.jsonl"))).toHaveLength(3);

      // the provider serves the file again: the rerun downloads it, sends nothing again
      failing = false;
      const r2 = await run(name, fake, 6);
      expect(r2.stoppedJudges).toEqual({});
      expect(r2.summary.batch_unfinished).toBeUndefined();
      expect(r2.summary.verdicts).toBe(6);
      expect(fake.batches).toHaveLength(2);
      expect(fake.answered).toHaveLength(6);
      expect(JSON.parse(fs.readFileSync(path.join(dir, "summary.json"), "utf8")).batch_unfinished).toBeUndefined();
    });
});
