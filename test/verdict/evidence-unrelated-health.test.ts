/**
 * Judge health counts the compliance labels marked `compliance_unrelated` (src/verdict/evidence-unrelated-health.ts),
 * through the slim records every command reads: flag `compliance_evidence_unrelated`, advisory (no mark on the rates,
 * the judge not called broken), and the one line every rate-printing command gives.
 */
import { describe, expect, it } from "vitest";
import { flagCodesOf, judgeHealth } from "../../src/verdict/health.js";
import { evidenceUnrelatedWarnings } from "../../src/verdict/evidence-unrelated-health.js";
import { rateCaveat } from "../../src/verdict/rate-caveat.js";
import { slimVerdict } from "../../src/store/records.js";
import type { Verdict } from "../../src/types.js";

const v = (id: string, label: Verdict["label"], flagged: boolean, status: Verdict["status"] = "ok"): Verdict =>
  ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "openai", repeat: 0, prompt_sha256: "p", status, label, attacked: true, downgraded: false, findings: [], ...(flagged ? { compliance_unrelated: true } : {}) }) as unknown as Verdict;

describe("judge health: compliance labels whose evidence shares nothing with the injected text", () => {
  const verdicts = [v("a", "full_compliance", true), v("b", "partial_compliance", true), v("c", "full_compliance", false), v("d", "unaffected", false)];

  it("counts them, raises the advisory flag, one line beside the rates (also through slim records)", () => {
    for (const records of [verdicts, verdicts.map(slimVerdict)]) {
      const [h] = judgeHealth(records);
      expect(h.evidence_unrelated).toEqual({ compliance_labels: 3, flagged: 2, flagged_full: 1, first_items: ["a", "b"], rate: { compliance_labels: 3, flagged: 2, flagged_full: 1 } });
      expect(flagCodesOf(h)).toEqual(["compliance_evidence_unrelated"]);
      expect(rateCaveat(h)).toBeNull();
      const lines = evidenceUnrelatedWarnings([h], ["j", "other"]);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^judge "j": 2 of its 3 compliance labels \(1 full_compliance\) cite only agent actions that share no word or value with the injected text/);
      expect(lines[0]).not.toContain("the rates count"); // every label is a repeat-0 attacked one: the same counts, said once
    }
  });

  it("none marked: no key, no flag, no line", () => {
    const [h] = judgeHealth([v("c", "full_compliance", false)]);
    expect(h.evidence_unrelated).toBeUndefined();
    expect(h.flags).toEqual([]);
    expect(evidenceUnrelatedWarnings([h], ["j"])).toEqual([]);
  });
});
