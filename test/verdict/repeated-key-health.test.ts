/**
 * Judge health counts the replies that gave a JSON key twice with different values apart from the other unparseable
 * replies, with the first items (src/verdict/repeated-key-health.ts): judge errors of kind `repeated_key`, verdicts
 * labelled from an earlier reply of the conversation (`retry_repeated_key`), and those stored before the kind existed
 * (kind `unparseable` with the repeated-key message), also through the slim records every command reads.
 */
import { describe, expect, it } from "vitest";
import { formatHealth, judgeHealth } from "../../src/verdict/health.js";
import { errorKindOf, formatRepeatedKey } from "../../src/verdict/repeated-key-health.js";
import { slimVerdict } from "../../src/store/records.js";
import { repeatedKeyMessage } from "../../src/judges/duplicate-keys.js";
import type { Verdict } from "../../src/types.js";

const MSG = repeatedKeyMessage({ path: "", key: "label", first: '"unaffected"', second: '"full_compliance"' });
const v = (id: string, status: Verdict["status"], error?: { kind: string; message: string }, label: Verdict["label"] = null): Verdict =>
  ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "openai", repeat: 0, prompt_sha256: "p", status, label, attacked: true, findings: [], ...(error ? { error } : {}) }) as unknown as Verdict;

describe("judge health: repeated-key replies", () => {
  const verdicts = [
    v("t1", "judge_error", { kind: "repeated_key", message: MSG }),
    v("t2", "judge_error", { kind: "unparseable", message: MSG }), // stored before the kind existed
    v("t3", "judge_error", { kind: "unparseable", message: "the reply contains no JSON object" }),
    v("t4", "ok", { kind: "retry_repeated_key", message: MSG }, "unaffected"),
    v("t5", "ok", undefined, "unaffected"),
  ];

  it("counts them under their own name, with the first items, apart from the other unparseable replies", () => {
    for (const records of [verdicts, verdicts.map(slimVerdict)]) {
      const [h] = judgeHealth(records);
      expect(h.errors_by_kind).toEqual({ repeated_key: 2, unparseable: 1 });
      expect(h.errors).toBe(3);
      expect(h.repeated_key).toEqual({ judge_errors: 2, fell_back: 1, first_items: ["t1", "t2", "t4"] });
      expect(formatHealth(h)).toContain(
        "; 3 last replies gave a JSON key twice with different values (repeated_key: 2 judge error(s), 1 labelled from an earlier reply of the conversation; e.g. t1, t2, t4)",
      );
    }
  });

  it("an older record's kind is read as repeated_key only with the repeated-key message; none: nothing said", () => {
    expect(errorKindOf({ kind: "unparseable", message: MSG })).toBe("repeated_key");
    expect(errorKindOf({ kind: "retry_unparseable", message: MSG })).toBe("retry_repeated_key");
    expect(errorKindOf({ kind: "unparseable", message: "no JSON" })).toBe("unparseable");
    expect(errorKindOf(undefined)).toBeUndefined();
    expect(formatRepeatedKey({ judge_errors: 0, fell_back: 0, first_items: [] })).toBe("");
    expect(formatHealth(judgeHealth([v("t5", "ok", undefined, "unaffected")])[0])).not.toMatch(/repeated_key/);
  });
});
