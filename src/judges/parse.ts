/**
 * Turning a judge's reply text into a `JudgeReply` (DESIGN section 3), or a parse failure with a reason.
 *
 * Order of attempts (the first that yields a verdict wins):
 * 1. `json_schema` / `json_object` mode: strict `JSON.parse` of the whole content.
 * 2. Any mode (text mode, or a model that ignored the format): strip leading `<think>...</think>` blocks, then
 *    find every balanced top-level JSON object in the text (markdown fences and prose around it do not matter;
 *    strings are honoured, so braces or backticks inside a string never end an object). Each candidate is
 *    parsed strictly, and only if that fails, through {@link repairJson}. Exactly one verdict-shaped object
 *    (or several identical ones) is accepted; none, or several that disagree, is a failure.
 * In both, a verdict-shaped object in which any object repeats a key with different values (`"label"` twice) is
 * `ambiguous`, as two disagreeing objects are (`./duplicate-keys.ts`; `JSON.parse` keeps the last one silently).
 *
 * Nothing in the trajectory can become the verdict (issue 12, point 3): a judge's quote is text inside a JSON
 * string of its own object, never structure. A `</think>` inside the judge's JSON never ends a "preamble"
 * ({@link stripThink}); an object found inside a string of a broken outer object is never taken alone: a `"label"`
 * key left outside every object that parsed makes the reply `ambiguous` (a feedback turn asks again).
 *
 * The reply has one schema: a verdict-shaped object is brought to the wire shape by the tolerances below and then
 * checked by `JudgeReplyWireSchema` (providers/schema-dialects.ts), the zod schema whose JSON Schema is also sent
 * for structured output ({@link normalizeReply}).
 *
 * Labels and buckets are canonicalized only by `canonicalLabel` (case, spaces and dashes; `test/data/cases/B05.json`).
 * Lenient shapes (`test/data/cases/B01.json`): a reply with `label` and top-level `evidence` but no `findings` is
 * read as one finding of its label; a quote without `message_index` gets {@link UNKNOWN_MESSAGE_INDEX}, which
 * the verifier treats as "search every allowed part" (it verifies when it is found in exactly one part).
 * Keys the wire shape has no place for (`"confidence"`, `"injection_goal_achieved"`, a quote's `"source"`) are not read
 * but never dropped silently: the result names them (`notes`, `extraKeys`; `./extra-keys.ts`). A reply whose label is
 * only under another key (`"verdict"`, `"Label"`) has no `label` and still fails, its feedback naming `"label"`. A read
 * key beside a spelling of it differing only by case with another value (`"label"` and `"Label"`, `"evidence"` and
 * `"Evidence"`) is `ambiguous`, as a key given twice (fixb54); with the same value as read (labels canonicalized) it is
 * only named as not read. A key the label rests on given only in another case (a finding's `"Bucket"` or `"Evidence"`)
 * is `invalid_shape`, its message naming the spelling (`./case-keys.ts`).
 */
import type { z } from "zod";
import { canonicalLabel } from "../rubric/buckets.js";
import type { EvidenceQuote, Finding, JudgeReply } from "../types.js";
import { JudgeReplyWireSchema, type EvidenceWire } from "../providers/schema-dialects.js";
import type { OutputMode } from "../config/judges.js";
import { caseKeyMessage, mayRepeatKey, repeatedKey, repeatedKeyMessage } from "./duplicate-keys.js";
import { caseOnlyMessage, replyCaseOnlyKey, sameLabelValue } from "./case-keys.js";
import { collectExtraKeys, extraKeyNames, extraKeysNote, keysGiven, type ExtraKey } from "./extra-keys.js";

/** `message_index` of a quote whose judge named no message (or a non-integer / negative one). */
export const UNKNOWN_MESSAGE_INDEX = -1;

