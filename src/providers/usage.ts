/**
 * Token usage read from a chat completion's `usage` field and summed over responses (costs are computed from it in
 * `./cost.ts`; what could not be counted is `missing`, never 0).
 */

/**
 * Token usage summed over the responses of a call or a verdict. `cached_tokens` (prompt tokens served from the
 * provider's prompt cache: `usage.prompt_tokens_details.cached_tokens`) and `reasoning_tokens` (part of
 * `completion_tokens`: `usage.completion_tokens_details.reasoning_tokens`) are absent where a provider does not
 * report them (unknown, not 0; a cost then bills every prompt token at the uncached price, an upper bound). `missing` counts responses that carried no usable `usage` (no object, or no numeric prompt/completion
 * count): their tokens are unknown, so any cost over them is `null`, never 0.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  missing?: number;
  /**
   * Responses whose usage parts did not add up (reasoning tokens over `completion_tokens`, `total_tokens` over prompt
   * plus completion, cached tokens or cache hits plus misses over `prompt_tokens`): billed on the largest consistent
   * reading, never the smaller one in silence (issue 23).
   */
  inconsistent?: number;
  /**
   * Of `missing`: responses the server answered (HTTP 2xx) whose body never arrived whole (cut off, timed out or
   * stopped while it was read): generated and probably billed, their usage unknown (red team 37b F1).
   */
  lost?: number;
  /** Of `missing`: responses that reported 0 completion tokens beside a non-empty reply (not a count). */
  zero_completion?: number;
  /** Responses with a token count that was not a whole number: counted rounded up. */
  fractional?: number;
}

/** The counters of {@link Usage} summed by {@link addUsage} when either side has them. */
const COUNTERS = ["missing", "inconsistent", "lost", "zero_completion", "fractional"] as const;

/**
 * A token count from a reply's `usage` as a finite non-negative integer: a number >= 0 (floored), else 0
 * (strings such as "1e9", negatives, NaN, Infinity, null and missing fields all count 0).
 */
export function tokenCount(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? Math.floor(x) : 0;
}

/** Add `b` into `a` (every field of {@link Usage}; optional ones only when either side has them). */
export function addUsage(a: Usage, b: Usage): Usage {
  a.prompt_tokens += b.prompt_tokens;
  a.completion_tokens += b.completion_tokens;
  if (b.cached_tokens !== undefined) a.cached_tokens = (a.cached_tokens ?? 0) + b.cached_tokens;
  if (b.reasoning_tokens !== undefined) a.reasoning_tokens = (a.reasoning_tokens ?? 0) + b.reasoning_tokens;
  for (const k of COUNTERS) if (b[k]) a[k] = (a[k] ?? 0) + b[k]!;
  return a;
}

/** What the caller knows of the response beside its `usage` (see {@link readUsage}). */
export interface UsageContext {
  /** Characters of the reply's text (content, reasoning, refusal, tool call arguments): a reply of any is >= 1 token. */
  replyChars?: number;
}

/**
 * The {@link Usage} of one response's `usage` field. Providers send strings, negatives, floats: only finite
 * non-negative numbers (and plain decimal digit strings such as `"100"`, read as their number) are counted (a fraction rounded up, the response counted in `fractional`). A response without
 * a usage object or without numeric prompt/completion counts is `missing: 1` (its tokens are unknown; never read as
 * 0 tokens by a cost). So is one that reports 0 prompt tokens: every request a judge sends has a non-empty prompt, so
 * a 0 there is a server that does not count tokens (some OpenAI-compatible servers send `{prompt_tokens: 0,
 * completion_tokens: 0}`), not a free request; and one that reports 0 completion tokens beside a reply of
 * `ctx.replyChars` > 0 characters (also counted in `zero_completion`, its figures kept as reported; red team 37b F2).
 *
 * Dialects read (issue 23): OpenAI's `prompt_tokens_details.cached_tokens` and
 * `completion_tokens_details.reasoning_tokens`; DeepSeek's `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`
 * (hits = cached); Gemini's compatibility layer, whose thinking tokens are in `total_tokens` but not in
 * `completion_tokens`. Parts that do not add up are read the largest consistent way and the response counted in
 * `inconsistent`: completion = max(completion, completion + reasoning when reasoning > completion, total - prompt);
 * cache figures over `prompt_tokens` (OpenAI cached tokens, or DeepSeek hits + misses) are one rule for both
 * dialects (red team 37b F3): the prompt is the larger total, at least max(prompt_tokens, misses) of it uncached, and
 * only the rest cached (`cacheReading`): never cheaper than billing `prompt_tokens` uncached, nor than the cache
 * figures taken as they are.
 */
