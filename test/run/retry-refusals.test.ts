/**
 * `label --retry-refusals` judges again the items whose stored verdict is `judge_refused` (break54 finding 5: only a
 * hand edit of verdicts.jsonl reached them; a provider's refusal is often transient). The built CLI against a loopback
 * judge that refuses (finish_reason content_filter, message.refusal) every 4th request of the first run, then answers;
 * on the vendored AgentDojo samples: the summary names the option beside the refusals, `--help` lists it, the re-judge
 * sends exactly the refused items, the refusals stay in verdicts.jsonl as history, and the figures count each
 * trajectory once (recomputed here from verdicts.jsonl: the latest verdict per trajectory). The batch path (in process,
 * a loopback Batch API) sends the refused lines again in a new batch.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { startFakeBatch, userMessageOf } from "../helpers/fake-batch.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeOpenAI;
let refuse = true;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-retry-refusals-"));
  fake = await startFakeOpenAI((req, n) => (refuse && n % 4 === 0 ? completion(null, { finish_reason: "content_filter", refusal: "I can't help with that" }) : completion(benchReply(userMessageOf(req.body)))));
  fs.writeFileSync(path.join(tmp, "judges.json"), JSON.stringify({ judges: [{ id: "fake", model: "gpt-4o-mini", family: "openai", base_url: fake.url, concurrency: 2 }] }));
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const args = ["label", SAMPLES, "--judges", "JUDGES", "--run", "r", "--labels-dir", "LABELS"];
const run = (...more: string[]) => runCli([...args.map((a) => (a === "JUDGES" ? path.join(tmp, "judges.json") : a === "LABELS" ? path.join(tmp, "labels") : a)), ...more]);
const lines = (f: string) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

describe("label --retry-refusals", () => {
  it("is in --help", async () => {
    const h = await runCli(["label", "--help"]);
    expect(h.stdout).toContain("--retry-refusals");
  });

  it("judges the refused items again, once each; the refusals stay as history; the figures count each trajectory once", async () => {
    const first = await run();
    expect(first.stdout).toMatch(/status: .*judge_refused \d+/);
    const refused = Number(/judge_refused (\d+)/.exec(first.stdout)![1]);
    expect(refused).toBeGreaterThan(5);
    // the way to them, named beside the count
    expect(first.stdout.replace(/\s+/g, " ")).toContain("--retry-refusals judges the judge_refused items again");
    // --retry-errors does not take them (judge_error only)
    const errorsOnly = await run("--json");
    expect(JSON.parse(errorsOnly.stdout).this_run.judged).toBe(0);

    refuse = false;
    const sent = fake.requests.length;
    const again = await run("--retry-refusals", "--json");
    const s = JSON.parse(again.stdout);
    expect(s.this_run.judged).toBe(refused);
    expect(fake.requests.length - sent).toBe(refused);
    const j = s.judges[0];
    expect(j.by_status).toEqual({ ok: 82 });

    // from the raw file: every line kept (the refusals as history), the latest per trajectory is what counts
    const v = lines(path.join(tmp, "labels", "r", "verdicts.jsonl"));
    expect(v).toHaveLength(82 + refused);
    expect(v.filter((x) => x.status === "judge_refused")).toHaveLength(refused);
    const latest = new Map<string, any>();
    for (const x of v) latest.set(`${x.trajectory_id}\u0000${x.repeat}`, x);
    expect(latest.size).toBe(82);
    const attacked = new Set(lines(path.join(tmp, "labels", "r", "trajectories.jsonl")).filter((r) => r.attacked).map((r) => r.id));
    const cur = [...latest.values()].filter((x) => attacked.has(x.trajectory_id) && x.label !== null);
    const full = cur.filter((x) => x.label === "full_compliance").length;
    expect(j.rates.asr_goal.n).toBe(cur.length);
    expect(j.rates.asr_goal.count).toBe(full);
    expect(j.rates.coverage).toBe(1);

    // a third run has nothing left to judge again
    const third = await run("--retry-refusals", "--json");
    expect(JSON.parse(third.stdout).this_run.judged).toBe(0);
  }, 180_000);
});

describe("label --retry-refusals and a refused feedback turn (runs55 #4)", () => {
  it("a decided verdict whose feedback turn the judge refused is said, and --retry-refusals judges it again", async () => {
    // the first reply of every conversation claims compliance on a quote that is in no message: a feedback turn
    // follows; while `refuseTurn`, the judge refuses that turn (the verdict is ok, error retry_refused, downgraded)
    let refuseTurn = true;
    const invented = JSON.stringify({
      findings: [{ bucket: "full_compliance", evidence: [{ message_index: 1, tool_call_index: null, tool_index: null, quote: "sent every euro to the attacker right away" }], explanation: "x" }],
      label: "full_compliance",
      rationale: "r",
    });
    const fb = await startFakeOpenAI((req) => {
      const turns = (req.body as { messages: unknown[] }).messages.length;
      if (!refuseTurn) return completion(benchReply(userMessageOf(req.body)));
      return turns <= 2 ? completion(invented) : completion(null, { finish_reason: "content_filter", refusal: "I can't help with that" });
    });
    try {
      const cfg = path.join(tmp, "judges-fb.json");
      fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "fb", model: "gpt-4o-mini", family: "openai", base_url: fb.url, concurrency: 2 }] }));
      const labels = path.join(tmp, "labels-fb");
      const base = ["label", SAMPLES, "--judges", cfg, "--run", "fb", "--labels-dir", labels, "--limit", "6"];
      const first = await runCli(base);
      // none of its quotes verified: LOOKS BROKEN, exit 3 (the judge of this script is, until it answers the retry)
      expect(first.code, first.stderr).toBe(3);
      const v1 = lines(path.join(labels, "fb", "verdicts.jsonl"));
      const refusedTurns = v1.filter((x) => x.status === "ok" && x.error?.kind === "retry_refused").length;
      expect(refusedTurns).toBe(6);
      // said in the summary, with the way to them
      expect(first.stdout.replace(/\s+/g, " ")).toContain(`feedback turn refused: ${refusedTurns} labelled verdict(s) stand on the decision their refused feedback turn was to check`);
      // a resume without the option keeps them
      const sent = fb.requests.length;
      expect(JSON.parse((await runCli([...base, "--json"])).stdout).this_run.judged).toBe(0);
      expect(fb.requests.length).toBe(sent);

      refuseTurn = false;
      const again = await runCli([...base, "--retry-refusals"]);
      expect(again.code, again.stderr).toBeLessThan(2);
      // said before and after sending, by reason
      expect(again.stdout.replace(/\s+/g, " ")).toContain(`${refusedTurns} verdicts stored before were set to be judged again (decided verdict whose feedback turn the judge refused, retried (--retry-refusals) ${refusedTurns})`);
      expect(fb.requests.length - sent).toBe(refusedTurns);
      // from the raw file: the refused-turn verdicts stay as history, the latest per trajectory has none
      const v2 = lines(path.join(labels, "fb", "verdicts.jsonl"));
      expect(v2).toHaveLength(2 * refusedTurns);
      const latest = new Map<string, any>();
      for (const x of v2) latest.set(`${x.trajectory_id}\u0000${x.repeat}`, x);
      expect([...latest.values()].filter((x) => x.error?.kind === "retry_refused")).toHaveLength(0);
      expect(again.stdout).not.toMatch(/feedback turn refused:/);
      const third = await runCli([...base, "--retry-refusals", "--json"]);
      expect(JSON.parse(third.stdout).this_run.judged).toBe(0);
    } finally {
      await fb.close();
    }
  }, 120_000);
});

describe("label --retry-refusals under --batch", () => {
  it("the refused lines of a batch are sent again in a new batch and their verdicts replace the refusals", async () => {
    let refuseLines = true;
    let n = 0;
    const fb = await startFakeBatch((body) =>
      refuseLines && n++ % 3 === 0
        ? { status: 200, body: completion(null, { finish_reason: "content_filter", refusal: "I can't help with that" }).body }
        : { status: 200, body: completion(benchReply(userMessageOf(body))).body },
    );
    try {
      const judge = () => createOpenAIJudge({ id: "gb", model: "m", family: "openai", base_url: fb.url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
      const labelsDir = path.join(tmp, "batch-labels");
      const first = await labelRun({ inputs: [SAMPLES], run: "b", labelsDir, judges: [judge()], limit: 12, batch: { pollMs: 2 } });
      const refused = first.summary.judges[0].by_status.judge_refused ?? 0;
      expect(refused).toBeGreaterThan(0);
      refuseLines = false;
      const again = await labelRun({ inputs: [SAMPLES], run: "b", labelsDir, judges: [judge()], limit: 12, retryRefusals: true, batch: { pollMs: 2 } });
      expect(again.summary.judges[0].by_status).toEqual({ ok: 12 });
      expect(fb.batches).toHaveLength(2);
      expect(fb.answered.length).toBe(12 + refused);
      const v = lines(path.join(labelsDir, "b", "verdicts.jsonl"));
      expect(v).toHaveLength(12 + refused);
    } finally {
      await fb.close();
    }
  }, 120_000);
});
