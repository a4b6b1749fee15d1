/**
 * The lost-endpoint rule (src/judges/lost-endpoint.ts): a server that answered, then is closed mid-run (new user 45:
 * a local stub killed after 6 s, then 10 minutes of one judge_error per item and nothing said). End to end through
 * labelRun, the real `openai` client and a loopback server the test starts and closes; the clock is virtual.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JudgeFatalError } from "../../src/errors.js";
import { createOpenAIJudge, type OpenAIJudgeCommon } from "../../src/judges/llm-judge.js";
import { LOST_ENDPOINT, LostEndpoint, minutesSeconds } from "../../src/judges/lost-endpoint.js";
import { labelRun } from "../../src/run/label.js";
import type { Verdict } from "../../src/types.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

const ENV = { IPI_TEST_KEY: "sk-test-lost-endpoint-0123456789" };
const NOT_EXPOSED = JSON.stringify({ findings: [{ bucket: "not_exposed", evidence: [] }], label: "not_exposed", rationale: "nothing" });

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A judge at `url`, one item at a time, no real waits, a clock that moves `stepMs` each time it is read. */
function judgeAt(url: string, stepMs: number, common: Partial<OpenAIJudgeCommon> = {}) {
  let t = 0;
  return createOpenAIJudge(
    { id: "judge-local", model: "fake-model", family: "openai", base_url: url, api_key_env: "IPI_TEST_KEY", concurrency: 1 },
    {
      retries: 2,
      minQuoteChars: 12,
      env: ENV,
      transport: { sleep: async () => {}, random: () => 0.5, maxTransportRetries: 2, now: () => (t += stepMs) },
      ...common,
    },
  );
}

const readVerdicts = (file: string): Verdict[] =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Verdict) : [];