export function readUsage(raw: unknown, ctx: UsageContext = {}): Usage {
  let u = raw as
    | {
        prompt_tokens?: unknown;
        completion_tokens?: unknown;
        total_tokens?: unknown;
        prompt_tokens_details?: { cached_tokens?: unknown } | null;
        completion_tokens_details?: { reasoning_tokens?: unknown } | null;
        prompt_cache_hit_tokens?: unknown;
        prompt_cache_miss_tokens?: unknown;
      }
    | null
    | undefined;
  if (u && typeof u === "object") u = withDigitStrings(u) as typeof u;
  if (!u || typeof u !== "object" || !isCount(u.prompt_tokens) || !isCount(u.completion_tokens))
    return { prompt_tokens: 0, completion_tokens: 0, missing: 1 };
  let fractional = false;
  // a count as a whole number: a fraction rounded up (never under-billed) and said
  const count = (x: unknown): number | undefined => {
    if (!isCount(x)) return undefined;
    const n = x as number;
    if (Number.isInteger(n)) return n;
    fractional = true;
    return Math.ceil(n);
  };
  let pt = count(u.prompt_tokens)!;
  if (pt === 0) return { prompt_tokens: 0, completion_tokens: 0, missing: 1 };
  let ct = count(u.completion_tokens)!;
  let inconsistent = false;
  // DeepSeek's dialect: prompt_cache_hit_tokens / prompt_cache_miss_tokens (hits are the cached tokens)
  const hit = count(u.prompt_cache_hit_tokens);
  const miss = count(u.prompt_cache_miss_tokens);
  let cached = count(u.prompt_tokens_details?.cached_tokens) ?? hit;
  const reading = cacheReading(pt, cached, hit, miss);
  if (reading) {
    pt = reading.prompt;
    cached = reading.cached;
    inconsistent = true;
  }
  const reasoning = count(u.completion_tokens_details?.reasoning_tokens);
  // reasoning tokens are part of completion_tokens (OpenAI); more of them than completion tokens means a provider
  // that counts them apart (Gemini's compatibility layer): billed on top
  if (reasoning !== undefined && reasoning > ct) {
    ct += reasoning;
    inconsistent = true;
  }
  // total_tokens over prompt + completion: tokens billed that neither part reports (Gemini's thinking tokens):
  // billed as output, the largest consistent reading
  const total = count(u.total_tokens);
  if (total !== undefined && total > pt + ct) {
    ct = total - pt;
    inconsistent = true;
  }
  // a reply of any text is at least one token: 0 completion tokens beside one is not a count (as 0 prompt tokens):
  // the response counts as one without usage (cost unknown), its figures kept as reported (a lower bound)
  const zero = ct === 0 && (ctx.replyChars ?? 0) > 0;
  // a figure the provider did not report stays absent (unknown), never 0
  return {
    prompt_tokens: pt,
    completion_tokens: ct,
    ...(cached !== undefined ? { cached_tokens: Math.min(pt, cached) } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
    ...(inconsistent ? { inconsistent: 1 } : {}),
    ...(fractional ? { fractional: 1 } : {}),
    ...(zero ? { missing: 1, zero_completion: 1 } : {}),
  };
}

/**
 * The prompt and cached tokens of a response whose cache figures do not fit in its `prompt_tokens` (OpenAI's
 * `cached_tokens` over it, or DeepSeek's hits + misses over it), or undefined when they fit. One rule for both
 * dialects: the prompt is the larger of the totals reported, at least max(`prompt_tokens`, misses) of it uncached,
 * and only the rest at the cached price. At any cached price up to the input price that costs at least as much as
 * either plain reading (`prompt_tokens` all uncached, or the cache figures as they are): the largest consistent
 * reading, never the cheapest (red team 37b F3: OpenAI's was clamped to all-cached, DeepSeek's raised).
 */
export function cacheReading(pt: number, cached: number | undefined, hit: number | undefined, miss: number | undefined): { prompt: number; cached: number } | undefined {
  const dsTotal = hit !== undefined && miss !== undefined ? hit + miss : 0;
  const implied = Math.max(cached ?? 0, dsTotal);
  if (implied <= pt) return undefined;
  const uncached = Math.max(pt, miss ?? 0);
  const prompt = Math.max(implied, uncached);
  return { prompt, cached: prompt - uncached };
}

/**
 * The {@link Usage} of a body of server-sent events (a server that streamed although no stream was asked for: the
 * client hands it on as text): the last `data:` chunk carrying a `usage` object (a stream sends it once, in its final
 * chunk), read by {@link readUsage} against the text of the chunks' deltas; a stream with none is a response without
 * usage (`missing: 1`): the model ran, its cost is unknown, never 0 (red team 37b F1).
 */
export function streamedUsage(text: string): Usage {
  let usage: unknown;
  let replyChars = 0;
  for (const line of text.split("\n")) {
    const m = /^data:\s*(.*)$/.exec(line.trim());
    if (!m || m[1] === "[DONE]") continue;
    let chunk: { usage?: unknown; choices?: { delta?: { content?: unknown; reasoning_content?: unknown } }[] };
    try {
      chunk = JSON.parse(m[1]);
    } catch {
      continue;
    }
    if (chunk && typeof chunk === "object") {
      if (chunk.usage && typeof chunk.usage === "object") usage = chunk.usage;
      for (const c of Array.isArray(chunk.choices) ? chunk.choices : []) {
        for (const x of [c?.delta?.content, c?.delta?.reasoning_content]) if (typeof x === "string") replyChars += x.trim().length;
      }
    }
  }
  return readUsage(usage, { replyChars });
}

/**
 * What a verdict's summed usage says a reader must know (its `provider_notes`): responses answered but lost, counts
 * that were not counts, parts that did not add up and how they were read.
 */
export function usageNotes(u: Usage): string[] {
  const out: string[] = [];
  if (u.lost)
    out.push(
      `${u.lost} response(s) were answered (HTTP 2xx) but their body never arrived whole (cut off, timed out or stopped while read): ` +
        `generated and probably billed, their usage unknown: the verdict's cost is unknown (cost_usd null), its tokens a lower bound`,
    );
  if (u.zero_completion)
    out.push(`${u.zero_completion} response(s) reported 0 completion tokens beside a non-empty reply: not a count, so the verdict's cost is unknown (cost_usd null), its tokens kept as reported (a lower bound)`);
  if (u.fractional) out.push(`${u.fractional} response(s) reported a token count that is not a whole number: counted rounded up`);
  if (u.inconsistent)
    out.push(
      `usage of ${u.inconsistent} response(s) did not add up (reasoning or total tokens over the reported parts, cached tokens or cache hits + misses over prompt tokens): ` +
        `counted on the largest consistent reading (the larger prompt total, only the tokens beyond prompt_tokens at the cached price; the missing tokens as output)`,
    );
  return out;
}

/** Whether a `usage` field is a count a provider actually gave (a finite number >= 0). */
/**
 * A plain decimal count sent as a string (`"100"`, hostile52 F5: such a reply read as "no usage") as its number; any
 * other value as it is (`"1e9"`, `"-5"`, `"12.5"` stay strings: not counted, the response `missing`).
 */
function digitString(x: unknown): unknown {
  return typeof x === "string" && /^\s*\d{1,15}\s*$/.test(x) ? Number(x) : x;
}

/** A usage object with its token counts (top level and the `*_details` objects) given as digit strings read as numbers. */
function withDigitStrings(u: object): object {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(u)) out[k] = v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).map(([k2, v2]) => [k2, digitString(v2)])) : digitString(v);
  return out;
}

function isCount(x: unknown): boolean {
  return typeof x === "number" && Number.isFinite(x) && x >= 0;
}
