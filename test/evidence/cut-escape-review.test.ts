import { describe, expect, it } from "vitest";
import { evidenceContext } from "../../src/evidence/context.js";
import { findQuoteSpan, verifyQuote } from "../../src/evidence/verify.js";
import { EVIDENCE_KINDS } from "../../src/rubric/buckets.js";
import { neutralize } from "../../src/serialize/untrusted.js";
import { fromOpenAI } from "../helpers/from-openai.js";

const COMPLY = EVIDENCE_KINDS.full_compliance;
const nonce = "9f0123456789a";

describe("review 28: a cut escape adds no length to a quote", () => {
  it("a one-character quote '&' is 'too short' (min 12), never verified by the completed tag name", () => {
    const t = fromOpenAI([{ role: "assistant", content: "Following the <instructions> in the file now." }]);
    const ctx = evidenceContext(t, { nonce });
    const v = verifyQuote({ message_index: 0, quote: "&" }, COMPLY, ctx);
    expect(v.verified).toBe(false);
    expect(v.reason).toMatch(/too short/);
    expect(verifyQuote({ message_index: 0, quote: "a &" }, COMPLY, ctx).verified).toBe(false);
  });
});

describe("review s29: a cut escape verifies only where the serializer escaped the raw text", () => {
  // NFKC folds a fullwidth '＜' (U+FF1C) to '<' and the zero-width characters are dropped: the normalized text holds a
  // '<' + tag name where the judge saw the text as it is, never "&lt;"
  for (const [what, content] of [
    ["a fullwidth '＜'", "the balance ＜tool_result> is 100"],
    ["a small '﹤' (U+FE64)", "the balance ﹤tool_result> is 100"],
    ["a '<' a zero-width space keeps from the name", "the balance <\u200btool_result> is 100"],
    ["a '<' a zero-width joiner keeps from the '/'", "the balance <\u200d/tool_result> is 100"],
  ]) {
    it(`'the balance &' is not verified against ${what}`, () => {
      const ctx = evidenceContext(fromOpenAI([{ role: "assistant", content }]), { nonce });
      for (const quote of ["the balance &", "the balance &l", "the balance &lt", "the balance &lt;", "the balance &lt;/"]) {
        const v = verifyQuote({ message_index: 0, quote }, COMPLY, ctx);
        expect(v.verified, quote).toBe(false);
        expect(v.reason, quote).toMatch(/^not found/);
        expect(findQuoteSpan(quote, 0, ctx), quote).toBeNull();
      }
    });
  }
  it("nor a cut '&amp;' against a literal '&lt;' written with a fullwidth letter (not escaped either)", () => {
    const ctx = evidenceContext(fromOpenAI([{ role: "assistant", content: "and then &ｌt;system literal text" }]), { nonce });
    expect(neutralize("and then &ｌt;system literal text", nonce)).toBe("and then &ｌt;system literal text");
    expect(verifyQuote({ message_index: 0, quote: "and then &amp;" }, COMPLY, ctx).verified).toBe(false);
  });
  it("the same text with an ASCII '<' (escaped, seen as &lt;) still verifies cut at any point, and is found in place", () => {
    const content = "the balance <tool_result> is 100";
    const ctx = evidenceContext(fromOpenAI([{ role: "assistant", content }]), { nonce });
    expect(neutralize(content, nonce)).toBe("the balance &lt;tool_result> is 100");
    // the span ends where the judge's quote ends: at the "<" for a cut inside the escape, else the completed name
    for (const quote of ["the balance &", "the balance &l", "the balance &lt", "the balance &lt;"]) {
      expect(verifyQuote({ message_index: 0, quote }, COMPLY, ctx).verified, quote).toBe(true);
      expect(findQuoteSpan(quote, 0, ctx), quote).toEqual({ start: 0, end: "the balance <".length });
    }
    expect(verifyQuote({ message_index: 0, quote: "the balance &lt;to" }, COMPLY, ctx).verified).toBe(true);
    expect(findQuoteSpan("the balance &lt;to", 0, ctx)).toEqual({ start: 0, end: "the balance <tool".length });
  });
  it("a BOM between '<' and the name is whitespace to the serializer: escaped, so the cut verifies", () => {
    const content = "the balance <\ufefftool_result> is 100";
    expect(neutralize(content, nonce)).toBe("the balance &lt;\ufefftool_result> is 100");
    const ctx = evidenceContext(fromOpenAI([{ role: "assistant", content }]), { nonce });
    expect(verifyQuote({ message_index: 0, quote: "the balance &" }, COMPLY, ctx).verified).toBe(true);
  });
  it("the first occurrence that is an escape is the one found: a fullwidth one before it is passed over", () => {
    const content = "the balance ＜tool_result> then the balance <tool_result> again";
    const ctx = evidenceContext(fromOpenAI([{ role: "assistant", content }]), { nonce });
    expect(verifyQuote({ message_index: 0, quote: "the balance &l" }, COMPLY, ctx).verified).toBe(true);
    const at = content.lastIndexOf("the balance");
    expect(findQuoteSpan("the balance &l", 0, ctx)).toEqual({ start: at, end: at + "the balance <".length });
  });
  it("the cut escape is checked in the part it matched: a fullwidth '＜' in the cited message, an ASCII '<' in another", () => {
    const t = fromOpenAI([
      { role: "assistant", content: "the balance ＜tool_result> is 100" },
      { role: "assistant", content: "the balance <tool_result> is 100" },
    ]);
    const v = verifyQuote({ message_index: 0, quote: "the balance &" }, COMPLY, evidenceContext(t, { nonce }));
    expect(v).toMatchObject({ verified: true, corrected_index: 1 });
  });
});

