/**
 * Red team 33 F9: usage no request could hold (1e15 prompt tokens for ~4k-token prompts read as a $20,200,000,000
 * run, no warning). `implausibleUsage` (src/providers/plausible-usage.ts) and, through the built CLI and the real
 * `openai` client against loopback servers, the verdicts, summary and warnings of the online and the Batch API path.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { IMPLAUSIBLE_USAGE_RATIO, implausibleUsage } from "../../src/providers/plausible-usage.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { jsonlLines, startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let online: FakeOpenAI | undefined;
let batch: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-plausible-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await online?.close();
  await batch?.close();
  online = batch = undefined;
});

const HUGE = { prompt_tokens: 1e15, completion_tokens: 1e12 };

describe("implausibleUsage", () => {
  const shape = { requests: 1, promptChars: 12_000, maxTokens: 1000 };
  it("takes usage a request could hold, templates and dense text included", () => {
    expect(implausibleUsage({ prompt_tokens: 12_000, completion_tokens: 1000 }, shape)).toBeUndefined();
    // the bound: 20 x (12,000 / 3 + 1,000) = 100,000 prompt tokens; 20 x 1,000 completion tokens
    expect(implausibleUsage({ prompt_tokens: 100_000, completion_tokens: 20_000 }, shape)).toBeUndefined();
    expect(implausibleUsage({ prompt_tokens: 3 * 100_000, completion_tokens: 0 }, { ...shape, requests: 3 })).toBeUndefined();
  });
  it("names usage far beyond it", () => {
    expect(implausibleUsage({ prompt_tokens: 100_001, completion_tokens: 10 }, shape)).toBe(
      `the server reported 100001 prompt tokens for 1 request(s) of at most ~5000 tokens each (12000 characters), over ${IMPLAUSIBLE_USAGE_RATIO}x what the requests could hold`,
    );
    expect(implausibleUsage({ prompt_tokens: 10, completion_tokens: 20_001 }, shape)).toMatch(/20001 completion tokens for 1 request\(s\) capped at 1000 tokens each/);
    expect(implausibleUsage({ prompt_tokens: 10, completion_tokens: 20_000_001 }, { ...shape, maxTokens: undefined })).toMatch(/sent without a token limit \(1000000 assumed\)/);
    expect(implausibleUsage(HUGE, shape)).toMatch(/1000000000000000 prompt tokens .* and 1000000000000 completion tokens/);
  });
});

describe("a server reporting absurd usage: no cost, a note, a warning (online and Batch API alike)", () => {
  const check = (run: string, r: { stdout: string; stderr: string }) => {
    const out = JSON.parse(r.stdout);
    expect(out.cost).toMatchObject({ usd: null, counted: 0, unknown: 3, incomplete: true, implausible: 3 });
    expect(out.warnings.join("\n")).toMatch(/judge "bj": 3 verdict\(s\) have no cost: the server reported usage far beyond what their requests could hold/);
    expect(r.stderr).toMatch(/judge "bj" adapted to its server .*WARNING: implausible usage \(first seen: the server reported 1000000000000000 prompt tokens/);
    const vs = jsonlLines(path.join(tmp, run, "verdicts.jsonl"));
    expect(vs).toHaveLength(3);
    for (const v of vs) {
      expect(v.status).toBe("ok");
      expect(v.cost_usd).toBeNull();
      expect(v.cost_basis).toBe("implausible_usage");
      expect(v.usage.prompt_tokens).toBe(1e15);
      expect(v.provider_notes.join("\n")).toMatch(/^implausible usage: the server reported 1000000000000000 prompt tokens for 1 request\(s\)/m);
    }
  };
  const judges = (url: string, batchOn: boolean) => {
    const f = path.join(tmp, `j-${batchOn}.json`);
    fs.writeFileSync(f, JSON.stringify({ judges: [{ id: "bj", model: "gpt-4o-mini", family: "openai", base_url: url, batch: batchOn, max_tokens: 1000, price: { input_per_mtok: 1, output_per_mtok: 10 } }] }));
    return f;
  };

  it("online", async () => {
    online = await startFakeOpenAI((req) => completion(benchReply(userOf(req.body)), { usage: HUGE }));
    const r = await runCli(["label", SAMPLES, "--judges", judges(online.url, false), "--run", "on", "--labels-dir", tmp, "--limit", "3", "--progress", "off", "--json"]);
    check("on", r);
    // text: the judge's cost says why it is unknown
    const text = await runCli(["label", SAMPLES, "--judges", judges(online.url, false), "--run", "on", "--labels-dir", tmp, "--limit", "3", "--progress", "off"]);
    expect(text.stdout).toMatch(/cost: unknown \(3 verdict\(s\) without a known cost: implausible usage reported by the server\)/);
  });

  it("Batch API", async () => {
    batch = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body)), { usage: HUGE }).body }));
    const r = await runCli(["label", SAMPLES, "--judges", judges(batch.url, true), "--run", "b", "--labels-dir", tmp, "--limit", "3", "--batch", "--batch-poll", "0.01", "--progress", "off", "--json"]);
    check("b", r);
  });
});
