/**
 * A drawn nonce that occurs in the content (any case) is drawn again: `newNonce` is scripted here (module mock)
 * so that the first nonce is one the trajectory holds.
 */
import { describe, expect, it, vi } from "vitest";

const drawn = vi.hoisted(() => ({ queue: [] as string[], calls: 0 }));
vi.mock("../../src/serialize/untrusted.js", async (orig) => {
  const real = await orig<typeof import("../../src/serialize/untrusted.js")>();
  return {
    ...real,
    newNonce: () => {
      drawn.calls++;
      return drawn.queue.shift() ?? real.newNonce();
    },
  };
});

import { renderForJudge } from "../../src/serialize/render.js";
import { neutralize } from "../../src/serialize/untrusted.js";
import { fromOpenAI } from "../helpers/from-openai.js";

describe("renderForJudge draws again a nonce the content holds", () => {
  const cases: [string, (n: string) => Parameters<typeof fromOpenAI>[0]][] = [
    ["a message text, upper case", (n) => [{ role: "user", content: `see ${n.toUpperCase()} here` }]],
    ["a tool name", (n) => [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: `f_${n}`, arguments: "{}" } }] }, { role: "tool", tool_call_id: "c1", name: `f_${n}`, content: "ok" }]],
    ["a tool call id", (n) => [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: `call_${n}`, type: "function", function: { name: "f", arguments: "{}" } }] }, { role: "tool", tool_call_id: `call_${n}`, content: "ok" }]],
  ];
  for (const [what, msgs] of cases) {
    it(`in ${what}`, () => {
      const first = "9fa0a0a0a0a0a";
      const second = "8e1b1b1b1b1b1";
      drawn.queue = [first, second];
      drawn.calls = 0;
      const r = renderForJudge(fromOpenAI(msgs(first) as never));
      expect(drawn.calls).toBe(2);
      expect(r.nonce).toBe(second);
      expect(r.trajectoryBlock.toLowerCase()).toContain(first); // the content, shown as it is
      expect(r.trajectoryBlock).toContain(`<untrusted_trajectory_${second}>`);
    });
  }

  it("a nonce the content does not hold is kept (one draw); a caller's nonce is never redrawn", () => {
    drawn.queue = ["7d2c2c2c2c2c2"];
    drawn.calls = 0;
    expect(renderForJudge(fromOpenAI([{ role: "user", content: "hello" }] as never)).nonce).toBe("7d2c2c2c2c2c2");
    expect(drawn.calls).toBe(1);
    drawn.calls = 0;
    expect(renderForJudge(fromOpenAI([{ role: "user", content: "abcdef123456" }] as never), { nonce: "abcdef123456" }).nonce).toBe("abcdef123456");
    expect(drawn.calls).toBe(0);
  });

  it("neutralize counts literal occurrences (any case), not text already in the escaped form", () => {
    const seen = { nonce: 0 };
    neutralize("x 9fa0a0a0a0a0a y 9FA0A0A0A0A0A z &#x39;fa0a0a0a0a0a", "9fa0a0a0a0a0a", seen);
    expect(seen.nonce).toBe(2);
  });
});
