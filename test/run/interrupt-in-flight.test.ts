/**
 * Ctrl-C finishes the requests in flight (docs/label.md, the CLI's own message): they are paid for, so their verdicts
 * are stored and a resume does not send them again. Found by the red team: the run's stop signal aborted the
 * requests already sent, so 16 paid requests were lost and sent twice. Now `signal` stops what has not started and
 * `abortSignal` (the CLI's second Ctrl-C) aborts what is in flight. Real `openai` client against a loopback server.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { readVerdicts } from "../../src/store/run-store.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing reached the agent" });
let fake: FakeOpenAI | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fake?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A server that holds every reply until request number `stopAt` (0-based) has arrived, then stops the run and lets
 * the held replies go. No clock decides anything: with the judge's concurrency at `stopAt + 1`, exactly that many
 * requests are in flight (none answered) when the stop comes, whatever the machine's load.
 */
function stopAtRequest(stop: AbortController, stopAt: number, reply: (n: number) => string) {
  let release!: () => void;
  const gate = new Promise<void>((ok) => (release = ok));
  return async (_req: unknown, n: number) => {
    if (n === stopAt) {
      stop.abort();
      release();
    }
    await gate;
    return completion(reply(n));
  };
}

async function interrupted(withAbortSignal: boolean, reply = REPLY) {
  const stop = new AbortController();
  const hard = new AbortController();
  // stop once the first 8 requests are at the server (all in flight, none answered yet)
  fake = await startFakeOpenAI(stopAtRequest(stop, 7, () => reply));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-intr-"));
  const judge = createOpenAIJudge({ id: "j", model: "m", family: "openai", base_url: fake.url, concurrency: 8 }, { retries: 0, minQuoteChars: 12 });
  const res = await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge], signal: stop.signal, ...(withAbortSignal ? { abortSignal: hard.signal } : {}) });
  const verdicts = await readVerdicts(path.join(dir, "r"));
  return { res, sent: fake.requests.length, verdicts };
}

describe("Ctrl-C with requests in flight", () => {
  it("the first stop lets the requests in flight finish: every request sent has its stored verdict, and nothing more is sent", async () => {
    const { res, sent, verdicts } = await interrupted(true);
    expect(res.interrupted).toBe(true);
    // 8 in flight at the stop (concurrency 8, every reply held until then): nothing more is sent
    expect(sent).toBe(8);
    expect(verdicts.length).toBe(sent);
    expect(verdicts.every((v) => v.status === "ok")).toBe(true);
  });

  it("without a separate abort signal (library default), the stop signal also aborts what is in flight: nothing half-done is stored", async () => {
    const { res, sent, verdicts } = await interrupted(false);
    expect(res.interrupted).toBe(true);
    expect(verdicts.length).toBeLessThan(sent);
    expect(verdicts.every((v) => v.status === "ok")).toBe(true);
  });

  it("a verdict that is not ok but finished (an unparseable reply, paid for) is kept too; only what the stop cut short is not (review)", async () => {
    const { res, sent, verdicts } = await interrupted(true, "I would rather not answer in JSON today.");
    expect(res.interrupted).toBe(true);
    expect(verdicts.length).toBe(sent);
    expect(verdicts.every((v) => v.status === "judge_error" && v.error?.kind !== "aborted")).toBe(true);
  });

  it("a conversation the stop cut short after replies came back is stored (paid: usage, cost) but not judged: the same command judges it again (red team: 8 paid requests lost)", async () => {
    const stop = new AbortController();
    // the first turns (requests 1-4) are answered at once; the 4 feedback turns (requests 5-8) are held until the
    // 8th arrives, then the run is stopped: they finish, the third turns are never sent
    let release!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    let feedbackTurns = 0;
    fake = await startFakeOpenAI(async (req) => {
      // a feedback turn carries the judge's earlier reply and the feedback: more than system + user messages
      if (((req.body as { messages: unknown[] }).messages ?? []).length > 2 && !stop.signal.aborted) {
        if (++feedbackTurns === 4) {
          stop.abort();
          release();
        }
        await gate;
      }
      return completion("still not JSON");
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-intr-"));
    const mk = () => createOpenAIJudge({ id: "j", model: "m", family: "openai", base_url: fake!.url, concurrency: 4, price: { input_per_mtok: 1, output_per_mtok: 1 } }, { retries: 2, minQuoteChars: 12 });
    const first = await labelRun({ inputs: [SAMPLES], run: "m", labelsDir: dir, judges: [mk()], limit: 4, signal: stop.signal, abortSignal: new AbortController().signal, maxCostUsd: 100 });
    expect(first.interrupted).toBe(true);
    expect(fake.requests).toHaveLength(8);
    const cut = await readVerdicts(path.join(dir, "m"));
    expect(cut).toHaveLength(4);
    for (const v of cut) {
      expect(v.error?.kind).toBe("aborted");
      expect(v.raw_replies).toHaveLength(2);
      expect(v.cost_usd).toBeGreaterThan(0);
    }
    expect(first.costCap!.spent_usd).toBeCloseTo(cut.reduce((a, v) => a + v.cost_usd!, 0), 10);
    // the same command: judged again (nothing aborted is current), the paid record stays in the journal
    const again = await labelRun({ inputs: [SAMPLES], run: "m", labelsDir: dir, judges: [mk()], limit: 4, maxCostUsd: 100 });
    expect(again.interrupted).toBe(false);
    expect(again.costCap!.spent_before_usd).toBeCloseTo(first.costCap!.spent_usd, 10);
    const now = await readVerdicts(path.join(dir, "m"));
    expect(now).toHaveLength(4);
    expect(now.every((v) => v.error?.kind !== "aborted")).toBe(true);
    expect(fs.readFileSync(path.join(dir, "m", "verdicts.jsonl"), "utf8").trim().split("\n")).toHaveLength(8);
  });
});
