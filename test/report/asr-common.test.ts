/**
 * est53 #3: the report's per-judge rows side by side on the runs every judge labelled (src/report/asr-common.ts,
 * src/report/asr-common-html.ts): judge B failed on 2 of m's 4 attacked runs; by hand over the other 2.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildReportModel, renderReportHtml } from "../../src/report/index.js";
import { buildCommitteeFixture } from "./fixture.js";
import { addCommon, barCoverageLow, NO_SHARED_RUN } from "../../src/report/asr-common.js";
import { sharedFigHtml, sharedNoteHtml } from "../../src/report/asr-common-html.js";
import type { RateItem } from "../../src/stats/rates.js";

const rows = [
  { attacked: true, agent_model: "m", condition: "d" },
  { attacked: true, agent_model: "m", condition: "d" },
  { attacked: true, agent_model: "m", condition: "d" },
  { attacked: true, agent_model: "m", condition: "d" },
  { attacked: false, agent_model: "m", condition: "d" },
];
const A: RateItem[] = [{ label: "full_compliance" }, { label: "full_compliance" }, { label: "unaffected" }, { label: "partial_compliance" }, { label: "not_exposed" }];
const B: RateItem[] = [{ label: null, reason: "judge_error" }, { label: "full_compliance" }, { label: null, reason: "judge_error" }, { label: "unaffected" }, { label: "not_exposed" }];
const fig = (f: { rate: number | null; count: number; n: number }) => `${f.rate === null ? "n/a" : (100 * f.rate).toFixed(1)} (${f.count}/${f.n})`;

describe("report: judges side by side on the runs every one labelled (est53 #3)", () => {
  it("common over runs 1 and 3 (0-based), by hand; the committee's row and one judge get none", () => {
    const out = [
      { rater: "A", model: "m", condition: "d", labelled: 4 },
      { rater: "B", model: "m", condition: "d", labelled: 2 },
      { rater: "committee", model: "m", condition: "d", labelled: 3 },
    ] as Array<{ rater: string; model: string; condition: string; labelled: number; common?: { n: number; asr_goal: { count: number; n: number; rate: number | null }; asr_behaviour: { count: number; n: number; rate: number | null } } }>;
    addCommon(out, rows.length, (i) => rows[i], [{ rater: "A", item: (i) => A[i] }, { rater: "B", item: (i) => B[i] }]);
    expect(out[0].common).toMatchObject({ n: 2, asr_goal: { count: 1, n: 2 }, asr_behaviour: { count: 2, n: 2 } }); // A: full on 1, partial on 3
    expect(out[1].common).toMatchObject({ n: 2, asr_goal: { count: 1, n: 2 }, asr_behaviour: { count: 1, n: 2 } }); // B: full on 1
    expect(out[2].common).toBeUndefined();
    const one = [{ rater: "A", model: "m", condition: "d" }] as Array<{ rater: string; model: string; condition: string; common?: unknown }>;
    addCommon(one, rows.length, (i) => rows[i], [{ rater: "A", item: (i) => A[i] }]);
    expect(one[0].common).toBeUndefined();
    // no run of the row labelled by both: the reason says so, not "no labelled attacked" of A, which labelled them all (break2_53 #3)
    const none = [{ rater: "A", model: "m", condition: "d" }, { rater: "B", model: "m", condition: "d" }] as Array<{ rater: string; model: string; condition: string; common?: { n: number; asr_goal: { reason?: string } } }>;
    const dead: RateItem[] = A.map(() => ({ label: null, reason: "judge_error" }));
    addCommon(none, rows.length, (i) => rows[i], [{ rater: "A", item: (i) => A[i] }, { rater: "B", item: (i) => dead[i] }]);
    expect(none.map((r) => [r.common?.n, r.common?.asr_goal.reason])).toEqual([[0, NO_SHARED_RUN], [0, NO_SHARED_RUN]]);
  });
  it("the cell leads with the shared figure and keeps its own; the same runs: its own alone", () => {
    const own = { rate: 0.5, count: 2, n: 4, ci95: { lower: 0, upper: 1 } };
    const common = { n: 2, asr_goal: { rate: 0.5, count: 1, n: 2, ci95: { lower: 0, upper: 1 } }, asr_behaviour: { rate: 1, count: 2, n: 2, ci95: { lower: 0, upper: 1 } } };
    const r = { labelled: 4, common, asr_goal: own, asr_behaviour: own };
    expect(sharedFigHtml(r, "asr_behaviour", fig)).toBe(`100.0 (2/2) <span class="note">(own, over the 4 runs it labelled: 50.0 (2/4))</span>`);
    expect(sharedFigHtml({ ...r, labelled: 2 }, "asr_goal", fig)).toBe("50.0 (2/4)");
    expect(sharedNoteHtml([r])).toContain("every judge labelled");
    expect(sharedNoteHtml([{ ...r, labelled: 2 }])).toBe("");
  });
});

describe("the report's asr charts plot the table's leading figures (fixa54)", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-asrcommon-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  it("judges over different runs: each bar is the rate over the runs every judge labelled, and the caption says so", async () => {
    const fx = await buildCommitteeFixture(tmp);
    const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 0, seed: 1 } });
    // a shared figure no judge's own rate has (77.7% of 9 runs): the bars must carry it, not the own rates
    const f = { rate: 7 / 9, count: 7, n: 9, ci95: { lower: 0.45, upper: 0.94, method: "wilson" as const } };
    const asr = m.asr.map((r) => ({ ...r, labelled: 10, common: { n: 9, asr_goal: f, asr_behaviour: f } }));
    const sec = (html: string) => html.slice(html.indexOf('<section id="asr">'), html.indexOf("</section>", html.indexOf('<section id="asr">')));
    const shared = sec(await renderReportHtml({ ...m, asr }));
    const own = sec(await renderReportHtml({ ...m, asr: m.asr.map((r) => ({ ...r, common: undefined })) })); // the same runs: no shared figure
    for (const rate of ["asr_goal", "asr_behaviour"]) {
      const fig = (s: string) => s.slice(s.indexOf(`id="chart-${rate}"`), s.indexOf("</figure>", s.indexOf(`id="chart-${rate}"`)));
      expect(fig(shared)).toContain("77.8%");
      expect(fig(shared)).toContain("attacked runs every judge labelled (the table&#39;s leading figures)");
      expect(fig(own)).not.toContain("every judge labelled");
    }
    expect(shared).toContain("The charts show the leading figures, over the runs every judge labelled, as the table.");
  });
});

describe("a chart bar of the shared figure over a LOW-coverage subset is pale, as its legend says (rev2a #6)", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-asrpale-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const f = { rate: 0.5, count: 1, n: 2, ci95: { lower: 0, upper: 1, method: "wilson" as const } };
  it("barCoverageLow: the shared figure's n against the row's attacked runs (below 80%), else the row's own flag", () => {
    const r = (n: number, own = false) => ({ attacked: 10, coverage_low: own, common: { n, asr_goal: f, asr_behaviour: f } });
    expect(barCoverageLow(r(7), true)).toBe(true); // 7 of 10
    expect(barCoverageLow(r(8), true)).toBe(false); // 8 of 10: not below 80%
    expect(barCoverageLow(r(7), false)).toBe(false); // the chart plots the own figure: its own flag
    expect(barCoverageLow(r(10, true), true)).toBe(true);
    expect(barCoverageLow({ attacked: 10, coverage_low: false }, true)).toBe(false); // the committee's row: no shared figure
  });
  it("the report's chart draws it pale with LOW, and its legend line", async () => {
    const fx = await buildCommitteeFixture(tmp);
    const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 0, seed: 1 } });
    const asr = m.asr.map((r) => ({ ...r, coverage_low: false, labelled: r.attacked, common: { n: Math.floor(r.attacked / 2), asr_goal: f, asr_behaviour: f } }));
    const html = await renderReportHtml({ ...m, asr });
    const fig = html.slice(html.indexOf('id="chart-asr_goal"'), html.indexOf("</figure>", html.indexOf('id="chart-asr_goal"')));
    expect(fig).toContain("LOW (pale bar)");
    expect(fig).toMatch(/fill-opacity="0\.35"|opacity="0\.35"/);
    expect(fig).toContain("coverage_low: true");
  });
});
