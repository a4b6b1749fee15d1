import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildReportModelObjects } from "../../src/report/data.js";
import { buildReportModelColumns } from "../../src/report/model-columns.js";
import { renderReportHtml } from "../../src/report/html.js";
import { formatTable } from "../../src/estimate/table.js";
import { tableLatex } from "../../src/estimate/table-latex.js";
import { RUN_ERROR_LEGEND } from "../../src/estimate/table-row-counts.js";
import { RUNS, writeRun } from "../estimate/unlike-run.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-report-counts-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const now = new Date("2026-12-06T00:00:00Z");

/** The paper table's rows (head first) as cells, tags removed. */
function tableRows(html: string): string[][] {
  const at = html.indexOf("<table>", html.indexOf('<section id="paper-table">'));
  const s = html.slice(at, html.indexOf("</table>", at));
  return s
    .split("</tr>")
    .filter((r) => r.includes("<t"))
    .map((r) => r.split(/<\/t[dh]>/).slice(0, -1).map((c) => c.replace(/<br><span class="over">.*?<\/span>/, "").replace(/<[^>]+>/g, "").replace(/&#39;/g, "'"))); // n without its population line (lfl51)
}

/** writeRun's run, with M's D runs (one attacked, its unattacked one) ended in an agent error. */
function errorRun(name: string): string {
  const dir = writeRun(tmp, name, RUNS);
  const file = path.join(dir, "trajectories.jsonl");
  const rows = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const d = rows.filter((r) => r.agent_model === "M" && r.condition === "D");
  for (const r of [d.find((x) => x.attacked), d.find((x) => !x.attacked)]) r.run_error = "server error";
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return dir;
}

// session 51: the text, CSV and JSON gave `utility n` and the rows' run errors; the HTML and the LaTeX did not
describe("the paper table's utility n and run errors in the HTML report and the LaTeX, as estimate --table's text (out51 #1)", () => {
  const runDir = errorRun("errors");
  for (const via of ["objects", "columns"] as const) {
    it(`${via}: a utility n column after utility, an error column after n with the text's legend, the (all)-free rows aligned`, async () => {
      const o = { runDir, run: "errors", bootstrap: { B: 0, seed: 1 }, now, maxItems: 0, ownMix: true }; // the rows over their own runs, M's D row marked (lfl51 made like for like the default)
      const m = via === "objects" ? await buildReportModelObjects(o) : (await buildReportModelColumns(o))!;
      const t = m.paper_table!;
      expect(t.rows.map((r) => [r.agent_model, r.condition, r.run_errors, r.utility.n])).toEqual([
        ["G", "no_defense", { attacked: 0, unattacked: 0 }, 1],
        ["M", "D", { attacked: 1, unattacked: 1 }, 1],
        ["M", "no_defense", { attacked: 0, unattacked: 0 }, 1],
      ]);
      const html = await renderReportHtml(m);
      const [head, ...body] = tableRows(html);
      expect(head.slice(0, 4)).toEqual(["agent model", "condition", "n", "ended in an error (attacked / unattacked)"]);
      expect(head.slice(head.indexOf("utility"), head.indexOf("utility") + 3)).toEqual(["utility", "utility n", "utility under attack"]);
      for (const b of body) expect(b).toHaveLength(head.length);
      expect(body.map((b) => [b[0], b[2], b[3], b[head.indexOf("utility n")]])).toEqual([
        ["G", "8", "0 / 0", "1"],
        ["M", "3", "1 / 1", "1"],
        ["M", "8", "0 / 0", "1"],
      ]);
      expect(html.replace(/<\/?bdi>/g, "")).toContain(`<p class="note" id="paper-table-run-errors">${RUN_ERROR_LEGEND.replace(/'/g, "&#39;")}.</p>`);
      // the same columns as the text table
      const text = formatTable(t, { width: 1000 }).split("\n").find((l) => l.startsWith("model"))!;
      expect(text).toMatch(/^model +condition +n +over +ended in an error \(attacked \/ unattacked\) .* utility % +utility n +utility under attack %/);
    });
  }

  it("no run ended in an error: no error column nor legend; utility n is there", async () => {
    const runDir2 = writeRun(tmp, "clean", RUNS);
    const m = await buildReportModelObjects({ runDir: runDir2, run: "clean", bootstrap: { B: 0, seed: 1 }, now, maxItems: 0 });
    const html = await renderReportHtml(m);
    const [head, ...body] = tableRows(html);
    expect(head.slice(0, 4)).toEqual(["agent model", "condition", "n", "gpt: asr_goal"]);
    expect(head).toContain("utility n");
    for (const b of body) expect(b).toHaveLength(head.length);
    expect(html).not.toContain("ended in an error");
  });

  it("LaTeX: Utility $n$ after Utility, Errors after $n$, each explained in a comment line; the column spec counts them", async () => {
    const m = await buildReportModelObjects({ runDir, run: "errors", bootstrap: { B: 0, seed: 1 }, now, maxItems: 0, ownMix: true });
    const tex = tableLatex(m.paper_table!).split("\n");
    const head = tex.find((l) => l.startsWith("Model & "))!;
    expect(head).toMatch(/^Model & Condition & \$n\$ & Errors \(att\.\/unatt\.\) & ASR \(goal\) & .* & Utility & Utility \$n\$ & Utility \(attack\) & Blocked \\\\$/);
    const cols = head.split(" & ").length;
    expect(tex.find((l) => l.startsWith("\\begin{tabular}"))).toBe(`\\begin{tabular}{ll${"r".repeat(cols - 2)}}`);
    const row = tex.find((l) => l.startsWith("M & D"))!;
    expect(row.split(" & ")).toHaveLength(cols);
    expect(row).toMatch(/^M & D\$\^\{\\mathrm\{a\}\}\$ & 3 & 1 \/ 1 & /);
    expect(row.split(" & ")[head.split(" & ").indexOf("Utility $n$")]).toBe("1");
    expect(tex).toContain("% Utility $n$: the unattacked runs of the user's own tasks with a benchmark utility verdict that Utility is over (not the attacked runs of $n$); n/a where the population (--where, or the human sample's) leaves out every unattacked run");
    expect(tex.some((l) => l.startsWith("% Errors (att./unatt.): the row's runs that ended in an agent error"))).toBe(true);
  });
});
