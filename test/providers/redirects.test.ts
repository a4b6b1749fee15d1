/**
 * Issue 15 point 4: HTTP redirects are followed (a moved endpoint), the request repeated with its method and
 * body; credentials are not sent on to another origin; a redirect loop ends. Through the judge's own client
 * (`limitedFetch` over the platform fetch) and the real `openai` client, against loopback servers.
 */
import { afterEach, describe, expect, it } from "vitest";
import { JudgeFatalError } from "../../src/errors.js";
import { createOpenAIJudge, type OpenAIJudge } from "../../src/judges/llm-judge.js";
import type { Trajectory } from "../../src/types.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";

const OK = JSON.stringify({ findings: [], label: "not_exposed", rationale: "fine" });
const T: Trajectory = {
  id: "t",
  source: { format: "chat-jsonl", path: "x" },
  injections: {},
  messages: [
    { index: 0, role: "user", text: "hello there" },
    { index: 1, role: "assistant", text: "hi, how can I help" },
  ],
};
const servers: FakeOpenAI[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
const judge = (base: string) =>
  createOpenAIJudge({ id: "j", model: "m", family: "openai", base_url: base, api_key_env: "K" }, { retries: 0, minQuoteChars: 12, env: { K: "sk-redirect-test-key-0001" }, transport: { sleep: async () => {} } });

describe("redirects", () => {
  it.each([301, 302, 307, 308])("%i from a moved path: followed, the POST repeated with its body", async (status) => {
    const s = await startFakeOpenAI((req) => (req.path.startsWith("/old/") ? { status, headers: { location: "/v1/chat/completions" }, body: {} } : completion(OK)));
    servers.push(s);
    const v = await judge(s.url.replace("/v1", "/old/v1")).judge(T, { repeat: 0 });
    expect(v.status).toBe("ok");
    expect(s.requests.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/old/v1/chat/completions"],
      ["POST", "/v1/chat/completions"],
    ]);
    expect(s.requests[1].body.messages).toEqual(s.requests[0].body.messages);
  });

  it("to another origin: followed without the Authorization header", async () => {
    const target = await startFakeOpenAI(() => completion(OK));
    const from = await startFakeOpenAI(() => ({ status: 308, headers: { location: `${target.url}/chat/completions` }, body: {} }));
    servers.push(target, from);
    const v = await judge(from.url).judge(T, { repeat: 0 });
    expect(v.status).toBe("ok");
    expect(from.requests[0].headers.authorization).toMatch(/^Bearer /);
    expect(target.requests[0].headers.authorization).toBeUndefined();
  });

  it("to another origin: no headers_env credential of any name goes on either (red team: X-Auth-Token, Ocp-Apim-Subscription-Key leaked)", async () => {
    const target = await startFakeOpenAI(() => completion(OK));
    const from = await startFakeOpenAI(() => ({ status: 307, headers: { location: `${target.url}/chat/completions` }, body: {} }));
    servers.push(target, from);
    const env = { K: "sk-redirect-test-key-0001", TOK: "tok-redirect-secret-0002", APIM: "apim-redirect-secret-0003" };
    const j = createOpenAIJudge(
      { id: "j", model: "m", family: "openai", base_url: from.url, api_key_env: "K", headers_env: { "X-Auth-Token": "TOK", "Ocp-Apim-Subscription-Key": "APIM" } },
      { retries: 0, minQuoteChars: 12, env, transport: { sleep: async () => {} } },
    );
    expect((await j.judge(T, { repeat: 0 })).status).toBe("ok");
    expect(from.requests[0].headers["x-auth-token"]).toBe(env.TOK);
    const sent = JSON.stringify(target.requests[0].headers);
    for (const secret of Object.values(env)) expect(sent).not.toContain(secret);
    expect(target.requests[0].headers["content-type"]).toBe("application/json");
  });

  it("a redirect loop ends after 5 hops as an error, never a label", async () => {
    const s = await startFakeOpenAI(() => ({ status: 307, headers: { location: "/v1/chat/completions" }, body: {} }));
    servers.push(s);
    const v = await judge(s.url).judge(T, { repeat: 0 });
    expect(v.status).toBe("judge_error");
    expect(s.requests).toHaveLength(6);
  });

  it("to another origin: said in the judge's record (the verdicts name the configured base_url); a same-origin move is not", async () => {
    const target = await startFakeOpenAI(() => completion(OK));
    const from = await startFakeOpenAI((req) =>
      req.path.startsWith("/old/") ? { status: 308, headers: { location: "/v1/chat/completions" }, body: {} } : { status: 307, headers: { location: `${target.url}/chat/completions?key=never-shown` }, body: {} },
    );
    servers.push(target, from);
    const moved = judge(from.url.replace("/v1", "/old/v1")) as OpenAIJudge;
    const away = judge(from.url) as OpenAIJudge;
    // /old/ -> /v1 (same origin) -> the target (another origin)
    expect((await moved.judge(T, { repeat: 0 })).status).toBe("ok");
    expect((await away.judge(T, { repeat: 0 })).status).toBe("ok");
    const origin = (u: string) => new URL(u).origin;
    for (const j of [moved, away]) {
      const adapted = j.requestParams().adapted;
      expect(adapted).toHaveLength(1);
      expect(adapted[0]).toContain(`requests to ${origin(from.url)} were redirected to another origin, ${origin(target.url)}`);
      expect(adapted[0]).not.toContain("never-shown"); // origins only: a query may hold a key
    }
    const same = await startFakeOpenAI((req) => (req.path.startsWith("/old/") ? { status: 301, headers: { location: "/v1/chat/completions" }, body: {} } : completion(OK)));
    servers.push(same);
    const j = judge(same.url.replace("/v1", "/old/v1")) as OpenAIJudge;
    expect((await j.judge(T, { repeat: 0 })).status).toBe("ok");
    expect(j.requestParams().adapted).toEqual([]);
  });

  it("to another origin that wants the key (http -> https on the same host is one): the auth stop says why and what to set", async () => {
    const target = await startFakeOpenAI((req) => (req.headers.authorization ? completion(OK) : { status: 401, body: { error: { message: "Missing bearer token" } } }));
    const from = await startFakeOpenAI(() => ({ status: 301, headers: { location: `${target.url}/chat/completions` }, body: {} }));
    servers.push(target, from);
    const err = await judge(from.url)
      .judge(T, { repeat: 0 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(JudgeFatalError);
    expect((err as JudgeFatalError).kind).toBe("auth");
    const to = new URL(target.url).origin;
    expect((err as Error).message).toContain(`redirected from ${new URL(from.url).origin} to another origin, ${to}, where no credential is sent`);
    expect((err as Error).message).toContain(`set base_url to it`);
    expect((err as Error).message).not.toContain("sk-redirect-test-key-0001");
  });
});
