import { describe, expect, it } from "vitest";
import { evidenceContext } from "../../src/evidence/context.js";
import { verifyQuote } from "../../src/evidence/verify.js";
import { EVIDENCE_KINDS } from "../../src/rubric/buckets.js";
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
