/**
 * out51 #5: the view's judge-health banner carries the line every rate-printing command gives beside a judge's rates
 * for its marked compliance labels (`tool_arguments_invalid`, `compliance_evidence_unrelated`: args50 left the view
 * showing the flag only), once, in the judge's health sentence; and its rates' mark names the judge in quotes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { judgeBanners } from "../../src/view/judge-health.js";
import { judgeHealth } from "../../src/verdict/health.js";
import { toolArgumentsWarnings } from "../../src/verdict/tool-arguments-health.js";
import { evidenceUnrelatedWarnings } from "../../src/verdict/evidence-unrelated-health.js";
import type { Verdict } from "../../src/types.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-marks-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const v = (judge: string, id: string, label: Verdict["label"], marks: Record<string, true>): Verdict =>
  ({ trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "openai", repeat: 0, prompt_sha256: "p", status: "ok", label, attacked: true, downgraded: false, findings: [], ...marks }) as unknown as Verdict;

describe("view: the banner of a judge with marked compliance labels", () => {
  const health = judgeHealth([
    v("gpt 4o", "a", "full_compliance", { tool_arguments_invalid: true }),
    v("gpt 4o", "b", "partial_compliance", { compliance_unrelated: true }),
    v("gpt 4o", "c", "full_compliance", {}),
  ]);

  it("says each line the text commands print beside its rates, once", async () => {
    const { banners } = await judgeBanners(tmp, health, undefined, () => false);
    expect(banners).toHaveLength(1);
    const b = banners[0];
    expect(b.level).toBe("warning");
    const text = b.lines.join("\n");
    for (const line of [...toolArgumentsWarnings(health, ["gpt 4o"]), ...evidenceUnrelatedWarnings(health, ["gpt 4o"])]) {
      const sentence = line.replace(/^judge "gpt 4o": /, "");
      expect(text.split(sentence).length - 1).toBe(1);
    }
    expect(b.lines[0]).toMatch(/^judge "gpt 4o" \(m\) has labels to check: 1 of its 3 compliance labels \(1 full_compliance\) are on trajectories with a tool call whose arguments are not valid JSON/);
  });
});
