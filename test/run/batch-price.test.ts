/**
 * Red team 33 F6 and F8, through the built CLI and the real `openai` client against a loopback Batch API:
 * - F6: Batch API verdicts are costed at the judge's batch price (`price.batch_*`); without one, at the online price
 *   marked as an upper bound (`cost_basis`, `cost.upper_bound`, a warning, "at most"), never printed as the bill;
 *   the dry run's estimate under `--batch` likewise.
 * - F8: `label --dry-run --batch` with a batch in flight says it would poll it and counts no request for its items
 *   (it said "label would refuse ... run label with --batch" and counted them again).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { parseJudgesConfig } from "../../src/config/judges.js";
import { completion } from "../helpers/fake-openai.js";
import { jsonlLines, startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { CLI, runCli } from "../helpers/cli.js";
import { spawn } from "node:child_process";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-price-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const ONLINE = { input_per_mtok: 2, output_per_mtok: 8 };
const BATCH = { batch_input_per_mtok: 1, batch_output_per_mtok: 4 };

/** A fake Batch API whose replies bill ~1 token per 3 characters of the messages (what the test sums as billed). */
async function billingServer(): Promise<{ f: FakeBatchServer; billed: () => { prompt: number; completion: number } }> {
  const usage: Array<{ prompt_tokens: number; completion_tokens: number }> = [];
  const f = await startFakeBatch((body) => {
    const u = { prompt_tokens: Math.ceil(JSON.stringify(body.messages).length / 3), completion_tokens: 57 };
    usage.push(u);
    return { status: 200, body: completion(benchReply(userOf(body)), { usage: u }).body };
  });
  return { f, billed: () => ({ prompt: usage.reduce((a, u) => a + u.prompt_tokens, 0), completion: usage.reduce((a, u) => a + u.completion_tokens, 0) }) };
}

function judgesFile(url: string, price: Record<string, number>, name: string): string {
  const f = path.join(tmp, `${name}.json`);
  fs.writeFileSync(f, JSON.stringify({ judges: [{ id: "bj", model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000, price }] }));
  return f;
}
const label = (judges: string, run: string, ...extra: string[]) =>
  runCli(["label", SAMPLES, "--judges", judges, "--run", run, "--labels-dir", tmp, "--limit", "4", "--batch", "--batch-poll", "0.01", "--progress", "off", ...extra]);