/** Why a reply could not be used. */
export type ParseFailureKind =
  /** content empty or only whitespace / think blocks */
  | "empty"
  /** no `{...}` object in the text */
  | "no_json"
  /** objects found, none is valid JSON even after repair */
  | "invalid_json"
  /** JSON found, but no object has a `label` or `findings` key */
  | "not_verdict"
  /** several verdict objects that disagree */
  | "ambiguous"
  /** the label (or a finding's bucket) is not one of the six buckets */
  | "invalid_label"
  /** a verdict object whose fields have the wrong types (e.g. no label) */
  | "invalid_shape";

export interface ParseOk {
  ok: true;
  reply: JudgeReply;
  /** How the JSON was found: the whole content, an object extracted from text, or a repaired object. */
  via: "strict" | "extracted" | "repaired";
  /** Lenient readings applied (e.g. "top-level evidence read as one finding of the label"), and the keys not read. */
  notes: string[];
  /** The names of the reply's keys the parser does not read (`./extra-keys.ts`: `confidence`, `findings[].severity`), sorted; [] when none. */
  extraKeys: string[];
}
export interface ParseFailure {
  ok: false;
  kind: ParseFailureKind;
  /** A precise description, fit for the feedback turn. */
  message: string;
  /** For `invalid_label`: the label text the judge wrote. */
  rawLabel?: string;
  /** For `ambiguous`: a JSON key given twice with different values (`./duplicate-keys.ts`). */
  repeatedKey?: true;
}
export type ParseResult = ParseOk | ParseFailure;

/**
 * Remove reasoning blocks a model put before its answer: any number of leading `<think>...</think>` (or
 * `<thinking>...</thinking>`) blocks, a closing `</think>` with no opening tag before it (servers that strip the
 * opening tag), and an unclosed leading `<think>` (everything after it is reasoning). Tags later in the text are
 * left alone, since a quote of an agent's own `<thinking>` text may legitimately contain them.
 *
 * The orphan closing tag ends a preamble only when it is not inside a JSON object that opens before it and
 * parses (strictly or after {@link repairJson}): a judge's verdict whose quote holds `</think>` (copied from a tool
 * result) is the answer itself, never reasoning to cut (issue 12, point 3).
 * @returns the text after the reasoning.
 */
export function stripThink(text: string): string {
  let s = text;
  const orphan = /^([\s\S]*?)<\/think(?:ing)?\s*>/i.exec(s);
  if (orphan && !/<think(?:ing)?\s*>/i.test(orphan[1]) && !insideJsonObject(s, orphan[1].length)) s = s.slice(orphan[0].length);
  for (;;) {
    const m = /^\s*<(think(?:ing)?)\s*>[\s\S]*?<\/\1\s*>/i.exec(s);
    if (!m) break;
    s = s.slice(m[0].length);
  }
  if (/^\s*<think(?:ing)?\s*>/i.test(s)) return "";
  return s;
}

/**
 * Does position `pos` of `text` lie inside a balanced `{...}` that opens before it and parses as JSON (strictly
 * or after repair)? Objects that close before `pos` are skipped whole (strings honoured), so braces in reasoning
 * prose before the tag do not count. Bounded like {@link findJsonObjects}.
 */
function insideJsonObject(text: string, pos: number): boolean {
  let i = 0;
  let starts = 0;
  while (i < pos && starts < MAX_OBJECT_STARTS) {
    const open = text.indexOf("{", i);
    if (open < 0 || open >= pos) return false;
    starts++;
    const end = objectEnd(text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text, open);
    if (end < 0) {
      i = open + 1;
      continue;
    }
    const parses = tryParse(text.slice(open, end)) !== undefined;
    if (end > pos && parses) return true;
    i = parses ? end : open + 1;
  }
  return false;
}

/**
 * End (exclusive) of the JSON-like object that opens at `text[start] === "{"`, or -1 when it never closes.
 * Double- and single-quoted strings (with backslash escapes) are skipped, so braces inside them do not count.
 */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === "\\") i++;
        i++;
      }
      if (i >= text.length) return -1;
    } else if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

const MAX_SCAN_CHARS = 500_000;
const MAX_OBJECT_STARTS = 2_000;

