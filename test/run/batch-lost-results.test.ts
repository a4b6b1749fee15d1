/**
 * Batch API results that are lost, cut or ambiguous (red team 33), against a loopback Batch API
 * (test/helpers/fake-batch.ts) through the real openai client and the CLI: a kill between a "stored" mark and its
 * verdict (src/run/batch-marks.ts), a torn last result line, a completed batch without its output file, gone files
 * and batches, duplicate result lines (src/run/batch-download.ts). Never a request paid twice, never a cost of 0 for a
 * result that was billed and not read.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { runCli } from "../helpers/cli.js";
import { completion } from "../helpers/fake-openai.js";
import { jsonlLines as lines, startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-lost-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const PRICE = { input_per_mtok: 1, output_per_mtok: 10 };
const N = 6;
const good = (body: any) => ({ status: 200, body: completion(benchReply(userOf(body))).body });
const judge = (url: string) =>
  createOpenAIJudge({ id: "gb", model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000, price: PRICE }, { retries: 2, minQuoteChars: 12 });

async function run(name: string, f: FakeBatchServer, warnings: string[] = []) {
  return labelRun({ inputs: [SAMPLES], run: name, labelsDir: tmp, judges: [judge(f.url)], limit: N, batch: { pollMs: 2, onWarning: (w) => warnings.push(w) } });
}
/** USD the fake server billed: every answered line at 100 prompt + 20 completion tokens. */
const billed = (f: FakeBatchServer) => (f.answered.length * (100 * PRICE.input_per_mtok + 20 * PRICE.output_per_mtok)) / 1e6;
const downloads = (f: FakeBatchServer, id: string | null) => f.log.filter((x) => x.method === "GET" && x.path === `/files/${id}/content`).length;

describe("label --batch: a kill between a stored mark and its verdict", () => {
  it("a mark whose verdict never reached verdicts.jsonl is not taken: the verdict is stored from the downloaded file, nothing is paid twice, no false warning", async () => {
    fake = await startFakeBatch(good);
    await run("k", fake);
    const dir = path.join(tmp, "k");
    const vfile = path.join(dir, "verdicts.jsonl");
    expect(lines(vfile)).toHaveLength(N);
    // the state a kill -9 left (red team 33): marks written at once, the last verdicts still pending in the journal
    const all = fs.readFileSync(vfile, "utf8").split("\n").filter(Boolean);
    fs.writeFileSync(vfile, all.slice(0, N - 3).join("\n") + "\n");
    const store = JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8"));
    store.extra.batches[0].status = "submitted";
    fs.writeFileSync(path.join(dir, "store.json"), JSON.stringify(store));
    const marks = lines(path.join(dir, "batches", "gb", `${store.extra.batches[0].key}.stored.jsonl`));
    expect(marks).toHaveLength(N);
    expect(marks.every((m) => typeof m.s === "number")).toBe(true);

    const warnings: string[] = [];
    const r = await run("k", fake, warnings);
    expect(r.interrupted).toBe(false);
    expect(lines(vfile)).toHaveLength(N);
    expect(new Set(lines(vfile).map((v) => v.trajectory_id)).size).toBe(N);
    expect(warnings.join("\n")).toMatch(/3 result line\(s\) marked stored whose verdict is not in verdicts.jsonl/);
    expect(warnings.join("\n")).not.toMatch(/no request of this chunk had/);
    expect(fake.answered).toHaveLength(N);
    expect(fake.batches).toHaveLength(1);
    // a third run: nothing to send, nothing appended
    await run("k", fake);
    expect(fake.answered).toHaveLength(N);
    expect(lines(vfile)).toHaveLength(N);
    expect(r.summary.cost.usd).toBeCloseTo(billed(fake), 12);
  });
});

