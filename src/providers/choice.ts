/**
 * The choice of a chat completion a judge reads (red team 31 L3c: a server answering with several choices, n > 1
 * forced by a proxy or a server default, had `choices[0]` read whatever its `index`, silently). The choice whose
 * `index` is 0, else the first one; a body with more than one choice is noted ({@link SEVERAL_CHOICES}) on the
 * verdict, and the judge says it once (`../judges/llm-judge.ts`).
 */

/** The start of the reply note for a completion with several choices. */
export const SEVERAL_CHOICES = "the server returned";

/**
 * The choice of `completion` to read: the one with `index` 0, else `choices[0]`; `note` set when there are several
 * (`the server returned 2 choices (the request asks for one): the choice with index 0 is read`). Never throws.
 */
export function chosenChoice(completion: unknown): { choice: unknown; note?: string } {
  const choices = completion !== null && typeof completion === "object" ? (completion as { choices?: unknown }).choices : undefined;
  if (!Array.isArray(choices)) return { choice: undefined };
  if (choices.length <= 1) return { choice: choices[0] };
  const at = choices.findIndex((c) => c !== null && typeof c === "object" && (c as { index?: unknown }).index === 0);
  const which = at >= 0 ? "the choice with index 0" : "the first choice (none has index 0)";
  return { choice: choices[at >= 0 ? at : 0], note: `${SEVERAL_CHOICES} ${choices.length} choices (the request asks for one): ${which} is read` };
}
