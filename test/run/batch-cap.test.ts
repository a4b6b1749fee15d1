/**
 * The cost cap on the Batch API path (src/run/batch-cap.ts). Before: `label --max-cost` refused `--batch`, and a
 * library caller's `labelRun({maxCostUsd, batch})` reserved nothing for batch judges, so every item was sent whatever
 * the cap. Now each conversation queued for a batch reserves its worst case at the price the batch bills (the batch
 * price; without one the online price, an upper bound), the cap holds back what would pass it, a chunk sent by an
 * earlier invocation reserves its worst case before anything new (before: nothing, and a resume sent the whole cap
 * beside it), and the cap says which price it reserved at. Real `openai` client against a loopback Batch API
 * (test/helpers/fake-batch.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { dryRun } from "../../src/run/dry-run.js";
import { formatDryRun } from "../../src/run/dry-run-text.js";
import { reserveCostUsd } from "../../src/run/cost-cap.js";
import { readTrajectories } from "../../src/ingest/index.js";
import { completion } from "../helpers/fake-openai.js";
import { jsonlLines, startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

const ONLINE = { input_per_mtok: 2, output_per_mtok: 8 };
const BATCH = { batch_input_per_mtok: 1, batch_output_per_mtok: 4 };
let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-cap-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const judgeOf = (url: string, price: Record<string, number>) => createOpenAIJudge({ id: "bj", model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000, price }, { retries: 2, minQuoteChars: 12 });
/** The first n trajectories of the samples, in the order label reads them. */
async function firstTrajectories(n: number) {
  const out = [];
  for await (const it of readTrajectories([SAMPLES])) {
    if (it.kind === "trajectory") out.push(it.trajectory);
    if (out.length === n) break;
  }
  return out;
}

