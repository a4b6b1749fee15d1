/**
 * Judge health's count of the keys its replies held that the parser does not read (`../../src/verdict/extra-keys-health.ts`):
 * verdicts and each key's verdicts, from `Verdict.extra_keys`; hand-edited values count as none; key names are data
 * (`__proto__`); the names kept are capped; the health line's clause.
 */
import { describe, expect, it } from "vitest";
import { addExtraKeys, EXTRA_KEY_NAMES, extraKeysText } from "../../src/verdict/extra-keys-health.js";
import { formatHealth, judgeHealth } from "../../src/verdict/health.js";
import type { Verdict } from "../../src/types.js";

const v = (extra_keys?: unknown, judge_id = "j") => ({ judge_id, judge_model: "m", status: "ok", label: "unaffected", findings: [], extra_keys }) as unknown as Verdict;

describe("extra-keys health", () => {
  it("counts verdicts and each key's verdicts, most first", () => {
    let h = addExtraKeys(undefined, v(["confidence", "findings[].severity"]));
    h = addExtraKeys(h, v(["confidence"]));
    h = addExtraKeys(h, v(undefined));
    expect(h).toEqual({ verdicts: 2, keys: [{ key: "confidence", verdicts: 2 }, { key: "findings[].severity", verdicts: 1 }], other_keys: 0 });
    expect(extraKeysText(h)).toBe(
      'replies held keys the parser does not read, ignored (no part of the label) in 2 verdicts: "confidence" 2, "findings[].severity" 1 (verdicts.jsonl names them with their values in provider_notes)',
    );
    expect(extraKeysText(undefined)).toBe("");
  });

  it("a verdict without keys, or with a hand-edited value, counts as none; a name repeated on a verdict counts once", () => {
    for (const bad of [undefined, [], "confidence", [1, null, ""], { a: 1 }]) expect(addExtraKeys(undefined, v(bad))).toBeUndefined();
    expect(addExtraKeys(undefined, v(["a", "a", 3]))).toEqual({ verdicts: 1, keys: [{ key: "a", verdicts: 1 }], other_keys: 0 });
  });

  it("key names are data: __proto__ is counted, the prototype untouched", () => {
    const h = addExtraKeys(undefined, v(["__proto__", "constructor"]));
    expect(h!.keys.map((k) => k.key)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it("keeps at most EXTRA_KEY_NAMES names, the others counted", () => {
    const names = Array.from({ length: EXTRA_KEY_NAMES + 5 }, (_, i) => `k${String(i).padStart(2, "0")}`);
    const h = addExtraKeys(undefined, v(names))!;
    expect(h.keys).toHaveLength(EXTRA_KEY_NAMES);
    expect(h.other_keys).toBe(5);
    expect(extraKeysText(h)).toContain(", and 5 more (key, verdict) pair(s) (");
  });

  it("judgeHealth: per judge, absent where none; one clause of the health line", () => {
    const hs = judgeHealth([v(["confidence"], "a"), v(undefined, "a"), v(undefined, "b")]);
    expect(hs.find((h) => h.judge_id === "a")!.extra_keys).toEqual({ verdicts: 1, keys: [{ key: "confidence", verdicts: 1 }], other_keys: 0 });
    expect(hs.find((h) => h.judge_id === "b")!.extra_keys).toBeUndefined();
    expect(formatHealth(hs[0])).toContain('; replies held keys the parser does not read, ignored (no part of the label) in 1 verdict: "confidence" 1 (');
    expect(formatHealth(hs[1])).not.toContain("keys the parser");
  });
});
