/**
 * New user 33: a stub judge that filled `usage` with made-up prompt counts got `prompt_truncated` errors, and README's
 * "A server of your own" (now in docs/trying-llm-judges.md) did not say the usage is read. It says so now, with the thresholds of the code: checked here
 * against the constants, so the two cannot drift apart, and the rule itself on a stub-like usage.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  MAX_CHARS_PER_TOKEN,
  PROMPT_TRUNCATION_MIN_CHARS,
  PROMPT_TRUNCATION_MIN_REPORTED,
  PROMPT_TRUNCATION_MIN_TOKENS,
  PROMPT_TRUNCATION_RATIO,
  REFERENCE_TRUNCATION_RATIO,
  promptTruncation,
} from "../../src/providers/classify.js";
import { ROOT } from "../helpers/paths.js";

const page = fs.readFileSync(path.join(ROOT, "docs", "trying-llm-judges.md"), "utf8").replace(/\s+/g, " ");
// from "A server of your own" to the page's end (the section after it, "Providers as they are", is a page of its own)
const start = page.indexOf("A server of your own that stands in for a judge");
const section = page.slice(start);

describe("docs/trying-llm-judges.md, A server of your own: the usage it reports is read (new user 33)", () => {
  it("names the check with the code's thresholds", () => {
    expect(start).toBeGreaterThan(0);
    const fmt = (n: number) => n.toLocaleString("en-US");
    for (const w of [
      "usage.prompt_tokens",
      `A report of ${PROMPT_TRUNCATION_MIN_REPORTED} prompt tokens or more`,
      `under ${PROMPT_TRUNCATION_RATIO}x our count with the model's tokenizer`,
      `under ${REFERENCE_TRUNCATION_RATIO}x the prompt's o200k_base count (prompts of ${fmt(PROMPT_TRUNCATION_MIN_TOKENS)} tokens or more)`,
      `under characters / ${MAX_CHARS_PER_TOKEN} (prompts of ${fmt(PROMPT_TRUNCATION_MIN_CHARS)} characters or more)`,
      "`judge_error` of kind `prompt_truncated`",
      "The judge is not stopped",
      "report real counts, or leave `usage` out",
    ])
      expect(section).toContain(w);
  });
  it("the rule as said: a made-up low count is a cut; no usage, or a count under the floor, is no check", () => {
    const chars = 12_000;
    expect(promptTruncation({ prompt_tokens: chars / 40 }, chars, undefined, 3_000)).toMatch(/^the server reports 300 prompt tokens/);
    expect(promptTruncation(undefined, chars, undefined, 3_000)).toBeUndefined();
    expect(promptTruncation({ prompt_tokens: PROMPT_TRUNCATION_MIN_REPORTED - 1 }, chars, undefined, 3_000)).toBeUndefined();
    expect(promptTruncation({ prompt_tokens: 2_900 }, chars, undefined, 3_000)).toBeUndefined();
  });
});
