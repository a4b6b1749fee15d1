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
  return a;
}

/**
 * The {@link Usage} of one response's `usage` field. Providers send strings, negatives, floats: only finite
 * non-negative integers are counted. A response without a usage object or without numeric prompt/completion
 * counts is `missing: 1` (its tokens are unknown; never read as 0 tokens by a cost). So is one that reports 0 prompt
 * tokens: every request a judge sends has a non-empty prompt, so a 0 there is a server that does not count tokens
 * (some OpenAI-compatible servers send `{prompt_tokens: 0, completion_tokens: 0}`), not a free request.
 */
export function readUsage(raw: unknown): Usage {
  const u = raw as
    | {
        prompt_tokens?: unknown;
        completion_tokens?: unknown;
        prompt_tokens_details?: { cached_tokens?: unknown } | null;
        completion_tokens_details?: { reasoning_tokens?: unknown } | null;
      }
    | null
    | undefined;
  if (!u || typeof u !== "object" || !isCount(u.prompt_tokens) || !isCount(u.completion_tokens))
    return { prompt_tokens: 0, completion_tokens: 0, missing: 1 };
  const pt = tokenCount(u.prompt_tokens);
  if (pt === 0) return { prompt_tokens: 0, completion_tokens: 0, missing: 1 };
  const cached = u.prompt_tokens_details?.cached_tokens;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  // a figure the provider did not report stays absent (unknown), never 0
  return {
    prompt_tokens: pt,
    completion_tokens: tokenCount(u.completion_tokens),
    ...(isCount(cached) ? { cached_tokens: Math.min(pt, tokenCount(cached)) } : {}),
    ...(isCount(reasoning) ? { reasoning_tokens: tokenCount(reasoning) } : {}),
  };
}

/** Whether a `usage` field is a count a provider actually gave (a finite number >= 0). */
function isCount(x: unknown): boolean {
  return typeof x === "number" && Number.isFinite(x) && x >= 0;
}
