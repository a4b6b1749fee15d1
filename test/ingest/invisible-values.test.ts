// Red team (second round), finding 4: zero-width and bidi control characters in condition and attack values made a
// second condition that prints like `none` ("none\u200b") and values that reorder terminal lines. They are removed
// at ingest, before the no-attack / no-defense rules; the value read is kept in metadata.
import { describe, expect, it } from "vitest";
import { convertChatLine } from "../../src/ingest/chat-jsonl.js";
import { meansNoAttack, meansNoDefense, normalizeAttack, normalizeCondition, stripInvisible } from "../../src/ingest/attacked.js";
import type { Trajectory } from "../../src/types.js";

const src = { path: "/data/t.jsonl", line: 1, relPath: "t.jsonl" };
const messages = [{ role: "user", content: "hi" }];
const line = (extra: Record<string, unknown>) => {
  const r = convertChatLine({ id: "d", messages, ...extra }, src);
  if (!r.ok) throw new Error(r.error.message);
  return r;
};

describe("zero-width and bidi controls in condition and attack", () => {
  it("strips U+200B-200D, U+2060, U+FEFF and the bidi controls, nothing else", () => {
    expect(stripInvisible("n\u200bo\u200cn\u200de\u2060\ufeff")).toBe("none");
    expect(stripInvisible("spot\u202e\u2066\u200f")).toBe("spot");
    expect(stripInvisible("tool_filter é")).toBe("tool_filter é");
  });

  it('"none\\u200b" is no defense (pools with no_defense), the value read kept', () => {
    const { trajectory: t } = line({ defense: "none\u200b", attack: "x" }) as { trajectory: Trajectory };
    expect(t.condition).toBe("no_defense");
    expect(t.metadata?.original_condition).toBe("none\u200b");
    expect(meansNoDefense("\u202enone")).toBe(true);
  });

  it("a condition or attack with controls is the clean value, the value read kept in metadata", () => {
    const { trajectory: t } = line({ condition: "spot\u202e", attack: "a\u2066tk" }) as { trajectory: Trajectory };
    expect(t.condition).toBe("spot");
    expect(t.attack).toBe("atk");
    expect(t.metadata).toMatchObject({ original_condition: "spot\u202e", original_attack: "a\u2066tk" });
  });

  it('"clean\\u200b" is no attack, and beside injections it is the attack_contradiction it would be without the character', () => {
    expect(meansNoAttack("clean\u200b")).toBe(true);
    const r = line({ attack_type: "clean\u200b", injections: { p: "do evil" } });
    expect(r.ok && r.trajectory.attack).toBeUndefined();
    expect(r.ok && r.trajectory.metadata?.original_attack).toBe("clean\u200b");
    expect((r.ok && r.warnings ? r.warnings : []).map((w) => w.kind)).toContain("attack_contradiction");
  });

  it("normalizing twice changes nothing more (every format goes through readTrajectories too)", () => {
    const t = { id: "x", source: { format: "chat-jsonl", path: "f" }, injections: {}, messages: [], condition: "spot\u200b", attack: "a\u202etk" } as unknown as Trajectory;
    normalizeCondition(t);
    normalizeAttack(t);
    const once = JSON.stringify(t);
    normalizeCondition(t);
    normalizeAttack(t);
    expect(JSON.stringify(t)).toBe(once);
    expect(t).toMatchObject({ condition: "spot", attack: "atk", metadata: { original_condition: "spot\u200b", original_attack: "a\u202etk" } });
  });
});
