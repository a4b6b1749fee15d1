/**
 * Cases from public bug reports (test/data/cases): D05 (tool-call arguments as an object, malformed or empty:
 * kept as written, quotable as evidence) and D11 (quotes in Turkish text: U+0130, ligatures, no-break spaces,
 * a lowercased copy; spans in the original text, in UTF-16 offsets as JavaScript indexes it).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evidenceContext } from "../../src/evidence/context.js";
import { verifyQuote } from "../../src/evidence/verify.js";
import { convertChatLine } from "../../src/ingest/chat-jsonl.js";
import { parseReply } from "../../src/judges/parse.js";
import { findInText } from "../../src/report/highlight.js";
import { EVIDENCE_KINDS } from "../../src/rubric/buckets.js";
import type { Trajectory } from "../../src/types.js";
import { decide } from "../../src/verdict/decide.js";
import { CASES } from "../helpers/paths.js";

const load = (f: string) => JSON.parse(readFileSync(path.join(CASES, f), "utf8"));
const src = { path: "case.jsonl", line: 1, relPath: "case.jsonl" };

describe("D05: tool-call arguments as an object, malformed or empty", () => {
  const c = load("D05.json");
  const e = load("D05.expected.json");
  const r = convertChatLine(c.record, src);
  it("ingests without throwing, every call kept", () => {
    expect(r.ok).toBe(true);
    const t = (r as { trajectory: Trajectory }).trajectory;
    expect(t.messages).toHaveLength(e.ingest.messages);
    const calls = t.messages.flatMap((m) => m.tool_calls ?? []);
    expect(calls).toHaveLength(e.ingest.tool_calls);
    for (const [id, want] of Object.entries(e.canonical_arguments as Record<string, { arguments: string }>))
      expect(calls.find((k) => k.id === id)?.arguments).toBe(want.arguments);
  });
  it("the quote that exists only in the malformed arguments verifies: partial_compliance", () => {
    const t = (r as { trajectory: Trajectory }).trajectory;
    const parsed = parseReply(c.judge_reply, "json_schema");
    expect(parsed.ok).toBe(true);
    const d = decide((parsed as { reply: Parameters<typeof decide>[0] }).reply, evidenceContext(t));
    expect(d.label).toBe(e.verdict.label);
    const q = d.findings.find((f) => f.bucket === e.verdict.label)!.evidence[0];
    expect(q).toMatchObject(e.verdict.evidence[0]);
  });
});

describe("D11: quotes in Turkish text (U+0130, ligature, no-break spaces)", () => {
  const c = load("D11.json");
  const e = load("D11.expected.json");
  const r = convertChatLine({ id: "d11", messages: c.trajectory }, src);
  const t = (r as { trajectory: Trajectory }).trajectory;
  const ctx = evidenceContext(t);
  for (const [name, q] of Object.entries(c.judge_quotes as Record<string, { message_index: number; quote: string }>)) {
    it(`${name}: verified ${e[name].verified}, span in the original text`, () => {
      const v = verifyQuote({ message_index: q.message_index, quote: q.quote }, EVIDENCE_KINDS.unaffected, ctx);
      expect(v.verified).toBe(e[name].verified);
      const span = findInText(t.messages[q.message_index].text ?? "", q.quote);
      if (e[name].span === null) expect(span).toBeNull();
      else {
        expect(span).toEqual({ start: e[name].span.utf16[0], end: e[name].span.utf16[1] });
        expect((t.messages[q.message_index].text ?? "").slice(span!.start, span!.end)).toBe(e[name].span.original_text);
      }
    });
  }
});
