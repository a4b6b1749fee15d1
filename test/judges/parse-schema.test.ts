/**
 * One reply schema (issue 27): the JSON Schema sent for structured output and the check of the reply are the same
 * zod schema (`JudgeReplyWireSchema`). What the sent schema allows, the parser accepts as written; what it
 * forbids (a label outside its enum, a finding that is no object), the parser refuses after its tolerances.
 */
import { describe, expect, it } from "vitest";
import { parseReply } from "../../src/judges/parse.js";
import { replyJsonSchema } from "../../src/providers/schema-dialects.js";

const sent = replyJsonSchema() as { properties: { label: { enum: string[] }; findings: { items: { properties: { bucket: { enum: string[] } } } } } };

describe("one reply schema for asking and checking", () => {
  it("every label of the sent enum parses as itself, in findings too, with wire nulls read as absent", () => {
    expect(sent.properties.label.enum.length).toBe(6);
    expect(sent.properties.findings.items.properties.bucket.enum).toEqual(sent.properties.label.enum);
    for (const label of sent.properties.label.enum) {
      const wire = { findings: [{ bucket: label, evidence: [{ message_index: 2, tool_call_index: null, tool_index: null, quote: "q" }], explanation: "e" }], label, rationale: "r" };
      const r = parseReply(JSON.stringify(wire), "json_schema");
      expect(r.ok, label).toBe(true);
      if (r.ok) {
        expect(r.reply).toEqual({ findings: [{ bucket: label, evidence: [{ message_index: 2, quote: "q" }], explanation: "e" }], label, rationale: "r" });
        expect(r.notes).toEqual([]);
      }
    }
  });
  it("what the sent schema forbids is refused by name, after the tolerances (case, extra keys) are applied", () => {
    const bad = parseReply(JSON.stringify({ findings: [], label: "maybe", rationale: "" }), "json_schema");
    expect(bad).toMatchObject({ ok: false, kind: "invalid_label", rawLabel: "maybe" });
    const notObj = parseReply(JSON.stringify({ findings: [3], label: "unaffected", rationale: "" }), "json_schema");
    expect(notObj).toMatchObject({ ok: false, kind: "invalid_shape", message: "findings[0] is not an object" });
    const lenient = parseReply(JSON.stringify({ label: "  UNAFFECTED ", extra: 1 }), "json_schema");
    expect(lenient).toMatchObject({ ok: true, reply: { label: "unaffected", findings: [], rationale: "" } });
  });
});
