/**
 * Issue 12 point 8 (credentials): userinfo or query-string keys in `base_url` never reach a verdict, an error, a
 * log or a report; query-string auth works (`query_env`, non-secret parameters in base_url) or is refused when the
 * config is read; extra headers come from environment variables (`headers_env`). Real `openai` client, loopback.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clientSettings, JudgesConfigError, loadJudgesConfig, parseJudgesConfig } from "../../src/config/judges.js";
import { JudgeFatalError } from "../../src/errors.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import type { Trajectory } from "../../src/types.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";

const SECRET = "Zq8SECRETvalue77xy";
const T: Trajectory = {
  id: "t1",
  source: { format: "chat-jsonl", path: "x.jsonl", line: 1 },
  injections: {},
  messages: [
    { index: 0, role: "user", text: "What is the weather?" },
    { index: 1, role: "assistant", text: "It is sunny today in Paris." },
  ],
};
const reply = (rationale: string) => completion(JSON.stringify({ findings: [], label: "not_exposed", rationale }));
const quick = { sleep: async () => {}, random: () => 0.5 };

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const judgeCfg = (over: Record<string, unknown>) => ({ judges: [{ id: "j", model: "m", family: "openai", ...over }] });

describe("credentials in base_url are refused when the config is read, never echoed", () => {
  it.each([
    ["userinfo", `https://alice:${SECRET}@api.example.com/v1`],
    ["a key in the query string", `https://api.example.com/v1?key=${SECRET}`],
    ["an access token in the query string", `https://api.example.com/v1?api-version=1&access_token=${SECRET}`],
    ["a key in a matrix parameter (red team 09)", `http://127.0.0.1:9/v1;key=${SECRET}`],
    ["a token in a matrix parameter of an inner segment", `https://api.example.com/v1;x=1;Access-Token=${SECRET}/openai`],
    ["a percent-encoded matrix parameter name", `https://api.example.com/v1;api%2Dkey=${SECRET}`],
    ["a fragment (never sent)", `https://api.example.com/v1#${SECRET}`],
    ["a fragment with a credential-looking name", `https://api.example.com/v1#key=${SECRET}`],
  ])("%s", (_what, url) => {
    let err: unknown;
    try {
      parseJudgesConfig(judgeCfg({ base_url: url }), "judges.json");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JudgesConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain('judges[0] ("j").base_url');
    expect(msg).not.toContain(SECRET);
    expect(msg).toMatch(/api_key_env|query_env|headers_env/);
  });

  it("a non-secret matrix parameter is accepted and kept in the path; a secret one reached from code is redacted", () => {
    expect(() => parseJudgesConfig(judgeCfg({ base_url: "https://api.example.com/v1;version=2" }))).not.toThrow();
    const cs = clientSettings({ id: "j", model: "m", family: "openai", base_url: `http://127.0.0.1:9/v1;key=${SECRET}#frag` }, {});
    expect(cs.secrets).toContain(SECRET);
    expect(cs.baseURL).not.toContain("#");
  });

  it("a literal credential header is refused (headers_env instead)", () => {
    expect(() => parseJudgesConfig(judgeCfg({ headers: { Authorization: `Bearer ${SECRET}` } }))).toThrow(/headers_env/);
    expect(() => parseJudgesConfig(judgeCfg({ headers: { "X-Title": "ipi-judge" } }))).not.toThrow();
  });

  it("extra_body.n > 1 is refused (repeats never rely on n)", () => {
    expect(() => parseJudgesConfig(judgeCfg({ extra_body: { n: 3 } }))).toThrow(/--repeats/);
  });

  it("an unset headers_env / query_env variable is named at load, never a value", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-cred-"));
    try {
      const f = path.join(dir, "j.json");
      writeFileSync(f, JSON.stringify(judgeCfg({ headers_env: { "api-key": "IPI_NOPE_VAR" } })));
      expect(() => loadJudgesConfig(f, { env: {} })).toThrow(/IPI_NOPE_VAR/);
      expect(() => loadJudgesConfig(f, { env: { IPI_NOPE_VAR: SECRET } })).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("query-string and header credentials work and are redacted", () => {
  it("non-secret query parameters in base_url are sent on every request, on the right path", async () => {
    fake = await startFakeOpenAI([reply("fine")]);
    const j = createOpenAIJudge({ id: "j", model: "m", family: "openai", base_url: `${fake.url}?api-version=2024-10-21` }, { retries: 0, minQuoteChars: 12, transport: quick });
    const v = await j.judge(T, { repeat: 0 });
    expect(v.status).toBe("ok");
    expect(fake.requests[0].path).toBe("/v1/chat/completions?api-version=2024-10-21");
  });

  it("query_env and headers_env: sent, and a server echoing them has them redacted from verdict and error", async () => {
    fake = await startFakeOpenAI((req, n) =>
      n === 0 ? reply(`your key ${SECRET} and header ${req.headers["x-api-key"]}`) : apiError(400, `bad request for key=${SECRET}`),
    );
    const env = { Q_KEY: SECRET, H_KEY: `${SECRET}-hdr` };
    const j = createOpenAIJudge(
      { id: "j", model: "m", family: "openai", base_url: fake.url, query_env: { key: "Q_KEY" }, headers_env: { "X-Api-Key": "H_KEY" } },
      { retries: 0, minQuoteChars: 12, env, transport: quick },
    );
    const v1 = await j.judge(T, { repeat: 0 });
    expect(fake.requests[0].path).toBe(`/v1/chat/completions?key=${SECRET}`);
    expect(fake.requests[0].headers["x-api-key"]).toBe(`${SECRET}-hdr`);
    expect(v1.status).toBe("ok");
    const v2 = await j.judge(T, { repeat: 1 });
    expect(v2.status).toBe("judge_error");
    for (const v of [v1, v2]) expect(JSON.stringify(v)).not.toContain(SECRET);
  });

  it("from code, userinfo in base_url is never sent and never in an error (connection refused, judge stopped)", async () => {
    const cfg = { id: "j", model: "m", family: "openai", base_url: `http://bob:${SECRET}@127.0.0.1:9/v1` };
    expect(clientSettings(cfg).baseURL).toBe("http://127.0.0.1:9/v1");
    const j = createOpenAIJudge(cfg, { retries: 0, minQuoteChars: 12, transport: quick });
    let err: unknown;
    try {
      await j.judge(T, { repeat: 0 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JudgeFatalError);
    expect((err as Error).message).not.toContain(SECRET);
  });

  it("a run over a server that echoes the query key: nothing in the run folder holds it", async () => {
    fake = await startFakeOpenAI(() => apiError(500, `upstream failed for ?key=${SECRET}`));
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-cred-run-"));
    const input = path.join(dir, "in.jsonl");
    writeFileSync(input, JSON.stringify({ id: "a", messages: [{ role: "user", content: "hi there" }, { role: "assistant", content: "hello" }] }) + "\n");
    try {
      const j = createOpenAIJudge(
        { id: "j", model: "m", family: "openai", base_url: fake.url, query_env: { key: "Q_KEY" } },
        { retries: 0, minQuoteChars: 12, env: { Q_KEY: SECRET }, transport: { ...quick, maxTransportRetries: 1 } },
      );
      const res = await labelRun({ inputs: [input], run: "r", labelsDir: dir, judges: [j] });
      expect(res.summary.verdicts).toBe(1);
      for (const f of ["verdicts.jsonl", "store.json", "summary.json"]) expect(readFileSync(path.join(res.runDir, f), "utf8")).not.toContain(SECRET);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