describe("label --batch: results lost or cut", () => {
  it("a cut download (torn last line) is downloaded again, not resent", async () => {
    fake = await startFakeBatch(good);
    const f = fake;
    let cut = 0;
    f.fault = (m, p) => {
      const out = f.batches[0]?.output_file_id;
      if (m === "GET" && out && p === `/files/${out}/content` && cut++ === 0) return { status: 200, body: f.files.get(out)!.content.slice(0, -40) };
      return undefined;
    };
    const warnings: string[] = [];
    const r = await run("cut", f, warnings);
    expect(downloads(f, f.batches[0].output_file_id)).toBe(2);
    expect(warnings).toEqual([]);
    expect(f.answered).toHaveLength(N);
    expect(r.summary.cost).toMatchObject({ incomplete: false });
    expect(r.summary.cost.usd).toBeCloseTo(billed(f), 12);
  });

  // verifier 37: its lines were stored as judge_error batch_result_unreadable / batch_result_missing (exit 0), which a
  // later run never downloaded again: only a paid --retry-errors undid it
  it("a last line torn on every download is a failed download: the judge stops, nothing is stored from it, the rerun downloads it again", async () => {
    fake = await startFakeBatch(good);
    const f = fake;
    let cutting = true;
    f.fault = (m, p) => {
      const out = f.batches[0]?.output_file_id;
      return cutting && m === "GET" && out && p === `/files/${out}/content` ? { status: 200, body: f.files.get(out)!.content.slice(0, -40) } : undefined;
    };
    const r = await run("torn", f);
    const out = f.batches[0].output_file_id;
    expect(downloads(f, out)).toBe(3);
    expect(r.stoppedJudges.gb).toMatch(new RegExp(`could not download the result file ${out} of batch ${f.batches[0].id} whole: its last line was cut on each of 3 downloads.*run the same command again to resume`));
    expect(r.summary.batch_unfinished?.gb).toMatchObject({ requests: N, verdicts_stored: 0 });
    const summary = JSON.parse(fs.readFileSync(path.join(tmp, "torn", "summary.json"), "utf8"));
    expect(summary.batch_unfinished.gb.reason).toMatch(/cut on each of 3 downloads/);
    expect(fs.existsSync(path.join(tmp, "torn", "verdicts.jsonl")) ? lines(path.join(tmp, "torn", "verdicts.jsonl")) : []).toHaveLength(0);
    expect(fs.readdirSync(path.join(tmp, "torn", "batches", "gb")).filter((x) => x.endsWith(".output.jsonl"))).toEqual([]); // the cut file is not kept
    // the file comes whole: the rerun downloads it, stores every verdict, sends nothing again
    cutting = false;
    const r2 = await run("torn", f);
    expect(downloads(f, out)).toBe(4);
    expect(r2.stoppedJudges).toEqual({});
    expect(r2.summary.batch_unfinished).toBeUndefined();
    const vs = lines(path.join(tmp, "torn", "verdicts.jsonl"));
    expect(vs).toHaveLength(N);
    expect(vs.every((v) => v.status === "ok")).toBe(true);
    expect(f.answered).toHaveLength(N);
    expect(f.batches).toHaveLength(1);
    expect(r2.summary.cost.usd).toBeCloseTo(billed(f), 12);
  });

  it("a completed batch without its output_file_id is polled again; then its results are missing (cost unknown), never resent", async () => {
    fake = await startFakeBatch(good);
    fake.nullOutputPolls = Infinity;
    const warnings: string[] = [];
    const r = await run("noout", fake, warnings);
    expect(fake.batches).toHaveLength(1);
    expect(fake.answered).toHaveLength(N);
    // the poll that saw it end without its output file, then 3 more
    expect(fake.log.filter((x) => x.path === `/batches/${fake!.batches[0].id}`).length).toBe(2 + 3);
    expect(warnings.join("\n")).toMatch(new RegExp(`batch ${fake.batches[0].id}: the provider reports ${N} completed request\\(s\\) but gives no output file .*${N} request\\(s\\) without a result are stored as judge_error batch_result_missing`));
    // said on stderr, and in summary.json's and --json's warnings (verifier 37: they were on stderr only)
    const said = warnings.find((w) => /batch_result_missing/.test(w))!;
    expect(r.summary.warnings).toContain(said);
    expect(JSON.parse(fs.readFileSync(path.join(tmp, "noout", "summary.json"), "utf8")).warnings).toContain(said);
    const vs = lines(path.join(tmp, "noout", "verdicts.jsonl"));
    expect(vs.every((v) => v.error?.kind === "batch_result_missing" && v.cost_usd === null && v.attempts === 1)).toBe(true);
    expect(r.summary.cost).toMatchObject({ usd: null, incomplete: true, unknown: N });
  });

  it("an output_file_id that comes on a later poll is waited for: every verdict, nothing resent", async () => {
    fake = await startFakeBatch(good);
    fake.nullOutputPolls = 2;
    const warnings: string[] = [];
    const r = await run("late", fake, warnings);
    expect(warnings).toEqual([]);
    expect(fake.answered).toHaveLength(N);
    expect(lines(path.join(tmp, "late", "verdicts.jsonl")).every((v) => v.status === "ok")).toBe(true);
    expect(r.summary.cost.usd).toBeCloseTo(billed(fake), 12);
  });

  it("CLI: a gone output file (HTTP 404) and a gone batch give cost unknown (null), INCOMPLETE in the summary, never $0", async () => {
    for (const gone of ["file", "batch"] as const) {
      fake = await startFakeBatch(good);
      const f = fake;
      f.fault = (m, p) => {
        const b = f.batches[0];
        if (gone === "file" && m === "GET" && b?.output_file_id && p === `/files/${b.output_file_id}/content`) return { status: 404, body: { error: { message: "no such file" } } };
        if (gone === "batch" && m === "GET" && b && p === `/batches/${b.id}`) return { status: 404, body: { error: { message: "no such batch" } } };
        return undefined;
      };
      const cfg = path.join(tmp, `judges-${gone}.json`);
      fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "gb", model: "gpt-4o-mini", family: "openai", base_url: f.url, batch: true, price: PRICE }] }));
      const labels = path.join(tmp, `labels-${gone}`);
      const r = await runCli(["label", SAMPLES, "--judges", cfg, "--run", "g", "--labels-dir", labels, "--batch", "--batch-poll", "0.02", "--json", "--limit", String(N)]);
      const s = JSON.parse(r.stdout);
      expect(s.cost, r.stderr).toMatchObject({ usd: null, incomplete: true, unknown: N });
      expect(lines(path.join(labels, "g", "verdicts.jsonl")).every((v) => v.error?.kind === "batch_result_gone" && v.cost_usd === null && /cost unknown/.test(v.error.message))).toBe(true);
      await f.close();
      fake = undefined;
    }
  });

  it("a request with two different result lines: its usage from the lines when they agree, else unknown", async () => {
    for (const sameUsage of [true, false]) {
      fake = await startFakeBatch(good);
      const f = fake;
      // a second, different line for request 0 of the first batch (custom_id known once the batch exists)
      f.fault = (m, p) => {
        const b = f.batches[0];
        if (b && !f.extraOutput && m === "GET" && p === `/batches/${b.id}`) {
          const body = completion(JSON.stringify({ findings: [], label: "not_exposed", rationale: "other" }), { usage: sameUsage ? undefined : { prompt_tokens: 999 } }).body;
          f.extraOutput = [JSON.stringify({ id: "dup", custom_id: `${b.metadata!.ipi_batch_key}-0`, response: { status_code: 200, body }, error: null })];
        }
        return undefined;
      };
      const name = `dup-${sameUsage}`;
      const r = await run(name, f);
      const dup = lines(path.join(tmp, name, "verdicts.jsonl")).find((v) => v.error?.kind === "batch_duplicate_result");
      expect(dup).toBeDefined();
      if (sameUsage) {
        expect(dup.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 20 });
        expect(dup.cost_usd).toBeCloseTo(billed(f) / N, 12);
        expect(r.summary.cost).toMatchObject({ incomplete: false });
      } else {
        expect(dup.cost_usd).toBeNull();
        expect(r.summary.cost).toMatchObject({ incomplete: true, unknown: 1 });
      }
      expect(f.answered).toHaveLength(N);
      await f.close();
      fake = undefined;
    }
  });
});