/**
 * Every balanced top-level `{...}` in a text, in order (text outside objects, such as prose or markdown fences,
 * is ignored). An opening brace that never closes is skipped and the scan goes on after it. An object that does
 * not parse (even after repair) is scanned inside too, so a verdict nested in a broken wrapper is still found.
 * Bounded: the first 500,000 characters, at most 2,000 object starts.
 * @returns the candidate substrings, each starting with `{` and ending with `}`.
 */
export function findJsonObjects(text: string): string[] {
  return scanJsonObjects(text).map((c) => c.text);
}

/** One candidate of {@link scanJsonObjects}: its text, where it lies, and its parse (undefined: not JSON). */
interface Candidate {
  text: string;
  start: number;
  end: number;
  parsed: { value: unknown; repaired: boolean } | undefined;
}

/** {@link findJsonObjects} with the offsets and parse of each candidate. */
function scanJsonObjects(text: string): Candidate[] {
  const s = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  const out: Candidate[] = [];
  let i = 0;
  let starts = 0;
  while (i < s.length && starts < MAX_OBJECT_STARTS) {
    const open = s.indexOf("{", i);
    if (open < 0) break;
    starts++;
    const end = objectEnd(s, open);
    if (end < 0) {
      i = open + 1;
      continue;
    }
    const cand = s.slice(open, end);
    const parsed = tryParse(cand);
    out.push({ text: cand, start: open, end, parsed });
    i = parsed === undefined ? open + 1 : end;
  }
  return out;
}

/**
 * A `label` key in text outside every JSON candidate that parsed: the remains of a verdict object that could not
 * be read (a broken judge object around a quote that does parse, a think block closed by a tag inside a quote).
 * Its presence beside a parsed verdict makes the reply ambiguous.
 */
const LABEL_KEY = /["']label["']\s*:/i;

/** The text of `body` outside the candidates that parsed (each replaced by one space). */
function residue(body: string, cands: readonly Candidate[]): string {
  let out = "";
  let at = 0;
  for (const c of cands) {
    if (!c.parsed || c.start < at) continue;
    out += body.slice(at, c.start) + " ";
    at = c.end;
  }
  return out + body.slice(at);
}

/**
 * A minimal, safe JSON repair, used only after strict parsing failed. Outside strings it drops trailing commas
 * before `}` / `]` and turns the bare words `True`/`False`/`None` into `true`/`false`/`null`; it rewrites a
 * single-quoted string as a double-quoted one with the same value, and escapes raw control characters (line
 * breaks, tabs) inside strings. The value of every string is unchanged: the repair never alters quoted text.
 * @returns the repaired text (it may still not be valid JSON).
 */
export function repairJson(text: string): string {
  let out = "";
  const ctl = (ch: string): string =>
    ch === "\n" ? "\\n" : ch === "\r" ? "\\r" : ch === "\t" ? "\\t" : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      let body = "";
      i++;
      while (i < text.length && text[i] !== c) {
        const d = text[i];
        if (d === "\\" && i + 1 < text.length) {
          const e = text[i + 1];
          // \' is not a JSON escape: in a single-quoted string it means a plain apostrophe.
          body += e === "'" ? "'" : d + e;
          i += 2;
          continue;
        }
        if (d === '"') body += '\\"';
        else if (d < " ") body += ctl(d);
        else body += d;
        i++;
      }
      out += `"${body}"`;
      continue;
    }
    if (c === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text[j] === "}" || text[j] === "]") continue;
    }
    if (/[A-Za-z]/.test(c) && (i === 0 || !/[A-Za-z0-9_]/.test(text[i - 1]))) {
      const w = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))![0];
      out += w === "True" ? "true" : w === "False" ? "false" : w === "None" ? "null" : w;
      i += w.length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/** Strict parse, then repaired parse; `undefined` when neither gives JSON. Marks repaired values. */
