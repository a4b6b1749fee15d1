/**
 * New user 45 #7 and #5: the report's calibrated table has an `(all)` row, the pooled calibrated estimate exactly as
 * `estimate` prints its `(all)` group (same numbers, interval and notes), on the object path and the column path
 * alike, in the HTML, the --json summary and the command's text; and the page opens with a summary (the headline
 * rates, the caveats that change how to read them) with every warning under one counted, collapsed list.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReportModelObjects, type ReportModel } from "../../src/report/data.js";
import { buildReportModelColumns } from "../../src/report/model-columns.js";
import { renderReportHtml } from "../../src/report/html.js";
import { estimateRun, formatEstimate } from "../../src/estimate/index.js";
import { designAsrText } from "../../src/estimate/format.js";
import { calibratedAllLine } from "../../src/report/calibrated-all-html.js";
import { calibratedAllNotes } from "../../src/report/calibrated-all.js";
import { groupedWarnings, mergeRateTwins } from "../../src/report/warning-groups.js";
import { warningKindOf } from "../../src/report/warning-kinds.js";
import { LABELS, SeededRun } from "../helpers/seeded-run.js";
import { runCli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-calall-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));


/**
 * A seeded run of `n` trajectories (two agent models, two conditions when `conditions`), one judge `j1` with some
 * errors, and a human file (no design fields: an assumed simple random sample) over about a third of them.
 */
function writeRun(dir: string, seed: number, n: number, conditions: boolean): string {
  const run = new SeededRun(dir, seed);
  const r = run.r;
  for (let i = 0; i < n; i++) {
    const attacked = r.int(0, 5) !== 0;
    const model = r.pick(["gpt-4o", "claude-3"]);
    run.row(i, { model, attacked, conditions });
    const ok = r.int(0, 9) !== 0;
    // humans mostly agree with the judge, sometimes not
    run.judged(i, model, attacked, ok ? LABELS[r.int(0, 5)] : null);
  }
  return run.write(path.join(tmp, `${path.basename(dir)}-human.jsonl`));
}

const plain = (x: unknown) => JSON.parse(JSON.stringify(x));
const now = new Date("2026-01-01T00:00:00Z");

