/**
 * Usage no request could have used (red team 33 F9: a server reported 1e15 prompt tokens for ~4k-token prompts, and
 * the run's cost read $20,200,000,000 with no word). The tokens a verdict's replies report are set against what its
 * requests could hold: a verdict whose sums are far beyond (more than {@link IMPLAUSIBLE_USAGE_RATIO} times) gets no
 * cost (`cost_usd: null`, `cost_basis: "implausible_usage"`) and a note naming the figures, on the online and the
 * Batch API path alike (both cost a verdict in one place: `LlmJudge.withCost`, `../judges/llm-judge.ts`).
 *
 * The bounds are loose on purpose (a false alarm hides a real cost): a prompt is counted at the densest
 * {@link DENSEST_CHARS_PER_TOKEN} characters per token plus {@link TEMPLATE_TOKENS} for the chat template and the reply
 * schema, then times the ratio; a reply at the request's token limit (or {@link UNCAPPED_REPLY_TOKENS} when none is
 * sent) times the ratio. The model's context window (`context_tokens`) is not a bound here: a feedback turn may
 * legitimately exceed what the first prompt was budgeted to.
 */
import { DENSEST_CHARS_PER_TOKEN } from "./classify.js";

/** How many times what the requests could hold a reported usage must be to be taken as implausible. */
export const IMPLAUSIBLE_USAGE_RATIO = 20;
/** Tokens a server may add to a prompt beyond its messages (chat template, the reply's JSON Schema). */
export const TEMPLATE_TOKENS = 1000;
/** The reply tokens assumed for a request sent without a token limit (no model writes a million tokens in a reply). */
export const UNCAPPED_REPLY_TOKENS = 1_000_000;

/** What a verdict's requests were: how many, the characters of the longest prompt, the token limit of the replies. */
export interface RequestsShape {
  requests: number;
  /** Characters of the longest prompt sent (the conversation's last: every turn only adds messages). */
  promptChars: number;
  /** The largest reply token limit sent; undefined when none was sent. */
  maxTokens?: number;
}

/**
 * Why a verdict's usage cannot be what its requests used, or undefined when it can.
 * @param usage the verdict's summed usage (reported tokens).
 * @returns what was reported against what could be, in words (for the verdict's `provider_notes` and the judge's flag).
 */
export function implausibleUsage(usage: { prompt_tokens: number; completion_tokens: number }, shape: RequestsShape): string | undefined {
  const n = Math.max(1, shape.requests);
  const promptEstimate = Math.ceil(shape.promptChars / DENSEST_CHARS_PER_TOKEN) + TEMPLATE_TOKENS;
  const promptBound = IMPLAUSIBLE_USAGE_RATIO * n * promptEstimate;
  const replyBound = IMPLAUSIBLE_USAGE_RATIO * n * (shape.maxTokens ?? UNCAPPED_REPLY_TOKENS);
  const said: string[] = [];
  if (usage.prompt_tokens > promptBound)
    said.push(`${usage.prompt_tokens} prompt tokens for ${n} request(s) of at most ~${promptEstimate} tokens each (${shape.promptChars} characters)`);
  if (usage.completion_tokens > replyBound)
    said.push(`${usage.completion_tokens} completion tokens for ${n} request(s) ${shape.maxTokens !== undefined ? `capped at ${shape.maxTokens} tokens each` : `sent without a token limit (${UNCAPPED_REPLY_TOKENS} assumed)`}`);
  if (!said.length) return undefined;
  return `the server reported ${said.join(" and ")}, over ${IMPLAUSIBLE_USAGE_RATIO}x what the requests could hold`;
}

