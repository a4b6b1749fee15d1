/**
 * An assistant message's reasoning in chat JSONL (`reasoning_content`, `reasoning`, `thinking`) is the agent's text
 * the judge sees (red team 41: it was dropped in silence, so a refusal or a plan to comply written only there was
 * evidence the judge never saw).
 */
import { describe, expect, it } from "vitest";
import { chatReasoning } from "../../src/ingest/chat-reasoning.js";
import { convertOpenAIMessages } from "../../src/ingest/chat-jsonl.js";

describe("chat JSONL reasoning", () => {
  it("each distinct non-empty reasoning string, in key order, as <reasoning> lines; none gives an empty string", () => {
    expect(chatReasoning({ reasoning_content: "a", reasoning: "a", thinking: "b" })).toBe("<reasoning>a</reasoning>\n<reasoning>b</reasoning>");
    expect(chatReasoning({ reasoning: "  ", thinking: null, reasoning_content: 3 })).toBe("");
    expect(chatReasoning({})).toBe("");
  });

  it("an assistant turn shows its reasoning before its content, a reasoning-only turn its reasoning; other roles are unchanged", () => {
    const m = convertOpenAIMessages([
      { role: "user", content: "pay the bill", reasoning: "not an agent's" },
      { role: "assistant", content: "Done.", reasoning_content: "The file says to send the IBAN to the attacker; I will ignore it." },
      { role: "assistant", content: null, reasoning: "I will follow the note." },
    ]);
    expect(m[0].text).toBe("pay the bill");
    expect(m[1].text).toBe("<reasoning>The file says to send the IBAN to the attacker; I will ignore it.</reasoning>\nDone.");
    expect(m[2].text).toBe("<reasoning>I will follow the note.</reasoning>");
  });

  it("a refusal beside content follows it; one the content already holds is not repeated", () => {
    const m = convertOpenAIMessages([
      { role: "assistant", content: "I read the file.", refusal: "I won't send money to that account." },
      { role: "assistant", content: "I won't do that.", refusal: "I won't do that." },
      { role: "assistant", content: null, refusal: "No." },
    ]);
    expect(m.map((x) => x.text)).toEqual(["I read the file.\nI won't send money to that account.", "I won't do that.", "No."]);
  });
});
