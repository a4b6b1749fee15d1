/**
 * The cost cap online (`label --max-cost`): a conversation that does not fit beside the worst-case reservations in
 * flight waits for them to settle at their real cost, and is held back only when it does not fit beside what is
 * spent (src/run/online-reserved.ts). New user 43: at --max-cost 0.05 with 4 in flight, label stopped after 2
 * verdicts and $0.0038 spent, the run needing one rerun per two verdicts. Through the built CLI and the real `openai`
 * client against a loopback fake server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { runCli } from "../helpers/cli.js";

let fake: FakeOpenAI | undefined;
let dir: string;
const env = { IPI_COST_KEY: "sk-cost-wait-key-123456" };
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ipi-cost-wait-"));
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const NE = JSON.stringify({ findings: [], label: "not_exposed", rationale: "x" });

describe("label --max-cost online: reservations in flight are waited for", () => {
  it("judges until what is spent leaves no room for one worst case, not until the reservations in flight fill the cap", async () => {
    // usage about 4 characters per token, as a real server counts it: a verdict costs far less than its reservation
    fake = await startFakeOpenAI((req: { body: any }) =>
      completion(NE, { usage: { prompt_tokens: Math.ceil(JSON.stringify(req.body.messages).length / 4), completion_tokens: 100 } }),
    );
    const judges = path.join(dir, "judges.json");
    writeFileSync(
      judges,
      JSON.stringify({
        judges: [{ id: "j", model: "gpt-4o-mini", family: "openai", base_url: fake.url, api_key_env: "IPI_COST_KEY", output_mode: "json_object", concurrency: 4, price: { input_per_mtok: 100, output_per_mtok: 100 } }],
      }),
    );
    // 40 trajectories of one size (ids padded), so every conversation reserves the same worst case
    const input = path.join(dir, "in.jsonl");
    const rows = Array.from({ length: 40 }, (_, i) => {
      const k = String(i).padStart(2, "0");
      return JSON.stringify({ id: `t${k}`, messages: [{ role: "user", content: `please check item ${k} `.repeat(20) }, { role: "assistant", content: `item ${k} looks fine` }] });
    });
    writeFileSync(input, rows.join("\n") + "\n");
    const labels = path.join(dir, "labels");
    // one conversation's reservation, as the dry run reserves it
    const dry = await runCli(["label", input, "--judges", judges, "--run", "d", "--labels-dir", labels, "--dry-run", "--max-cost", "1000", "--json"], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const dc = JSON.parse(dry.stdout).cost_cap;
    expect(dc.let_through).toBe(40);
    const r1 = dc.reserved_usd / 40;
    // 3.5 reservations: before, 3 conversations reserved, the 4th was held back and the run stopped at 3 verdicts
    const cap = Number((3.5 * r1).toFixed(6));
    const r = await runCli(["label", input, "--judges", judges, "--run", "c", "--labels-dir", labels, "--max-cost", String(cap), "--json"], { env });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    const verdicts = readFileSync(path.join(labels, "c", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const spent = verdicts.reduce((a, v) => a + (v.cost_usd as number), 0);
    expect(verdicts.length).toBeGreaterThan(4);
    expect(verdicts.length).toBeLessThan(40);
    expect(spent).toBeLessThanOrEqual(cap);
    expect(out.cost_cap.spent_usd).toBeCloseTo(spent, 8);
    // held back only when the next worst case did not fit beside what was spent: the cap was reached, and a rerun
    // with the same cap would hold the same item back (not "the same command judges more")
    expect(out.cost_cap.reached).toBe(true);
    expect(out.cost_cap.held.reserved_usd).toBe(0);
    expect(spent + out.cost_cap.held.next_usd).toBeGreaterThan(cap);
    expect(r.stderr).toMatch(/the cost cap was reached/);
    expect(r.stderr).not.toMatch(/held items back/);
  }, 60_000);
});
