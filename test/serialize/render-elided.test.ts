/**
 * `renderForJudge`'s `elided` ranges agree with what the judge view shows (hostile 51, finding 1): for every part, the
 * view's text is its original text with exactly those ranges replaced by the elision marker (same UTF-16 offsets; a
 * range never splits a surrogate pair), a part of a message left out whole is elided whole, and a tool definition
 * left out is elided whole. Over several elided messages, tool results and assistant texts, multi-byte text and
 * seeded random trajectories.
 */
import { describe, expect, it } from "vitest";
import { elisionMarker, renderForJudge, type RenderedTrajectory } from "../../src/serialize/render.js";
import type { Trajectory } from "../../src/types.js";
import { fromOpenAI } from "../helpers/from-openai.js";
import { Rand, randomText } from "../helpers/rand.js";
import { parseMessages } from "./judge-view.js";

/** The text the judge view shows of a part with elided ranges `spans` (one range at most: a middle). */
function shownText(text: string, spans: readonly (readonly [number, number])[] | undefined, nonce: string): string | null {
  if (spans === undefined) return text;
  expect(spans).toHaveLength(1);
  const [a, b] = spans[0];
  if (a === 0 && b === text.length) return null;
  return text.slice(0, a) + elisionMarker(b - a, nonce) + text.slice(b);
}

/** Every part's shown text, as the view holds it, against its `elided` ranges; returns how many parts are elided. */
function checkAgreement(t: Trajectory, r: RenderedTrajectory): number {
  expect(r.elided).toHaveLength(r.parts.length);
  const view = parseMessages(r.trajectoryBlock, r.nonce);
  const byIndex = new Map(view.map((m) => [m.index, m]));
  let elided = 0;
  r.parts.forEach((p, u) => {
    const spans = r.elided[u];
    if (spans !== undefined) {
      elided++;
      for (const [a, b] of spans) {
        expect(0 <= a && a < b && b <= p.text.length).toBe(true);
        // never a lone half of a surrogate pair on either side of the cut
        for (const at of [a, b]) if (at > 0 && at < p.text.length) expect(p.text.charCodeAt(at) >= 0xdc00 && p.text.charCodeAt(at) <= 0xdfff).toBe(false);
      }
    }
    if (p.kind === "tool_description") return; // checked in "tool definitions left out"
    const m = byIndex.get(p.message_index);
    const inGap = view.gap !== undefined && p.message_index >= view.gap.from && p.message_index <= view.gap.to;
    expect(m === undefined).toBe(inGap);
    const want = shownText(p.text, spans, r.nonce);
    if (inGap) return expect(want).toBeNull();
    expect(want).not.toBeNull();
    const mine = r.parts.filter((q) => q.message_index === p.message_index && q.kind !== "harness_note");
    const shown = [m!.text, ...m!.calls.map((c) => c.text)].filter((x): x is string => x !== null);
    const k = mine.indexOf(p);
    expect(shown[k]).toBe(want);
  });
  return elided;
}

const long = (c: string, n: number) => c.repeat(n);

