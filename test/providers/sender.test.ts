/**
 * The sending side of a judge (`src/providers/sender.ts`, `createChatSender` behind `createOpenAIJudge`): verdicts
 * and the requests the server sees, several judges in parallel, fatal errors and aborts, resends with other token
 * settings, and the CLI at concurrency 16. Real `openai` client, loopback servers only.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { withoutGoalDenial } from "../helpers/blind-judge.js";
import { JUDGE_DEFAULTS, type JudgeConfig } from "../../src/config/judges.js";
import { JudgeFatalError } from "../../src/errors.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { sendChat, type ChatRequest } from "../../src/providers/send.js";
import OpenAI from "openai";
import { fastCtx } from "../helpers/transport-ctx.js";
import { readTrajectories } from "../../src/ingest/index.js";
import type { Trajectory, Verdict } from "../../src/types.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { TEST_KEY } from "../helpers/transport-ctx.js";
import { runCli } from "../helpers/cli.js";

const KEY_ENV = "IPI_SENDER_TEST_KEY";
let runs: Trajectory[] = [];
let fake: FakeOpenAI | undefined;

beforeAll(async () => {
  process.env[KEY_ENV] = TEST_KEY;
  for await (const it of readTrajectories([SAMPLES])) {
    if (it.kind === "trajectory" && Object.keys(it.trajectory.injections).length > 0) runs.push(it.trajectory);
    if (runs.length >= 6) break;
  }
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
afterAll(() => {
  delete process.env[KEY_ENV];
  runs = [];
});

const answer = (req: FakeRequest) =>
  completion(benchReply((req.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content));

function judgeCfg(over: Partial<JudgeConfig> = {}): JudgeConfig {
  return { id: "w", model: "fake-model", family: "openai", base_url: fake!.url, api_key_env: KEY_ENV, timeout_s: 5, ...over };
}

function makeJudge(cfg: JudgeConfig) {
  return { judge: createOpenAIJudge(cfg, { retries: 1, minQuoteChars: 12 }) };
}

/** What `p` rejects with (null when it resolves). */
const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => null,
    (x: unknown) => x,
  );

/** A verdict without its clock field. */
// the nonce is drawn fresh for every prompt (recorded on the verdict for the report's quote locator)
const comparable = (v: Verdict) => ({ ...v, created_at: undefined, nonce: undefined });

