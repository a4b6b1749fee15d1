/**
 * A test judge whose verdicts for the calls numbered in `bad` (0-based call order) cannot be serialized (a getter
 * that throws `RangeError: Invalid string length`, as a huge string would): each such item becomes that judge's
 * `judge_crash` in the run store, the others are stored. Shared by the label crash tests.
 */
import type { Judge } from "../../src/judges/judge.js";
import type { Verdict } from "../../src/types.js";
import { buildVerdict } from "../../src/verdict/record.js";

/**
 * @param bad the call numbers whose verdict cannot be serialized.
 * @param id the judge id; @param promptSha256 its prompt hash (64 hex characters).
 */
export function unserializableJudge(bad: Set<number>, id: string, promptSha256: string): Judge {
  let n = 0;
  const identity = { id, model: "m", family: "test", promptSha256, rubricVersion: "r1" };
  return {
    ...identity,
    concurrency: 1,
    async judge(t, ctx): Promise<Verdict> {
      const v = buildVerdict({ trajectory: t, judge: identity, repeat: ctx.repeat, status: "judge_error", decision: null, attempts: 1, error: { kind: "x", message: "x" } });
      if (bad.has(n++)) Object.defineProperty(v, "rationale", { enumerable: true, get: () => { throw new RangeError("Invalid string length"); } });
      return v;
    },
  };
}
