/**
 * The judge reply format (DESIGN section 3, "Judge reply") as a zod 4 schema, and the strict JSON Schema sent
 * to OpenAI-compatible APIs in `json_schema` mode.
 *
 * Strict structured outputs (OpenAI "Structured Outputs", `strict: true`) require every property to be listed in
 * `required` and `additionalProperties: false` on every object; an optional field is written as a required,
 * nullable one. So `tool_call_index` is `number | null` on the wire (null = the quote is from the message text),
 * and so is `tool_index` (null = the quote is from a message; an integer = from that tool description, with
 * `message_index` -1); the parser turns null into "absent".
 */
import { z } from "zod";
import { BUCKETS } from "../types.js";

/** One evidence quote as the judge writes it. */
export const EvidenceWireSchema = z.object({
  message_index: z.number().int(),
  tool_call_index: z.number().int().nullable(),
  /** The tool description quoted (its position in the agent's tool list); null for a quote of a message. */
  tool_index: z.number().int().nullable(),
  quote: z.string(),
});

/** One finding as the judge writes it. */
export const FindingWireSchema = z.object({
  bucket: z.enum(BUCKETS),
  evidence: z.array(EvidenceWireSchema),
  explanation: z.string(),
});

/** The whole reply: `{findings, label, rationale}`. */
export const JudgeReplyWireSchema = z.object({
  findings: z.array(FindingWireSchema),
  label: z.enum(BUCKETS),
  rationale: z.string(),
});
export type JudgeReplyWire = z.infer<typeof JudgeReplyWireSchema>;

/** Name of the schema in `response_format.json_schema.name`. */
export const REPLY_SCHEMA_NAME = "ipi_judge_reply";

/**
 * Remove what zod adds that strict-mode validators reject or do not need: the `$schema` key and the
 * +-(2^53-1) bounds zod puts on every `.int()`.
 */
function strictClean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictClean);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$schema") continue;
    if ((k === "minimum" && v === Number.MIN_SAFE_INTEGER) || (k === "maximum" && v === Number.MAX_SAFE_INTEGER)) continue;
    out[k] = strictClean(v);
  }
  return out;
}

let cached: Record<string, unknown> | undefined;
/**
 * The strict JSON Schema of the reply, generated from {@link JudgeReplyWireSchema} with `z.toJSONSchema`
 * (draft-07) and cleaned for strict mode. Every object has all its properties required and
 * `additionalProperties: false` (a test checks this).
 * @returns a fresh deep copy (callers may mutate it).
 */
export function replyJsonSchema(): Record<string, unknown> {
  cached ??= strictClean(z.toJSONSchema(JudgeReplyWireSchema, { target: "draft-7" })) as Record<string, unknown>;
  return structuredClone(cached);
}

/** The `response_format` of a request in each output mode (`text` sends none). */
export function responseFormat(
  mode: "json_schema" | "json_object" | "text",
):
  | { type: "json_schema"; json_schema: { name: string; strict: true; schema: Record<string, unknown> } }
  | { type: "json_object" }
  | undefined {
  if (mode === "json_schema")
    return { type: "json_schema", json_schema: { name: REPLY_SCHEMA_NAME, strict: true, schema: replyJsonSchema() } };
  if (mode === "json_object") return { type: "json_object" };
  return undefined;
}