describe("Batch API prices (red team 33 F6)", () => {
  it("with price.batch_*: verdicts, summary and --json at the batch price, the figure the server's billed tokens give", async () => {
    const { f, billed } = await billingServer();
    fake = f;
    const r = await label(judgesFile(f.url, { ...ONLINE, ...BATCH }, "bp"), "bp", "--json");
    expect(r.stderr).not.toMatch(/UPPER BOUND/);
    const out = JSON.parse(r.stdout);
    const b = billed();
    const expected = (b.prompt * BATCH.batch_input_per_mtok + b.completion * BATCH.batch_output_per_mtok) / 1e6;
    expect(f.answered).toHaveLength(4);
    expect(out.cost.usd).toBeCloseTo(expected, 9);
    expect(out.cost.upper_bound).toBeUndefined();
    const vs = jsonlLines(path.join(tmp, "bp", "verdicts.jsonl"));
    expect(vs.map((v) => v.cost_basis)).toEqual(["batch", "batch", "batch", "batch"]);
    // half the online figure for these prices
    expect(out.cost.usd).toBeCloseTo((b.prompt * ONLINE.input_per_mtok + b.completion * ONLINE.output_per_mtok) / 2e6, 9);
  });

  it("without a batch price: the online figure, marked an UPPER BOUND in the verdicts, the summary, --json and a warning", async () => {
    const { f, billed } = await billingServer();
    fake = f;
    const judges = judgesFile(f.url, ONLINE, "nobp");
    const r = await label(judges, "nobp", "--json");
    const out = JSON.parse(r.stdout);
    const b = billed();
    expect(out.cost.usd).toBeCloseTo((b.prompt * ONLINE.input_per_mtok + b.completion * ONLINE.output_per_mtok) / 1e6, 9);
    expect(out.cost.upper_bound).toBe(4);
    expect(out.judges[0].cost.upper_bound).toBe(4);
    expect(out.warnings.join("\n")).toMatch(/judge "bj": its cost is an UPPER BOUND, not the bill: 4 verdict\(s\) sent through the Batch API and priced at the online price: no batch price \(price\.batch_input_per_mtok/);
    expect(r.stderr).toMatch(/UPPER BOUND, not the bill/);
    expect(jsonlLines(path.join(tmp, "nobp", "verdicts.jsonl")).map((v) => v.cost_basis)).toEqual(Array(4).fill("online_upper_bound"));
    // text: the run's summary again (nothing left to do) says "at most"
    const text = await label(judges, "nobp");
    expect(text.stdout).toMatch(/cost: at most \$[0-9.]+ \(UPPER BOUND: 4 verdict\(s\) sent through the Batch API/);
    expect(text.stdout).toMatch(/cost of the run: at most \$/);
  });

  it("the dry run under --batch estimates at the batch price, or marks the online figure an upper bound", async () => {
    fake = await startFakeBatch();
    const est = async (price: Record<string, number>, name: string) => JSON.parse((await label(judgesFile(fake!.url, price, name), `dry-${name}`, "--dry-run", "--json")).stdout);
    const withBp = await est({ ...ONLINE, ...BATCH }, "dbp");
    const without = await est(ONLINE, "dnobp");
    expect(withBp.judges[0].priced_at).toBe("batch");
    expect(withBp.judges[0].price).toEqual({ input_per_mtok: 1, cached_input_per_mtok: 1, output_per_mtok: 4 });
    expect(without.judges[0].priced_at).toBe("online_upper_bound");
    // the same requests (a fresh nonce per rendering moves the count by a few tokens, up to ~1% here): about half
    expect(withBp.estimated_cost_usd / without.estimated_cost_usd).toBeCloseTo(0.5, 1);
    const text = await label(judgesFile(fake.url, ONLINE, "dtext"), "dry-text", "--dry-run");
    expect(text.stdout).toMatch(/UPPER BOUND: priced at the online price: its config gives no batch price/);
    expect(fake.log).toEqual([]);
  });

  it("batch prices come in pairs (schema)", () => {
    const cfg = (price: Record<string, number>) => ({ judges: [{ id: "j", model: "m", family: "openai", price: { ...ONLINE, ...price } }] });
    expect(() => parseJudgesConfig(cfg({ batch_input_per_mtok: 1 }))).toThrow(/must have property batch_output_per_mtok when property batch_input_per_mtok is present/);
    expect(() => parseJudgesConfig(cfg({ batch_cached_input_per_mtok: 1 }))).toThrow(/batch_input_per_mtok/);
    expect(parseJudgesConfig(cfg(BATCH)).judges[0].price).toEqual({ ...ONLINE, ...BATCH });
  });
});

describe("label --dry-run --batch with a batch in flight (red team 33 F8)", () => {
  it("says it would poll the batch, counts no request for its items, exits 0; label --batch then polls and uploads nothing", async () => {
    const { f } = await billingServer();
    fake = f;
    const judges = judgesFile(f.url, { ...ONLINE, ...BATCH }, "fly");
    // a batch sent and still running when the first invocation stopped
    f.hold = true;
    const first = spawn(process.execPath, [CLI, "label", SAMPLES, "--judges", judges, "--run", "fly", "--labels-dir", tmp, "--limit", "4", "--batch", "--batch-poll", "0.01", "--progress", "off"], { stdio: "ignore" });
    const gone = new Promise((r) => first.on("exit", r));
    while (f.batches.length === 0 || f.batches[0].polls === 0) await new Promise((r) => setTimeout(r, 5));
    first.kill("SIGKILL");
    await gone;
    const dry = await label(judges, "fly", "--dry-run", "--json");
    expect(dry.code).toBe(0);
    expect(dry.stderr).not.toMatch(/would refuse/);
    const j = JSON.parse(dry.stdout);
    expect(j.label_would_refuse).toBe(false);
    expect(j.batches_to_poll).toMatch(/^label --batch would poll the Batch API chunks of an earlier run still in flight \(judge "bj": 4 request\(s\) in 1 chunk\(s\), 4 item\(s\)\) and send nothing new for their items/);
    expect(j.judges[0]).toMatchObject({ requests: 0, awaiting_batch: 4, estimated_cost_usd: 0 });
    const text = await label(judges, "fly", "--dry-run");
    expect(text.stdout).toMatch(/judge bj \(gpt-4o-mini\): 0 requests \(0 verdicts already stored, skipped; 4 item\(s\) awaited from Batch API chunks in flight, not sent again\)/);
    expect(text.stdout).toMatch(/note: label --batch would poll/);
    // without --batch the refusal stands (judged online, they would be paid twice)
    const online = await runCli(["label", SAMPLES, "--judges", judges, "--run", "fly", "--labels-dir", tmp, "--limit", "4", "--dry-run", "--json"]);
    expect(online.code).toBe(2);
    expect(JSON.parse(online.stdout).label_would_refuse).toBe(true);
    // the real label --batch: polls, uploads nothing new, stores the 4 verdicts
    f.hold = false;
    const uploads = () => f.log.filter((l) => l.method === "POST" && l.path === "/files").length;
    const before = uploads();
    const real = await label(judges, "fly", "--json");
    expect(JSON.parse(real.stdout).verdicts).toBe(4);
    expect(uploads()).toBe(before);
    expect(f.answered).toHaveLength(4);
  });
});
