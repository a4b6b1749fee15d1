import { describe, expect, it } from "vitest";
import { formatEstimate } from "../../src/estimate/format.js";
import { domainAsr, type DomainUnit, type LabelledItem } from "../../src/estimate/calibrated.js";
import type { EstimateReport } from "../../src/estimate/run.js";
import { REASON_TEXT, reasonText } from "../../src/format/stat-text.js";

describe("estimate text output: undefined values in words, through src/format/stat-text.ts", () => {
  // Group of 4 trajectories in cell c1 (2 labelled) and c2 (1 labelled of 4): the CI is undefined (stratum_n_lt_2).
  const domain: DomainUnit[] = ["x", "y", "z", "w"].map((id) => ({ id, judge: id === "x" ? true : id === "w" ? null : false }));
  const lab: LabelledItem[] = [
    { id: "x", cell: "c1", human: true },
    { id: "y", cell: "c1", human: false },
    { id: "z", cell: "c2", human: true },
  ];
  const est = domainAsr(domain, lab, new Map([["c1", 5], ["c2", 4]]), { minSampled: 2 });
  const few = domainAsr(domain, lab.slice(0, 1), new Map([["c1", 5]]), { minSampled: 2 });
  const report = {
    run: "r",
    source: { kind: "judge", judge_id: "j" },
    human_file: "h.jsonl",
    by: [],
    population: { N: 4, attacked: 4, duplicates_dropped: 0 },
    labels: { rows: 3, bad_rows: 0, items: 3, excluded: { consensus_tie: 1 }, excluded_rows: {}, annotators: 1, in_groups: 3, outside_groups: {}, excluded_unattacked: 0 },
    cells: [],
    design: "two_phase",
    estimators: { judge: "", human: "", calibrated: "c", unusable_verdicts: "", nonresponse: "" },
    min_sampled: 2,
    groups: [
      { group: "(all)", fields: {}, judge_unusable: {}, warnings: [], ...est },
      { group: "few", fields: {}, judge_unusable: {}, warnings: [], ...few },
    ],
    warnings: [],
  } as unknown as EstimateReport;
  const text = formatEstimate(report);

  it("a warning both rates carry is printed once, under asr_behaviour; asr_goal says it holds there too (new user 47)", () => {
    const cover = "the label file's strata (...) cover 413 of the 414 trajectories ...: no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them";
    const goalOnly = "asr_goal's own warning";
    const both = formatEstimate({ ...report, warnings: [cover], asr_goal: { ...report, rate: "asr_goal", warnings: [cover, goalOnly] } } as unknown as EstimateReport);
    expect(both.split("\n").filter((l) => l.includes("cover 413 of the 414"))).toHaveLength(1);
    expect(both).toContain(`WARNING: ${goalOnly}`);
    expect(both).toContain("(the WARNING printed above for asr_behaviour holds here too)");
    expect(both.indexOf("WARNING: the label file's strata")).toBeLessThan(both.indexOf("asr_goal (full compliance"));
  });
  it("a CI undefined by a thin stratum says why in words, names the stratum and what to do", () => {
    expect(est.calibrated.ci_reason).toMatch(/^stratum_n_lt_2 \(/); // JSON keeps the code
    expect(text).toContain(`CI undefined (${reasonText("stratum_n_lt_2")}; stratum "c2" has 1 labelled item of 4 and holds labelled trajectories of the group)`);
    expect(text).toMatch(/coarser --strata/);
    expect(text).toMatch(/--random/);
  });
  it("the judge's figure carries its count, as every rate (check 16: a bare 100.0% over 87 of 433)", () => {
    // x true, y z false, w no usable verdict: 1 of 3 usable
    expect(text).toMatch(/judge {6}33\.3% \(1\/3; 1 without a usable verdict\)/);
  });

  it("no n/a, no raw reason code, no code with its underscores turned into spaces", () => {
    expect(text).not.toMatch(/n\/a/);
    expect(text).not.toMatch(/stratum_n_lt_2|too_few_labelled_items|consensus_tie/);
    expect(text).not.toMatch(/stratum n lt 2|too few labelled items \(|consensus tie/);
    expect(text).toContain("undefined (too few labelled trajectories in the group (raise the sample, or lower --min-sampled); 1 < 2; --min-sampled)");
    expect(text).toContain("left out: annotators tied 1");
  });
  it("trajectories and rows left out are counted apart: used + trajectories left out = labelled trajectories (red team 17)", () => {
    expect(text).toContain("h.jsonl: 4 labelled trajectories, 1 annotator: 3 in the groups' population (attacked, with a consensus on compromised or not; each group's \"labelled\" counts its own); 1 left out: annotators tied 1; design");
    const rows = formatEstimate({ ...report, labels: { ...report.labels, items: 0, in_groups: 0, excluded: { consensus_tie: 1, not_in_run: 45 }, excluded_rows: { duplicate_repeated: 1 } } });
    expect(rows).toContain(`46 labelled trajectories, 1 annotator: 0 in the groups' population (attacked, with a consensus on compromised or not; each group's "labelled" counts its own); 46 left out: annotators tied 1, ${reasonText("not_in_run")} 45; rows left out: ${reasonText("duplicate_repeated")} 1; design`);
  });
  it("every reason code estimate emits has words of its own", () => {
    for (const code of ["stratum_n_lt_2", "too_few_labelled_items", "no_labelled_item_in_group", "empty_group", "no_usable_judge_verdict", "no_usable_verdict", "committee_disputed", "committee_no_quorum", "judge_error", "no_verdict"]) {
      expect(REASON_TEXT[code], code).toBeTruthy();
    }
    expect(reasonText("no_verdicts_of_gpt-4o")).toBe("the run has no verdicts of judge gpt-4o");
  });
});