describe("--max-cost on the Batch API path", () => {
  for (const withBatchPrice of [true, false])
    it(`reserves at ${withBatchPrice ? "the batch price" : "the online price (no batch price: an upper bound)"} and holds back what would pass the cap`, async () => {
      fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
      const price = withBatchPrice ? { ...ONLINE, ...BATCH } : ONLINE;
      const judge = judgeOf(fake.url, price);
      const ts = await firstTrajectories(8);
      const atBatch = ts.map((t) => reserveCostUsd(t, judge, {}, true));
      const atOnline = ts.map((t) => reserveCostUsd(t, judge, {}, false));
      if (withBatchPrice) expect(atBatch[0]).toBeCloseTo(atOnline[0] / 2, 12); // half price
      else expect(atBatch).toEqual(atOnline);
      // a cap that 4 reservations fit at the price the batch bills
      const cap = atBatch.slice(0, 4).reduce((a, b) => a + b, 0) * 1.0001;
      const name = `cap-${withBatchPrice}`;
      const r = await labelRun({ inputs: [SAMPLES], run: name, labelsDir: tmp, judges: [judge], limit: 8, maxCostUsd: cap, batch: { pollMs: 2 } });
      expect(fake.answered).toHaveLength(4); // before: 8 (no reservation on the batch path)
      expect(r.costCap).toMatchObject({ reached: true, priced_at: withBatchPrice ? { batch: 4 } : { online_upper_bound: 4 } });
      const vs = jsonlLines(path.join(tmp, name, "verdicts.jsonl"));
      expect(vs).toHaveLength(4);
      // spent = the stored verdicts' costs, by hand (100 prompt + 20 completion tokens a request at the price recorded)
      const p = withBatchPrice ? { i: 1, o: 4 } : { i: 2, o: 8 };
      const byHand = vs.reduce((a, v) => a + (v.attempts * (100 * p.i + 20 * p.o)) / 1e6, 0);
      expect(r.costCap!.spent_usd).toBeCloseTo(byHand, 12);
      expect(r.costCap!.spent_usd).toBeLessThanOrEqual(cap);
      expect(JSON.parse(fs.readFileSync(path.join(tmp, name, "store.json"), "utf8")).label_state.state).toBe("cost_cap");
      // a higher cap resumes the rest
      const r2 = await labelRun({ inputs: [SAMPLES], run: name, labelsDir: tmp, judges: [judge], limit: 8, maxCostUsd: 1, batch: { pollMs: 2 } });
      expect(r2.costCap?.reached).toBe(false);
      expect(fake.answered).toHaveLength(8);
    });

  it("a chunk sent by an earlier invocation reserves its worst case at the batch price before anything new: the resume cannot send more than the cap allows; the CLI takes --max-cost with --batch and says the price", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    fake.hold = true;
    const judge = judgeOf(fake.url, { ...ONLINE, ...BATCH });
    const ac = new AbortController();
    // the first invocation sends its batch (3 conversations) and is stopped while the batch runs
    const first = labelRun({ inputs: [SAMPLES], run: "held", labelsDir: tmp, judges: [judge], limit: 3, signal: ac.signal, batch: { pollMs: 5 } });
    for (let i = 0; i < 400 && fake.batches.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    ac.abort();
    expect((await first).interrupted).toBe(true);
    fake.hold = false;
    const atBatch = (await firstTrajectories(6)).map((t) => reserveCostUsd(t, judge, {}, true));
    const inFlight = atBatch[0] + atBatch[1] + atBatch[2];
    // room for the 3 in flight and one new conversation: before, the 3 reserved nothing and 3 new ones were sent
    const cap = (inFlight + atBatch[3]) * 1.0001;
    // the dry run says the same before anything is sent: the in-flight reservation, one new conversation let through
    const dry = await dryRun({ inputs: [SAMPLES], run: "held", labelsDir: tmp, judges: [judge], limit: 6, maxCostUsd: cap, batch: {} });
    expect(dry.cost_cap).toMatchObject({ conversations: 3, let_through: 1, held_back: 2, batch_in_flight: { conversations: 3, priced_at: { batch: 3 } } });
    expect(dry.cost_cap!.batch_in_flight!.reserved_usd).toBeCloseTo(inFlight, 12);
    expect(dry.cost_cap!.reserved_usd).toBeCloseTo(atBatch[3], 12);
    expect(formatDryRun(dry)).toMatch(
      /reserved \(worst case, at the batch price for 3\) for 3 conversation\(s\) in Batch API chunks an earlier invocation left in flight.*\n.*the cap lets through 1 of the 3 conversation\(s\) label would start/,
    );
    expect(fake.batches).toHaveLength(1);
    // a chunk whose state file cannot be read reserves nothing: said as not reserved, never as $0 reserved in silence
    const dir = path.join(tmp, "held", "batches", "bj");
    const state = fs.readdirSync(dir).find((f) => f.endsWith(".state.jsonl"))!;
    fs.renameSync(path.join(dir, state), path.join(dir, `${state}.away`));
    const blind = await dryRun({ inputs: [SAMPLES], run: "held", labelsDir: tmp, judges: [judge], limit: 6, maxCostUsd: cap, batch: {} });
    fs.renameSync(path.join(dir, `${state}.away`), path.join(dir, state));
    expect(blind.cost_cap!.batch_in_flight).toMatchObject({ conversations: 3, reserved_usd: 0, not_reserved: 3, priced_at: {} });
    expect(formatDryRun(blind)).toMatch(/3 of them in chunks whose state file cannot be read are NOT reserved: the cap cannot bound them/);
    const r = await labelRun({ inputs: [SAMPLES], run: "held", labelsDir: tmp, judges: [judge], limit: 6, maxCostUsd: cap, batch: { pollMs: 2 } });
    expect(r.costCap).toMatchObject({ reached: true, priced_at: { batch: 1 }, batch_in_flight: { conversations: 3, priced_at: { batch: 3 } } });
    expect(r.costCap!.batch_in_flight!.reserved_usd).toBeCloseTo(inFlight, 12);
    expect(r.costCap!.batch_in_flight!.not_reserved).toBeUndefined();
    expect(r.costCap!.held!.reserved_usd).toBeCloseTo(inFlight + atBatch[3], 12); // the in-flight worst case held item 5 back
    expect(fake.batches).toHaveLength(2);
    expect(fake.answered).toHaveLength(4);
    const vs = jsonlLines(path.join(tmp, "held", "verdicts.jsonl"));
    expect(vs).toHaveLength(4);
    expect(r.costCap!.spent_usd).toBeCloseTo(vs.reduce((a, v) => a + v.cost_usd, 0), 12);
    const summary = JSON.parse(fs.readFileSync(path.join(tmp, "held", "summary.json"), "utf8"));
    expect(summary.cost_cap.batch_in_flight).toMatchObject({ conversations: 3, priced_at: { batch: 3 } });

    // the CLI takes --max-cost with --batch (it refused it) and says the price it reserved at
    const cfg = path.join(tmp, "cli.json");
    fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "bj", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true, max_tokens: 1000, price: { ...ONLINE, ...BATCH } }] }));
    const c = await runCli(["label", SAMPLES, "--judges", cfg, "--run", "cli", "--labels-dir", tmp, "--limit", "3", "--batch", "--batch-poll", "0.01", "--progress", "off", "--max-cost", "1"]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/cost cap: \$0\.\d+ of \$1 spent by the run .*\(reserved at the batch price for 3 conversation\(s\)\)/);
  });
});

