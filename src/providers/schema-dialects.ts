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
export type EvidenceWire = z.infer<typeof EvidenceWireSchema>;

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

/**
 * The JSON Schema dialect a server's structured output accepts:
 * - `openai`: OpenAI Structured Outputs, `strict: true` (every property required, `additionalProperties: false`);
 * - `gemini`: Gemini's OpenAI-compatible endpoint (an OpenAPI 3.0 schema subset: no `additionalProperties`, a
 *   nullable field as `nullable: true` instead of `anyOf` with `null`; no `strict`);
 * - `vllm`, `ollama`: guided decoding from the schema as given (`response_format` json_schema without `strict`,
 *   which some versions refuse).
 * Whatever the server enforces, the reply is parsed and checked locally (`./parse.ts`).
 */
export type SchemaDialect = "openai" | "gemini" | "vllm" | "ollama";
export const SCHEMA_DIALECTS: readonly SchemaDialect[] = ["openai", "gemini", "vllm", "ollama"];

/** The dialect of a server when the config names none: Gemini's host, Ollama's port 11434, else OpenAI's. */
export function defaultDialect(baseUrl: string | undefined): SchemaDialect {
  if (!baseUrl) return "openai";
  if (/generativelanguage\.googleapis\.com/i.test(baseUrl)) return "gemini";
  if (/:11434(\/|$)/.test(baseUrl)) return "ollama";
  return "openai";
}

/** The reply schema rewritten for Gemini's OpenAPI subset (see {@link SchemaDialect}). */
export function geminiSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(geminiSchema);
  if (!node || typeof node !== "object") return node;
  const o = node as Record<string, unknown>;
  const any = o.anyOf as Record<string, unknown>[] | undefined;
  if (Array.isArray(any) && any.length === 2 && any.some((x) => x?.type === "null")) {
    const other = any.find((x) => x?.type !== "null")!;
    const { anyOf: _drop, ...rest } = o;
    return { ...(geminiSchema(rest) as object), ...(geminiSchema(other) as object), nullable: true };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (k !== "additionalProperties") out[k] = geminiSchema(v);
  return out;
}

/** The `response_format` of a request in each output mode (`text` sends none), in a server's schema dialect. */
export function responseFormat(
  mode: "json_schema" | "json_object" | "text",
  dialect: SchemaDialect = "openai",
):
  | { type: "json_schema"; json_schema: { name: string; strict?: true; schema: Record<string, unknown> } }
  | { type: "json_object" }
  | undefined {
  if (mode === "json_schema") {
    if (dialect === "openai") return { type: "json_schema", json_schema: { name: REPLY_SCHEMA_NAME, strict: true, schema: replyJsonSchema() } };
    const schema = dialect === "gemini" ? (geminiSchema(replyJsonSchema()) as Record<string, unknown>) : replyJsonSchema();
    return { type: "json_schema", json_schema: { name: REPLY_SCHEMA_NAME, schema } };
  }
  if (mode === "json_object") return { type: "json_object" };
  return undefined;
}
