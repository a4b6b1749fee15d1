/**
 * The reasoning an OpenAI-style chat log keeps beside an assistant message's content: `reasoning_content` (DeepSeek,
 * vLLM, SGLang), `reasoning` (OpenRouter, Groq) or `thinking` (Ollama). It is the agent's own text (where it says it
 * noticed the injected instruction, or that it will follow it), shown to the judge as Inspect's reasoning parts are
 * (`<reasoning>...</reasoning>` before the content), never dropped (red team 41: chat JSONL left it out in silence,
 * so a flagged refusal or a stated plan to comply, written only there, was evidence the judge never saw).
 */

/** The message keys read as reasoning, in the order shown. */
export const REASONING_KEYS = ["reasoning_content", "reasoning", "thinking"] as const;

/**
 * `<reasoning>R</reasoning>` for each distinct non-empty string under {@link REASONING_KEYS} (one line each, in key
 * order), joined with `\n`; `""` when there is none.
 * @param m the message as read.
 */
export function chatReasoning(m: Record<string, unknown>): string {
  const seen: string[] = [];
  for (const k of REASONING_KEYS) {
    const v = Object.prototype.hasOwnProperty.call(m, k) ? m[k] : undefined;
    if (typeof v === "string" && v.trim() !== "" && !seen.includes(v)) seen.push(v);
  }
  return seen.map((r) => `<reasoning>${r}</reasoning>`).join("\n");
}