describe("renderForJudge: the elided ranges are what the view leaves out", () => {
  it("no budget pressure: nothing elided", () => {
    const t = fromOpenAI([{ role: "user", content: "hello there" }, { role: "assistant", content: "hi" }]);
    const r = renderForJudge(t);
    expect(r.truncated).toBe(false);
    expect(r.elided.every((e) => e === undefined)).toBe(true);
  });

  it("several elided messages: assistant texts and tool results, each with its own middle", () => {
    const t = fromOpenAI([
      { role: "user", content: "pay my bills" },
      { role: "assistant", content: `Start. ${long("B", 20_000)} I wired the funds now. ${long("C", 20_000)}` },
      { role: "tool", tool_call_id: "a", content: `${long("x", 15_000)} IBAN DE89370400440532013000 ${long("y", 15_000)}` },
      { role: "assistant", content: `Next ${long("D", 9000)} end.` },
      { role: "tool", tool_call_id: "b", content: "short result" },
    ]);
    const r = renderForJudge(t, { budgetChars: 6000 });
    expect(r.truncated).toBe(true);
    expect(checkAgreement(t, r)).toBe(3);
    expect(r.trajectoryBlock).not.toContain("I wired the funds");
  });

  it("multi-byte text (surrogate pairs, combining marks): the ranges are UTF-16 offsets that split no pair", () => {
    for (const budget of [1500, 2000, 2501, 3333]) {
      const t = fromOpenAI([
        { role: "user", content: "go" },
        { role: "assistant", content: "😀".repeat(3001) + "e\u0301".repeat(2000) + "中文".repeat(1500) },
        { role: "tool", tool_call_id: "a", content: "a😀".repeat(2999) },
      ]);
      const r = renderForJudge(t, { budgetChars: budget });
      expect(checkAgreement(t, r)).toBeGreaterThan(0);
    }
  });

  it("whole messages left out: every part of them elided whole, the kept ones as shown", () => {
    const msgs = [{ role: "system", content: "sys" }, { role: "user", content: "do it" }];
    for (let i = 0; i < 60; i++) msgs.push({ role: i % 2 ? "tool" : "assistant", content: `message ${i} ${long("z", 900)}`, ...(i % 2 ? { tool_call_id: `c${i}` } : {}) } as never);
    const t = fromOpenAI(msgs);
    const r = renderForJudge(t, { budgetChars: 9000 });
    expect(r.elidedMessages).toBeDefined();
    checkAgreement(t, r);
    const gapParts = r.parts.filter((p) => p.message_index >= r.elidedMessages!.from && p.message_index <= r.elidedMessages!.to);
    expect(gapParts.length).toBeGreaterThan(0);
  });

  it("tool calls elided in their arguments", () => {
    const t = fromOpenAI([
      { role: "user", content: "send it" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "send_money", arguments: { recipient: "DE89370400440532013000", note: long("n", 30_000) } } }] },
      { role: "tool", tool_call_id: "c1", content: "done" },
    ]);
    const r = renderForJudge(t, { budgetChars: 3000 });
    expect(checkAgreement(t, r)).toBe(1);
  });

  it("tool definitions left out are elided whole; those shown are whole or cut in the middle", () => {
    const tools = Array.from({ length: 3000 }, (_, i) => ({ name: `tool_${i}`, description: `Does thing ${i}. `.repeat(4) }));
    const t = { ...fromOpenAI([{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }]), tools } as Trajectory;
    const r = renderForJudge(t, { budgetChars: 20_000 });
    expect(r.trajectoryBlock).toContain(`<tools_elided_${r.nonce}>`);
    let whole = 0;
    r.parts.forEach((p, u) => {
      if (p.kind !== "tool_description") return;
      const header = `<tool_definition_${r.nonce} index="${p.tool_index}" name=`;
      const spans = r.elided[u];
      const left = spans !== undefined && spans[0][0] === 0 && spans[0][1] === p.text.length;
      expect(r.trajectoryBlock.includes(header)).toBe(!left);
      if (left) whole++;
      else expect(r.trajectoryBlock).toContain(`${header}"tool_${p.tool_index}">\n${shownText(p.text, spans, r.nonce)}\n`);
    });
    expect(whole).toBeGreaterThan(0);
  });

  it("seeded random trajectories under random budgets (hostile pieces, multi-byte)", () => {
    const r0 = new Rand(51);
    let elided = 0;
    for (let k = 0; k < 60; k++) {
      const msgs = [{ role: "user", content: randomText(r0, r0.int(1, 40)) }];
      const n = r0.int(2, 30);
      for (let i = 0; i < n; i++) {
        const role = r0.pick(["assistant", "tool", "user"]);
        msgs.push({ role, content: randomText(r0, r0.int(0, r0.bool(0.3) ? 4000 : 200)), ...(role === "tool" ? { tool_call_id: `c${i}` } : {}) } as never);
      }
      const t = fromOpenAI(msgs);
      const r = renderForJudge(t, { budgetChars: r0.int(1500, 30_000) });
      elided += checkAgreement(t, r);
    }
    expect(elided).toBeGreaterThan(20);
  });
});
