/**
 * The model a reply says served it (`model` of a chat completion), against the one the request asked for (red team
 * 40): a router's fallback (OpenRouter `models`, `openrouter/auto`), a local server with another model loaded, or a
 * proxy answered as another model, and the verdicts, costs, families and the committee's family diversity named the
 * judge's configured model with no word. A reply whose model differs is noted on its verdict (`provider_notes`) and
 * the judge is flagged once (`../judges/llm-judge.ts`); the verdict is kept (the judgment is the served model's).
 */

/** The start of the note ({@link servedModelNote}): how the judge finds it among a reply's notes. */
export const SERVED_MODEL_NOTE = "the reply names another model than the request asked for";

/**
 * What a served name may add to the asked one and still be that model: a date or version snapshot
 * (`gpt-4o` -> `gpt-4o-2024-08-06`, `claude-3-5-sonnet` -> `...-20240620`, `-0613`, Google's `-001`, `-latest`,
 * Bedrock's `-v1:0`, Vertex's `@20240620`) or the default tag (`llama3.1` -> `llama3.1:latest`). Not another size or
 * variant: `gpt-4o` -> `gpt-4o-mini`, `llama3.1` -> `llama3.1:70b` (an Ollama tag names a size or quantization),
 * `claude-3-5-sonnet` -> `claude-3-5-sonnet-v2` (brk40: the last two were taken as the same model).
 */
const SNAPSHOT_SUFFIX = /^(-\d{4}-\d{2}-\d{2}|-\d{3}|-\d{4}|-\d{8}|-latest|-v\d+:\d+|:latest|@\d{3,8}|@latest)$/;

/**
 * Whether a served model name is the asked one: equal ignoring case and a provider prefix (`openai/gpt-4o`,
 * `models/gemini-2.0-flash`), or one of them the other plus a snapshot suffix ({@link SNAPSHOT_SUFFIX}).
 */
export function sameModel(asked: string, served: string): boolean {
  const base = (m: string) => m.trim().toLowerCase().slice(m.trim().lastIndexOf("/") + 1);
  const a = base(asked);
  const s = base(served);
  if (a === s || asked.trim().toLowerCase() === served.trim().toLowerCase()) return true;
  if (s.startsWith(a) && SNAPSHOT_SUFFIX.test(s.slice(a.length))) return true;
  return a.startsWith(s) && SNAPSHOT_SUFFIX.test(a.slice(s.length));
}

/**
 * The note for a chat completion whose `model` is not the one asked for ({@link sameModel}), or undefined (the same,
 * or either name missing).
 * @param asked the request's `model`; @param completion the reply body.
 */
export function servedModelNote(asked: unknown, completion: unknown): string | undefined {
  const served = completion && typeof completion === "object" ? (completion as { model?: unknown }).model : undefined;
  if (typeof asked !== "string" || typeof served !== "string" || served.trim() === "" || sameModel(asked, served)) return undefined;
  return `${SERVED_MODEL_NOTE}: ${JSON.stringify(served.slice(0, 200))} answered a request for ${JSON.stringify(asked)}`;
}
