/**
 * The signature judge on huge tool results: linear time and memory, and an `unjudgeable` / `too_large` verdict
 * (never a crash) past its size limit. Real AgentDojo run, its injected tool result blown up.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { convertAgentDojo } from "../../../src/ingest/agentdojo.js";
import { createSignatureJudge, SIGNATURE_MAX_CHARS, trajectoryChars } from "../../../src/judges/signature/index.js";
import type { Trajectory } from "../../../src/types.js";
import { CORPUS } from "../../helpers/paths.js";

const REL = "runs/claude-3-5-sonnet-20240620/banking/user_task_10/important_instructions/injection_task_4.json";
function run(): Trajectory {
  const file = path.join(CORPUS, REL);
  const r = convertAgentDojo(JSON.parse(readFileSync(file, "utf8")), { path: file, root: path.join(CORPUS, "runs") });
  if (!r.ok) throw new Error(r.error.message);
  return r.trajectory;
}

/** The run with its injected tool result repeated (injection and all) to about `chars` characters. */
function blownUp(chars: number): Trajectory {
  const t = run();
  const i = t.messages.findIndex((m) => m.role === "tool" && m.text.includes("INFORMATION"));
  const orig = t.messages[i].text;
  const messages = t.messages.slice();
  messages[i] = { ...messages[i], text: `${orig}\n${orig.repeat(Math.ceil(chars / orig.length))}` };
  return { ...t, messages };
}

const judge = createSignatureJudge();
const ctx = { repeat: 0 };

describe("signature judge: huge tool results", () => {
  it("a tool result holding the injection ~1,500 times (2 MB): same label as the original run, in linear time", async () => {
    const base = await judge.judge(run(), ctx);
    const small = await judge.judge(blownUp(500_000), ctx);
    const big = await judge.judge(blownUp(2_000_000), ctx);
    expect(big.status).toBe("ok");
    expect(big.label).toBe(base.label);
    expect(small.label).toBe(base.label);
    for (const f of big.findings) if (f.bucket !== "not_exposed") expect(f.evidence.some((q) => q.verified)).toBe(true);
    // Before: 13 s at 2 MB and 77 s at 5 MB (the masking rebuilt the whole text once per copy of the injection).
    // The linear time is measured in npm run bench (bench/scaling.ts), not asserted here.
  });

  it("past the size limit: an unjudgeable verdict with error too_large, quickly, without analyzing", async () => {
    const t = run();
    const huge = "x".repeat(SIGNATURE_MAX_CHARS + 1);
    const messages = t.messages.slice();
    messages[3] = { ...messages[3], text: huge };
    const tt = { ...t, messages };
    expect(trajectoryChars(tt)).toBeGreaterThan(SIGNATURE_MAX_CHARS);
    const v = await judge.judge(tt, ctx);
    expect(v).toMatchObject({ status: "unjudgeable", label: null, compromised: null, attempts: 0, error: { kind: "too_large" }, cost_usd: 0 }); // an offline judge pays nothing: a known 0, not an unknown cost
    expect(v.error!.message).toMatch(/characters of text, more than the signature judge analyzes \(33,554,432\)/);
    expect(v.raw_replies).toEqual([]);
  });

  it("the limit is configurable; trajectoryChars counts texts, errors, tool calls and injections", async () => {
    const t = run();
    const n = trajectoryChars(t);
    const expected =
      t.messages.reduce((s, m) => s + m.text.length + (m.error?.length ?? 0) + (m.tool_calls ?? []).reduce((a, c) => a + c.name.length + c.arguments.length, 0), 0) +
      Object.values(t.injections).reduce((s, v) => s + v.length, 0);
    expect(n).toBe(expected);
    const small = createSignatureJudge({ maxChars: n - 1 });
    expect((await small.judge(t, ctx)).status).toBe("unjudgeable");
    const exact = createSignatureJudge({ maxChars: n });
    expect((await exact.judge(t, ctx)).status).toBe("ok");
    expect(() => createSignatureJudge({ maxChars: 0 })).toThrow(RangeError);
    expect(trajectoryChars({ ...t, messages: [{ index: 0, role: "user", text: null as unknown as string }], injections: {} })).toBe(0);
  });
});
