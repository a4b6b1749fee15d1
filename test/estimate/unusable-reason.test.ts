/**
 * newuser16 finding 3: `estimate --human` said "346 ... no usable verdict (evidence not verified 346)" of VIGIL runs
 * whose verdicts are unverified because the input records no injected text (`injection_text_unknown`, the reason
 * label, agree and `estimate --table` give): the status blamed the judge's quotes. The estimate's flags now carry the
 * verdict's error kind over its status, and the reason reads as that kind.
 */
import { describe, expect, it } from "vitest";
import { judgeFlags } from "../../src/estimate/run.js";
import { reasonText } from "../../src/format/stat-text.js";
import { unusableReason } from "../../src/verdict/vote.js";
import type { Verdict } from "../../src/types.js";

const verdict = (trajectory_id: string, status: Verdict["status"], error?: Verdict["error"]) =>
  ({ trajectory_id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status, label: status === "ok" ? "unaffected" : null, findings: [], ...(error ? { error } : {}) }) as unknown as Verdict;

describe("why a verdict is not usable: its error kind over its status", () => {
  const vs = [
    verdict("a", "unverified", { kind: "injection_text_unknown", message: "no injected text" }),
    verdict("b", "unverified"),
    verdict("c", "ok"),
  ];
  it("judgeFlags names injection_text_unknown, not unverified; a verdict with no kind keeps its status", () => {
    const f = judgeFlags(vs, ["a", "b", "c", "d"], { kind: "judge", judge_id: "j" });
    expect(f.get("a")).toBe("injection_text_unknown");
    expect(f.get("b")).toBe("unverified");
    expect(f.get("c")).toBe(false);
    expect(f.get("d")).toBe("no_verdict");
    expect(unusableReason(vs[2])).toBeNull();
  });
  it("the reason reads as the input's fault, with its code", () => {
    expect(reasonText("injection_text_unknown")).toBe("injection_text_unknown: the input records no injected text");
    expect(reasonText("injection_text_unknown")).not.toMatch(/evidence not verified/);
  });
});
