/**
 * The lost-endpoint rule's other two kinds of dead server (src/providers/no-answer.ts): a host that is off (its
 * packets dropped: no connection is ever made) and an address that accepts and at once closes every connection (a
 * port forward with nothing behind it). And the servers it must not stop: one that answers some requests, one that
 * is slow (its requests time out after they were sent). End to end through labelRun, the real `openai` client and
 * loopback servers the tests start; the clock is virtual.
 *
 * A dropped-packet host on loopback: a listening socket whose accept queue is full. A worker thread listens (backlog
 * 1) and then blocks (Atomics.wait), so nothing is accepted; the test fills the queue with idle connections until one
 * does not complete; from then on the kernel drops every SYN to that port, as a host that is off does.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIJudge, type OpenAIJudgeCommon } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import type { Verdict } from "../../src/types.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

const ENV = { IPI_TEST_KEY: "sk-test-lost-kinds-0123456789" };
const NOT_EXPOSED = JSON.stringify({ findings: [{ bucket: "not_exposed", evidence: [] }], label: "not_exposed", rationale: "nothing" });
/** Small thresholds: warn at 2 items, stop at 3 and 60 s (the clock moves 30 s per read). */
const RULE = { lostEndpoint: { warnItems: 2, stopItems: 3, stopMs: 60_000 } };

const closers: (() => Promise<unknown> | void)[] = [];
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const c of closers.splice(0).reverse()) await c();
});

/** A judge at `url`, one item at a time, no real waits, a clock that moves `stepMs` each time it is read. */
function judgeAt(url: string, stepMs: number, common: Partial<OpenAIJudgeCommon> = {}, timeoutS?: number, sleep: () => Promise<void> = async () => {}) {
  let t = 0;
  return createOpenAIJudge(
    { id: "judge-local", model: "fake-model", family: "openai", base_url: url, api_key_env: "IPI_TEST_KEY", concurrency: 1, ...(timeoutS ? { timeout_s: timeoutS } : {}) },
    { retries: 2, minQuoteChars: 12, env: ENV, transport: { sleep, random: () => 0.5, maxTransportRetries: 2, now: () => (t += stepMs) }, ...common },
  );
}

const readVerdicts = (file: string): Verdict[] =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Verdict) : [];

