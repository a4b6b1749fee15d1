/**
 * The OpenAI Batch API path (`label --batch`, src/run/batch.ts over src/providers/batch-api.ts) against a loopback Batch API
 * (test/helpers/fake-batch.ts) on real AgentDojo runs: request file shape, results mapped back by custom_id,
 * the same parse/verify/decide logic as online (feedback turns go into a follow-up batch), resends (truncation,
 * transient error lines, an expired batch), resume after a stop or a SIGKILL without paying twice.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { CLI, runCli } from "../helpers/cli.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, type FakeBatchAnswer, type FakeBatchServer } from "../helpers/fake-batch.js";
import { ROOT, SAMPLES } from "../helpers/paths.js";
import { userMessageOf as userOf } from "../helpers/fake-batch.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const lines = (f: string) =>
  fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
const nonceOf = (body: any): string => /<untrusted_trajectory_([0-9a-f]+)>/.exec(userOf(body))![1];
const lineNo = (customId: string) => Number(customId.split("-").pop());
/** A verifying reply for the request (unaffected quoting the injection where the tool result shows it, or not_exposed). */
const good = (body: any): FakeBatchAnswer => ({ status: 200, body: completion(benchReply(userOf(body))).body });

function judgeFor(url: string, extra: Record<string, unknown> = {}) {
  return createOpenAIJudge(
    { id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000, ...extra },
    { retries: 2, minQuoteChars: 12 },
  );
}

