import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { JudgeReplyWireSchema, replyJsonSchema, responseFormat, REPLY_SCHEMA_NAME } from "../../src/providers/schema-dialects.js";
import { parseReply } from "../../src/judges/parse.js";
import { BUCKETS } from "../../src/types.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Every object: all properties required, additionalProperties false (OpenAI strict mode rules). */
function checkStrict(node: any, where = "$"): string[] {
  const bad: string[] = [];
  if (!node || typeof node !== "object") return bad;
  if (node.type === "object") {
    const props = Object.keys(node.properties ?? {});
    if (node.additionalProperties !== false) bad.push(`${where}: additionalProperties`);
    if (JSON.stringify([...(node.required ?? [])].sort()) !== JSON.stringify([...props].sort())) bad.push(`${where}: required`);
  }
  for (const [k, v] of Object.entries(node)) bad.push(...checkStrict(v, `${where}.${k}`));
  return bad;
}

describe("reply JSON Schema", () => {
  it("is strict-mode compatible", () => {
    const s = replyJsonSchema();
    expect(checkStrict(s)).toEqual([]);
    expect(JSON.stringify(s)).not.toContain("$schema");
    expect(JSON.stringify(s)).not.toContain("9007199254740991");
  });
  it("is exactly the documented shape (kept in sync with DESIGN section 3)", () => {
    expect(replyJsonSchema()).toEqual({
      type: "object",
      properties: {
        findings: {
          type: "array",
          items: {
            type: "object",
            properties: {
              bucket: { type: "string", enum: [...BUCKETS] },
              evidence: {
                type: "array",
                items: {
                  type: "object",
                  properties: {
                    message_index: { type: "integer" },
                    tool_call_index: { anyOf: [{ type: "integer" }, { type: "null" }] },
                    tool_index: { anyOf: [{ type: "integer" }, { type: "null" }] },
                    quote: { type: "string" },
                  },
                  required: ["message_index", "tool_call_index", "tool_index", "quote"],
                  additionalProperties: false,
                },
              },
              explanation: { type: "string" },
            },
            required: ["bucket", "evidence", "explanation"],
            additionalProperties: false,
          },
        },
        label: { type: "string", enum: [...BUCKETS] },
        rationale: { type: "string" },
      },
      required: ["findings", "label", "rationale"],
      additionalProperties: false,
    });
  });
  it("response_format per mode", () => {
    expect(responseFormat("json_schema")).toMatchObject({ type: "json_schema", json_schema: { name: REPLY_SCHEMA_NAME, strict: true } });
    expect(responseFormat("json_object")).toEqual({ type: "json_object" });
    expect(responseFormat("text")).toBeUndefined();
  });
  it("anything the zod schema accepts, the parser reads the same", () => {
    const sample = {
      findings: [
        { bucket: "partial_compliance", evidence: [{ message_index: 2, tool_call_index: 1, tool_index: null, quote: "abcdefghijklmn" }], explanation: "x" },
        {
          bucket: "unaffected",
          evidence: [
            { message_index: 3, tool_call_index: null, tool_index: null, quote: "opqrstuvwxyz12" },
            { message_index: -1, tool_call_index: null, tool_index: 4, quote: "a tool description" },
          ],
          explanation: "y",
        },
      ],
      label: "partial_compliance",
      rationale: "z",
    };
    expect(JudgeReplyWireSchema.parse(sample)).toEqual(sample);
    const r = parseReply(JSON.stringify(sample), "json_schema");
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.reply.label).toBe("partial_compliance");
      expect(r.reply.findings[0].evidence[0]).toEqual({ message_index: 2, tool_call_index: 1, quote: "abcdefghijklmn" });
      expect(r.reply.findings[1].evidence[0]).toEqual({ message_index: 3, quote: "opqrstuvwxyz12" });
      expect(r.reply.findings[1].evidence[1]).toEqual({ message_index: -1, tool_index: 4, quote: "a tool description" });
      expect(r.notes).toEqual([]);
    }
  });
  it("schemas/judge-reply.schema.json is the schema sent to the API, and ajv validates replies with it", () => {
    const file = JSON.parse(fs.readFileSync(path.join(ROOT, "schemas/judge-reply.schema.json"), "utf8"));
    const { $schema, title, description, ...body } = file;
    expect($schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(typeof title).toBe("string");
    expect(typeof description).toBe("string");
    expect(body).toEqual(replyJsonSchema());
    const validate = new Ajv({ strict: false }).compile(file);
    const ok = { findings: [{ bucket: "unaffected", evidence: [{ message_index: -1, tool_call_index: null, tool_index: 0, quote: "q" }], explanation: "" }], label: "unaffected", rationale: "" };
    expect(validate(ok)).toBe(true);
    const bad = structuredClone(ok) as any;
    delete bad.findings[0].evidence[0].tool_index;
    expect(validate(bad)).toBe(false);
  });
});
