import { describe, expect, it } from "vitest";
import { evidenceContext, partNorm } from "../../src/evidence/context.js";
import { verifyQuote } from "../../src/evidence/verify.js";
import { normalize } from "../../src/evidence/normalize.js";
import { EVIDENCE_KINDS } from "../../src/rubric/buckets.js";
import { corpusRows, corpusTrajectory, emailTrajectory, INJECTION } from "./fixtures.js";

describe("evidence context: parts are normalized on first use", () => {
  it("building the context normalizes no part; a quote in the cited message normalizes only that message's parts", () => {
    const t = emailTrajectory();
    const ctx = evidenceContext(t);
    expect(ctx.normCache.every((n) => n === undefined)).toBe(true);
    const v = verifyQuote({ message_index: 3, quote: INJECTION.slice(0, 40) }, EVIDENCE_KINDS.unaffected, ctx);
    expect(v.verified).toBe(true);
    const done = ctx.normCache.flatMap((n, i) => (n === undefined ? [] : [i]));
    expect(done.length).toBeGreaterThan(0);
    expect(done.every((i) => ctx.parts[i].message_index === 3)).toBe(true);
  });

  it("`norms` and partNorm equal the eager normalization on real runs; lazy and eager contexts verify alike", () => {
    const rows = corpusRows().filter((r) => r.attack_type !== null).slice(0, 25);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const t = corpusTrajectory(row);
      const lazy = evidenceContext(t);
      const eager = evidenceContext(t);
      expect(eager.norms).toEqual(eager.parts.map((p) => normalize(p.text)));
      const quotes = lazy.parts
        .map((p, i) => ({ message_index: p.message_index, quote: p.text.slice(0, 30) }))
        .concat(lazy.parts.map((p) => ({ message_index: (p.message_index + 1) % t.messages.length, quote: p.text.slice(5, 40) })));
      for (const q of quotes) {
        for (const kinds of Object.values(EVIDENCE_KINDS)) {
          expect(verifyQuote(q, kinds, lazy)).toEqual(verifyQuote(q, kinds, eager));
        }
      }
      lazy.parts.forEach((p, i) => expect(partNorm(lazy, i)).toBe(normalize(p.text)));
    }
  });
});
