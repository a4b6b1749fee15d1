/**
 * Red-team faults in the cost features (label --max-cost, cost accounting, --dry-run), through the built CLI and
 * the real `openai` client against loopback fake servers (`test/helpers/fake-openai.ts`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completion, startFakeOpenAI, type FakeOpenAI, type FakeScript } from "../helpers/fake-openai.js";
import { runCli } from "../helpers/cli.js";
import { readRunState, runStateLine } from "../../src/store/run-state.js";
import { summarizeRun } from "../../src/run/summary.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { reservationOf, reserveCostUsd, unknownCostCharge } from "../../src/run/cost-cap.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Trajectory, Verdict } from "../../src/types.js";

let fake: FakeOpenAI | undefined;
let dir: string;
const env = { IPI_COST_KEY: "sk-cost-test-key-123456" };
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ipi-cost-rt-"));
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const NE = JSON.stringify({ findings: [], label: "not_exposed", rationale: "x" });
/** Usage proportional to the request's size (about 4 characters per token), as a real server counts it. */
const sized = (content: string) => (req: { body: any }) =>
  completion(content, { usage: { prompt_tokens: Math.ceil(JSON.stringify(req.body.messages).length / 4), completion_tokens: 100 } });

async function serve(script: FakeScript): Promise<FakeOpenAI> {
  fake = await startFakeOpenAI(script);
  return fake;
}
function config(over: Record<string, unknown> = {}, top: Record<string, unknown> = {}): string {
  const f = path.join(dir, `judges-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    f,
    JSON.stringify({
      judges: [{ id: "j", model: "gpt-4o-mini", family: "openai", base_url: fake!.url, api_key_env: "IPI_COST_KEY", output_mode: "json_object", price: { input_per_mtok: 100, output_per_mtok: 100 }, ...over }],
      ...top,
    }),
  );
  return f;
}
function chatInput(n: number): string {
  const f = path.join(dir, "in.jsonl");
  const rows = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `t${i}`, messages: [{ role: "user", content: `please check item ${i} `.repeat(20) }, { role: "assistant", content: `item ${i} looks fine` }] }),
  );
  writeFileSync(f, rows.join("\n") + "\n");
  return f;
}
const labels = () => path.join(dir, "labels");
const verdictLines = (run: string): Verdict[] => {
  const f = path.join(labels(), run, "verdicts.jsonl");
  return existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
};

describe("label --max-cost", () => {
  it("a run stopped by the cap is stored as cost_cap, which agree/committee/report flag as incomplete", async () => {
    await serve(sized(NE));
    const r = await runCli(["label", chatInput(20), "--judges", config({ concurrency: 2 }), "--run", "c", "--labels-dir", labels(), "--max-cost", "3"], { env });
    expect(r.code, r.stderr).toBe(1);
    const n = verdictLines("c").length;
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(20);
    const store = JSON.parse(readFileSync(path.join(labels(), "c", "store.json"), "utf8"));
    expect(store.label_state.state).toBe("cost_cap");
    const st = readRunState(path.join(labels(), "c"));
    expect(st.status).toBe("cost_cap");
    expect(st.complete).toBe(false);
    expect(runStateLine(st)).toMatch(/WARNING: run incomplete: .*cost cap .*--max-cost \$3/);
    // a higher cap finishes it: complete again
    const b = await runCli(["label", path.join(dir, "in.jsonl"), "--judges", config({ concurrency: 2 }), "--run", "c", "--labels-dir", labels(), "--max-cost", "100"], { env });
    expect(b.code, b.stderr).toBe(0);
    expect(readRunState(path.join(labels(), "c")).status).toBe("complete");
  });

  it("reserves the whole conversation (feedback turns included): a judge that always needs feedback never passes the cap", async () => {
    // every reply is unparseable: each verdict is the first request plus `retries` feedback turns, each longer
    await serve(sized("this is not a verdict"));
    const cap = 5;
    const r = await runCli(["label", chatInput(30), "--judges", config({ concurrency: 4 }, { retries: 2 }), "--run", "f", "--labels-dir", labels(), "--max-cost", String(cap), "--json"], { env });
    expect(r.code, r.stderr).toBe(1);
    const vs = verdictLines("f");
    expect(vs.length).toBeGreaterThan(0);
    expect(vs.every((v) => v.attempts === 3)).toBe(true);
    const spent = vs.reduce((a, v) => a + (v.cost_usd as number), 0);
    expect(spent).toBeLessThanOrEqual(cap);
    expect(JSON.parse(r.stdout).cost_cap.spent_usd).toBeCloseTo(spent, 8);
  });

  it("reserves for the trajectory's tools, and for every feedback turn", () => {
    const judge = createOpenAIJudge(
      { id: "j", model: "gpt-4o-mini", family: "openai", base_url: "http://127.0.0.1:9/v1", price: { input_per_mtok: 1, output_per_mtok: 1 } } as never,
      { retries: 2, minQuoteChars: 12 },
    );
    const t: Trajectory = { id: "a", source: { path: "x" }, messages: [{ role: "user", text: "hello there" }, { role: "assistant", text: "hi" }] } as unknown as Trajectory;
    const tools = Array.from({ length: 20 }, (_, i) => ({ name: `tool_${i}`, description: "a tool that does something useful ".repeat(20), parameters: { type: "object" } }));
    const withTools = reserveCostUsd({ ...t, tools } as Trajectory, judge);
    const without = reserveCostUsd(t, judge);
    expect(withTools - without).toBeGreaterThan((3 * JSON.stringify(tools).length) / 3 / 1e6 / 2);
    const noRetries = createOpenAIJudge(
      { id: "j", model: "gpt-4o-mini", family: "openai", base_url: "http://127.0.0.1:9/v1", price: { input_per_mtok: 1, output_per_mtok: 1 } } as never,
      { retries: 0, minQuoteChars: 12 },
    );
    expect(without).toBeGreaterThan(3 * reserveCostUsd(t, noRetries));
  });

  it("a verdict with more unpriced responses than its reservation's turns is counted at that many of its dearest request (prov37: a body lost on each transport retry)", () => {
    const judge = createOpenAIJudge(
      { id: "j", model: "gpt-4o-mini", family: "openai", base_url: "http://127.0.0.1:9/v1", price: { input_per_mtok: 1, output_per_mtok: 4 } } as never,
      { retries: 2, minQuoteChars: 12 },
    );
    const t: Trajectory = { id: "a", source: { path: "x" }, messages: [{ role: "user", text: "hello there ".repeat(200) }, { role: "assistant", text: "hi" }] } as unknown as Trajectory;
    const r = reservationOf(t, judge);
    expect(r.usd).toBe(reserveCostUsd(t, judge));
    // three turns: the last is the dearest, and below the whole
    expect(r.turn_usd).toBeGreaterThan(r.usd / 3);
    expect(r.turn_usd).toBeLessThan(r.usd);
    expect(unknownCostCharge(r, undefined)).toBe(r.usd);
    expect(unknownCostCharge(r, 1)).toBe(r.usd);
    expect(unknownCostCharge(r, 3)).toBe(Math.max(r.usd, 3 * r.turn_usd));
    expect(unknownCostCharge(r, 7)).toBeCloseTo(7 * r.turn_usd, 12);
    expect(unknownCostCharge(r, 7)).toBeGreaterThan(r.usd);
  });

  it("a server reporting 0 prompt tokens is a response without usage: cost unknown, the cap counts its estimate", async () => {
    await serve(() => completion(NE, { usage: { prompt_tokens: 0, completion_tokens: 0 } }));
    const r = await runCli(["label", chatInput(3), "--judges", config(), "--run", "z", "--labels-dir", labels(), "--max-cost", "100", "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const vs = verdictLines("z");
    expect(vs).toHaveLength(3);
    for (const v of vs) {
      expect(v.cost_usd).toBeNull();
      expect(v.usage.responses_without_usage).toBe(1);
    }
    const out = JSON.parse(r.stdout);
    expect(out.cost).toMatchObject({ usd: null, unknown: 3, incomplete: true });
    expect(out.cost_cap.unknown_cost_verdicts).toBe(3);
    expect(out.cost_cap.spent_usd).toBeGreaterThan(0);
  });

  it("parses money strictly: hex, exponent and binary forms are refused", async () => {
    await serve(sized(NE));
    for (const bad of ["0x10", "1e3", "0b1", "5usd", "-1", ""]) {
      const r = await runCli(["label", chatInput(1), "--judges", config(), "--run", "m", "--labels-dir", labels(), "--max-cost", bad], { env });
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/--max-cost must be a decimal number/);
    }
    expect(fake!.requests).toHaveLength(0);
  });
});

describe("summary after a stopped rejudge", () => {
  const v = (id: string, sha: string, cost: number): Verdict =>
    ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, status: "ok", label: "not_exposed", downgraded: false, usage: { prompt_tokens: 1, completion_tokens: 1 }, cost_usd: cost, judge_config_sha256: sha }) as Verdict;
  it("warns when the verdicts in use mix configurations, and says what the run cost covers", () => {
    const index = new Map<string, TrajectoryIndexRow>(["a", "b", "c"].map((id) => [id, { id, attacked: true } as TrajectoryIndexRow]));
    const s = summarizeRun("r", [v("a", "old".padEnd(64, "0"), 1), v("b", "new".padEnd(64, "1"), 1), v("c", "new".padEnd(64, "1"), 1)], index, [], {});
    expect(s.warnings.join("\n")).toMatch(/judge "j": its verdicts in use were made under 2 different configurations \(2 under configuration new.*, 1 under configuration old.*\): its figures mix old- and new-configuration verdicts/);
    expect(unwrapText(formatSummary(s))).toMatch(/cost of the run: \$3\.00 \(the verdicts in use: .*superseded verdicts, paid for too, are not counted\)/);
    const one = summarizeRun("r", [v("a", "new", 1), v("b", "new", 1)], index, [], {});
    expect(one.warnings.join("\n")).not.toMatch(/different configurations/);
  });
});

describe("label --dry-run after a configuration change", () => {
  it("says label would refuse (exit 2); with --on-config-change keep counts only what is missing; rejudge counts all", async () => {
    await serve(sized(NE));
    const input = chatInput(6);
    const first = await runCli(["label", input, "--judges", config(), "--run", "d", "--labels-dir", labels(), "--limit", "4"], { env });
    expect(first.code, first.stderr).toBe(0);
    const changed = config({ model: "gpt-4o" });
    const args = ["label", input, "--judges", changed, "--run", "d", "--labels-dir", labels(), "--dry-run"];
    const refuse = await runCli(args, { env });
    expect(refuse.code).toBe(2);
    expect(refuse.stdout).toMatch(/label would REFUSE this run \(exit 2\)/);
    expect(refuse.stderr).toMatch(/label would refuse this run: judge "j".*--on-config-change rejudge/);
    const real = await runCli(["label", input, "--judges", changed, "--run", "d", "--labels-dir", labels()], { env });
    expect(real.code).toBe(2);
    const keep = await runCli([...args, "--on-config-change", "keep", "--json"], { env });
    expect(keep.code, keep.stderr).toBe(0);
    const k = JSON.parse(keep.stdout);
    expect(k.judges[0]).toMatchObject({ requests: 2, already_stored: 4 });
    expect(k.label_would_refuse).toBe(false);
    expect(k.config_changes[0]).toMatchObject({ judge: "j", verdicts: 4, on_config_change: "keep" });
    const rejudge = await runCli([...args, "--on-config-change", "rejudge", "--json"], { env });
    expect(rejudge.code, rejudge.stderr).toBe(0);
    expect(JSON.parse(rejudge.stdout).judges[0]).toMatchObject({ requests: 6, already_stored: 0 });
  });
});

describe("label --max-cost on a finished run", () => {
  it("a rerun with the cap already spent and nothing left to judge stays complete (exit 0)", async () => {
    await serve(sized(NE));
    const input = chatInput(3);
    const args = ["label", input, "--judges", config(), "--run", "done", "--labels-dir", labels()];
    const a = await runCli([...args, "--max-cost", "100"], { env });
    expect(a.code, a.stderr).toBe(0);
    const spent = verdictLines("done").reduce((x, v) => x + (v.cost_usd as number), 0);
    const b = await runCli([...args, "--max-cost", String(Math.round(spent * 100) / 200)], { env });
    expect(b.code, b.stderr).toBe(0);
    expect(readRunState(path.join(labels(), "done")).status).toBe("complete");
  });
});