/** A port on 127.0.0.1 that accepts nothing and drops new connection requests (module docstring). */
async function blackhole(port: number): Promise<void> {
  const block = new SharedArrayBuffer(4);
  const w = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     const s = require("node:net").createServer(() => {});
     s.on("error", (e) => parentPort.postMessage("error " + e.code));
     s.listen({ port: workerData.port, host: "127.0.0.1", backlog: 1 }, () => {
       parentPort.postMessage("listening");
       setImmediate(() => Atomics.wait(new Int32Array(workerData.block), 0, 0));
     });`,
    { eval: true, workerData: { port, block } },
  );
  closers.push(() => w.terminate());
  const said = await new Promise<string>((ok) => w.once("message", ok));
  if (said !== "listening") throw new Error(`blackhole on ${port}: ${said}`);
  const fillers: net.Socket[] = [];
  closers.push(() => fillers.forEach((s) => s.destroy()));
  for (let i = 0; i < 64; i++) {
    const connected = await new Promise<boolean>((ok) => {
      const s = net.connect(port, "127.0.0.1");
      fillers.push(s);
      s.on("error", () => undefined);
      const t = setTimeout(() => ok(false), 500);
      s.once("connect", () => {
        clearTimeout(t);
        ok(true);
      });
    });
    if (!connected) return;
  }
  throw new Error("the accept queue never filled");
}

/** A server on `port` that accepts every connection and closes it at once, reading nothing. */
async function acceptAndClose(port: number): Promise<void> {
  const srv = net.createServer((s) => s.destroy());
  await new Promise<void>((ok, bad) => srv.once("error", bad).listen(port, "127.0.0.1", ok));
  closers.push(() => new Promise<void>((ok) => srv.close(() => ok())));
}

/** labelRun with a server that answers `replies` items, then is replaced by `after(port)`; what it said and stored. */
async function runThenReplace(run: string, after: (port: number) => Promise<void>, judgeTimeoutS?: number) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-lost-kinds-"));
  closers.push(() => rmSync(tmp, { recursive: true, force: true }));
  fake = await startFakeOpenAI(() => completion(NOT_EXPOSED));
  const url = fake.url;
  const port = Number(new URL(url).port);
  const warnings: string[] = [];
  const stopped: string[] = [];
  let replaced: Promise<void> | undefined;
  // a retry waits until the replacement listens (the first request after the close may be refused: no answer too)
  const judge = judgeAt(url, 30_000, RULE, judgeTimeoutS, async () => void (await replaced));
  const r = await labelRun({
    inputs: [SAMPLES],
    run,
    labelsDir: tmp,
    judges: [judge],
    limit: 12,
    onWarning: (w) => warnings.push(w),
    onJudgeStopped: (_id, msg) => stopped.push(msg),
    onProgress: (p) => {
      if (p.judged === 2 && !replaced) {
        const f = fake!;
        fake = undefined;
        replaced = f.close().then(() => after(port));
      }
    },
  });
  return { r, warnings, stopped, verdicts: readVerdicts(path.join(tmp, run, "verdicts.jsonl")) };
}

describe("the lost-endpoint rule: a host that is off, an address that closes every connection", () => {
  it("a host whose packets are dropped (no connection ever made): warned, then stopped (endpoint_lost); errors kind timeout say no connection was made", async () => {
    const { r, warnings, stopped, verdicts } = await runThenReplace("off", blackhole, 1);
    expect(warnings.filter((w) => w.includes("got no answer from"))).toHaveLength(1);
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatch(/3 items in a row got no answer from 127\.0\.0\.1:\d+ .*\(the last: no connection made within 1 s, the request's timeout/);
    expect(r.stoppedJudges["judge-local"]).toBeDefined();
    const errs = verdicts.filter((v) => v.status === "judge_error");
    expect(errs.length).toBeGreaterThanOrEqual(2);
    expect(errs.every((v) => v.error?.kind === "timeout" && /no connection made/.test(v.error.message))).toBe(true);
    expect(verdicts.filter((v) => v.status === "ok").length).toBeGreaterThanOrEqual(2);
  });

  it("an address that accepts and at once closes every connection: warned, then stopped (endpoint_lost)", async () => {
    const { r, warnings, stopped, verdicts } = await runThenReplace("closing", acceptAndClose);
    expect(warnings.filter((w) => w.includes("got no answer from"))).toHaveLength(1);
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatch(/3 items in a row got no answer from 127\.0\.0\.1:\d+ /);
    expect(r.stoppedJudges["judge-local"]).toBeDefined();
    const errs = verdicts.filter((v) => v.status === "judge_error");
    expect(errs.length).toBeGreaterThanOrEqual(2);
    expect(errs.every((v) => ["connection", "timeout"].includes(v.error?.kind ?? ""))).toBe(true);
  });
});

describe("the lost-endpoint rule: servers that answer are never stopped", () => {
  it("a server that resets two requests in three but answers the third: every item labelled, no warning, no stop", async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-lost-kinds-"));
    closers.push(() => rmSync(tmp, { recursive: true, force: true }));
    fake = await startFakeOpenAI((_req, n) => (n % 3 === 2 ? completion(NOT_EXPOSED) : { reset: true }));
    const warnings: string[] = [];
    // thresholds as low as they go: one item with no answer and no time would stop it
    const r = await labelRun({
      inputs: [SAMPLES],
      run: "flaky",
      labelsDir: tmp,
      judges: [judgeAt(fake.url, 60_000, { lostEndpoint: { warnItems: 1, stopItems: 1, stopMs: 1 } })],
      limit: 5,
      onWarning: (w) => warnings.push(w),
    });
    expect(r.stoppedJudges).toEqual({});
    expect(warnings.filter((w) => w.includes("got no answer from"))).toEqual([]);
    expect(readVerdicts(path.join(tmp, "flaky", "verdicts.jsonl")).map((v) => v.status)).toEqual(Array(5).fill("ok"));
  });

  it("a slow server (connected, no answer within timeout_s) after replies: its timeout policy, not the lost-endpoint rule", async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-lost-kinds-"));
    closers.push(() => rmSync(tmp, { recursive: true, force: true }));
    fake = await startFakeOpenAI((_req, n) => (n < 1 ? completion(NOT_EXPOSED) : { hang: true }));
    const r = await labelRun({
      inputs: [SAMPLES],
      run: "slow",
      labelsDir: tmp,
      judges: [judgeAt(fake.url, 60_000, { lostEndpoint: { warnItems: 1, stopItems: 2, stopMs: 1 } }, 0.2)],
      limit: 4,
    });
    expect(r.stoppedJudges).toEqual({});
    const vs = readVerdicts(path.join(tmp, "slow", "verdicts.jsonl"));
    expect(vs.map((v) => v.error?.kind ?? v.status)).toEqual(["ok", "timeout", "timeout", "timeout"]);
    expect(vs.slice(1).every((v) => /^no answer within 0\.2 s/.test(v.error!.message))).toBe(true);
  });
});
