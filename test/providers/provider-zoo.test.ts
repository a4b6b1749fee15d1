/**
 * Every scripted provider behaviour of `test/helpers/provider-zoo.ts` through the real `openai` client and the LLM
 * judge against a loopback server: no reply ends as a wrong label, a wrong cost or a silent drop (issue 23,
 * "Done when").
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { convertAgentDojo } from "../../src/ingest/agentdojo.js";
import { JudgeFatalError } from "../../src/errors.js";
import type { Trajectory, Verdict } from "../../src/types.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { CORPUS } from "../helpers/paths.js";
import { SCENARIOS } from "../helpers/provider-zoo.js";

const ENV = { IPI_TEST_KEY: "sk-zoo-0123456789abcdef" };
let ATTACKED: Trajectory;
let LONG: Trajectory;
beforeAll(() => {
  const file = path.join(CORPUS, "runs/claude-3-5-sonnet-20240620/banking/user_task_12/important_instructions/injection_task_0.json");
  const r = convertAgentDojo(JSON.parse(readFileSync(file, "utf8")), { path: file, root: path.join(CORPUS, "runs") });
  if (!r.ok) throw new Error(r.error.message);
  ATTACKED = r.trajectory;
  // the same run with a ~60k-character tool result (a long inbox): a prompt a small context window cuts
  LONG = structuredClone(ATTACKED);
  const tool = LONG.messages.find((m) => m.role === "tool" && m.index !== 3)!;
  tool.text += "\n" + "Transaction 2024-03-01 groceries 42.10 EUR; ".repeat(1400);
});

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("providers as they answer (scripted from their public documentation)", () => {
  it("covers at least five providers", () => {
    const providers = new Set(SCENARIOS.map((s) => s.provider.split(/[ (/]/)[0]));
    expect(providers.size).toBeGreaterThanOrEqual(5);
  });

  for (const s of SCENARIOS) {
    it(`${s.provider}: ${s.behaviour}`, async () => {
      fake = await startFakeOpenAI((req, n) => s.script(req, n));
      const judge = createOpenAIJudge(
        { id: "zoo", model: "zoo-model", family: "other", base_url: fake.url, api_key_env: "IPI_TEST_KEY", ...(s.config ?? {}) } as never,
        { retries: 2, minQuoteChars: 12, env: ENV, transport: { sleep: async () => undefined, random: () => 0.5, maxTransportRetries: 2 } },
      );
      const t = s.trajectory === "long" ? LONG : ATTACKED;
      const e = s.expect;
      if (e.fatal) {
        // a judge-level fault stops the judge: 3 items, not 3 errors
        let err: unknown;
        try {
          for (let k = 0; k < 4; k++) await judge.judge({ ...t, id: `${t.id}-${k}` }, { repeat: 0 });
        } catch (x) {
          err = x;
        }
        expect(err).toBeInstanceOf(JudgeFatalError);
        expect((err as JudgeFatalError).kind).toBe(e.fatal);
        expect((err as JudgeFatalError).message).not.toContain(ENV.IPI_TEST_KEY);
        if (e.requests !== undefined) expect(fake.requests).toHaveLength(e.requests);
        return;
      }
      const v: Verdict = await judge.judge(t, { repeat: 0 });
      if (process.env.ZOO_DEBUG) console.log("ZOO", JSON.stringify({ status: v.status, label: v.label, error: v.error, findings: v.findings }));
      if (e.status !== undefined) expect(v.status).toBe(e.status);
      if (e.label !== undefined) expect(v.label).toBe(e.label);
      if (e.errorKind !== undefined) expect(v.error?.kind).toBe(e.errorKind);
      // never a label without an ok status
      if (v.status !== "ok") expect(v.label).toBeNull();
      if (e.requests !== undefined) expect(fake.requests).toHaveLength(e.requests);
      if (e.costUsd !== undefined) expect(v.cost_usd).toBeCloseTo(e.costUsd, 12);
      if (e.adapted !== undefined) expect(judge.requestParams().adapted.join(" | ")).toContain(e.adapted);
      if (e.note !== undefined) expect((v.provider_notes ?? []).join(" | ")).toContain(e.note);
      e.sent?.(fake.requests);
      // the error keeps the provider's reason (never "status code (no body)")
      if (v.error) expect(v.error.message).not.toMatch(/no body/);
      // an adaptation is learned once: a second item pays no 400 again
      if (e.adapted !== undefined) {
        const before = fake.requests.length;
        const v2 = await judge.judge({ ...t, id: `${t.id}-2` }, { repeat: 0 });
        expect(v2.status).toBe(v.status);
        expect(fake.requests.length - before).toBeLessThanOrEqual(e.requests !== undefined && e.requests > 2 ? 2 : 1);
      }
    });
  }
});
