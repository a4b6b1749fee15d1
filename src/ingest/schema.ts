import type { ErrorObject, ValidateFunction } from "ajv";
import * as generated from "./schema-validators.generated.js";

/** The JSON Schemas published in `schemas/` (beside `src/` and `dist/`), one per input format. */
export const SCHEMA_FILES = {
  agentdojo: "agentdojo.schema.json",
  "chat-jsonl": "chat-jsonl.schema.json",
  "inspect-sample": "inspect-sample.schema.json",
  "shell-trajectory": "shell-trajectory.schema.json",
} as const;
export type SchemaName = keyof typeof SCHEMA_FILES;

/** The outcome of a schema check: ok, or the problems found, each naming its field. */
export type SchemaCheck =
  | { ok: true }
  | { ok: false; problems: string[]; message_index?: number };

/**
 * The validators, compiled ahead of time from `schemas/` by ajv's standalone mode (`scripts/gen-validators.mjs`,
 * options: all errors, verbose, strict schema): compiling them at start cost ~50 ms before the first request.
 * test/schemas.test.ts checks the generated file is what the schemas give.
 */
const VALIDATORS: Record<SchemaName, ValidateFunction> = {
  agentdojo: generated.agentdojo as ValidateFunction,
  "chat-jsonl": generated.chatJsonl as ValidateFunction,
  "inspect-sample": generated.inspectSample as ValidateFunction,
  "shell-trajectory": generated.shellTrajectory as ValidateFunction,
};

/** `/messages/3/tool_calls/0/id` -> `messages[3].tool_calls[0].id`; the root is `(root)`. */
export function fieldPath(instancePath: string): string {
  if (instancePath === "") return "(root)";
  let out = "";
  for (const raw of instancePath.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += out === "" ? seg : `.${seg}`;
  }
  return out;
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/**
 * A value as a message names it: compact JSON (or its string form when it has none), cut to 60 characters. A number
 * JSON cannot write (`1e400` reads as Infinity in `JSON.parse`, whose JSON form would be `null`) is named by
 * {@link numberText}, never shown as `null` or as a string.
 */
export function shortValue(v: unknown): string {
  if (typeof v === "number" && !Number.isFinite(v)) return numberText(v);
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** One ajv error as `field: what is wrong (got ...)`. */
export function describeAjvError(e: ErrorObject): string {
  const at = fieldPath(e.instancePath);
  switch (e.keyword) {
    case "required": {
      const prop = (e.params as { missingProperty: string }).missingProperty;
      return `${at === "(root)" ? "" : `${at}.`}${prop}: is required`;
    }
    case "type": {
      const t = (e.params as { type: string | string[] }).type;
      const types = Array.isArray(t) ? t : String(t).split(",");
      return `${at}: must be ${types.join(" or ")} (got ${jsonType(e.data)})`;
    }
    case "enum": {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      return `${at}: must be one of ${allowed.map((a) => String(a)).join(", ")} (got ${shortValue(e.data)})`;
    }
    case "additionalProperties": {
      const prop = (e.params as { additionalProperty: string }).additionalProperty;
      return `${at === "(root)" ? "" : `${at}.`}${prop}: is not allowed here`;
    }
    default:
      return `${at}: ${e.message ?? e.keyword}`;
  }
}

/**
 * Validate `data` against the named schema (ajv, all errors).
 *
 * @returns `{ok: true}`, or `{ok: false, problems, message_index?}` where each problem names the field
 *   (`messages[3].role: must be one of system, user, ... (got "robot")`) and `message_index` is the index of the
 *   first message a problem points into, if any. Never throws for bad data.
 */
export function checkSchema(name: SchemaName, data: unknown): SchemaCheck {
  const v = VALIDATORS[name];
  if (v(data)) return { ok: true };
  const errors = v.errors ?? [];
  const problems = [...new Set(errors.map(describeAjvError))];
  let message_index: number | undefined;
  for (const e of errors) {
    const m = /^\/messages\/(\d+)(\/|$)/.exec(e.instancePath);
    if (m) {
      message_index = Number(m[1]);
      break;
    }
  }
  return message_index === undefined ? { ok: false, problems } : { ok: false, problems, message_index };
}

/** Join problems for one error message: the first `max`, then `(+N more)`. */
export function joinProblems(problems: string[], max = 3): string {
  const head = problems.slice(0, max).join("; ");
  return problems.length > max ? `${head} (+${problems.length - max} more)` : head;
}

/**
 * The schema problem of an injections record read from metadata (`metadata.injections` in chat JSONL and in
 * Inspect sample metadata), in the words the schema check gives the top-level `injections`: the same value is the
 * same error wherever it is read from (a list, a string or `{"p": 123}` is never silently "no injections").
 *
 * @param value the value found (`undefined` when the key is absent)
 * @param field the field's name in messages, e.g. `metadata.injections`
 * @returns the problem (`metadata.injections: must be object or null (got array)`), or `undefined` when the value
 *   is absent, null, or an object whose values are all strings
 */
export function injectionsProblem(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) return `${field}: must be object or null (got ${jsonType(value)})`;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== "string") return `${field}.${k}: must be string (got ${jsonType(v)})`;
  }
  return undefined;
}

/**
 * A number as a message names what the input held. A finite number is written as JS writes it (`0.5`, `2`); an
 * infinite one can only come from a JSON number too large for a double (`1e400`: `JSON.parse` reads it as Infinity,
 * and the text it was written as is gone by then), so it is named that way, not as the string `"Infinity"`
 * (red team 44 F9).
 * @returns `0.5`, or `a number too large to represent (1e400 or so: read as Infinity)`; `NaN` (no JSON text gives it) as `NaN`.
 */
export function numberText(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return `a number too large to represent (such as 1e400: read as ${v > 0 ? "" : "-"}Infinity)`;
  return String(v);
}

/**
 * A value an input field was given, as a warning names it: a string quoted (`"maybe"`), a number as the number it
 * was (`the number 0.5`, or {@link numberText}'s words for one too large), anything else as {@link shortValue}.
 * @param v the field's value as `JSON.parse` gave it.
 */
export function givenValue(v: unknown): string {
  if (typeof v === "number") return Number.isFinite(v) ? `the number ${numberText(v)}` : numberText(v);
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}...` : v);
  return shortValue(v);
}