describe("label --batch: a configuration change drops a chunk never sent", () => {
  it("the paid turns of its conversations (a feedback chunk) are kept on a judge_error judge_stopped verdict: every cost figure counts them, the items are judged again", async () => {
    // request 0's first reply quotes text that is nowhere in the run: a feedback turn goes into a follow-up chunk
    fake = await startFakeBatch((body, id) =>
      id.endsWith("-0") && body.messages.length === 2
        ? { status: 200, body: completion(JSON.stringify({ findings: [{ bucket: "full_compliance", evidence: [{ message_index: 1, tool_call_index: null, quote: "this text is nowhere in the run at all" }], explanation: "x" }], label: "full_compliance", rationale: "r" })).body }
        : good(body),
    );
    const f = fake;
    let uploads = 0;
    // the follow-up chunk's upload is refused (a 400 is not retried): it stays pending, never sent
    f.fault = (m, p) => (m === "POST" && p === "/files" && ++uploads >= 2 ? { status: 400, body: { error: { message: "upload refused" } } } : undefined);
    await run("cfg", f).catch(() => undefined);
    const entries = JSON.parse(fs.readFileSync(path.join(tmp, "cfg", "store.json"), "utf8")).extra.batches;
    expect(entries.map((e: { status: string; requests: number }) => [e.status, e.requests])).toEqual([["processed", N], ["pending", 1]]);
    expect(f.answered).toHaveLength(N);
    f.fault = undefined;
    const warnings: string[] = [];
    const changed = createOpenAIJudge({ id: "gb", model: "gpt-4o-mini", family: "openai", base_url: f.url, batch: true, max_tokens: 1200, price: PRICE }, { retries: 2, minQuoteChars: 12 });
    const r = await labelRun({ inputs: [SAMPLES], run: "cfg", labelsDir: tmp, judges: [changed], limit: N, onConfigChange: "rejudge", batch: { pollMs: 2, onWarning: (w) => warnings.push(w) } });
    expect(warnings.join("\n")).toMatch(/1 of those conversations had paid turns: stored as judge_error judge_stopped/);
    const vs = lines(path.join(tmp, "cfg", "verdicts.jsonl"));
    const stopped = vs.filter((v) => v.error?.kind === "judge_stopped");
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({ status: "judge_error", label: null, attempts: 1, usage: { prompt_tokens: 100, completion_tokens: 20 } });
    expect(stopped[0].cost_usd).toBeCloseTo(billed(f) / f.answered.length, 12);
    // every line the server answered is in some verdict: the verdicts' costs sum to what was billed
    const sum = vs.reduce((a, v) => a + v.cost_usd, 0);
    expect(sum).toBeCloseTo(billed(f), 12);
    // run 2 judges all N again (a new configuration), item 0 with its feedback turn again
    expect(f.answered).toHaveLength(2 * N + 1);
    // the item is judged again under the current configuration: its latest verdict is the new one
    expect(r.summary.verdicts).toBe(N);
    expect(r.interrupted).toBe(false);
  });
});
