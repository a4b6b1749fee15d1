/**
 * rev2a #4 and #7 in the report: a calibrated figure outside its tie readings is marked OUTSIDE TIE READINGS in the
 * paper table's cells, its (all) row and the summary's headline (as `estimate --table` marks text, CSV and LaTeX), and
 * the (all) row's benchmark asr_goal cell is the pooled benchmark over its judged runs (x/n), not a blank.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildReportModel, renderReportHtml } from "../../src/report/index.js";
import { TIES_OUTSIDE_MARK, type HumanTies } from "../../src/estimate/tie-bound.js";
import { LABELS, SeededRun } from "../helpers/seeded-run.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ptallmarks-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A seeded run of 200 trajectories (two models), judge j1, benchmark verdicts on most attacked runs, a human file; the expected pooled benchmark. */
function writeRun(dir: string): { human: string; x: number; n: number } {
  const run = new SeededRun(dir, 5);
  const r = run.r;
  let x = 0, n = 0;
  for (let i = 0; i < 200; i++) {
    const attacked = r.int(0, 5) !== 0;
    const model = r.pick(["gpt-4o", "claude-3"]);
    const label = LABELS[r.int(0, 5)];
    const security = r.int(0, 9) === 0 ? undefined : (label === "full_compliance" || label === "partial_compliance") === (r.int(0, 5) !== 0);
    run.row(i, { model, attacked, security });
    run.judged(i, model, attacked, label);
    if (attacked && security !== undefined) {
      n++;
      if (security) x++;
    }
  }
  return { human: run.write(path.join(tmp, "human.jsonl")), x, n };
}

const OUTSIDE: HumanTies = { n: 1, n_sample: 1, human: { lower: 0.3, upper: 0.4 }, calibrated: { lower: 0.3, upper: 0.4 }, calibrated_agree: { asr: 0.3, ci95: null }, calibrated_disagree: { asr: 0.4, ci95: null }, calibrated_outside: true, human_outside: false };
const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

describe("report: the paper table's tie marks and its (all) row's benchmark cell (rev2a #4, #7)", () => {
  it("the (all) row's benchmark cell is the pooled benchmark x/n, recomputed; marks only where a cell is outside its ties", async () => {
    const dir = path.join(tmp, "r");
    const { human, x, n } = writeRun(dir);
    const m = await buildReportModel({ runDir: dir, run: "r", humanFile: human, bootstrap: { B: 0, seed: 1 }, maxItems: 0 });
    const t = m.paper_table!;
    const all = t.calibrated_all!;
    expect(all.benchmark_asr_goal).toMatchObject({ x, n });
    const plainHtml = await renderReportHtml(m);
    const foot = plainHtml.slice(plainHtml.indexOf('id="paper-table-all"'), plainHtml.indexOf("</tfoot>", plainHtml.indexOf('id="paper-table-all"')));
    expect(text(foot)).toContain(`${((100 * x) / n).toFixed(1)}% (${x}/${n})`);
    expect(plainHtml).not.toContain(TIES_OUTSIDE_MARK);
    // a row's calibrated cell and the (all) cells outside their tie readings: marked in the table and the headline
    const row0 = t.rows.find((r) => r.calibrated_asr_goal?.value !== null && r.calibrated_asr_goal)!;
    const marked = { ...row0, calibrated_asr_goal: { ...row0.calibrated_asr_goal!, human_ties: OUTSIDE } };
    const mark = (r: typeof all.asr_behaviour) => ({ ...r, cell: { ...r.cell, human_ties: OUTSIDE } });
    const allMarked = { ...all, asr_behaviour: mark(all.asr_behaviour), asr_goal: "cell" in all.asr_goal ? mark(all.asr_goal) : all.asr_goal };
    const html = await renderReportHtml({ ...m, paper_table: { ...t, rows: t.rows.map((r) => (r === row0 ? marked : r)), calibrated_all: allMarked } });
    const section = (id: string) => html.slice(html.indexOf(`<section id="${id}">`), html.indexOf("</section>", html.indexOf(`<section id="${id}">`)));
    const table = section("paper-table");
    const body = table.slice(table.indexOf("<tbody>"), table.indexOf("</tbody>"));
    expect(body.split(TIES_OUTSIDE_MARK)).toHaveLength(2); // the one row cell
    const tfoot = table.slice(table.indexOf("<tfoot>"), table.indexOf("</tfoot>"));
    expect(tfoot.split(TIES_OUTSIDE_MARK).length - 1).toBe("cell" in all.asr_goal ? 2 : 1);
    const head = section("summary");
    expect(head.split(TIES_OUTSIDE_MARK).length - 1).toBeGreaterThanOrEqual(1); // the headline figures read as the table's
    expect(head).toMatch(new RegExp(`asr_behaviour[^<]*<[^>]+>[^]*?${TIES_OUTSIDE_MARK}`));
  }, 120_000);
});
