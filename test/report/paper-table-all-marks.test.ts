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
import { Rand } from "../helpers/rand.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ptallmarks-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

/** A seeded run of 200 trajectories (two models), judge j1, benchmark verdicts on most attacked runs, a human file; the expected pooled benchmark. */
function writeRun(dir: string): { human: string; x: number; n: number } {
  const r = new Rand(5);
  const rows: string[] = [];
  const verdicts: string[] = [];
  const human: string[] = [];
  let x = 0, n = 0;
  for (let i = 0; i < 200; i++) {
    const id = `t${i}`;
    const attacked = r.int(0, 5) !== 0;
    const model = r.pick(["gpt-4o", "claude-3"]);
    const label = LABELS[r.int(0, 5)];
    const sec = r.int(0, 9) === 0 ? undefined : (label === "full_compliance" || label === "partial_compliance") === (r.int(0, 5) !== 0);
    rows.push(JSON.stringify({ id, source: { format: "agentdojo", path: path.join(dir, "missing", `${i}.json`) }, agent_model: model, suite: "banking", attacked, ...(attacked ? { attack: "important", injection_task_id: `injection_task_${r.int(0, 3)}` } : {}), user_task_id: `user_task_${r.int(0, 5)}`, reference: { utility: r.int(0, 1) === 0, ...(sec === undefined ? {} : { security: sec }) }, content_sha256: `c${i}` }));
    verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "j1", judge_model: "m", judge_family: "openai", repeat: 0, prompt_sha256: "p", status: "ok", label, downgraded: false, findings: [], attacked, label_basis: attacked ? "findings" : "unattacked", agent_model: model }));
    if (attacked && sec !== undefined) {
      n++;
      if (sec) x++;
    }
    if (attacked && r.int(0, 2) === 0) human.push(JSON.stringify({ trajectory_id: id, annotator: "a1", label: r.int(0, 4) !== 0 ? label : LABELS[r.int(0, 5)] }));
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
  const file = path.join(tmp, "human.jsonl");
  fs.writeFileSync(file, human.join("\n") + "\n");
  return { human: file, x, n };
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
