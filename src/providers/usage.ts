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
   * plus completion, cache hits plus misses over `prompt_tokens`): billed on the largest consistent reading, never
   * the smaller one in silence (issue 23).
   */
  inconsistent?: number;
}

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
  if (b.missing) a.missing = (a.missing ?? 0) + b.missing;
  if (b.inconsistent) a.inconsistent = (a.inconsistent ?? 0) + b.inconsistent;
  return a;
}

/**
 * The {@link Usage} of one response's `usage` field. Providers send strings, negatives, floats: only finite
 * non-negative integers are counted. A response without a usage object or without numeric prompt/completion
 * counts is `missing: 1` (its tokens are unknown; never read as 0 tokens by a cost). So is one that reports 0 prompt
 * tokens: every request a judge sends has a non-empty prompt, so a 0 there is a server that does not count tokens
 * (some OpenAI-compatible servers send `{prompt_tokens: 0, completion_tokens: 0}`), not a free request.
 *
 * Dialects read (issue 23): OpenAI's `prompt_tokens_details.cached_tokens` and
 * `completion_tokens_details.reasoning_tokens`; DeepSeek's `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`
 * (hits = cached); Gemini's compatibility layer, whose thinking tokens are in `total_tokens` but not in
 * `completion_tokens`. Parts that do not add up are read the largest consistent way (completion = max(completion,
 * completion + reasoning when reasoning > completion, total - prompt); prompt = max(prompt, hits + misses)) and the
 * response counted in `inconsistent`.
 */
export function readUsage(raw: unknown): Usage {
  const u = raw as
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
  if (!u || typeof u !== "object" || !isCount(u.prompt_tokens) || !isCount(u.completion_tokens))
    return { prompt_tokens: 0, completion_tokens: 0, missing: 1 };
  let pt = tokenCount(u.prompt_tokens);
  if (pt === 0) return { prompt_tokens: 0, completion_tokens: 0, missing: 1 };
  let ct = tokenCount(u.completion_tokens);
  let inconsistent = false;
  // DeepSeek's dialect: prompt_cache_hit_tokens / prompt_cache_miss_tokens (hits are the cached tokens)
  const hit = isCount(u.prompt_cache_hit_tokens) ? tokenCount(u.prompt_cache_hit_tokens) : undefined;
  const miss = isCount(u.prompt_cache_miss_tokens) ? tokenCount(u.prompt_cache_miss_tokens) : undefined;
  if (hit !== undefined && miss !== undefined && hit + miss > pt) {
    pt = hit + miss;
    inconsistent = true;
  }
  const cachedRaw = u.prompt_tokens_details?.cached_tokens;
  const cached = isCount(cachedRaw) ? tokenCount(cachedRaw) : hit;
  const reasoningRaw = u.completion_tokens_details?.reasoning_tokens;
  const reasoning = isCount(reasoningRaw) ? tokenCount(reasoningRaw) : undefined;
  // reasoning tokens are part of completion_tokens (OpenAI); more of them than completion tokens means a provider
  // that counts them apart (Gemini's compatibility layer): billed on top
  if (reasoning !== undefined && reasoning > ct) {
    ct += reasoning;
    inconsistent = true;
  }
  // total_tokens over prompt + completion: tokens billed that neither part reports (Gemini's thinking tokens):
  // billed as output, the largest consistent reading
  const total = isCount(u.total_tokens) ? tokenCount(u.total_tokens) : undefined;
  if (total !== undefined && total > pt + ct) {
    ct = total - pt;
    inconsistent = true;
  }
  if (cached !== undefined && cached > pt) inconsistent = true;
  // a figure the provider did not report stays absent (unknown), never 0
  return {
    prompt_tokens: pt,
    completion_tokens: ct,
    ...(cached !== undefined ? { cached_tokens: Math.min(pt, cached) } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
    ...(inconsistent ? { inconsistent: 1 } : {}),
  };
}

/** Whether a `usage` field is a count a provider actually gave (a finite number >= 0). */
function isCount(x: unknown): boolean {
  return typeof x === "number" && Number.isFinite(x) && x >= 0;
}