describe("a judge's sender", () => {
  it("gives the same verdict for the same reply, and the server sees the key, content type and response format", async () => {
    fake = await startFakeOpenAI(answer);
    const cfg = judgeCfg();
    const { judge: a } = makeJudge(cfg);
    const { judge: b } = makeJudge(cfg);
    for (const t of runs) {
      const va = await a.judge(t, { repeat: 0 });
      const vb = await b.judge(t, { repeat: 0 });
      expect(vb.status).toBe("ok");
      expect(comparable(vb)).toEqual(comparable(va));
    }
    expect(fake.requests).toHaveLength(2 * runs.length);
    const [x, y] = [fake.requests[0], fake.requests[1]];
    expect(y.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(y.headers["content-type"]).toBe(x.headers["content-type"]);
    expect(y.body.model).toBe(x.body.model);
    expect(y.body.response_format).toEqual(x.body.response_format);
  });

  it("sends requests of several judges in parallel", async () => {
    // Every reply is held until more requests are at the server at once than one judge's concurrency (4) allows:
    // only both judges sending in parallel get there (else the test times out). No clock decides.
    let atServer = 0;
    let release!: () => void;
    const together = new Promise<void>((ok) => (release = ok));
    fake = await startFakeOpenAI(async (req) => {
      if (++atServer > JUDGE_DEFAULTS.concurrency) release();
      await together;
      return answer(req);
    });
    const cfgA = judgeCfg({ id: "a" });
    const cfgB = judgeCfg({ id: "b", family: "anthropic" });
    const a = createOpenAIJudge(cfgA, { retries: 1, minQuoteChars: 12 });
    const b = createOpenAIJudge(cfgB, { retries: 1, minQuoteChars: 12 });
    const vs = await Promise.all(runs.flatMap((t) => [a.judge(t, { repeat: 0 }), b.judge(t, { repeat: 0 })]));
    expect(vs.every((v) => v.status === "ok")).toBe(true);
    expect(vs.map((v) => v.judge_id).sort()).toEqual([...Array(runs.length).fill("a"), ...Array(runs.length).fill("b")]);
    expect(atServer).toBe(2 * runs.length);
    expect(a.limiter.inFlight + b.limiter.inFlight).toBe(0);
  });

  it("a 401 rejects with a JudgeFatalError (kind auth) here, without the key", async () => {
    fake = await startFakeOpenAI([apiError(401, `Incorrect API key provided: ${TEST_KEY}`)]);
    const { judge } = makeJudge(judgeCfg());
    const e = await rejection(judge.judge(runs[0], { repeat: 0 }));
    expect(e).toBeInstanceOf(JudgeFatalError);
    expect((e as JudgeFatalError).kind).toBe("auth");
    expect((e as JudgeFatalError).judgeId).toBe("w");
    expect((e as Error).message).not.toContain(TEST_KEY);
  });

  it("connection refused before any answer stops the judge (kind unreachable)", async () => {
    const srv = http.createServer();
    await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((ok) => srv.close(() => ok()));
    fake = { url: `http://127.0.0.1:${port}/v1` } as FakeOpenAI;
    const { judge } = makeJudge(judgeCfg());
    fake = undefined;
    const e = await rejection(judge.judge(runs[0], { repeat: 0 }));
    expect(e).toBeInstanceOf(JudgeFatalError);
    expect((e as JudgeFatalError).kind).toBe("unreachable");
    expect((e as Error).message).toContain("ECONNREFUSED");
  });

  it("the run's signal aborts a hanging request: a judge_error 'aborted' at once, no retry", async () => {
    fake = await startFakeOpenAI([{ hang: true }]);
    const { judge } = makeJudge(judgeCfg({ timeout_s: 30 }));
    const ac = new AbortController();
    const p = judge.judge(runs[0], { repeat: 0, signal: ac.signal });
    // abort once the request hangs at the server (a fixed delay raced the client's start-up on a loaded machine)
    await expect.poll(() => fake!.requests.length, { timeout: 60_000, interval: 20 }).toBe(1);
    ac.abort();
    // aborted, not a timeout (timeout_s 30) and no retry: the abort ended it (no wall-clock assert)
    const v = await p;
    expect(v.status).toBe("judge_error");
    expect(v.error?.kind).toBe("aborted");
    expect(fake.requests).toHaveLength(1);
    expect(judge.limiter.inFlight).toBe(0);
  });
});

describe("resends under other token settings", () => {
  const REQ: ChatRequest = {
    model: "m",
    messages: [
      { role: "system", content: "rubric" },
      { role: "user", content: "tr\u00e9s \ud83d\ude00 lone \ud800 <x> \"q\"" },
    ],
    temperature: 0,
    max_tokens: 100,
    response_format: { type: "json_object" },
    extra_body: { provider: { order: ["a"] } },
  };
  const client = () => new OpenAI({ apiKey: TEST_KEY, baseURL: fake!.url, maxRetries: 0, timeout: 2000 });

  it("a truncated reply is sent again with a larger max_tokens; a server asking for max_completion_tokens gets it", async () => {
    fake = await startFakeOpenAI([
      completion("cut", { finish_reason: "length" }),
      apiError(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
      completion("ok"),
    ]);
    const r = await sendChat(client(), REQ, fastCtx());
    expect(r.outcome).toMatchObject({ kind: "reply", content: "ok" });
    expect(r.tokenParam).toBe("max_completion_tokens");
    const [first, second, third] = fake.requests.map((q) => q.body);
    expect(first.max_tokens).toBe(100);
    expect(second.max_tokens).toBe(200);
    expect(third.max_completion_tokens).toBe(200);
    expect(third.max_tokens).toBeUndefined();
    expect({ ...third, max_completion_tokens: undefined }).toEqual({ ...first, max_tokens: undefined });
  });
});

describe("the CLI at concurrency 16", () => {
  it("every one of the 82 samples labelled ok, and nothing on stderr (no listener warnings)", async () => {
    fake = await startFakeOpenAI(answer);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tw-"));
    try {
      const cfg = path.join(tmp, "judges.json");
      fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "w", model: "m", family: "openai", base_url: fake.url, concurrency: 16 }] }));
      const labelsOf = async (run: string, env: NodeJS.ProcessEnv) => {
        const r = await runCli(["label", SAMPLES, "--judges", cfg, "--run", run, "--labels-dir", tmp, "--json"], { env });
        // nothing but the one like-for-like warning (the samples' models ran different attack mixes, like13), and what
        // denies_reference_goal says of this stub, which never finds compliance (red team M4: exit 3)
        expect(withoutGoalDenial(r.stderr)).toMatch(/^ipi-judge: warning: agent models ran different attacks \([^\n]*\n$/);
        expect(r.code, r.stderr).toBe(3);
        const vs = fs.readFileSync(path.join(tmp, run, "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Verdict);
        return new Map(vs.map((v) => [v.trajectory_id, [v.status, v.label, v.downgraded, v.attempts]]));
      };
      const labels = await labelsOf("t", process.env);
      expect(labels.size).toBe(82);
      expect([...labels.values()].every(([status]) => status === "ok")).toBe(true);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});
