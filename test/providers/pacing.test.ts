/**
 * Rate limits: even pacing to rpm/tpm (RatePacer), AIMD concurrency on 429s (AimdLimiter), and end to end: the
 * real runner and OpenAI judge against a loopback server that enforces a rate, on real AgentDojo runs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { AimdLimiter, RatePacer } from "../../src/providers/pacing.js";
import { labelRun } from "../../src/run/label.js";
import type { JudgeConfig } from "../../src/config/judges.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeRequest, type FakeResponse } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

/** A virtual clock whose sleep advances time. */
function virtualTime() {
  let now = 0;
  const sleeps: number[] = [];
  return { now: () => now, sleeps, sleep: async (ms: number) => void (sleeps.push(ms), (now += ms)) };
}

describe("RatePacer", () => {
  it("spaces request starts evenly at 60000/rpm ms", async () => {
    const vt = virtualTime();
    const p = new RatePacer(600, undefined, vt.sleep, vt.now);
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await p.acquire(1000);
      starts.push(vt.now());
    }
    expect(starts).toEqual([0, 100, 200, 300, 400]);
  });

  it("spaces by tokens under tpm, takes the larger of the two intervals, and settles on real usage", async () => {
    const vt = virtualTime();
    const p = new RatePacer(60, 60_000, vt.sleep, vt.now);
    expect(p.interval(500)).toBe(1000); // rpm 60 -> 1 s; 500 tokens at 60k tpm -> 0.5 s
    expect(p.interval(3000)).toBe(3000);
    await p.acquire(3000);
    await p.acquire(100);
    expect(vt.now()).toBe(3000);
    p.settle(100, 1100); // the request used 1000 more tokens than booked: +1 s
    await p.acquire(100);
    expect(vt.now()).toBe(3000 + 1000 + 1000);
  });

  it("serves calls in order when many wait at once", async () => {
    const vt = virtualTime();
    const p = new RatePacer(6000, undefined, vt.sleep, vt.now); // 10 ms apart
    const order: number[] = [];
    await Promise.all(Array.from({ length: 10 }, (_, i) => p.acquire(1).then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(vt.now()).toBe(90);
  });

  it("rejects a waiting call when its signal aborts", async () => {
    const p = new RatePacer(1, undefined);
    await p.acquire(1);
    const ac = new AbortController();
    const w = p.acquire(1, ac.signal);
    ac.abort(new Error("stop"));
    await expect(w).rejects.toThrow("stop");
  });
});

describe("AimdLimiter", () => {
  it("halves what was in flight on a 429, once per round, and climbs back by about one per round", async () => {
    const l = new AimdLimiter(8);
    const slots = await Promise.all(Array.from({ length: 8 }, () => l.acquire()));
    expect(l.inFlight).toBe(8);
    // the whole round comes back 429: one cut, not eight
    for (const s of slots) {
      s();
      l.onRateLimited(s.seq);
    }
    expect(l.limit).toBe(4);
    expect(l.decreases).toBe(1);
    // a 429 of a request started after the cut is a new event
    const s2 = await l.acquire();
    s2();
    l.onRateLimited(s2.seq);
    expect(l.limit).toBe(1); // min(4, inFlight 0 + 1) / 2 -> floor at 1
    expect(l.decreases).toBe(2);
    // additive increase: +1/limit per success
    let successes = 0;
    while (l.limit < 8) {
      const s = await l.acquire();
      s();
      l.onSuccess();
      successes++;
    }
    expect(l.limit).toBe(8);
    // 1 + 1 + 1/2 + ... : about limit successes per step, sum 1..7 = 28 (+ rounding)
    expect(successes).toBeGreaterThanOrEqual(20);
    expect(successes).toBeLessThanOrEqual(40);
  });

  it("makes requests over the limit wait in order, and frees them as the limit rises or slots free", async () => {
    const l = new AimdLimiter(2);
    const a = await l.acquire();
    const b = await l.acquire();
    const got: string[] = [];
    const c = l.acquire().then((s) => (got.push("c"), s));
    const d = l.acquire().then((s) => (got.push("d"), s));
    await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual([]);
    a();
    (await c)();
    b();
    (await d)();
    expect(got).toEqual(["c", "d"]);
    expect(l.inFlight).toBe(0);
  });

  it("a waiter whose signal aborts leaves the queue", async () => {
    const l = new AimdLimiter(1);
    const a = await l.acquire();
    const ac = new AbortController();
    const w = l.acquire(ac.signal);
    ac.abort(new Error("stop"));
    await expect(w).rejects.toThrow("stop");
    a();
    expect(l.inFlight).toBe(0);
    const b = await l.acquire();
    b();
  });
});

/** Verifying judge replies for the rendered trajectory in a chat request (unaffected or not_exposed). */
function verdictFor(req: FakeRequest): FakeResponse {
  const user = (req.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content;
  return completion(benchReply(user));
}

describe("end to end against a server that enforces a rate", () => {
  let fake: FakeOpenAI;
  let tmp: string;
  beforeAll(async () => {
    fake = await startFakeOpenAI([]);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-rate-"));
  });
  afterAll(async () => {
    await fake.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const makeJudge = (cfg: JudgeConfig, transport?: { now: () => number; sleep: (ms: number) => Promise<void> }) =>
    createOpenAIJudge(cfg, { retries: 0, minQuoteChars: 12, transport });

  it("rpm 600 over 60 real runs: paced to the limit (virtual time within 1.1x of the minimum), no request early, no failed item", async () => {
    // Pacing on virtual time: the judge's pacer sleeps on a virtual clock, and the server reads the same clock. The
    // server's limit is GCRA at 10 requests/s with a 50 ms tolerance; a request early by it would get a 429. (The
    // wall-clock figure of a paced run is not a unit test's business: timings belong in `npm run bench`.)
    const vt = virtualTime();
    const T = 100;
    const tau = 50;
    const arrivals: number[] = [];
    fake.setScript((req) => {
      arrivals.push(vt.now());
      return verdictFor(req);
    });
    const judge = makeJudge({ id: "paced", model: "m", family: "openai", base_url: fake.url, rpm: 600, concurrency: 8 }, vt);
    const res = await labelRun({ inputs: [SAMPLES], run: "rpm", labelsDir: tmp, judges: [judge], limit: 60 });
    const min = 59 * T; // 60 request starts 100 ms apart
    const verdicts = fs.readFileSync(path.join(tmp, "rpm", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(verdicts).toHaveLength(60);
    expect(verdicts.every((v) => v.status === "ok")).toBe(true);
    expect(res.summary.judges[0].downgrades).toBe(0);
    expect(arrivals).toHaveLength(60);
    // requests may reach the server out of start order; by start order, the k-th arrives no earlier than k * T - tau
    const sorted = [...arrivals].sort((a, b) => a - b);
    const early = sorted.filter((t, k) => t < k * T - tau).length;
    expect(early).toBe(0);
    // the limit governs the span: within 1.1x of the minimum it allows
    expect(vt.now()).toBeGreaterThanOrEqual(min - 50);
    // (a sleep longer than one interval is not the pacer's: a transport backoff, named here if one ever shows up)
    expect(vt.now(), `sleeps over ${T} ms: ${vt.sleeps.filter((ms) => ms > T).join(", ") || "none"}`).toBeLessThanOrEqual(1.1 * min);
  }, 30_000);

  it("a server that allows 3 requests in flight: concurrency adapts down on 429s, every item is judged", async () => {
    let inFlight = 0;
    let rejected = 0;
    let maxSeen = 0;
    // the first requests are held until one has been turned away, so the run meets the server's limit at least
    // once whatever the machine's load (a fixed hold raced the client: a slow client never had a 4th in flight)
    let turnedAway!: () => void;
    const firstRejection = new Promise<void>((ok) => (turnedAway = ok));
    fake.setScript(async (req) => {
      if (inFlight >= 3) {
        rejected++;
        turnedAway();
        return apiError(429, "Too many concurrent requests", { headers: { "retry-after-ms": "20" } });
      }
      inFlight++;
      maxSeen = Math.max(maxSeen, inFlight);
      await firstRejection;
      await new Promise((r) => setTimeout(r, 30));
      inFlight--;
      return verdictFor(req);
    });
    const judge = makeJudge({ id: "aimd", model: "m", family: "openai", base_url: fake.url, concurrency: 12 });
    const res = await labelRun({ inputs: [SAMPLES], run: "aimd", labelsDir: tmp, judges: [judge], limit: 60 });
    const verdicts = fs.readFileSync(path.join(tmp, "aimd", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(verdicts).toHaveLength(60);
    expect(verdicts.every((v) => v.status === "ok")).toBe(true);
    expect(res.progress.errors).toBe(0);
    expect(maxSeen).toBeLessThanOrEqual(3);
    // Without adaptation 12 workers against 3 slots keep drawing 429s. How many 429s a run draws depends on the
    // machine's timing (a race), so it is not asserted; the limiter's own counters below are the proof it adapted.
    expect(rejected).toBeGreaterThan(0);
    expect(judge.limiter.decreases).toBeGreaterThanOrEqual(1);
    expect(judge.limiter.limit).toBeLessThan(12);
  }, 30_000);
});