// verifier 37: at --max-cost 0.05 each --batch invocation judged 2 conversations, spent $0.0041 and said "COST CAP
// REACHED ... run again with a higher --max-cost", while the same cap judged 2 more on each rerun: every conversation
// queued for a batch stays reserved at its worst case until the batch comes back. The words now say what held them.
describe("--max-cost with --batch: held back by worst-case reservations, not by what was spent", () => {
  it("says the cap held items back and that the same command judges more; the rerun with the same cap does", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    const price = { ...ONLINE, ...BATCH };
    const atBatch = (await firstTrajectories(8)).map((t) => reserveCostUsd(t, judgeOf(fake!.url, price), {}, true));
    // room for 2 reservations and half of a third; each conversation costs a small part of its reservation
    const cap = Number((atBatch[0] + atBatch[1] + atBatch[2] / 2).toFixed(6));
    const cfg = path.join(tmp, "held-cli.json");
    fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "bj", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true, max_tokens: 1000, price }] }));
    const args = ["label", SAMPLES, "--judges", cfg, "--run", "heldcli", "--labels-dir", tmp, "--limit", "8", "--batch", "--batch-poll", "0.01", "--progress", "off", "--max-cost", String(cap)];
    const a = await runCli(args);
    expect(a.code, a.stderr).toBe(1);
    expect(fake.answered).toHaveLength(2);
    expect(a.stderr).toMatch(/the cost cap held items back, not reached: the run has spent \$0\.\d+ of --max-cost .*worst-case estimates reserved for the conversations in flight \(\$0\.\d+; .*the same command with the same --max-cost judges more of them/);
    expect(a.stderr).not.toMatch(/run again with a higher --max-cost to resume/);
    expect(a.stdout).toMatch(/COST CAP HELD ITEMS BACK: .*the same command judges more/);
    expect(a.stdout).not.toMatch(/COST CAP REACHED/);
    const s1 = JSON.parse(fs.readFileSync(path.join(tmp, "heldcli", "summary.json"), "utf8"));
    expect(s1.cost_cap).toMatchObject({ reached: true });
    expect(s1.cost_cap.spent_usd).toBeLessThan(cap / 10);
    expect(s1.cost_cap.held.next_usd).toBeCloseTo(atBatch[2], 6);
    // what the words say: the same cap judges more
    const b = await runCli(args);
    expect(fake.answered.length).toBeGreaterThan(2);
    expect(jsonlLines(path.join(tmp, "heldcli", "verdicts.jsonl")).length).toBe(fake.answered.length);
    expect(b.code === 0 || /held items back|cost cap was reached/.test(b.stderr)).toBe(true);
  });
});

