/**
 * A provider's `request_counts` that cannot be true (task s41 #4): checked before the progress line prints them or
 * the download reads them (src/run/batch-counts.ts). Unit cases, then the built CLI against the loopback Batch API
 * (test/helpers/fake-batch.ts) serving completed 7 of 6 and failed -1: the line shows `?`, a warning names the
 * judge, the batch and the field, every result is stored and nothing is sent twice.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { checkRequestCounts } from "../../src/run/batch-counts.js";
import { runCli } from "../helpers/cli.js";
import { completion } from "../helpers/fake-openai.js";
import { jsonlLines as lines, startFakeBatch, userMessageOf as userOf } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-counts-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("checkRequestCounts", () => {
  it("plausible counts pass as given; OpenAI's 0/0/0 while validating too", () => {
    expect(checkRequestCounts({ total: 20, completed: 12, failed: 3 }, 20)).toEqual({ counts: { total: 20, completed: 12, failed: 3 }, problems: [] });
    expect(checkRequestCounts({ total: 0, completed: 0, failed: 0 }, 20)).toEqual({ counts: { total: 0, completed: 0, failed: 0 }, problems: [] });
    expect(checkRequestCounts(undefined, 20)).toEqual({ counts: {}, problems: [] });
  });
  it("a field that is no count, a total other than the requests sent, completed and failed above them: unknown, named", () => {
    const a = checkRequestCounts({ total: 20, completed: 21, failed: -1 }, 20);
    expect(a.counts).toEqual({ total: 20, implausible: expect.any(String) });
    expect(a.problems).toEqual([
      "request_counts.failed is -1, not a count of requests",
      "request_counts.completed 21 and failed ? add up to more than the 20 request(s) sent in this batch",
    ]);
    const b = checkRequestCounts({ total: 25, completed: 1.5, failed: "2" }, 20);
    expect(b.counts).toEqual({ implausible: expect.stringMatching(/^request_counts\.completed is 1\.5/) });
    expect(b.problems).toEqual([
      "request_counts.completed is 1.5, not a count of requests",
      'request_counts.failed is "2", not a count of requests',
      "request_counts.total is 25, not the 20 request(s) sent in this batch",
    ]);
    expect(checkRequestCounts({ completed: 4, failed: 1 }, 20).counts).toEqual({ completed: 4, failed: 1 }); // no total: fine
    expect(checkRequestCounts("lots", 20).problems).toEqual(['request_counts is "lots", not an object of counts']);
  });
});

describe("label --batch (CLI) with a provider's odd request_counts", () => {
  it("completed 7 of 6 and failed -1: the progress line says ?, a warning names the batch and the fields; results stored, nothing resent", async () => {
    const N = 6;
    const fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    try {
      fake.countsServed = (b) => ({ total: b.request_counts.total, completed: b.request_counts.total + 1, failed: -1 });
      const cfg = path.join(tmp, "judges.json");
      fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "gb", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true, price: { input_per_mtok: 1, output_per_mtok: 10 } }] }));
      const labels = path.join(tmp, "labels");
      const r = await runCli(["label", SAMPLES, "--judges", cfg, "--run", "c", "--labels-dir", labels, "--batch", "--batch-poll", "0.02", "--limit", String(N)]);
      expect(r.code, r.stderr).toBe(0);
      const id = fake.batches[0].id;
      expect(r.stderr).toMatch(new RegExp(`batch ${id} of judge gb, round 0: in_progress \\?/${N}, \\? failed`));
      expect(r.stderr).not.toMatch(new RegExp(`${N + 1}/${N}|-1 failed`));
      expect(r.stderr).toMatch(new RegExp(`warning: judge "gb", batch ${id}: the provider's request_counts\\.failed is -1, not a count of requests: not shown as progress`));
      expect(r.stderr).toMatch(new RegExp(`warning: judge "gb", batch ${id}: the provider's request_counts\\.completed ${N + 1} and failed \\? add up to more than the ${N} request\\(s\\) sent in this batch`));
      // said once per batch, not at every poll
      expect(r.stderr.split("request_counts.failed is -1").length - 1).toBe(1);
      // every result line was there: stored, none lost, none sent again
      expect(lines(path.join(labels, "c", "verdicts.jsonl")).filter((v) => v.status === "ok")).toHaveLength(N);
      expect(fake.answered).toHaveLength(N);
      expect(fake.batches).toHaveLength(1);
    } finally {
      await fake.close();
    }
  }, 120_000);

  it("a completed that cannot be true and no output file: the requests are stored as lost (cost unknown), never sent again", async () => {
    const N = 4;
    const fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    try {
      fake.countsServed = (b) => ({ total: b.request_counts.total, completed: "all", failed: 0 });
      fake.nullOutputPolls = Infinity;
      const cfg = path.join(tmp, "judges2.json");
      fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "gb", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true, price: { input_per_mtok: 1, output_per_mtok: 10 } }] }));
      const labels = path.join(tmp, "labels2");
      const r = await runCli(["label", SAMPLES, "--judges", cfg, "--run", "c", "--labels-dir", labels, "--batch", "--batch-poll", "0.02", "--limit", String(N)]);
      const v = lines(path.join(labels, "c", "verdicts.jsonl"));
      expect(v, r.stderr).toHaveLength(N);
      expect(v.every((x) => x.error?.kind === "batch_result_missing" && /request_counts that cannot be true/.test(x.error.message) && x.cost_usd === null)).toBe(true);
      expect(r.stderr).toMatch(/its request_counts cannot be true \(request_counts\.completed is "all", not a count of requests\)/);
      expect(fake.answered).toHaveLength(N);
      expect(fake.batches).toHaveLength(1);
    } finally {
      await fake.close();
    }
  }, 120_000);
});