describe("the report's (all) row: the pooled calibrated estimate as estimate prints it", () => {
  const cases = [
    { name: "conditions", conditions: true },
    { name: "no-conditions", conditions: false },
  ];
  const human: Record<string, string> = {};
  beforeAll(() => {
    for (const c of cases) human[c.name] = writeRun(path.join(tmp, c.name), c.name.length, 240, c.conditions);
  });

  for (const c of cases) {
    it(`${c.name}: objects and columns agree, and both are estimate's (all) group of each rate`, async () => {
      const runDir = path.join(tmp, c.name);
      const o = { runDir, run: c.name, humanFile: human[c.name], bootstrap: { B: 0, seed: 1 }, now, maxItems: 0 };
      const cols = (await buildReportModelColumns(o))!;
      const objs = await buildReportModelObjects(o);
      expect(cols).not.toBeNull();
      const all = plain(cols.paper_table!.calibrated_all);
      expect(all).toBeDefined();
      expect(all).toEqual(plain(objs.paper_table!.calibrated_all));
      // estimate with no --by: its (all) group of each rate, the same numbers, interval and notes
      const est = await estimateRun({ runDir, run: c.name, humanFile: human[c.name], source: { kind: "judge", judge_id: "j1" } });
      const goal = est.asr_goal!;
      expect("groups" in goal).toBe(true);
      expect(all.asr_behaviour.group).toEqual(plain(est.groups.find((g) => g.group === "(all)")));
      if ("groups" in goal) expect(all.asr_goal.group).toEqual(plain(goal.groups.find((g) => g.group === "(all)")));
      expect(all.n_population).toBe(est.groups[0].n_population);
      expect(all.agent_models).toEqual(["claude-3", "gpt-4o"]);
      expect(all.conditions).toEqual(c.conditions ? ["no_defense", "spotlight"] : []);
      // the figures read as estimate's text prints them, in the command's line and on the page
      const text = formatEstimate(est);
      const line = calibratedAllLine(cols.paper_table!.calibrated_all!);
      for (const g of [est.groups[0], "groups" in goal ? goal.groups[0] : est.groups[0]]) {
        expect(text).toContain(`calibrated ${designAsrText(g.calibrated)}`);
        expect(line).toContain(designAsrText(g.calibrated));
        expect(line).toContain(designAsrText(g.human));
      }
      const html = await renderReportHtml(cols);
      const row = html.slice(html.indexOf('<tfoot><tr class="all" id="paper-table-all">'), html.indexOf("</tfoot>"));
      expect(row).toContain("<strong>(all)</strong>");
      // the row has as many cells as the table's head
      const table = html.slice(html.indexOf('<section id="paper-table"'));
      const head = table.slice(0, table.indexOf("</thead>"));
      expect(row.match(/<td[ >]/g)!.length).toBe(head.match(/<th[ >]/g)!.length);
      const v = cols.paper_table!.calibrated_all!.asr_behaviour.cell.value!;
      expect(row).toContain(`${(100 * v).toFixed(1)}%`);
      // every note of the (all) group, one said alike for both rates once
      const notes = calibratedAllNotes(cols.paper_table!.calibrated_all!);
      for (const w of [...all.asr_behaviour.group.warnings, ...all.asr_goal.group.warnings]) expect(notes.some((n) => n.endsWith(w))).toBe(true);
      const escaped = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
      for (const n of notes) expect(html).toContain(escaped(n));
    });
  }

  it("no human labels: no (all) row, and the summary's headline is the table judge's rates over the attacked trajectories", async () => {
    const runDir = path.join(tmp, "conditions");
    const m = await buildReportModelObjects({ runDir, run: "conditions", bootstrap: { B: 0, seed: 1 }, now, maxItems: 0 });
    expect(m.paper_table!.calibrated_all).toBeUndefined();
    const html = await renderReportHtml(m);
    expect(html).not.toContain("paper-table-all");
    const summary = html.slice(html.indexOf('<section id="summary"'), html.indexOf('<section id="overview"')).replace(/<[^>]+>/g, "");
    // the rates are over the labelled ones, named when fewer than all (newuser51 finding 3)
    const j1 = m.per_judge.find((j) => j.judge_id === "j1")!.rates;
    expect(j1.labelled).toBeLessThan(j1.attacked);
    expect(summary).toContain(`Attack success over the ${j1.labelled} labelled of all ${m.attacked} attacked trajectories (pooled over 4 agent model x condition rows of the table: 2 agent models x 2 conditions (defenses)), labels of j1`); // what it pools, in the headline (newuser55 #4)
    expect(summary).toContain("report --human FILE adds");
    // the caveats that change how to read it, named briefly, counted over every warning that says so
    const g = groupedWarnings(m.warnings);
    const mix = g.reading.filter((w) => warningKindOf(w).kind === "not_like_for_like").length; // compare's "different task sets" too (break 51 #1)
    expect(mix).toBeGreaterThan(1);
    expect(summary).toContain(`Not like for like (${mix} warnings)`);
  });

  it("the command: the (all) row in --json and as a line of its text", async () => {
    const labels = tmp;
    const out = path.join(tmp, "r.html");
    const args = ["report", "--run", "conditions", "--labels-dir", labels, "--human", human.conditions, "--out", out, "--bootstrap", "0", "--max-items", "0"];
    const json = await runCli([...args, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const all = JSON.parse(json.stdout).paper_table.calibrated_all;
    const est = await estimateRun({ runDir: path.join(tmp, "conditions"), run: "conditions", humanFile: human.conditions });
    expect(all.asr_behaviour.group).toEqual(plain(est.groups[0]));
    const text = await runCli(args);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[1]).toMatch(/^calibrated \(all\) over \d+ attacked trajectories \(2 agent models \(claude-3, gpt-4o\), pooled over 2 conditions \(no_defense, spotlight\); \d+ human-labelled\): asr_goal /);
    expect(lines[1]).toContain(`asr_behaviour ${designAsrText(est.groups[0].calibrated)}`);
  }, 60_000);
});

describe("the summary first, every warning under one counted list", () => {
  it("merges a note said alike for asr_goal and asr_behaviour, keeps every other, in order", () => {
    const ws = [
      "agent models ran different attacks (a: x; b: y), so their per-model rates are not like for like",
      "estimate asr_behaviour, (all): 3 of 9 trajectories have no usable verdict",
      "estimate asr_behaviour, (all): the calibrated interval is an exact bound A",
      "estimate asr_goal, (all): 3 of 9 trajectories have no usable verdict",
      "estimate asr_goal, (all): the calibrated interval is an exact bound B",
      "estimate asr_goal, m / c: coverage_low: the judge labelled 70.0% of the group",
    ];
    expect(mergeRateTwins(ws)).toEqual([
      ws[0],
      "estimate asr_goal and asr_behaviour, (all): 3 of 9 trajectories have no usable verdict",
      ws[2],
      ws[4],
      ws[5],
    ]);
    const g = groupedWarnings(ws);
    expect(g.reading).toEqual([ws[0], ws[5]]);
    expect(g.notes.length).toBe(3);
  });

  it("the page: summary before the Judges section, the headline with its interval, the warnings in a <details> with their counts", async () => {
    const runDir = path.join(tmp, "conditions");
    const m: ReportModel = await buildReportModelObjects({ runDir, run: "conditions", humanFile: path.join(tmp, "conditions-human.jsonl"), bootstrap: { B: 0, seed: 1 }, now, maxItems: 0 });
    const twice = "/tmp/r: same_content: 3 trajectories are counted more than once in every figure of this run";
    const extra = ["estimate asr_behaviour, (all): 3 of 9 trajectories have no usable verdict", "estimate asr_goal, (all): 3 of 9 trajectories have no usable verdict", twice];
    const html = await renderReportHtml({ ...m, warnings: [...m.warnings, ...extra] });
    const [s, o] = [html.indexOf('<section id="summary"'), html.indexOf('<section id="overview"')];
    expect(s).toBeGreaterThan(0);
    expect(s).toBeLessThan(o);
    const summary = html.slice(s, o);
    const words = summary.replace(/<[^>]+>/g, "");
    const a = m.paper_table!.calibrated_all!;
    const ci = a.asr_goal && "cell" in a.asr_goal ? a.asr_goal.cell.ci95 : null;
    expect(words).toContain(`asr_goal ${(100 * ("cell" in a.asr_goal ? a.asr_goal.cell.value! : 0)).toFixed(1)}%`);
    if (ci) expect(words).toContain(`${(100 * ci.lower).toFixed(1)}%`);
    // the Judges section has no warning box left: all are in the summary's list
    const overview = html.slice(o, html.indexOf("</section>", o));
    expect(overview).not.toContain('<div class="warn">');
    const details = summary.slice(summary.indexOf('<details id="warnings"'), summary.indexOf("</details>"));
    const boxes = details.match(/<div class="warn">/g)!.length;
    const g = groupedWarnings([...m.warnings, ...extra]);
    expect(boxes).toBe(g.reading.length + g.notes.length);
    expect(details).toMatch(new RegExp(`<summary>All warnings of this report: ${boxes} \\(${g.reading.length} that change how a figure reads, ${g.notes.length} notes; \\d+ said alike for asr_goal and asr_behaviour given once\\)</summary>`));
    expect(details).toContain("estimate asr_goal and asr_behaviour, (all): 3 of 9 trajectories have no usable verdict");
    // a warning that figures count something twice is in the first group and named by "Read with:" (break 51 #1)
    expect(details.indexOf(twice)).toBeLessThan(details.indexOf("<h3>Notes"));
    expect(words.slice(words.indexOf("Read with:"), words.indexOf("All warnings"))).toContain("Counted twice (1 warning)");
    // a run that is not complete: the headline says the trajectories it holds, not "all" (break 51 #2)
    const partial = await renderReportHtml({ ...m, run_state: { ...m.run_state, status: "partial", complete: false, message: "partial run: x" } });
    expect(partial).toMatch(/Attack success over the [\d,]+ attacked trajectories this incomplete run holds \(not all of its inputs/);
    const unknown = await renderReportHtml({ ...m, run_state: { ...m.run_state, status: "history_unknown", complete: null, message: "pass history unknown (labelled by an older build) of x" } });
    expect(unknown).toMatch(/Attack success over the [\d,]+ attacked trajectories this run holds \(whether these are all of its inputs is not known/);
    expect(words).toMatch(/Attack success over all [\d,]+ attacked trajectories/);
    // each warning is on the page: as is, or merged with its twin
    for (const w of m.warnings) {
      const rest = w.replace(/^estimate asr_(goal|behaviour), /, "");
      expect(details.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")).toContain(rest);
    }
  });
});
