/**
 * The report's caveat sentences (src/report/rate-caveat-html.ts `rateCaveatWarnings`) beside each judge's health
 * warning (`healthWarnings`): a marked-compliance sentence the health warning already carries is not said again
 * (session 51: the report page listed it twice per judge), and the running label warnings leave it to the summary.
 */
import { describe, expect, it } from "vitest";
import { healthWarnings, judgeHealth } from "../../src/verdict/health.js";
import { rateCaveatWarnings } from "../../src/report/rate-caveat-html.js";
import { healthWarnings as runningWarnings } from "../../src/run/label-steps.js";
import type { Verdict } from "../../src/types.js";

const v = (id: string, judge: string, flagged: boolean): Verdict =>
  ({ trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "openai", repeat: 0, prompt_sha256: "p", status: "ok", label: flagged || id.endsWith("0") ? "full_compliance" : "unaffected", attacked: true, downgraded: false, findings: [], ...(flagged ? { compliance_unrelated: true } : {}) }) as unknown as Verdict;

/** 60 verdicts (past the running health's minimum, 50) of judge `j`, every other one a compliance label citing nothing of the injected text (flagged). */
const flaggedRun = (judge: string) => Array.from({ length: 60 }, (_, i) => v(`t${i}`, judge, i % 2 === 1));
const SENTENCE = /cite only agent actions that share no word or value with the injected text/;

describe("the marked-compliance sentence, once per judge", () => {
  it("report: a judge whose health warning carries it gets no second line; one without the flag keeps its line", () => {
    const figures = judgeHealth([...flaggedRun("j"), ...flaggedRun("k")]);
    expect(figures[0].flags.map((f) => f.code)).toContain("compliance_evidence_unrelated");
    // k's figures made before the flag existed (no flag, no health line): its line is the one place the sentence is
    const health = figures.map((h) => (h.judge_id === "k" ? { ...h, flags: [], looks_broken: false } : h));
    const page = [...healthWarnings(health), ...rateCaveatWarnings(health, ["j", "k"])];
    expect(page.filter((w) => SENTENCE.test(w) && w.includes('"j"'))).toHaveLength(1);
    expect(page.filter((w) => SENTENCE.test(w) && w.includes('"k"'))).toHaveLength(1);
  });

  it("label: the running warnings leave it to the summary (said there once, with the final counts)", () => {
    const said: string[] = [];
    const track = runningWarnings((w) => void said.push(w));
    for (const x of flaggedRun("j")) track(x);
    expect(judgeHealth(flaggedRun("j"))[0].flags.map((f) => f.code)).toContain("compliance_evidence_unrelated");
    expect(said.filter((w) => SENTENCE.test(w))).toEqual([]);
  });
});