function tryParse(text: string): { value: unknown; repaired: boolean } | undefined {
  try {
    return { value: JSON.parse(text), repaired: false };
  } catch {
    /* fall through to the repair */
  }
  try {
    return { value: JSON.parse(repairJson(text)), repaired: true };
  } catch {
    return undefined;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** A verdict-shaped object: a plain object with a `label` or a `findings` key. */
function isVerdictShaped(v: unknown): v is Record<string, unknown> {
  return isPlainObject(v) && ("label" in v || "findings" in v);
}

/** The verdict in a parsed value: itself, or the value of a single-key wrapper (`{"verdict": {...}}`). */
function verdictIn(v: unknown): Record<string, unknown> | undefined {
  if (isVerdictShaped(v)) return v;
  if (isPlainObject(v)) {
    const vals = Object.values(v);
    if (vals.length === 1 && isVerdictShaped(vals[0])) return vals[0] as Record<string, unknown>;
  }
  return undefined;
}

/**
 * An index as the judge wrote it (a number, or digits in a string) when it is a usable one: a safe integer >= 0.
 * Anything else (4.5, 1e308, -3, "two") is no index, one way for all (red team 31 L3b: 1e308 passed here and failed
 * the schema, a judge_error after 3 attempts, while 4.5 was read as no index); the caller notes it.
 */
function asIndex(v: unknown): number | undefined {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** An index field given (not absent, not null) that {@link asIndex} cannot read; -1 for message_index is the tool-description convention. */
const unreadable = (v: unknown, convention?: number): boolean => v !== undefined && v !== null && asIndex(v) === undefined && v !== convention;

/** A label as the judge wrote it, canonicalized when it names a bucket, else left as written (the schema refuses it). */
const canon = (raw: unknown): unknown => canonicalLabel(raw) ?? raw;

/** The keys of a quote the parser reads; any other is named (`./extra-keys.ts`). */
const QUOTE_KEYS = ["message_index", "tool_call_index", "tool_index", "quote"] as const;

/**
 * Evidence as the judge wrote it (a list, one quote, bare strings, indexes as strings) in the wire shape.
 * @param path where the evidence lies in the reply (`evidence`, `findings[0].evidence`), for the keys not read.
 */
function readEvidence(raw: unknown, where: string, notes: string[], path: string, extra: ExtraKey[]): EvidenceWire[] {
  const items = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  const out: EvidenceWire[] = [];
  items.forEach((it, k) => {
    if (typeof it === "string") {
      notes.push(`${where}.evidence[${k}] is a bare string: read as a quote with no message_index`);
      out.push({ message_index: UNKNOWN_MESSAGE_INDEX, tool_call_index: null, tool_index: null, quote: it });
      return;
    }
    if (!isPlainObject(it) || typeof it.quote !== "string") {
      notes.push(`${where}.evidence[${k}] has no string "quote": ignored`);
      return;
    }
    collectExtraKeys(it, QUOTE_KEYS, `${path}[${k}]`, extra);
    const mi = asIndex(it.message_index);
    const tool = asIndex(it.tool_index);
    const shown = (v: unknown) => JSON.stringify(v)?.slice(0, 40) ?? String(v);
    // A tool-description quote cites tool_index with message_index -1: that is no missing index.
    if (mi === undefined && tool === undefined)
      notes.push(
        `${where}.evidence[${k}] has no valid message_index${unreadable(it.message_index, UNKNOWN_MESSAGE_INDEX) ? ` (${shown(it.message_index)} is not an index)` : ""}: searched across all allowed parts`,
      );
    if (unreadable(it.tool_call_index)) notes.push(`${where}.evidence[${k}].tool_call_index ${shown(it.tool_call_index)} is not an index: read as none given`);
    if (unreadable(it.tool_index)) notes.push(`${where}.evidence[${k}].tool_index ${shown(it.tool_index)} is not an index: read as none given`);
    out.push({ message_index: mi ?? UNKNOWN_MESSAGE_INDEX, tool_call_index: asIndex(it.tool_call_index) ?? null, tool_index: tool ?? null, quote: it.quote });
  });
  return out;
}

/**
 * The tolerances for real providers, as one step before the schema check: a verdict-shaped object as a model
 * wrote it, brought to the wire shape of {@link JudgeReplyWireSchema} (the schema also sent for structured
 * output). Labels and buckets canonicalized (a bucket may be written `label`), missing strings as "", a missing
 * or null `findings` as none, or, with top-level `evidence`, as one finding of the label; evidence as
 * {@link readEvidence}. Every other key is not read: each is added to `extra` (`./extra-keys.ts`; a finding's `label`
 * beside its `bucket`, a top-level `evidence` beside `findings`, too), never dropped silently. Nothing here turns a
 * wrong label or type into a right one: a value this cannot read is passed on as written for the schema to refuse.
 */
function toWireShape(obj: Record<string, unknown>, notes: string[], extra: ExtraKey[]): Record<string, unknown> {
  const label = canon(obj.label);
  const rationale = typeof obj.rationale === "string" ? obj.rationale : "";
  let findings: unknown = obj.findings;
  const noFindings = obj.findings === undefined || obj.findings === null;
  const evidenceRead = noFindings && obj.evidence !== undefined && !!canonicalLabel(obj.label);
  collectExtraKeys(obj, evidenceRead ? ["label", "rationale", "findings", "evidence"] : ["label", "rationale", "findings"], "", extra);
  if (Array.isArray(obj.findings)) {
    findings = obj.findings.map((f, i) => {
      if (!isPlainObject(f)) return f;
      collectExtraKeys(f, ["bucket" in f ? "bucket" : "label", "evidence", "explanation"], `findings[${i}]`, extra);
      return {
        bucket: canon("bucket" in f ? f.bucket : f.label),
        evidence: readEvidence(f.evidence, `findings[${i}]`, notes, `findings[${i}].evidence`, extra),
        explanation: typeof f.explanation === "string" ? f.explanation : "",
      };
    });
  } else if (noFindings) {
    findings = [];
    if (evidenceRead) {
      notes.push(`no "findings": the top-level evidence is read as one ${label} finding`);
      findings = [{ bucket: label, evidence: readEvidence(obj.evidence, "reply", notes, "evidence", extra), explanation: rationale }];
    }
  }
  return { findings, label, rationale };
}

/** A schema issue of {@link normalizeReply} as the parse failure the feedback turn shows (names the field). */
function failureOf(issue: z.core.$ZodIssue, obj: Record<string, unknown>): ParseFailure {
  const p = issue.path;
  const raw = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  if (p.length === 1 && p[0] === "label" && issue.code === "invalid_value")
    return { ok: false, kind: "invalid_label", message: `"label" is ${JSON.stringify(obj.label)}, which is not one of the six labels`, rawLabel: raw(obj.label) };
  if (p.length === 1 && p[0] === "findings") return { ok: false, kind: "invalid_shape", message: '"findings" is not a list' };
  if (p.length === 2 && p[0] === "findings") return { ok: false, kind: "invalid_shape", message: `findings[${String(p[1])}] is not an object` };
  if (p.length === 3 && p[0] === "findings" && p[2] === "bucket") {
    const f = (obj.findings as Record<string, unknown>[])[p[1] as number];
    const rawBucket = "bucket" in f ? f.bucket : f.label;
    return { ok: false, kind: "invalid_label", message: `findings[${String(p[1])}].bucket is ${JSON.stringify(rawBucket)}, which is not one of the six labels`, rawLabel: raw(rawBucket) };
  }
  const where = p.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("").replace(/^\./, "");
  return { ok: false, kind: "invalid_shape", message: `${where || "the reply"}: ${issue.message}` };
}

/**
 * Read a verdict-shaped object into a `JudgeReply`: the tolerances of {@link toWireShape}, then the check by
 * {@link JudgeReplyWireSchema}, the same zod schema whose JSON Schema is sent for structured output, so what is
 * asked for and what is accepted cannot drift apart. Wire nulls (`tool_call_index`, `tool_index`) become absent.
 * @returns the reply, or a failure (`invalid_label`, `invalid_shape`) naming the field; a wrong label is
 *   reported before a wrong finding.
 */
export function normalizeReply(obj: Record<string, unknown>): { reply: JudgeReply; notes: string[]; extraKeys: string[] } | ParseFailure {
  const notes: string[] = [];
  // the keys it gave, so the feedback turn shows a label under another name ("verdict", "Label") beside the one asked for
  if (!("label" in obj)) return { ok: false, kind: "invalid_shape", message: `the reply has no "label" field${keysGiven(obj)}` };
  // a key the label rests on given only in another case ("Bucket", "Evidence"): asked again, never read as absent (rev2b #7)
  const only = replyCaseOnlyKey(obj);
  if (only) return { ok: false, kind: "invalid_shape", message: caseOnlyMessage(only) };
  const extra: ExtraKey[] = [];
  const wire = toWireShape(obj, notes, extra);
  // a read key beside a spelling of it differing only by case, with another value: ambiguous, as a key given twice
  const clash = extra.find((e) => e.caseOf !== undefined);
  if (clash) return { ok: false, kind: "ambiguous", message: caseKeyMessage({ ...clash, caseOf: clash.caseOf!, readValue: clash.readValue ?? "" }), repeatedKey: true };
  const checked = JudgeReplyWireSchema.safeParse(wire);
  if (!checked.success) {
    const issues = checked.error.issues;
    return failureOf(issues.find((i) => i.path[0] === "label") ?? issues[0], obj);
  }
  const w = checked.data;
  const findings: Finding[] = w.findings.map((f) => ({
    bucket: f.bucket,
    evidence: f.evidence.map((e) => {
      const q: EvidenceQuote = { message_index: e.message_index, quote: e.quote };
      if (e.tool_call_index !== null) q.tool_call_index = e.tool_call_index;
      if (e.tool_index !== null) q.tool_index = e.tool_index;
      return q;
    }),
    explanation: f.explanation,
  }));
  if (extra.length > 0) notes.push(extraKeysNote(extra));
  return { reply: { findings, label: w.label, rationale: w.rationale }, notes, extraKeys: extraKeyNames(extra) };
}

/** JSON text of a reply, for comparing candidates. */
function key(r: JudgeReply): string {
  return JSON.stringify(r);
}

/**
 * Parse a judge's reply content (DESIGN section 3, "Judge reply"; cases B01, B04, B05).
 * @param content the assistant message content (null/undefined are treated as empty).
 * @param mode the output mode the request used; in `json_schema`/`json_object` mode the whole content is
 *   parsed strictly first.
 * @returns `{ok: true, reply, via, notes}` or `{ok: false, kind, message, rawLabel?}`. Never throws.
 */
export function parseReply(content: string | null | undefined, mode: OutputMode): ParseResult {
  const text = typeof content === "string" ? content : "";
  if (text.trim() === "") return { ok: false, kind: "empty", message: "the reply is empty" };

  if (mode !== "text") {
    let whole: unknown;
    let parsed = false;
    try {
      whole = JSON.parse(text);
      parsed = true;
    } catch {
      /* the model ignored the format: search the text below */
    }
    if (parsed) {
      const v = verdictIn(whole);
      if (!v)
        return {
          ok: false,
          kind: "not_verdict",
          message: `the reply is JSON but has no "label" or "findings" field${isPlainObject(whole) ? keysGiven(whole) : ""}`,
        };
      const dup = mayRepeatKey(text, whole) ? repeatedKey(text, sameLabelValue) : null;
      if (dup) return { ok: false, kind: "ambiguous", message: repeatedKeyMessage(dup), repeatedKey: true };
      const n = normalizeReply(v);
      if ("ok" in n) return n;
      return { ok: true, reply: n.reply, via: "strict", notes: n.notes, extraKeys: n.extraKeys };
    }
  }

  const body = stripThink(text);
  if (body.trim() === "") return { ok: false, kind: "empty", message: "the reply holds only reasoning, no answer" };
  const cands = scanJsonObjects(body);
  if (cands.length === 0)
    return { ok: false, kind: "no_json", message: "the reply contains no JSON object" };

  let anyJson = false;
  const found: { reply: JudgeReply; notes: string[]; extraKeys: string[]; repaired: boolean }[] = [];
  let firstFailure: ParseFailure | undefined;
  for (const c of cands) {
    const p = c.parsed;
    if (!p) continue;
    anyJson = true;
    const v = verdictIn(p.value);
    if (!v) continue;
    // a key given twice with different values says two things, as two verdict objects do (red team 35a F6)
    const json = p.repaired ? repairJson(c.text) : c.text;
    const dup = mayRepeatKey(json, p.value) ? repeatedKey(json, sameLabelValue) : null;
    if (dup) return { ok: false, kind: "ambiguous", message: repeatedKeyMessage(dup), repeatedKey: true };
    const n = normalizeReply(v);
    // a read key beside a case-variant spelling with another value: refused as a repeated key is, whatever else the text holds
    if ("ok" in n && n.repeatedKey) return n;
    if ("ok" in n) {
      firstFailure ??= n;
      continue;
    }
    found.push({ ...n, repaired: p.repaired });
  }
  if (found.length === 0) {
    if (firstFailure) return firstFailure;
    return anyJson
      ? { ok: false, kind: "not_verdict", message: 'no JSON object in the reply has a "label" or "findings" field' }
      : { ok: false, kind: "invalid_json", message: "the reply contains braces but no valid JSON object" };
  }
  if (firstFailure && found.length > 0)
    return {
      ok: false,
      kind: "ambiguous",
      message: `the reply contains ${found.length + 1} verdict objects and one of them is invalid (${firstFailure.message})`,
    };
  // A "label" key outside every object that parsed: a second verdict that is not valid JSON (the judge's own
  // object, broken, around a quoted object that parses). Never resolved toward the object that happens to parse.
  if (LABEL_KEY.test(residue(body, cands)))
    return {
      ok: false,
      kind: "ambiguous",
      message:
        'the reply holds a "label" key outside its only valid JSON object (a second verdict that is not valid JSON, ' +
        "or a quote that broke the object); reply with exactly one valid JSON object",
    };
  const distinct = new Set(found.map((f) => key(f.reply)));
  if (distinct.size > 1)
    return {
      ok: false,
      kind: "ambiguous",
      message: `the reply contains ${found.length} different verdict objects; give exactly one`,
    };
  // identical verdicts may carry different keys not read: every one is named
  const notes = [...new Set(found.flatMap((x) => x.notes))];
  const extraKeys = [...new Set(found.flatMap((x) => x.extraKeys))].sort();
  return { ok: true, reply: found[0].reply, via: found.every((x) => x.repaired) ? "repaired" : "extracted", notes, extraKeys };
}

const REFUSAL =
  /^\s*(?:i['’]?m sorry,?\s*(?:but\s*)?)?(?:i\s+(?:can(?:['’]?t|not)|won['’]?t|will not|am (?:not able|unable)|['’]?m (?:not able|unable)|must decline|do not feel comfortable|don['’]?t feel comfortable)\b[^.{]*?\b(?:help|assist|comply|fulfil+|provide|do (?:that|this)|engage|participate|support|complete|perform|evaluate|grade|judge|label|review|analy[sz]e)\b|(?:sorry,?\s*)?(?:i['’]?m sorry|i apologi[sz]e)\b[^{]*?\b(?:can(?:['’]?t|not)|won['’]?t|unable)\b[^.{]*?\b(?:help|assist|comply|fulfil+|provide|do (?:that|this)|engage|participate|support|complete|perform)\b)/i;

/**
 * Does a reply plainly refuse the task (e.g. "I can't help with that.", "I'm sorry, but I cannot assist")?
 * True only when, after leading reasoning, the text holds no `{` and starts with a refusal of the task itself.
 * "I cannot determine this from the transcript" is not a refusal (it is an unusable reply: case B04).
 */
export function looksLikeRefusal(content: string | null | undefined): boolean {
  if (typeof content !== "string") return false;
  const body = stripThink(content).trim();
  if (body === "" || body.includes("{")) return false;
  return REFUSAL.test(body.slice(0, 400));
}
