/**
 * Session 53: the keys of a judge's reply the parser does not read are named, never dropped silently
 * (`../../src/judges/extra-keys.ts`, `parseReply`'s `notes` and `extraKeys`), in every output mode; a label only under
 * another key still fails, naming the keys given; a value of any depth is shown without a thrown RangeError.
 */
import { describe, expect, it } from "vitest";
import { parseReply } from "../../src/judges/parse.js";
import { EXTRA_KEYS_NOTE, extraKeyName, keysGiven, preview } from "../../src/judges/extra-keys.js";

const EV = { message_index: 2, quote: "email the password reset code" };
const MODES = ["text", "json_object", "json_schema"] as const;

describe("keys a judge's reply holds that the parser does not read", () => {
  it("are named at every level with their values, and the reply reads as without them", () => {
    const plain = { findings: [{ bucket: "unaffected", evidence: [EV], explanation: "x" }], label: "unaffected", rationale: "r" };
    const extra = {
      injection_goal_achieved: true,
      ...plain,
      findings: [{ ...plain.findings[0], severity: "high", label: "full_compliance", evidence: [{ ...EV, source: "tool" }] }],
      confidence: 0.2,
    };
    for (const mode of MODES) {
      const a = parseReply(JSON.stringify(plain), mode);
      const b = parseReply(JSON.stringify(extra), mode);
      expect(a.ok && b.ok).toBe(true);
      if (!a.ok || !b.ok) continue;
      expect(b.reply).toEqual(a.reply);
      expect(a.extraKeys).toEqual([]);
      expect(a.notes).toEqual([]);
      expect(b.extraKeys).toEqual(["confidence", "findings[].evidence[].source", "findings[].label", "findings[].severity", "injection_goal_achieved"]);
      expect(b.notes).toEqual([
        `${EXTRA_KEYS_NOTE}"injection_goal_achieved" = true, "confidence" = 0.2, findings[0]."severity" = "high", findings[0]."label" = "full_compliance", findings[0].evidence[0]."source" = "tool"`,
      ]);
    }
  });

  it("a top-level evidence beside findings is not read, and named; without findings it is read (and its quotes' keys named)", () => {
    const beside = parseReply(JSON.stringify({ label: "unaffected", findings: [], evidence: [EV] }), "json_object");
    expect(beside).toMatchObject({ ok: true, reply: { findings: [] }, extraKeys: ["evidence"] });
    const alone = parseReply(JSON.stringify({ label: "unaffected", evidence: [{ ...EV, page: 3 }] }), "json_object");
    expect(alone).toMatchObject({ ok: true, reply: { findings: [{ bucket: "unaffected" }] }, extraKeys: ["evidence[].page"] });
  });

  it("quotes under another name (evidence_quotes) leave the finding without evidence, and are named", () => {
    const r = parseReply(JSON.stringify({ label: "unaffected", findings: [{ bucket: "unaffected", evidence_quotes: [EV.quote], explanation: "" }] }), "text");
    expect(r).toMatchObject({ ok: true, reply: { findings: [{ evidence: [] }] }, extraKeys: ["findings[].evidence_quotes"] });
    expect(r.ok && r.notes[0]).toContain('findings[0]."evidence_quotes" = ["email the password reset code"]');
  });

  it("a label only under another key or case still fails, the failure naming the keys given", () => {
    const verdict = parseReply(JSON.stringify({ verdict: "full_compliance", rationale: "r" }), "json_object");
    expect(verdict).toMatchObject({ ok: false, kind: "not_verdict" });
    expect(!verdict.ok && verdict.message).toBe('the reply is JSON but has no "label" or "findings" field (its keys: "verdict", "rationale"; keys are case-sensitive)');
    for (const mode of MODES) {
      const r = parseReply(JSON.stringify({ Label: "full_compliance", findings: [] }), mode);
      expect(r).toMatchObject({ ok: false, kind: "invalid_shape", message: 'the reply has no "label" field (its keys: "Label", "findings"; keys are case-sensitive)' });
    }
    // a label value in another case is a label (canonicalLabel), as before
    expect(parseReply(JSON.stringify({ label: "Full Compliance", findings: [] }), "json_object")).toMatchObject({ ok: true, reply: { label: "full_compliance" }, extraKeys: [] });
  });

  it("a key it does not read, twice: with different values the reply is ambiguous (as any repeated key), with the same value it is named once", () => {
    for (const mode of MODES) {
      expect(parseReply('{"label":"unaffected","findings":[],"confidence":0.2,"confidence":0.9}', mode)).toMatchObject({ ok: false, kind: "ambiguous", repeatedKey: true });
      const same = parseReply('{"label":"unaffected","findings":[],"confidence":0.2,"confidence":0.2}', mode);
      expect(same).toMatchObject({ ok: true, extraKeys: ["confidence"], notes: [`${EXTRA_KEYS_NOTE}"confidence" = 0.2`] });
    }
  });

  it("identical verdict objects in a text reply: the keys of each are named", () => {
    const r = parseReply('{"label":"unaffected","findings":[],"a":1} and again {"label":"unaffected","findings":[],"b":2}', "text");
    expect(r).toMatchObject({ ok: true, extraKeys: ["a", "b"] });
  });

  it("a single-key wrapper is no key not read", () => {
    expect(parseReply('{"verdict":{"label":"unaffected","findings":[]}}', "json_object")).toMatchObject({ ok: true, extraKeys: [] });
  });

  it("values are shown cut, at any depth, without recursion; names are cut and counted, the note caps at 10", () => {
    expect(preview({ a: 1, b: [2, { c: "x" }] }, 40)).toBe('{"a":1,"b":[2,{"c":"x"}]}');
    expect(preview("x".repeat(100), 10)).toBe(`"${"x".repeat(9)}...`);
    expect(preview(Array(1000).fill(0), 9)).toBe("[0,0,0,0,...");
    for (const n of [3000, 100_000]) {
      const deep = `{"findings":[],"label":"unaffected","rationale":"r","extra":${"[".repeat(n)}${"]".repeat(n)}}`;
      for (const mode of MODES) expect(parseReply(deep, mode)).toMatchObject({ ok: true, extraKeys: ["extra"] });
    }
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${String(i).padStart(2, "0")}`, i]));
    const r = parseReply(JSON.stringify({ label: "unaffected", findings: [], ...many }), "json_object");
    expect(r.ok && r.extraKeys).toHaveLength(20);
    expect(r.ok && r.notes[0]).toMatch(/"k09" = 9 and 15 more$/);
    expect(extraKeyName({ path: "findings[3].evidence[12]", key: "k".repeat(100) })).toBe(`findings[].evidence[].${"k".repeat(60)}...`);
    expect(keysGiven({})).toBe(" (it is an empty object)");
  });

  it("a __proto__ key is named like any other", () => {
    const r = parseReply('{"label":"unaffected","findings":[],"__proto__":{"x":1}}', "json_object");
    expect(r).toMatchObject({ ok: true, extraKeys: ["__proto__"] });
  });
});
