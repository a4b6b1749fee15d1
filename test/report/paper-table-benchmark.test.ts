/**
 * fixa54 (newuser53 #4): the report's paper table carries the benchmark's asr_goal beside the judge's, as
 * `estimate --table` does (src/estimate/table-benchmark.ts), and the (all) row keeps its cells aligned.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildReportModel, renderReportHtml } from "../../src/report/index.js";
import { proportion } from "../../src/estimate/table.js";
import { buildCommitteeFixture } from "./fixture.js";

describe("report paper table: the benchmark column", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ptbench-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  it("a column after the judge's asr_goal with each row's benchmark figure, none without a benchmark verdict", async () => {
    const fx = await buildCommitteeFixture(tmp);
    const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 0, seed: 1 }, source: { kind: "judge", judge_id: "signature" } });
    const t = m.paper_table!;
    expect(t).toBeTruthy();
    const sec = (html: string) => html.slice(html.indexOf('<section id="paper-table">'), html.indexOf("</section>", html.indexOf('<section id="paper-table">')));
    // a planted benchmark verdict on every row: 3 of 7 = 42.9%
    const goal = (r: (typeof t.rows)[number]) => ({ ...r.judge_asr_goal, reference_security: { labelled: { count: 3, n: 7 } } as never });
    const cell = { ...proportion(3, 7), n_unusable: 0, coverage: 1, coverage_low: false };
    const withB = { ...t, rows: t.rows.map((r) => ({ ...r, judge_asr_goal: goal(r), benchmark_asr_goal: cell })) };
    const html = sec(await renderReportHtml({ ...m, paper_table: withB }));
    expect(html).toContain("asr_goal</th><th title=\"the benchmark's own attack verdict (injected goal achieved) over the same runs, denial-of-service runs left out (their security is the user task failed)\">benchmark asr_goal</th><th>asr_behaviour</th>");
    expect(html).toContain("42.9");
    // every body row has as many cells as the header
    const head = (html.match(/<thead><tr>(.*?)<\/tr><\/thead>/s)![1].match(/<th/g) ?? []).length;
    for (const row of html.slice(html.indexOf("<tbody>"), html.indexOf("</tbody>")).match(/<tr>.*?<\/tr>/gs)!) expect((row.match(/<td/g) ?? []).length).toBe(head);
    const none = { ...t, rows: t.rows.map((r) => ({ ...r, judge_asr_goal: { ...r.judge_asr_goal, reference_security: null } })) };
    expect(sec(await renderReportHtml({ ...m, paper_table: none }))).not.toContain("benchmark asr_goal</th>");
  });
});
