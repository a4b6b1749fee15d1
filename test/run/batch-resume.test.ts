/**
 * The Batch API path over several invocations (issue 26, point 5, at small size; `bench/batch.ts` runs it at 100k+):
 * many chunks, a stop in the middle of the submission, a stop while the batches run (polling goes on in the next
 * invocation), expired batches with partial results (the rest resubmitted), chunk files of a killed process that
 * were never listed (removed), and a re-run with nothing to do. At the end every trajectory has one verdict, and
 * the server answered every conversation exactly once (custom_id -> trajectory from the chunks' keys files).
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
import { jsonlLines as lines, userMessageOf as userOf } from "../helpers/fake-batch.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-resume-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});


describe("label --batch across invocations", () => {
  it("stopped mid-submission and mid-poll, expired batches resubmitted: one verdict each, every conversation paid once", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    const f = fake;
    const judge = () => createOpenAIJudge({ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: f.url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
    const N = 40;
    const run = (signal?: AbortSignal) => labelRun({ inputs: [SAMPLES], run: "m", labelsDir: tmp, judges: [judge()], limit: N, signal, batch: { pollMs: 2, maxRequests: 6 } });
    const dir = path.join(tmp, "m");
    const bdir = path.join(dir, "batches", "gpt-batch");
    const entries = () => JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8")).extra.batches as Array<{ key: string; status: string; batch_id?: string; round: number }>;

    // 1. batches held in progress; stopped once three of the seven chunks were created
    f.hold = true;
    let ac = new AbortController();
    let creates = 0;
    f.fault = (method, p) => {
      if (method === "POST" && p === "/batches" && ++creates === 3) setImmediate(() => ac.abort());
      return undefined;
    };
    const r1 = await run(ac.signal);
    expect(r1.interrupted).toBe(true);
    expect(f.batches).toHaveLength(3);
    expect(entries()).toHaveLength(7);
    expect(entries().filter((e) => e.batch_id)).toHaveLength(3);
    // the submitted chunks' request files are gone (the provider has them), the pending ones are kept
    expect(fs.readdirSync(bdir).filter((x) => x.endsWith(".requests.jsonl"))).toHaveLength(4);
    // a chunk written by a process killed before listing it: never sent, removed by the next invocation
    fs.writeFileSync(path.join(bdir, "r0-orphan-9.requests.jsonl"), "{}\n");
    fs.writeFileSync(path.join(bdir, "r0-orphan-9.state.jsonl"), "{}\n");

    // 2. the rest submitted (the three created are polled, not sent again); stopped while they run
    ac = new AbortController();
    let polls = 0;
    f.fault = (method, p) => {
      if (method === "GET" && /^\/batches\/batch_\d+$/.test(p) && ++polls === 14) setImmediate(() => ac.abort());
      return undefined;
    };
    const r2 = await run(ac.signal);
    expect(r2.interrupted).toBe(true);
    expect(f.batches).toHaveLength(7);
    expect(f.answered).toHaveLength(0);
    expect(fs.existsSync(path.join(bdir, "r0-orphan-9.state.jsonl"))).toBe(false);

    // 3. batches end; every third expires with half its lines run (partial results): the rest go into round 1
    f.fault = undefined;
    f.hold = false;
    f.expireEvery = 3;
    const r3 = await run();
    expect(r3.interrupted).toBe(false);
    expect(f.batches.filter((b) => b.status === "expired").length).toBeGreaterThanOrEqual(2);
    expect(entries().some((e) => e.round === 1)).toBe(true);
    expect(entries().every((e) => e.status === "processed")).toBe(true);

    // 4. nothing left: nothing sent
    const before = f.batches.length;
    const r4 = await run();
    expect(r4.interrupted).toBe(false);
    expect(f.batches).toHaveLength(before);

    const verdicts = lines(path.join(dir, "verdicts.jsonl"));
    expect(verdicts).toHaveLength(N);
    expect(new Set(verdicts.map((v) => v.trajectory_id)).size).toBe(N);
    expect(verdicts.every((v) => v.status === "ok" && v.attempts === 1)).toBe(true);
    // the server's side: each custom_id answered once, each trajectory's conversation answered once
    const answered = f.answered.map((a) => a.custom_id);
    expect(new Set(answered).size).toBe(answered.length);
    const byId = new Map<string, string>();
    for (const k of fs.readdirSync(bdir).filter((x) => x.endsWith(".keys.jsonl"))) for (const l of lines(path.join(bdir, k))) byId.set(l.c, l.t);
    const paid = new Map<string, number>();
    for (const id of answered) paid.set(byId.get(id)!, (paid.get(byId.get(id)!) ?? 0) + 1);
    expect(paid.size).toBe(N);
    expect([...paid.values()].every((c) => c === 1)).toBe(true);
  });
});
