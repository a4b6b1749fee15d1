/**
 * Batch API result lines classified by the one classifier of the online path (src/providers/batch-results.ts,
 * issue 23): the same reply is the same outcome online and in a batch (a quota 429 and 401/403 stop the judge, a
 * 200 without choices is resent, content chunks are joined, "length" on a complete reply is a reply), and the
 * result files are not taken on trust (a custom_id twice with different lines, an unknown custom_id). Real loopback
 * Batch API (test/helpers/fake-batch.ts) and real result files.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { classifyBatchLine, readBatchResults, type BatchReadReport, type BatchResultLine } from "../../src/providers/batch-results.js";
import type { FaultState } from "../../src/providers/faults.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, type FakeBatchAnswer, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";
import { jsonlLines as lines, userMessageOf as userOf } from "../helpers/fake-batch.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-cls-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const good = (body: any): FakeBatchAnswer => ({ status: 200, body: completion(benchReply(userOf(body))).body });
const judgeFor = (url: string) =>
  createOpenAIJudge({ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });

describe("Batch result lines: the online outcome", () => {
  it("a quota 429 line stops the judge (as online), not a resend as transient", async () => {
    fake = await startFakeBatch(() => ({ status: 429, body: { error: { message: "You exceeded your current quota, please check your plan and billing details.", type: "insufficient_quota", code: "insufficient_quota" } } }));
    const res = await labelRun({ inputs: [SAMPLES], run: "q", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 3, batch: { pollMs: 5 } });
    expect(Object.keys(res.stoppedJudges)).toEqual(["gpt-batch"]);
    expect(res.stoppedJudges["gpt-batch"]).toMatch(/quota/);
    expect(fake.batches).toHaveLength(1);
    expect(lines(path.join(tmp, "q", "verdicts.jsonl"))).toHaveLength(0);
  });

  it("a 401 line stops the judge (one stop, not one error per item)", async () => {
    fake = await startFakeBatch(() => ({ status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } } }));
    const res = await labelRun({ inputs: [SAMPLES], run: "a", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 3, batch: { pollMs: 5 } });
    expect(res.stoppedJudges["gpt-batch"]).toMatch(/credentials/);
    expect(lines(path.join(tmp, "a", "verdicts.jsonl"))).toHaveLength(0);
  });

  it("chunked content, 'length' on a complete reply and a 200 without choices (resent) end as online", async () => {
    fake = await startFakeBatch((body, id) => {
      const n = Number(id.split("-").pop());
      const b = good(body).body as any;
      if (id.includes("-f")) return good(body);
      if (n === 0) b.choices[0].message.content = [{ type: "thinking", thinking: [{ type: "text", text: "draft" }] }, { type: "text", text: b.choices[0].message.content }];
      if (n === 1) b.choices[0].finish_reason = "length";
      if (n === 2) return { status: 200, body: { id: "x", object: "chat.completion", usage: { prompt_tokens: 10, completion_tokens: 1 } } };
      return { status: 200, body: b };
    });
    await labelRun({ inputs: [SAMPLES], run: "c", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 3, batch: { pollMs: 5 } });
    const vs = lines(path.join(tmp, "c", "verdicts.jsonl"));
    expect(vs.map((v) => v.status)).toEqual(["ok", "ok", "ok"]);
    expect(vs.some((v) => (v.provider_notes ?? []).join(" ").includes('finish_reason "length"'))).toBe(true);
  });
});

describe("Batch result files are not taken on trust", () => {
  const state: FaultState = {
    judgeId: "j",
    timeoutMs: 0,
    timedOut: false,
    aborted: false,
    canDropTemperature: false,
    canSwitchTokenParam: false,
    neverAnswered: false,
    maxRetryAfterMs: Infinity,
    random: () => 0.5,
  };
  const ok = (content: string) => ({ status_code: 200, body: completion(content).body });

  it("a custom_id twice with different lines is a conflict (no label); repeated identical lines are read once; lines without an id are counted", async () => {
    const f = path.join(tmp, "out.jsonl");
    fs.writeFileSync(
      f,
      [
        { custom_id: "k-0", response: ok('{"label":"unaffected"}') },
        { custom_id: "k-0", response: ok('{"label":"full_compliance"}') },
        { custom_id: "k-1", response: ok("same") },
        { custom_id: "k-1", response: ok("same") },
        { response: ok("no id") },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n") + "\n",
    );
    const into = new Map<string, BatchResultLine>();
    const report: BatchReadReport = { conflicts: [], repeated: 0, withoutId: 0 };
    await readBatchResults(f, into, report);
    expect(report).toEqual({ conflicts: ["k-0"], repeated: 1, withoutId: 1 });
    expect(classifyBatchLine(into.get("k-0")!, state, {}).kind).toBe("conflict");
    const k1 = classifyBatchLine(into.get("k-1")!, state, {});
    expect(k1.kind === "completion" && k1.reply.kind).toBe("reply");
  });

  it("an error line without OpenAI's envelope keeps its reason (vLLM's bare body)", () => {
    const r = classifyBatchLine({ status: 400, body: { object: "error", message: "This model's maximum context length is 4096 tokens.", code: 400 } as never }, state, {});
    expect(r.kind).toBe("fault");
    if (r.kind === "fault" && r.fault.action === "error") expect([r.fault.kind, r.fault.message]).toEqual(["context_length", expect.stringContaining("maximum context length")]);
    else throw new Error(`unexpected ${JSON.stringify(r)}`);
  });

  it("a label run says result lines whose custom_id no request had", async () => {
    fake = await startFakeBatch((body) => good(body));
    fake.extraOutput = [JSON.stringify({ custom_id: "stray-9", response: ok("stray") })];
    const warnings: string[] = [];
    await labelRun({ inputs: [SAMPLES], run: "u", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 2, batch: { pollMs: 5, onWarning: (w) => warnings.push(w) } });
    expect(lines(path.join(tmp, "u", "verdicts.jsonl"))).toHaveLength(2);
    expect(warnings.join(" ")).toMatch(/custom_id no request of this chunk had/);
  });
});