describe("a server that answered, then is closed mid-run", () => {
  it("labelRun: one warning at 4 items, the judge stops at 8 (endpoint_lost), naming host, items and time; --retry-errors recovers", async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-lost-"));
    try {
      fake = await startFakeOpenAI(() => completion(NOT_EXPOSED));
      const url = fake.url;
      const host = new URL(url).host;
      const warnings: string[] = [];
      const stopped: string[] = [];
      let closed = false;
      // the clock moves 30 s per item: 8 items after the last reply are 240 s, past the 120 s of the rule
      const r1 = await labelRun({
        inputs: [SAMPLES],
        run: "lost",
        labelsDir: tmp,
        judges: [judgeAt(url, 30_000)],
        limit: 20,
        onWarning: (w) => warnings.push(w),
        onJudgeStopped: (id, msg) => stopped.push(`judge ${id} stopped: ${msg}`),
        onProgress: (p) => {
          // the server goes away after its third verdict (closed before the next item is sent: concurrency 1)
          if (p.judged === 3 && !closed) {
            closed = true;
            void fake!.close();
          }
        },
      });
      const lost = warnings.filter((w) => w.includes("got no answer from"));
      expect(lost).toHaveLength(1);
      expect(lost[0]).toMatch(new RegExp(`^judge judge-local: 4 items in a row got no answer from ${host.replace(/\./g, "\\.")} \\(base_url ${url.replace(/[./]/g, "\\$&")}\\) after every retry \\(.*ECONNREFUSED.*\\); nothing has reached it for 2 min 0 s\\. Is the server down\\? The judge stops at 8 such items and 2 min 0 s`));
      expect(stopped).toHaveLength(1);
      expect(stopped[0]).toMatch(/^judge judge-local stopped: judge "judge-local": 8 items in a row got no answer from 127\.0\.0\.1:\d+ \(base_url http:\/\/127\.0\.0\.1:\d+\/v1\) after every retry \(refused, no connection made, or closed before any response\), and no request has reached it for 4 min 0 s \(the last: connection failed: .*ECONNREFUSED.*\)\. The server answered before/);
      expect(stopped[0]).toMatch(/Restart it and run the same command with --retry-errors: the 7 items that failed since its last reply are stored as judge_error/);
      expect(stopped[0]).not.toContain(ENV.IPI_TEST_KEY);
      expect(r1.stoppedJudges["judge-local"]).toMatch(/got no answer from/);
      // 3 labels, then 7 judge_error connection verdicts; the item that stopped the judge and the rest stay un-judged
      const file = path.join(tmp, "lost", "verdicts.jsonl");
      const vs = readVerdicts(file);
      expect(vs.map((v) => v.status)).toEqual([...Array(3).fill("ok"), ...Array(7).fill("judge_error")]);
      expect(vs.slice(3).map((v) => [v.error?.kind, v.label])).toEqual(Array(7).fill(["connection", null]));
      // each after its retries (the first item may count one more: its body sent again at once on the closed keep-alive socket)
      expect(vs.slice(3).every((v) => v.attempts >= 3)).toBe(true);

      // The server comes back on its port: the same command with --retry-errors judges the 7 errors and the rest.
      fake = await startFakeOpenAI(() => completion(NOT_EXPOSED), Number(new URL(url).port));
      const r2 = await labelRun({ inputs: [SAMPLES], run: "lost", labelsDir: tmp, judges: [judgeAt(fake.url, 30_000)], limit: 20, retryErrors: true });
      expect(r2.stoppedJudges).toEqual({});
      expect(fake.requests).toHaveLength(17);
      const latest = new Map(readVerdicts(file).map((v) => [v.trajectory_id, v.status]));
      expect(latest.size).toBe(20);
      expect([...latest.values()].every((s) => s === "ok")).toBe(true);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("labelRun: items in a row that could not connect, but under 120 s with no answer: warned once, never stopped", async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-lost-"));
    try {
      fake = await startFakeOpenAI(() => completion(NOT_EXPOSED));
      const warnings: string[] = [];
      let closed = false;
      // the clock moves 1 s per item: 12 items that could not connect are 12 s, under the rule's 120 s
      const r = await labelRun({
        inputs: [SAMPLES],
        run: "short",
        labelsDir: tmp,
        judges: [judgeAt(fake.url, 1_000)],
        limit: 15,
        onWarning: (w) => warnings.push(w),
        onProgress: (p) => {
          if (p.judged === 3 && !closed) {
            closed = true;
            void fake!.close();
          }
        },
      });
      expect(r.stoppedJudges).toEqual({});
      expect(warnings.filter((w) => w.includes("got no answer from"))).toHaveLength(1);
      const vs = readVerdicts(path.join(tmp, "short", "verdicts.jsonl"));
      expect(vs.map((v) => v.error?.kind ?? v.status)).toEqual([...Array(3).fill("ok"), ...Array(12).fill("connection")]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("labelRun: a server that answers 500s after its replies is not taken for a lost one (its own policy: judge_error, no stop)", async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-lost-"));
    try {
      fake = await startFakeOpenAI((_req, n) => (n < 1 ? completion(NOT_EXPOSED) : apiError(500, "the model crashed")));
      const r = await labelRun({ inputs: [SAMPLES], run: "5xx", labelsDir: tmp, judges: [judgeAt(fake.url, 60_000, { lostEndpoint: { stopItems: 2, stopMs: 1 } })], limit: 6 });
      expect(r.stoppedJudges).toEqual({});
      const vs = readVerdicts(path.join(tmp, "5xx", "verdicts.jsonl"));
      expect(vs.map((v) => v.error?.kind ?? v.status)).toEqual(["ok", ...Array(5).fill("server_error")]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("LostEndpoint (the rule's counting)", () => {
  it("an item that reached the server ends the streak; Ctrl-C'd items change nothing; the warning comes once per streak", () => {
    let now = 0;
    const rule = new LostEndpoint("j", "http://user:pw@127.0.0.1:9/v1?k=s", { warnItems: 2, stopItems: 3, stopMs: 100, now: () => now });
    rule.observe("reply");
    now = 50;
    expect(rule.observe("unconnected", "refused")).toBeUndefined();
    expect(rule.observe("neutral")).toBeUndefined();
    const w = rule.observe("unconnected", "refused");
    expect(w).toMatch(/^judge j: 2 items in a row got no answer from 127\.0\.0\.1:9 \(base_url http:\/\/127\.0\.0\.1:9\/v1\)/);
    expect(w).not.toContain("pw");
    // 3 in a row but only 50 ms since the last answer: no stop yet
    expect(rule.observe("unconnected", "refused")).toBeUndefined();
    now = 100;
    rule.observe("reached"); // a 5xx: ends the streak, counts as a failure since the last reply
    now = 1000;
    // a new streak: warned again, and stopped at 3 (900 ms since the last answer)
    expect(rule.observe("unconnected", "refused")).toBeUndefined();
    expect(rule.observe("unconnected", "refused")).toMatch(/2 items in a row/);
    const e = (() => {
      try {
        rule.observe("unconnected", "refused");
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(JudgeFatalError);
    expect((e as JudgeFatalError).kind).toBe("endpoint_lost");
    expect((e as JudgeFatalError).message).toMatch(/3 items in a row .* for 1 s \(the last: refused\)\. .*the 6 items that failed since its last reply/);
  });

  it("defaults: warn at 4, stop at 8 items and 120 s; durations read as minutes and seconds", () => {
    expect(LOST_ENDPOINT).toEqual({ warnItems: 4, stopItems: 8, stopMs: 120_000 });
    expect(minutesSeconds(45_000)).toBe("45 s");
    expect(minutesSeconds(125_000)).toBe("2 min 5 s");
  });
});
