/**
 * Model name -> model family (the maker), for the `agent_family` field of a trajectory and for judge families
 * (DESIGN section 4: "judge family (the model's maker: openai, anthropic, google, meta, qwen, mistral, deepseek, ...)").
 */

/**
 * The built-in table: `[pattern, family]`, tried in order; the first pattern that matches the lower-cased model
 * name wins (makers of distilled models come before the base they distil from: `deepseek-r1-distill-llama` is
 * deepseek). Patterns look for the name anywhere (so provider prefixes such as `openrouter/`, `meta-llama/`,
 * `meta-llama_` or `us.anthropic.` do not matter), with boundaries where a short token could occur inside other
 * words (`o1`, `phi`, `command`).
 */
export const FAMILY_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/claude|anthropic/, "anthropic"],
  [/deepseek/, "deepseek"],
  [/qwen|qwq/, "qwen"],
  [/mistral|mixtral|codestral|ministral|pixtral|magistral|devstral/, "mistral"],
  [/gemini|gemma|palm-?2|bison|google\//, "google"],
  [/llama|(^|[^a-z])meta([^a-z]|$)/, "meta"],
  [/(^|[^a-z])command([^a-z]|$)|cohere|c4ai/, "cohere"],
  [/grok|(^|[^a-z])xai([^a-z]|$)/, "xai"],
  [/(^|[^a-z])phi-?\d|(^|[^a-z])phi([^a-z]|$)/, "microsoft"],
  [/chatgpt|gpt|(^|[^a-z0-9])o[1345]([^a-z0-9]|$)|davinci|openai/, "openai"],
];

/**
 * The family (maker) of a model, from its name.
 *
 * @param model a model name as a provider or a benchmark writes it, e.g. `gpt-4o-2024-05-13`,
 *   `claude-3-5-sonnet-20240620`, `meta-llama_Llama-3.3-70B-Instruct`, `openrouter/qwen/qwen-2.5-72b`.
 * @returns one of `openai`, `anthropic`, `google`, `meta`, `qwen`, `mistral`, `deepseek`, `cohere`, `xai`,
 *   `microsoft`, or `undefined` when no pattern of {@link FAMILY_PATTERNS} matches (never a guess). Never throws.
 */
export function familyOf(model: string | undefined | null): string | undefined {
  if (typeof model !== "string" || model.trim() === "") return undefined;
  // a corpus names a handful of models across thousands of trajectories: each name is matched once (issue 26: the
  // ten patterns were ~1% of an LLM label's CPU, their compiled code being dropped and rebuilt by V8 between uses)
  if (known.has(model)) return known.get(model);
  const m = model.toLowerCase();
  let found: string | undefined;
  for (const [re, family] of FAMILY_PATTERNS)
    if (re.test(m)) {
      found = family;
      break;
    }
  if (known.size >= MAX_KNOWN) known.clear();
  known.set(model, found);
  return found;
}

/** Model names already matched, with their family (undefined: none); cleared when full (a corpus has few). */
const known = new Map<string, string | undefined>();
const MAX_KNOWN = 1024;