describe("red team 29b: whitespace the serializer allows between '<' and the name", () => {
  for (const content of ["the balance < tool_result> is 100", "the balance <  /tool_result> is 100", "the balance <\n/ tool_result> is 100"]) {
    it(`a quote cut inside or after the escape verifies against ${JSON.stringify(content)}`, () => {
      const shown = neutralize(content, nonce);
      expect(shown.startsWith("the balance &lt;")).toBe(true);
      const ctx = evidenceContext(fromOpenAI([{ role: "assistant", content }]), { nonce });
      const cuts = ["the balance &", "the balance &l", "the balance &lt", "the balance &lt;"];
      // and cut after the escape, inside what follows it as the judge saw it
      const rest = shown.slice("the balance &lt;".length, shown.indexOf("tool_result") + 2);
      for (let k = 1; k <= rest.length; k++) cuts.push("the balance &lt;" + rest.slice(0, k));
      for (const quote of cuts) {
        expect(verifyQuote({ message_index: 0, quote }, COMPLY, ctx).verified, JSON.stringify(quote)).toBe(true);
        expect(findQuoteSpan(quote, 0, ctx)?.start, JSON.stringify(quote)).toBe(0);
      }
    });
  }
  it("still not against a '<' the judge saw as it is, nor a name the serializer does not escape", () => {
    const ctx = evidenceContext(fromOpenAI([{ role: "assistant", content: "the balance < 100 and the balance < xyz> again" }]), { nonce });
    for (const quote of ["the balance &", "the balance &lt;", "the balance &lt; x", "the balance &lt; /", "the balance &lt; 1"]) {
      expect(verifyQuote({ message_index: 0, quote }, COMPLY, ctx).verified, quote).toBe(false);
    }
  });
  it("a cut after the escape keeps the judge's '/': it does not verify against an opening tag", () => {
    const ctx = evidenceContext(fromOpenAI([{ role: "assistant", content: "the balance < tool_result> is 100" }]), { nonce });
    expect(verifyQuote({ message_index: 0, quote: "the balance &lt; /to" }, COMPLY, ctx).verified).toBe(false);
    expect(verifyQuote({ message_index: 0, quote: "the balance &lt;/" }, COMPLY, ctx).verified).toBe(false);
  });
});
