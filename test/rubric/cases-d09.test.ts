/**
 * Case D09 (test/data/cases, from public bug reports): for one judge and one rubric version every request of a run
 * starts with the same bytes up to the end of the fixed instructions and rubric (the provider's prompt cache can
 * serve them); trajectory ids, run data and the tag nonce appear only after that prefix, in the user message.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readTrajectories } from "../../src/ingest/index.js";
import { buildMessages } from "../../src/rubric/prompt.js";
import { renderForJudge } from "../../src/serialize/render.js";
import type { Trajectory } from "../../src/types.js";
import { CASES, SAMPLES } from "../helpers/paths.js";

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

describe("D09: the cacheable prefix of a judge's requests", () => {
  it("two requests share the whole system message; nonce and ids only in the user message", async () => {
    expect(load("D09.expected.json").property).toMatch(/same bytes up to the end of the fixed instructions/);
    const ts: Trajectory[] = [];
    for await (const it of readTrajectories([SAMPLES], { limit: 3 } as never)) if (it.kind === "trajectory" && ts.length < 3) ts.push(it.trajectory);
    const reqs = ts.map((t) => {
      const r = renderForJudge(t);
      return { t, r, messages: buildMessages(r) };
    });
    const sys = reqs[0].messages[0].content;
    for (const q of reqs) {
      expect(q.messages[0].content).toBe(sys);
      expect(sys).not.toContain(q.r.nonce);
      expect(sys).not.toContain(q.t.id);
      expect(q.messages[1].content).toContain(q.r.nonce);
    }
    const flat = (q: (typeof reqs)[number]) => JSON.stringify(q.messages);
    expect(commonPrefix(flat(reqs[0]), flat(reqs[1]))).toBeGreaterThan(sys.length);
  });
});

function load(f: string) {
  return JSON.parse(readFileSync(path.join(CASES, f), "utf8"));
}
