/**
 * `label --dry-run` (issue 15 point 2) and `label --max-cost` (point 3), through the built CLI against the
 * loopback fake server (the real `openai` client in the CLI process).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { runCli } from "../helpers/cli.js";
import { CORPUS } from "../helpers/paths.js";

let fake: FakeOpenAI;
let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ipi-cost-cli-"));
  fake = await startFakeOpenAI(() => completion(JSON.stringify({ findings: [], label: "not_exposed", rationale: "x" }), { usage: { prompt_tokens: 10_000, completion_tokens: 100 } }));
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const PRICE = { input_per_mtok: 1, cached_input_per_mtok: 0.5, output_per_mtok: 0 };
function config(over: Record<string, unknown> = {}): string {
  const f = path.join(dir, "judges.json");
  writeFileSync(f, JSON.stringify({ judges: [{ id: "j", model: "gpt-4o-mini", family: "openai", base_url: fake.url, api_key_env: "IPI_DRY_KEY", price: PRICE, ...over }] }));
  return f;
}
function chatInput(n: number): string {
  const f = path.join(dir, "in.jsonl");
  const rows = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `t${i}`, messages: [{ role: "user", content: `please check item ${i}` }, { role: "assistant", content: `item ${i} looks fine` }] }),
  );
  writeFileSync(f, rows.join("\n") + "\n");
  return f;
}
const verdictLines = (run: string) => {
  const f = path.join(dir, "labels", run, "verdicts.jsonl");
  return existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
};

describe("label --dry-run", () => {
  it("counts requests, real-tokenizer prompt tokens, cacheable share and cost; sends and stores nothing; needs no key", async () => {
    const cfg = config();
    const runs = path.join(CORPUS, "runs");
    const r = await runCli(["label", runs, "--judges", cfg, "--run", "d", "--labels-dir", path.join(dir, "labels"), "--limit", "20", "--dry-run", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.judges).toHaveLength(1);
    const j = out.judges[0];
    expect(j).toMatchObject({ id: "j", requests: 20, tokenizer: "o200k_base", already_stored: 0, assumed_output_tokens_per_request: 600 });
    expect(j.prompt_tokens).toBeGreaterThan(20 * 1000);
    expect(j.cacheable_share).toBeGreaterThan(0.05);
    expect(j.cacheable_share).toBeLessThan(1);
    expect(typeof j.estimated_cost_usd).toBe("number");
    expect(j.estimated_cost_usd).toBeGreaterThan(0);
    // the output tokens are those the cost is priced at (the floor: a short verdict per request), not the ceiling's 600
    // (new user 34: 180,000 beside a cost priced at 40 per reply)
    expect(j.estimated_output_tokens).toBe(20 * 40);
    expect(j.estimated_cost_usd).toBeCloseTo(j.cost_range.floor_usd, 12);
    expect(out.assumptions.join(" ")).toMatch(/output tokens/);
    expect(fake.requests).toHaveLength(0);
    expect(existsSync(path.join(dir, "labels"))).toBe(false);
  });

  it("follows resume: after 5 stored verdicts, 5 are skipped; an unknown model's tokens are labelled estimated", async () => {
    const input = chatInput(12);
    const cfg = config({ model: "some-local-model" });
    const env = { IPI_DRY_KEY: "sk-dry-test-key-123456" };
    const first = await runCli(["label", input, "--judges", cfg, "--run", "d", "--labels-dir", path.join(dir, "labels"), "--limit", "5", "--json"], { env });
    expect(first.code, first.stderr).toBe(0);
    const sent = fake.requests.length;
    const r = await runCli(["label", input, "--judges", cfg, "--run", "d", "--labels-dir", path.join(dir, "labels"), "--dry-run"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/7 requests \(5 verdicts already stored, skipped\)/);
    expect(r.stdout).toMatch(/ESTIMATED/);
    expect(fake.requests.length).toBe(sent);
    expect(verdictLines("d")).toHaveLength(5);
  });
});

// the CLI refused --max-cost with --dry-run ("no effect with --dry-run"): a user could not learn what a cap would let
// through before paying; the dry run now reserves in label's order and says it, sending nothing
describe("label --dry-run --max-cost", () => {
  it("says how many conversations the cap lets through at their worst case beside what the run paid; sends nothing; label then judges at least that many", async () => {
    const input = chatInput(12);
    const cfg = config();
    const env = { IPI_DRY_KEY: "sk-dry-test-key-123456" };
    const args = ["label", input, "--judges", cfg, "--run", "dc", "--labels-dir", path.join(dir, "labels")];
    expect((await runCli([...args, "--limit", "5"], { env })).code).toBe(0); // 5 x $0.01 paid
    const sent = fake.requests.length;
    const all = JSON.parse((await runCli([...args, "--dry-run", "--json", "--max-cost", "100"])).stdout);
    expect(all.cost_cap).toMatchObject({ cap_usd: 100, conversations: 7, let_through: 7, held_back: 0, trajectories: 7, trajectories_let_through: 7 });
    expect(all.cost_cap.spent_usd).toBeCloseTo(0.05, 8);
    const mean = all.cost_cap.reserved_usd / 7;
    // room for three and a half worst cases beside what was paid: three let through
    const cap = (0.05 + 3.5 * mean).toFixed(6);
    const r = await runCli([...args, "--dry-run", "--max-cost", cap]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`cost cap \\(--max-cost \\$${cap.replace(".", "\\.")}\\): the run has paid \\$0\\.0500`));
    expect(r.stdout).toMatch(/the cap lets through 3 of the 7 conversation\(s\) label would start .*3 of 7 trajectories whole\); 4 would be held back/);
    expect(fake.requests.length).toBe(sent); // nothing sent
    // label with that cap judges at least the dry run's floor (reservations are released for the real cost)
    await runCli([...args, "--max-cost", cap], { env });
    expect(verdictLines("dc").length - 5).toBeGreaterThanOrEqual(3);
    // a judge without a price is refused as label refuses it
    const f = path.join(dir, "unpriced.json");
    writeFileSync(f, JSON.stringify({ judges: [{ id: "j", model: "m", family: "openai", base_url: fake.url }] }));
    const u = await runCli(["label", input, "--judges", f, "--run", "dc", "--labels-dir", path.join(dir, "labels"), "--dry-run", "--max-cost", "1"]);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/needs a price for every judge/);
  });
});

describe("label --max-cost", () => {
  it("stops near the cap (in-flight finished and stored), exits 1 naming the cap; a higher cap resumes; no item twice", async () => {
    const input = chatInput(30);
    const cfg = config({ concurrency: 2 });
    const env = { IPI_DRY_KEY: "sk-dry-test-key-123456" };
    const args = ["label", input, "--judges", cfg, "--run", "c", "--labels-dir", path.join(dir, "labels")];
    // each verdict costs 10,000 prompt tokens at $1/M = $0.01
    const a = await runCli([...args, "--max-cost", "0.05"], { env });
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/cost cap was reached/);
    expect(a.stderr).toMatch(/higher --max-cost/);
    // the headline counts what the run stored before the cap (reading stops there): stdout says the run is not complete
    expect(a.stdout).toMatch(/COST CAP REACHED: the run is not complete/);
    expect(a.stdout).toMatch(/this invocation: \d+ trajectories read, \d+ verdicts stored/);
    const n1 = verdictLines("c").length;
    expect(n1).toBeGreaterThanOrEqual(3);
    expect(n1).toBeLessThanOrEqual(6);
    expect(fake.requests.length).toBe(n1);
    const summary = JSON.parse(readFileSync(path.join(dir, "labels", "c", "summary.json"), "utf8"));
    expect(summary.cost_cap).toMatchObject({ cap_usd: 0.05, reached: true });
    expect(summary.cost.usd).toBeCloseTo(n1 * 0.01, 8);
    expect(summary.cost.usd).toBeLessThanOrEqual(0.05 + 2 * 0.01 + 1e-9);

    // the same cap again: nothing more is sent
    const same = await runCli([...args, "--max-cost", "0.05"], { env });
    expect(same.code).toBe(1);
    expect(verdictLines("c")).toHaveLength(n1);

    const b = await runCli([...args, "--max-cost", "0.1", "--json"], { env });
    expect(b.code).toBe(1);
    const n2 = verdictLines("c").length;
    expect(n2).toBeGreaterThan(n1);
    expect(n2).toBeLessThanOrEqual(12);

    const c = await runCli([...args, "--max-cost", "10"], { env });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).not.toMatch(/COST CAP REACHED/);
    const all = verdictLines("c");
    expect(all).toHaveLength(30);
    expect(new Set(all.map((v) => v.trajectory_id)).size).toBe(30);
    expect(fake.requests.length).toBe(30);

    // a cap below what earlier invocations paid: said as theirs (summed as the store loads), nothing sent (review)
    const over = await runCli([...args, "--max-cost", "0.1"], { env });
    expect(over.stdout).toMatch(/already over the cap: earlier invocations spent \$0\.3000, more than --max-cost \$0\.1; nothing new was sent/);
    expect(fake.requests.length).toBe(30);
    const j = JSON.parse((await runCli([...args, "--max-cost", "0.1", "--json"], { env })).stdout);
    expect(j.cost_cap.spent_before_usd).toBeCloseTo(0.3, 8);
    expect(j.cost_cap.spent_usd).toBeCloseTo(0.3, 8);
    // exactly at the cap (30 x $0.01 sums to 0.30000000000000004): not "over" (red team)
    const at = await runCli([...args, "--max-cost", "0.3"], { env });
    expect(at.code).toBe(0);
    expect(at.stdout).not.toMatch(/over the cap/);
  });

  it("stored verdicts of unknown cost (no usage) are said, not counted as $0 in silence, by a later invocation (red team)", async () => {
    await fake.close();
    fake = await startFakeOpenAI(() => completion(JSON.stringify({ findings: [], label: "not_exposed", rationale: "x" }), { usage: null }));
    const env = { IPI_DRY_KEY: "sk-dry-test-key-123456" };
    const args = ["label", chatInput(3), "--judges", config(), "--run", "u", "--labels-dir", path.join(dir, "labels"), "--max-cost", "5"];
    const first = JSON.parse((await runCli([...args, "--json"], { env })).stdout);
    expect(first.cost_cap.unknown_cost_verdicts).toBe(3);
    const again = await runCli(args, { env });
    expect(again.stdout).toMatch(/3 verdict\(s\) of earlier invocations have an unknown cost, not in this total: the cap cannot bound them/);
  });

  it("refuses a judge without a price", async () => {
    const f = path.join(dir, "judges.json");
    writeFileSync(f, JSON.stringify({ judges: [{ id: "j", model: "m", family: "openai", base_url: fake.url }] }));
    const r = await runCli(["label", chatInput(2), "--judges", f, "--run", "x", "--labels-dir", path.join(dir, "labels"), "--max-cost", "1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs a price for every judge; "j" has none/);
  });
});
