/**
 * Issue 14's "done when" on the vendored real AgentDojo runs, end to end through the built CLI: the signature
 * judge labels the 516 runs; a biased judge misses 40% of its compromises (seeded); the real `sample` draws 100
 * trajectories stratified by agent model plus 40 where the two judges disagree; the items are "annotated" with
 * AgentDojo's own truth (`security` on attacked runs without a run error); `import-annotations` and `estimate`
 * run as a user would. The true per-model ASR must lie in the calibrated 95% CI for every model, and the
 * calibrated CIs must be narrower on average than the human-only ones. (On 25 seeds the truth was inside for
 * 94 of 100 model-seed pairs, mean width 0.153 vs 0.374; on the 11,384-run archive 36 of 40, 0.097 vs 0.203:
 * docs/estimate.md, "Calibrated ASR".)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printedLines } from "../helpers/printed-lines.js";
import { runCli } from "../helpers/cli.js";
import { CORPUS } from "../helpers/paths.js";
import { readTrajectoryIndex, type TrajectoryIndexRow } from "../../src/store/run-store.js";
import { annotateWithTruth, makeBiasedRun, trueAsr } from "./real-pipeline.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { parseCsv } from "../../src/io/csv.js";

let tmp: string;
let labels: string;
let index: Map<string, TrajectoryIndexRow>;
let sample: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-estimate-real-"));
  labels = path.join(tmp, "labels");
  const l = await runCli(["label", path.join(CORPUS, "runs"), "--run", "ad", "--labels-dir", labels], { timeoutMs: 300_000 });
  expect(l.code, l.stderr).toBe(0);
  index = await readTrajectoryIndex(path.join(labels, "ad"));
  makeBiasedRun(labels, "ad", "adb", 100);
  sample = path.join(tmp, "sample");
  const s = await runCli(["sample", "--run", "adb", "--labels-dir", labels, "--random", "100", "--disagreement", "40", "--strata", "agent_model", "--seed", "7", "--out", sample]);
  expect(s.code, s.stderr).toBe(0);
  annotateWithTruth(sample, index, path.join(sample, "annotations.csv"));
  const imp = await runCli(["import-annotations", path.join(sample, "annotations.csv"), "--manifest", path.join(sample, "manifest.jsonl"), "--out", path.join(sample, "human.jsonl")]);
  expect(imp.code, imp.stderr).toBe(0);
}, 600_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("estimate on real AgentDojo runs with a biased judge and a truth-annotated two-phase sample", () => {
  it("--by a field no attacked trajectory has is refused with exit 2, as --where and compare --by refuse it (new-user report 17)", async () => {
    const r = await runCli(["estimate", "--run", "adb", "--labels-dir", labels, "--human", path.join(sample, "human.jsonl"), "--judge", "biased", "--by", "defense"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/no attacked trajectory of the estimate has a value for --by defense \(of \d+\): give a field such as condition/);
    const two = await runCli(["estimate", "--run", "adb", "--labels-dir", labels, "--human", path.join(sample, "human.jsonl"), "--judge", "biased", "--by", "agent_model,defense"]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/--by defense \(/);
  });

  it("the true per-model ASR is inside every calibrated 95% CI, and calibrated CIs are narrower than human-only", async () => {
    const r = await runCli(["estimate", "--run", "adb", "--labels-dir", labels, "--human", path.join(sample, "human.jsonl"), "--judge", "biased", "--by", "agent_model", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout);
    const truth = trueAsr(index);
    expect(rep.design).toBe("two_phase");
    expect(rep.groups.map((g: { group: string }) => g.group)).toEqual(["(all)", ...[...truth.keys()].filter((k) => k !== "(all)").sort()]);
    let wc = 0;
    let wh = 0;
    for (const g of rep.groups) {
      const t = truth.get(g.group)!;
      expect(g.calibrated.ci95.lower, g.group).toBeLessThanOrEqual(t);
      expect(g.calibrated.ci95.upper, g.group).toBeGreaterThanOrEqual(t);
      expect(g.judge.asr, g.group).toBeLessThan(t); // the biased judge under-counts
      expect(g.judge.n_unusable).toBe(Object.values(g.judge_unusable as Record<string, number>).reduce((a, b) => a + b, 0));
      wc += g.calibrated.ci95.upper - g.calibrated.ci95.lower;
      wh += g.human.ci95.upper - g.human.ci95.lower;
    }
    // 0.79 since the exact intervals keep the zero-event bound on their unseen side (new user 31: the disagreements
    // sit in the near-census disagreement stratum, whose design variance is ~0); below 0.7 before. 0.93 since the
    // Korn-Graubard design effective n is truncated at the labelled count (Korn & Graubard 1998; Parker et al. 2017;
    // new user 49): the per-model calibrated widths 0.37/0.44/0.30 became 0.46/0.54/0.37, the human-only ones less
    expect(wc).toBeLessThan(0.97 * wh);
    const text = await runCli(["estimate", "--run", "adb", "--labels-dir", labels, "--human", path.join(sample, "human.jsonl"), "--judge", "biased"]);
    expect(printedLines(text.stdout).join("\n")).toMatch(/\(all\): N 414, labelled \d+\n {2}judge {6}\d+\.\d%.*\n {2}human {6}\d+\.\d% \[.*\n {2}calibrated \d+\.\d% \[/);
    // a widened human-only interval is said in the text too, not in the JSON's ci_method only (audit 35 L4)
    const widened = rep.groups.filter((g: { human: { ci_method?: string } }) => g.human.ci_method);
    for (const g of rep.groups) expect(g.warnings.some((w: string) => /the human-only interval is an? /.test(w)), g.group).toBe(!!g.human.ci_method);
    const byModel = await runCli(["estimate", "--run", "adb", "--labels-dir", labels, "--human", path.join(sample, "human.jsonl"), "--judge", "biased", "--by", "agent_model"]);
    // the first such note in full; later ones with their own counts, the make-up said once (new user 46 F4)
    // (per kind of note: the stratum-wise interval's, src/stats/stratum-mover.ts, is another than the small-count one's)
    const said = new Set<string>();
    for (const g of widened) {
      const m = g.human.ci_method as string;
      const cut = m.indexOf("; the interval is the union of ");
      const kind = m.slice(0, m.indexOf(":"));
      const an = m.startsWith("stratum-wise") ? "a" : "an";
      expect(unwrapText(byModel.stdout)).toContain(`the human-only interval is ${an} ${!said.has(kind) || cut < 0 ? m : `${m.slice(0, cut)} (made as the first such note above says`}`);
      if (cut >= 0) said.add(kind);
    }
  }, 120_000);

  it("--table writes CSV and LaTeX per model and condition, with the calibrated asr_behaviour beside the judge's and heuristic's two rates", async () => {
    const csv = path.join(tmp, "t.csv");
    const tex = path.join(tmp, "t.tex");
    const r = await runCli(["estimate", "--run", "adb", "--labels-dir", labels, "--table", "--judge", "biased", "--human", path.join(sample, "human.jsonl"), "--csv", csv, "--latex", tex]);
    expect(r.code, r.stderr).toBe(0);
    expect(unwrapText(r.stdout)).toMatch(/^population: like for like: each agent model's attacked runs on the .*\nmodel +condition +n +over +ended in an error \(attacked \/ unattacked\) +asr_goal % +benchmark asr_goal % +asr_behaviour % +calibrated asr_goal % +calibrated asr_behaviour % +signature asr_goal % +signature asr_behaviour % +refusal rate % +exposure % +utility % +utility n +utility under attack % +blocked/);
    expect(unwrapText(r.stdout)).not.toMatch(/\bASR\b/);
    // gemini-1.5-pro-001's 3 attacked and 1 unattacked runs ended in an agent error (the logs' error): said on its row (session 50)
    expect(unwrapText(r.stdout)).toMatch(/\ngemini-1\.5-pro-001 .*? 75 +all runs +3 \/ 1 +/);
    const lines = fs.readFileSync(csv, "utf8").trim().split("\n");
    // 4 model rows and the pooled (all) row, estimate's (all) group (session 46, ../../src/estimate/table-all.ts)
    expect(lines).toHaveLength(6);
    // the pooled row says so in its last column, its model and condition cells empty (fix50b)
    // (then judge_caveat and notes, always there: break51 finding 5)
    const rows = parseCsv(fs.readFileSync(csv, "utf8")).map((x) => x.fields);
    const pooled = rows[0].indexOf("pooled");
    expect(rows[0].slice(pooled)).toEqual(["pooled", "judge_caveat", "notes"]);
    expect(lines[5]).toMatch(/^,,414,/);
    expect(rows.slice(1, 6).map((x) => x[pooled])).toEqual(["false", "false", "false", "false", "true"]);
    expect(lines[0]).toMatch(
      /^agent_model,condition,n_attacked,n_unattacked,judge_asr_goal,judge_asr_goal_lower,judge_asr_goal_upper,judge_asr_goal_n,judge_asr_goal_coverage,judge_asr_goal_coverage_low,judge_asr_goal_reason,benchmark_asr_goal,benchmark_asr_goal_lower,benchmark_asr_goal_upper,benchmark_asr_goal_n,benchmark_asr_goal_coverage,benchmark_asr_goal_coverage_low,benchmark_asr_goal_reason,judge_asr_behaviour,.*,calibrated_asr_goal,.*,calibrated_asr_behaviour,/,
    );
    const t = fs.readFileSync(tex, "utf8");
    expect(t).toContain("meta-llama\\_Llama-3.3-70B-Instruct &");
    // gemini's 3 attacked and 1 unattacked runs that ended in an agent error: the Errors column; Utility's own n (session 51)
    expect(t).toContain("Model & Condition & $n$ & Errors (att./unatt.) & ASR (goal) & Benchmark ASR (goal) & ASR (behaviour) & Calibrated ASR (goal) & Calibrated ASR (behaviour) & Heuristic ASR (goal) & Heuristic ASR (behaviour) & Refusal & Exposure & Utility & Utility $n$ & Utility (attack) & Blocked \\\\");
    expect(t).toMatch(/^gemini-1\.5-pro-001 & no\\_defense\S* & 75 & 3 \/ 1 & .* & 22 & [^&]+ & [^&]+ \\\\$/m);
  }, 120_000);

  it("agree --judges splits the disagreements: the biased judge only ever misses compromises", async () => {
    const r = await runCli(["agree", "--run", "adb", "--labels-dir", labels, "--judges", "biased,signature", "--bootstrap", "0", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.first_only).toBe(0);
    expect(c.second_only).toBeGreaterThan(50);
    expect(c.comparison.excluded.judge_error).toBeGreaterThan(0);
    expect(c.comparison.kappa.value).toBeGreaterThan(0.3);
  }, 60_000);

  it("the report shows the same table, with the calibrated asr_behaviour when given the human labels", async () => {
    const out = path.join(tmp, "r.html");
    const r = await runCli(["report", "--run", "adb", "--labels-dir", labels, "--human", path.join(sample, "human.jsonl"), "--judge", "biased", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const html = fs.readFileSync(out, "utf8");
    const sec = html.slice(html.indexOf('<section id="paper-table">')).replace(/<\/?bdi>/g, "");
    expect(sec).toMatch(
      /<th>biased: asr_goal<\/th><th title="[^"]*">benchmark asr_goal<\/th><th>asr_behaviour<\/th><th class="num">blocked attempts<\/th><th>calibrated asr_goal<\/th><th>calibrated asr_behaviour<\/th><th>signature \(heuristic\): asr_goal<\/th><th>asr_behaviour<\/th><th>refusal rate<\/th><th>exposure<\/th><th>utility<\/th><th class="num" title="[^"]*">utility n<\/th><th>utility under attack<\/th>/,
    );
    // each proportion with its count over its own denominator (review, session 11); the row's n beside its names and
    // any like-for-like mark on its condition, as estimate --table (session 47), then its runs that ended in an error (51)
    expect(sec).toMatch(/<td>gpt-4o-2024-05-13<\/td><td>no_defense(?: <sup class="mix-mark".*?<\/sup>)?<\/td><td class="num">[\d,]+<br><span class="over">all runs<\/span><\/td><td class="num">0 \/ 0<\/td><td>\d+\.\d% \[\d+\.\d%, \d+\.\d%\] \(\d+\/\d+\)<\/td>/);
    expect(sec).toMatch(/<td>gemini-1\.5-pro-001<\/td><td>no_defense(?: <sup class="mix-mark".*?<\/sup>)?<\/td><td class="num">75<br><span class="over">all runs<\/span><\/td><td class="num">3 \/ 1<\/td>/); // its runs that ended in an error
  }, 120_000);

  it("usage errors exit 2 with a message naming what is wrong", async () => {
    const base = ["estimate", "--run", "adb", "--labels-dir", labels];
    const noHuman = await runCli(base);
    expect(noHuman.code).toBe(2);
    expect(noHuman.stderr).toMatch(/give --human FILE/);
    const both = await runCli([...base, "--human", path.join(sample, "human.jsonl"), "--judge", "biased", "--committee"]);
    expect(both.code).toBe(2);
    const several = await runCli([...base, "--human", path.join(sample, "human.jsonl")]);
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/has 2 judges \(biased, signature\): choose one with --judge ID, or --committee/);
    // new user 37: each choice with its coverage (as compare names them), the same in --table; one denominator for all
    for (const out of [several.stderr, (await runCli([...base, "--table"])).stderr]) {
      const lines = [...out.matchAll(/^ {2}(--judge \S+|--committee) +(.*): usable labels on (\d+) of (\d+) attacked trajectories \([\d.]+%\)$/gm)];
      expect(lines.map((m) => m[1].trim())).toEqual(["--judge biased", "--judge signature", "--committee"]);
      expect(new Set(lines.map((m) => m[4])).size).toBe(1);
      for (const m of lines) expect(Number(m[3])).toBeLessThanOrEqual(Number(m[4]));
      expect(lines[2][2]).toMatch(/^committee \(biased, signature; quorum 2\) \((committee\.jsonl|every judge: no current committee\.jsonl)\)$/);
    }
    const missing = await runCli([...base, "--human", path.join(tmp, "nope.jsonl"), "--judge", "biased"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.jsonl: cannot read human labels/);
  }, 120_000);
});
