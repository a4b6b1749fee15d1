import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildReportModelObjects } from "../../src/report/data.js";
import { buildReportModelColumns } from "../../src/report/model-columns.js";
import { renderReportHtml } from "../../src/report/html.js";
import { formatTable } from "../../src/estimate/table.js";
import { RUNS, writeRun } from "../estimate/unlike-run.js";
import { runCli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-report-marks-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const now = new Date("2026-12-06T00:00:00Z");

/** The paper table's section, its tags and bidi isolation removed but cell borders kept as `|`. */
function tableText(html: string): string {
  const s = html.slice(html.indexOf('<section id="paper-table">'), html.indexOf("</section>", html.indexOf('<section id="paper-table">')));
  return s.replace(/<\/t[dh]>/g, "|").replace(/<[^>]+>/g, "").replace(/&#39;/g, "'").replace(/&quot;/g, '"');
}

// new user 47 finding 1 in small (test/estimate/unlike-run.ts): M's no_defense row over 8 runs of 2 attacks (25%)
// beside its D row over 3 runs of one (33.3%); G ran no_defense alone
describe("report: the paper table gives each row's n and what it is over, like for like by default, and marks the unlike rows, as estimate --table does (newuser47 #1, session 51)", () => {
  const runDir = writeRun(tmp, "marks", RUNS);
  for (const via of ["objects", "columns"] as const) {
    it(`${via}: like for like by default: M's rows over the 3 cells both its conditions ran, each n cell saying what it is over`, async () => {
      const o = { runDir, run: "marks", bootstrap: { B: 0, seed: 1 }, now, maxItems: 0 };
      const m = via === "objects" ? await buildReportModelObjects(o) : (await buildReportModelColumns(o))!;
      const t = m.paper_table!;
      expect(t.population.kind).toBe("like_for_like");
      // [a]: under no_defense, G's 8 cells beside M's 3 (the models still differ); M's own conditions are alike now
      expect(t.rows.map((r) => [r.agent_model, r.condition, r.n_attacked, r.over, r.mix_marks])).toEqual([
        ["G", "no_defense", 8, "all runs", ["a"]],
        ["M", "D", 3, "all runs", []],
        ["M", "no_defense", 3, "3 shared cells (5 runs on 5 cells left out)", ["a"]],
      ]);
      const text = tableText(await renderReportHtml(m));
      expect(text).toMatch(/\|M\|D\|3all runs\|33\.3%/);
      expect(text).toMatch(/\|M\|no_defense \[a\]\|33 shared cells \(5 runs on 5 cells left out\)\|66\.7%/);
      expect(text).toContain(formatTable(t).split("\n")[0]); // the population line, estimate's own words
      expect(text).toContain("--own-mix is an option of report and of the estimate command");
    });

    it(`${via} --own-mix: an n column beside the names, [a] on M's two conditions, the footnote and population line estimate prints`, async () => {
      const o = { runDir, run: "marks", bootstrap: { B: 0, seed: 1 }, now, maxItems: 0, ownMix: true };
      const m = via === "objects" ? await buildReportModelObjects(o) : (await buildReportModelColumns(o))!;
      const t = m.paper_table!;
      expect(t.rows.map((r) => [r.agent_model, r.condition, r.n_attacked, r.mix_marks])).toEqual([
        ["G", "no_defense", 8, []],
        ["M", "D", 3, ["a"]],
        ["M", "no_defense", 8, ["a"]],
      ]);
      const text = tableText(await renderReportHtml(m));
      // the head: n right after the names (as estimate's text), no second count column at the far end
      expect(text).toMatch(/agent model\|condition\|n\|gpt: asr_goal\|/);
      expect(text).not.toMatch(/\|attacked\|/);
      expect(text).toMatch(/\|G\|no_defense\|8all runs\|0\.0%/);
      expect(text).toMatch(/\|M\|D \[a\]\|3all runs\|33\.3%/);
      expect(text).toMatch(/\|M\|no_defense \[a\]\|8all runs\|25\.0%/);
      // the footnote and the population line: estimate's own words (one rule, src/estimate/table-marks.ts)
      const est = formatTable(t).split("\n");
      expect(text).toContain(`[a] ${t.mix_footnotes[0].text}`);
      expect(est).toContain(`[a] ${t.mix_footnotes[0].text}`);
      expect(text).toContain(est[0]);
      expect(t.mix_footnotes[0].text).toMatch(/^"M": its conditions ran different attacks \("D" n 3 over 1 attack \(A\); "no_defense" n 8 over 2 attacks \(A 4, B 4\)\)/);
    });
  }

  it("the mark links to its footnote", async () => {
    const html = await renderReportHtml(await buildReportModelObjects({ runDir, run: "marks", bootstrap: { B: 0, seed: 1 }, now, maxItems: 0, ownMix: true }));
    expect(html).toContain('<a href="#paper-table-mix-a">');
    expect(html).toContain('<li id="paper-table-mix-a">');
  });

  it("report --json gives each row's n, what it is over and marks, the footnotes and the population; --own-mix; the text names the footnote", async () => {
    const out = path.join(tmp, "marks.html");
    const [json, own, text] = await Promise.all([
      runCli(["report", "--run", "marks", "--labels-dir", tmp, "--bootstrap", "0", "--out", out, "--json"]),
      runCli(["report", "--run", "marks", "--labels-dir", tmp, "--bootstrap", "0", "--out", path.join(tmp, "marks3.html"), "--json", "--own-mix"]),
      runCli(["report", "--run", "marks", "--labels-dir", tmp, "--bootstrap", "0", "--out", path.join(tmp, "marks2.html"), "--own-mix"]),
    ]);
    expect(json.code).toBe(0);
    const l = JSON.parse(json.stdout).paper_table;
    expect(l.population.kind).toBe("like_for_like");
    expect(l.rows).toEqual([
      { agent_model: "G", condition: "no_defense", n_attacked: 8, n_attacked_left_out: 0, cells_left_out: 0, over: "all runs", mix_marks: ["a"] },
      { agent_model: "M", condition: "D", n_attacked: 3, n_attacked_left_out: 0, cells_left_out: 0, over: "all runs", mix_marks: [] },
      { agent_model: "M", condition: "no_defense", n_attacked: 3, n_attacked_left_out: 5, cells_left_out: 5, over: "3 shared cells (5 runs on 5 cells left out)", mix_marks: ["a"] },
    ]);
    expect(own.code).toBe(0);
    const t = JSON.parse(own.stdout).paper_table;
    expect(t.population).toEqual({ kind: "own_mix" });
    expect(t.rows).toEqual([
      { agent_model: "G", condition: "no_defense", n_attacked: 8, n_attacked_left_out: 0, cells_left_out: 0, over: "all runs", mix_marks: [] },
      { agent_model: "M", condition: "D", n_attacked: 3, n_attacked_left_out: 0, cells_left_out: 0, over: "all runs", mix_marks: ["a"] },
      { agent_model: "M", condition: "no_defense", n_attacked: 8, n_attacked_left_out: 0, cells_left_out: 0, over: "all runs", mix_marks: ["a"] },
    ]);
    expect(t.mix_footnotes.map((f: { mark: string }) => f.mark)).toEqual(["a"]);
    expect(text.stdout).toContain(`paper table [a] ${t.mix_footnotes[0].text}\n`);
  });
});
