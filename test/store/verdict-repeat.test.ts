/**
 * A verdict line whose `repeat` is negative is no verdict (red team 39b: `"repeat": -1` appended by hand was read and
 * raised committee's health denominators); a repeat index is a non-negative integer (`isVerdictRecord`).
 */
import { describe, expect, it } from "vitest";
import { isVerdictRecord } from "../../src/store/records.js";

const line = (repeat: unknown) => ({ trajectory_id: "t", judge_id: "j", repeat, prompt_sha256: "p", status: "ok" });

describe("isVerdictRecord: the repeat index", () => {
  it("takes 0, 1, 2 ...; refuses a negative, fractional or non-number repeat", () => {
    for (const r of [0, 1, 7]) expect(isVerdictRecord(line(r))).toBe(true);
    for (const r of [-1, -0.5, 0.5, "0", null, undefined]) expect(isVerdictRecord(line(r))).toBe(false);
  });
});