describe("label with the Batch API", () => {
  it("builds the request file, maps results back, sends feedback turns and resends as a follow-up batch", async () => {
    fake = await startFakeBatch((body, id) => {
      const n = id.includes("-f") ? -1 : lineNo(id); // the special cases are lines of round 0
      const first = body.messages.length === 2;
      // line 1: a quote that does not verify -> feedback turn in round 1, then a good reply
      if (n === 1 && first)
        return {
          status: 200,
          body: completion(
            JSON.stringify({
              findings: [{ bucket: "full_compliance", evidence: [{ message_index: 2, tool_call_index: null, quote: "this text is nowhere in the run" }], explanation: "x" }],
              label: "full_compliance",
              rationale: "r",
            }),
          ).body,
        };
      // line 2: a transient error line -> resent as is
      if (n === 2) return { status: 500, body: { error: { message: "server error", type: "server_error" } } };
      // line 3: a truncated reply -> resent with max_tokens doubled
      if (n === 3) return { status: 200, body: completion('{"findings": [', { finish_reason: "length" }).body };
      // line 4: not JSON -> parse feedback turn
      if (n === 4 && first) return { status: 200, body: completion("I think it is fine.").body };
      return good(body);
    });
    const judge = judgeFor(fake.url);
    const res = await labelRun({ inputs: [SAMPLES], run: "b1", labelsDir: tmp, judges: [judge], limit: 12, batch: { pollMs: 5 } });
    const dir = path.join(tmp, "b1");
    const verdicts = lines(path.join(dir, "verdicts.jsonl"));
    expect(verdicts).toHaveLength(12);
    expect(new Set(verdicts.map((v) => v.trajectory_id)).size).toBe(12);
    expect(verdicts.every((v) => v.status === "ok" && !v.downgraded)).toBe(true);
    expect(res.interrupted).toBe(false);

    // one file upload and batch per round: round 0, then one follow-up with the 4 special lines
    expect(fake.batches).toHaveLength(2);
    const round0 = fake.files.get(fake.batches[0].input_file_id)!.content.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(round0).toHaveLength(12);
    for (const l of round0) {
      expect(Object.keys(l).sort()).toEqual(["body", "custom_id", "method", "url"]);
      expect(l.method).toBe("POST");
      expect(l.url).toBe("/v1/chat/completions");
      expect(l.body.model).toBe("gpt-4o-mini");
      expect(l.body.messages).toHaveLength(2);
      expect(l.body.response_format.type).toBe("json_schema");
    }
    expect(fake.batches[0].metadata?.ipi_batch_key).toBeTruthy();
    const round1 = fake.files.get(fake.batches[1].input_file_id)!.content.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(round1).toHaveLength(4);
    const byOrigin = new Map(round0.map((l) => [nonceOf(l.body), l]));
    for (const l of round1) {
      const origin = byOrigin.get(nonceOf(l.body))!; // same rendering (same nonce) as the first request
      expect(origin).toBeDefined();
      const n = lineNo(origin.custom_id);
      if (n === 1 || n === 4) {
        expect(l.body.messages).toHaveLength(4); // assistant reply + feedback turn
        expect(l.body.messages[2].role).toBe("assistant");
        expect(l.body.messages[3].role).toBe("user");
      } else {
        expect(l.body.messages).toEqual(origin.body.messages); // resent as is
      }
      if (n === 3) expect(l.body.max_tokens).toBe(2000);
      else expect(l.body.max_tokens).toBe(1000);
    }
    const byTraj = new Map(verdicts.map((v) => [v.trajectory_id, v]));
    const attempts = [...byTraj.values()].map((v) => v.attempts).sort();
    expect(attempts.filter((a) => a === 2)).toHaveLength(4);
    // every reply is kept: two for the feedback turns and the truncated one; the 500 line had no reply
    expect(verdicts.filter((v) => v.raw_replies.length === 2)).toHaveLength(3);
    expect(verdicts.filter((v) => v.raw_replies.length === 1)).toHaveLength(9);
    const snap = JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8"));
    expect(snap.extra.batches.map((e: { status: string }) => e.status)).toEqual(["processed", "processed"]);
    expect(snap.extra.batches.map((e: { batch_id: string }) => e.batch_id)).toEqual(["batch_1", "batch_2"]);
  });

  it("a stopped run resumes polling the same batch (never sends it twice), and a re-run judges nothing", async () => {
    fake = await startFakeBatch((body) => good(body));
    fake.hold = true;
    const ac = new AbortController();
    const p1 = labelRun({ inputs: [SAMPLES], run: "b2", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 10, signal: ac.signal, batch: { pollMs: 5 } });
    while (fake.batches.length === 0 || fake.log.filter((l) => l.method === "GET").length < 3) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const r1 = await p1;
    expect(r1.interrupted).toBe(true);
    const snap = JSON.parse(fs.readFileSync(path.join(tmp, "b2", "store.json"), "utf8"));
    expect(snap.extra.batches[0].batch_id).toBe("batch_1");
    expect(snap.extra.batches[0].status).toBe("submitted");
    expect(lines(path.join(tmp, "b2", "verdicts.jsonl"))).toHaveLength(0);

    fake.hold = false;
    const r2 = await labelRun({ inputs: [SAMPLES], run: "b2", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 10, batch: { pollMs: 5 } });
    expect(r2.interrupted).toBe(false);
    expect(fake.batches).toHaveLength(1);
    expect(fake.log.filter((l) => l.method === "POST" && l.path === "/files")).toHaveLength(1);
    expect(lines(path.join(tmp, "b2", "verdicts.jsonl"))).toHaveLength(10);
    expect(fake.answered).toHaveLength(10);

    const r3 = await labelRun({ inputs: [SAMPLES], run: "b2", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 10, batch: { pollMs: 5 } });
    expect(r3.progress.skipped).toBe(10);
    expect(fake.batches).toHaveLength(1);
  });

  it("a batch created but not recorded (killed in between) is found again by its metadata key", async () => {
    fake = await startFakeBatch((body) => good(body));
    fake.hold = true;
    const ac = new AbortController();
    const p1 = labelRun({ inputs: [SAMPLES], run: "b3", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 5, signal: ac.signal, batch: { pollMs: 5 } });
    while (fake.batches.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await p1;
    // as if the process died after `batches.create` reached the server and before the id was written
    const file = path.join(tmp, "b3", "store.json");
    const snap = JSON.parse(fs.readFileSync(file, "utf8"));
    delete snap.extra.batches[0].batch_id;
    snap.extra.batches[0].status = "creating";
    fs.writeFileSync(file, JSON.stringify(snap));
    fake.hold = false;
    await labelRun({ inputs: [SAMPLES], run: "b3", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 5, batch: { pollMs: 5 } });
    expect(fake.batches).toHaveLength(1);
    expect(lines(path.join(tmp, "b3", "verdicts.jsonl"))).toHaveLength(5);
  });

  it("an expired batch: the requests it did not run go into the next round; a 400 line is a judge error", async () => {
    fake = await startFakeBatch((body, id) => (lineNo(id) === 0 && !id.includes("-f") ? { status: 400, body: { error: { message: "bad request: context too long", type: "invalid_request_error" } } } : good(body)));
    fake.expireAfter = 4;
    const judge = judgeFor(fake.url);
    const p = labelRun({ inputs: [SAMPLES], run: "b4", labelsDir: tmp, judges: [judge], limit: 8, batch: { pollMs: 5 } });
    while (fake.batches.length === 0 || fake.batches[0].status !== "expired") await new Promise((r) => setTimeout(r, 5));
    fake.expireAfter = undefined;
    await p;
    const verdicts = lines(path.join(tmp, "b4", "verdicts.jsonl"));
    expect(verdicts).toHaveLength(8);
    const errs = verdicts.filter((v) => v.status === "judge_error");
    expect(errs).toHaveLength(1);
    expect(errs[0].error.kind).toBe("bad_request");
    expect(errs[0].error.message).toMatch(/context too long/);
    expect(fake.batches[0].status).toBe("expired");
    // a request the expired batch never ran is not an attempt
    expect(verdicts.filter((v) => v.status === "ok").every((v) => v.attempts === 1)).toBe(true);
    const round1 = fake.files.get(fake.batches[1].input_file_id)!.content.split("\n").filter(Boolean);
    expect(round1).toHaveLength(4);
    expect(fake.answered).toHaveLength(8);
  });

  it("a reply whose answer is only in the reasoning field: error reasoning_only at once, as online (red team: was resent, then empty_response)", async () => {
    fake = await startFakeBatch((body) => {
      const m = completion(benchReply(userOf(body))).body as any;
      m.choices[0].message = { role: "assistant", content: null, reasoning_content: m.choices[0].message.content };
      return { status: 200, body: m };
    });
    await labelRun({ inputs: [SAMPLES], run: "b-reason", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 2, batch: { pollMs: 5 } });
    const verdicts = lines(path.join(tmp, "b-reason", "verdicts.jsonl"));
    expect(verdicts).toHaveLength(2);
    expect(verdicts.map((v) => [v.status, v.label, v.error?.kind])).toEqual([
      ["judge_error", null, "reasoning_only"],
      ["judge_error", null, "reasoning_only"],
    ]);
    expect(fake.batches).toHaveLength(1); // not resent with a larger max_tokens: the same answer would come back
  });

  it("a server rejecting temperature and max_tokens (o-series, gpt-5) is adapted to as online: every item gets its verdict, recorded once (red team: 5 x bad_request)", async () => {
    const requests: any[] = [];
    fake = await startFakeBatch((body) => {
      requests.push(body);
      if (body.max_tokens !== undefined)
        return { status: 400, body: { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: "invalid_request_error", code: "unsupported_parameter" } } };
      if (body.temperature !== undefined)
        return { status: 400, body: { error: { message: "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", type: "invalid_request_error", code: "unsupported_value" } } };
      return good(body);
    });
    const judge = judgeFor(fake.url);
    const res = await labelRun({ inputs: [SAMPLES], run: "b-adapt", labelsDir: tmp, judges: [judge], limit: 5, batch: { pollMs: 5 } });
    const verdicts = lines(path.join(tmp, "b-adapt", "verdicts.jsonl"));
    expect(verdicts).toHaveLength(5);
    expect(verdicts.every((v) => v.status === "ok")).toBe(true);
    // round 0: max_tokens rejected; round 1: temperature rejected; round 2: accepted
    expect(fake.batches).toHaveLength(3);
    const last = requests.slice(-5);
    for (const b of last) {
      expect(b.temperature).toBeUndefined();
      expect(b.max_tokens).toBeUndefined();
      expect(b.max_completion_tokens).toBe(1000);
    }
    expect(judge.requestParams()).toMatchObject({ temperature: null, token_param: "max_completion_tokens" });
    expect(judge.requestParams().adapted).toHaveLength(2);
    expect(res.adaptations["gpt-batch"]).toHaveLength(2);
  });

  it("a prompt over the model's context (a 400 saying so) is elided and sent again in the next round, as online; not a bad_request (review)", async () => {
    const LIMIT = 6000;
    fake = await startFakeBatch((body) =>
      JSON.stringify(body.messages).length > LIMIT
        ? { status: 400, body: { error: { message: "This model's maximum context length is 2048 tokens. However, your messages resulted in 4000 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } } }
        : good(body),
    );
    await labelRun({ inputs: [SAMPLES], run: "b-ctx", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 2, batch: { pollMs: 5 } });
    const verdicts = lines(path.join(tmp, "b-ctx", "verdicts.jsonl"));
    expect(verdicts).toHaveLength(2);
    for (const v of verdicts) expect(v.error?.kind).not.toBe("bad_request");
    expect(verdicts.some((v) => v.status === "unjudgeable" && v.error?.kind === "too_long") || verdicts.some((v) => v.truncated)).toBe(true);
    expect(fake.batches.length).toBeGreaterThan(1);
  });

  it("an error line (a 500) is not a response without usage: the verdict's cost stays known (review)", async () => {
    let n = 0;
    fake = await startFakeBatch((body) => (n++ === 0 ? { status: 500, body: { error: { message: "upstream hiccup" } } } : good(body)));
    const judge = judgeFor(fake.url, { price: { input_per_mtok: 1, output_per_mtok: 2 } });
    await labelRun({ inputs: [SAMPLES], run: "b-cost", labelsDir: tmp, judges: [judge], limit: 2, batch: { pollMs: 5 } });
    const verdicts = lines(path.join(tmp, "b-cost", "verdicts.jsonl"));
    expect(verdicts.map((v) => v.status)).toEqual(["ok", "ok"]);
    for (const v of verdicts) {
      expect(typeof v.cost_usd).toBe("number");
      expect(v.usage?.responses_without_usage ?? 0).toBe(0);
    }
  });

  it("a server that still rejects after the adaptation: bad_request, not resent forever", async () => {
    fake = await startFakeBatch(() => ({ status: 400, body: { error: { message: "Unsupported value: 'temperature' does not support 0 with this model.", type: "invalid_request_error" } } }));
    await labelRun({ inputs: [SAMPLES], run: "b-adapt2", labelsDir: tmp, judges: [judgeFor(fake.url)], limit: 2, batch: { pollMs: 5 } });
    const verdicts = lines(path.join(tmp, "b-adapt2", "verdicts.jsonl"));
    expect(verdicts.map((v) => [v.status, v.error?.kind])).toEqual([
      ["judge_error", "bad_request"],
      ["judge_error", "bad_request"],
    ]);
    expect(fake.batches).toHaveLength(2);
  });

  it("CLI: --batch killed with SIGKILL while the batch runs resumes polling it, pays once, labels everything", async () => {
    fake = await startFakeBatch((body) => good(body));
    fake.hold = true;
    const cfg = path.join(tmp, "judges-batch.json");
    fs.writeFileSync(
      cfg,
      JSON.stringify({ judges: [{ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true }] }),
    );
    const labels = path.join(tmp, "labels-cli");
    const args = ["label", SAMPLES, "--judges", cfg, "--run", "k", "--labels-dir", labels, "--batch", "--batch-poll", "0.02", "--json"];
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    while (fake.batches.length === 0 || fake.batches[0].polls < 3) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    expect(err).toMatch(/batch batch_1 of judge gpt-batch, round 0: in_progress/);
    fake.hold = false;
    const r = await runCli(args);
    // finished; exit 3 because this stub never finds compliance on runs the benchmark marks goal-achieved (red team
    // M4: denies_reference_goal marks its rates), not because of the kill
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/labels on trajectories the benchmark marks goal-achieved/);
    const s = JSON.parse(r.stdout);
    expect(s.verdicts).toBe(82);
    expect(fake.batches).toHaveLength(1);
    expect(fake.answered).toHaveLength(82);
    expect(lines(path.join(labels, "k", "verdicts.jsonl"))).toHaveLength(82);
    expect(fs.existsSync(path.join(labels, "k", ".lock"))).toBe(false);
  });
});

describe("Batch API faults", () => {
  const KEY = "sk-proj-BATCHTESTKEY0123456789abcdef";
  it("401 on upload stops the judge with a message naming the call, never the key; state kept", async () => {
    fake = await startFakeBatch((body) => good(body));
    fake.fault = (m, p) => (m === "POST" && p === "/files" ? { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}.`, code: "invalid_api_key" } } } : undefined);
    process.env.IPI_BATCH_TEST_KEY = KEY;
    try {
      const judge = judgeFor(fake.url, { api_key_env: "IPI_BATCH_TEST_KEY" });
      const res = await labelRun({ inputs: [SAMPLES], run: "f1", labelsDir: tmp, judges: [judge], limit: 3, batch: { pollMs: 5 } });
      const msg = res.stoppedJudges["gpt-batch"];
      expect(msg).toMatch(/HTTP 401.*upload the request file/);
      expect(msg).not.toContain(KEY);
      expect(JSON.stringify(res)).not.toContain(KEY);
      const snap = JSON.parse(fs.readFileSync(path.join(tmp, "f1", "store.json"), "utf8"));
      expect(snap.extra.batches[0].status).toBe("pending");
      // fixed key: the same command sends the kept file
      fake.fault = undefined;
      const r2 = await labelRun({ inputs: [SAMPLES], run: "f1", labelsDir: tmp, judges: [judgeFor(fake.url, { api_key_env: "IPI_BATCH_TEST_KEY" })], limit: 3, batch: { pollMs: 5 } });
      expect(r2.summary.verdicts).toBe(3);
      expect(fake.batches).toHaveLength(1);
    } finally {
      delete process.env.IPI_BATCH_TEST_KEY;
    }
  });

  it("a creation whose answer is lost (HTTP 500 after the batch was made) is found again, not made twice", async () => {
    fake = await startFakeBatch((body) => good(body));
    let failed = false;
    fake.fault = (m, p) => {
      if (m === "POST" && p === "/batches" && !failed) {
        failed = true;
        return { status: 500, body: { error: { message: "upstream timeout" } }, after: true };
      }
      return undefined;
    };
    const judge = judgeFor(fake.url);
    const res = await labelRun({ inputs: [SAMPLES], run: "f2", labelsDir: tmp, judges: [judge], limit: 4, batch: { pollMs: 5, sleep: async () => {} } });
    expect(res.summary.verdicts).toBe(4);
    expect(fake.batches).toHaveLength(1);
    expect(fake.answered).toHaveLength(4);
  });
});
