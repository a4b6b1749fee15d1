/**
 * Counting the prompt tokens of a chat request before it is sent (`label --dry-run`, `--max-cost` reservations).
 * OpenAI models are counted with their real BPE encoding (`gpt-tokenizer`: `o200k_base` for the GPT-4o, GPT-4.1,
 * GPT-5, o-series and gpt-oss families, `cl100k_base` for GPT-4 and GPT-3.5), plus the chat format's per-message
 * overhead (OpenAI cookbook, "How to count tokens with tiktoken": 3 tokens per message and 3 to prime the reply).
 * Every other model is an estimate of characters / 4, labelled `estimated` so it is never read as a count.
 */
import { createRequire } from "node:module";

/** How a judge's prompt tokens are counted. */
export type TokenizerName = "o200k_base" | "cl100k_base" | "estimated";

/** Tokens the chat format adds per message, and once per request (OpenAI cookbook). */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REQUEST = 3;

/**
 * The tokenizer of a model name (a provider prefix such as `openai/` or `azure/` is ignored).
 * @returns `o200k_base`, `cl100k_base`, or `estimated` when the model's tokenizer is not known here.
 */
export function tokenizerFor(model: string): TokenizerName {
  const m = model.toLowerCase().replace(/^.*\//, "");
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|gpt-oss|codex-mini|computer-use)/.test(m)) return "o200k_base";
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(m)) return "cl100k_base";
  return "estimated";
}

type Counter = (s: string) => number;
const counters = new Map<TokenizerName, Counter>();

/** A function counting the tokens of a text with `name` (characters / 4, rounded up, for `estimated`). */
export function tokenCounter(name: TokenizerName): Counter {
  let c = counters.get(name);
  if (c) return c;
  if (name === "estimated") c = (s) => Math.ceil(s.length / 4);
  else {
    // loaded on first use (the encodings are a few MB)
    const req = createRequire(import.meta.url);
    const mod = req(`gpt-tokenizer/cjs/encoding/${name}`) as { countTokens: (s: string) => number };
    c = (s) => mod.countTokens(s);
  }
  counters.set(name, c);
  return c;
}

/** Prompt tokens of a chat request's messages with `name` (message texts plus the chat format's overhead). */
export function countPromptTokens(messages: readonly { role: string; content: string }[], name: TokenizerName, cache?: Map<string, number>): number {
  const count = tokenCounter(name);
  let n = TOKENS_PER_REQUEST;
  for (const m of messages) {
    // the system message (the rubric) is the same in every request: counted once per cache
    const sys = m.role === "system" && cache !== undefined;
    let k = sys ? cache.get(m.content) : undefined;
    if (k === undefined) {
      k = count(m.content);
      if (sys) cache.set(m.content, k);
    }
    n += k + TOKENS_PER_MESSAGE;
  }
  return n;
}
