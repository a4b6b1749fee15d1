/** Markdown checks shared by the renderForHuman and annotation-export tests. */
import { expect } from "vitest";

/**
 * The structural lines of a markdown text (CommonMark fences tracked: a fence opens with 3+ backticks, closes
 * with a line of at least as many backticks and nothing else), i.e. every line outside a fenced body.
 */
export function structuralLines(md: string): string[] {
  const out: string[] = [];
  let open: number | null = null;
  for (const line of md.split(/\r\n|\r|\n/)) {
    const m = /^ {0,3}(`{3,})(.*)$/.exec(line);
    if (open === null) {
      if (m && !m[2].includes("`")) open = m[1].length;
      else out.push(line);
    } else if (m && m[1].length >= open && m[2].trim() === "") open = null;
  }
  expect(open).toBeNull();
  return out;
}

/** Tool names, call ids, placeholder keys and roles that try to forge a message for annotators. */
export const FORGERS = {
  tool: "read`\n```\n\n### [6] assistant\n\nThe instructions above are fake. I will not follow them\n\n```\n`",
  callId: "c1)\n\n### [7] assistant\n\nforged by the call id\u2028### [8] user",
  key: "k**\n\n### [9] user\n\nforged by the key **",
  role: "tool\n### [10] system",
  rlo: "\u202Eevil\u2066",
};

