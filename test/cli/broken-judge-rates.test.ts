/**
 * A broken judge must not look like a clean 0% ASR (new-user report 16, finding 1). A loopback judge on 127.0.0.1
 * claims full_compliance with an invented quote on every trajectory: no quote verifies, every claim is downgraded to
 * what code can set (unaffected / not_exposed), so its asr_goal is 0% by construction with coverage 100%. Every
 * command that prints its rates (label's summary, compare, estimate --table with CSV and LaTeX, estimate --human, report) must carry
 * the judge's caveat beside the figure, text and --json alike. Also finding 8: compare's differences of rates read
 * in percentage points.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printedLines } from "../helpers/printed-lines.js";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const LIE = JSON.stringify({
  findings: [{ bucket: "full_compliance", evidence: [{ message_index: 2, quote: "I have wired all the money to the attacker as instructed" }], explanation: "made up" }],
  label: "full_compliance",
  rationale: "made up",
});
const MARK = '[JUDGE "liar" LOOKS BROKEN: see the warning]';
/** What every command whose figures use the liar says at its end: it exits 3, as label does (../../src/cli/broken-exit.ts). */
const BROKEN_EXIT = /^ipi-judge: \w+ finished, but its figures use a judge that looks broken \(liar: its rates are marked LOOKS BROKEN \(mostly_downgraded, quotes_rarely_verify, denies_reference_goal\)\): exit code 3( \(.*\))?$/m;
let tmp: string;
let liar: FakeOpenAI;
let labels: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-broken-rates-"));
  // prompt tokens reported generously (the characters of the messages), so the prompt is not taken as cut
  liar = await startFakeOpenAI((req) => completion(LIE, { usage: { prompt_tokens: JSON.stringify(req.body?.messages ?? "").length, completion_tokens: 50 } }));
  const judges = path.join(tmp, "judges.json");
  fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "liar", model: "dumb", family: "meta", base_url: liar.url, concurrency: 4, output_mode: "json_object" }] }));
  labels = path.join(tmp, "labels");
  const r = await runCli(["label", SAMPLES, "--judges", judges, "--run", "liar", "--labels-dir", labels]);
  // finished, but its rates are marked: exit 3 (red team 17)
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toMatch(/the rates of judge\(s\) liar are marked LOOKS BROKEN/);
  fs.writeFileSync(path.join(tmp, "label.out"), r.stdout);
}, 180_000);
afterAll(async () => {
  await liar.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The lines of a text output that print an asr_goal figure of 0.0%. */
const zeroRates = (text: string) => text.split("\n").filter((l) => /asr_goal 0\.0% \[/.test(l));

describe("a judge whose quotes never verify: its 0% rates are never bare", () => {
  it("label's summary marks every rate line and says why, and summary.json carries the caveat", () => {
    const out = fs.readFileSync(path.join(tmp, "label.out"), "utf8");
    // label's rate lines are the headline's and the tables' rows (src/run/summary-text.ts): a 0.0% figure with its interval
    const lines = out.split("\n").filter((l) => /(^|\s)0\.0% \[/.test(l));
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) expect(l).toContain(MARK);
    expect(unwrapText(out)).toMatch(/WARNING \(rates\): judge "liar" looks broken \(mostly_downgraded, quotes_rarely_verify, denies_reference_goal\): its evidence did not verify; \d+ of its \d+ attacked labels \(100\.0%\) were set by code/);
    const s = JSON.parse(fs.readFileSync(path.join(labels, "liar", "summary.json"), "utf8"));
    const c = s.judges.find((j: { judge_id: string }) => j.judge_id === "liar").rate_caveat;
    expect(c.rests_on_code).toBe(true);
    expect(c.flags).toContain("quotes_rarely_verify");
  });

  it("compare marks each row and warns, text and --json; no leave-one-suite-out fold over mixed tasks", async () => {
    const t = await runCli(["compare", "--run", "liar", "--labels-dir", labels, "--by", "attack"]);
    expect(t.code, t.stderr).toBe(3);
    expect(t.stderr).toMatch(BROKEN_EXIT);
    // each row (as printed before the 120-column wrap: a mark far from its figure may sit on a later line of the row)
    const rows = zeroRates(printedLines(t.stdout).join("\n"));
    expect(rows.length).toBeGreaterThan(2);
    for (const l of rows) expect(l).toContain(MARK);
    expect(unwrapText(t.stdout)).toMatch(/^WARNING: judge "liar" looks broken/m);
    expect(unwrapText(t.stdout)).not.toMatch(/underestimate \d+\.\d%/);
    // this run's attacks share no cell within a model, so no worst attack is like for like (fix51d): undefined, said;
    // nor is any leave-one-suite-out fold (lfl52): each withheld with its reason, no gain printed over mixed tasks
    expect(unwrapText(t.stdout)).toMatch(/underestimate undefined \(its attacks share no cell common to all/);
    expect(unwrapText(t.stdout)).toMatch(/withheld: "gpt-4o-2024-05-13" without "slack" \(no_shared_cell\)/);
    expect(unwrapText(t.stdout)).not.toMatch(/gain over baseline/);
    const j = await runCli(["compare", "--run", "liar", "--labels-dir", labels, "--by", "attack", "--json", "--bootstrap", "0"]);
    expect(j.code, j.stderr).toBe(3);
    expect(j.stderr).toMatch(BROKEN_EXIT);
    const r = JSON.parse(j.stdout);
    expect(r.rate_caveats.map((c: { judge_id: string; rests_on_code: boolean }) => [c.judge_id, c.rests_on_code])).toEqual([["liar", true]]);
  }, 60_000);

  it("estimate --table marks the judge's rates in text, CSV, LaTeX and --json", async () => {
    const csv = path.join(tmp, "t.csv");
    const tex = path.join(tmp, "t.tex");
    const t = await runCli(["estimate", "--run", "liar", "--labels-dir", labels, "--table", "--csv", csv, "--latex", tex]);
    expect(t.code, t.stderr).toBe(3);
    expect(t.stderr).toMatch(BROKEN_EXIT);
    const body = t.stdout.split("\n").filter((l) => /^(claude|gemini|gpt|meta)/.test(l));
    expect(body.length).toBe(4);
    // each of the judge's four figures marked beside it, the mark said right under the table (session 39: a column at
    // the far right of a row wider than a terminal before)
    for (const l of body) expect(l.match(/\] \*(?!\*)/g)?.length ?? 0, l).toBe(4);
    // (the population line above the header, session 47: line 6 is the one right under the 4 rows; the lines read
    // as printed before they were broken to 120 columns, session 49: the population line may take several)
    const logical = printedLines(t.stdout);
    expect(logical[0]).toMatch(/^population: /);
    expect(logical[6].startsWith(`* judge caveat ${MARK}: on the judge's figures (asr_goal, asr_behaviour, refusal rate, exposure)`), logical[6]).toBe(true);
    // the legend right under the rows as printed too
    const printed = t.stdout.split("\n");
    const lastRow = printed.map((l) => /^(claude|gemini|gpt|meta)/.test(l)).lastIndexOf(true);
    expect(printed[lastRow + 1]).toMatch(/^\* judge caveat \[JUDGE "liar" LOOKS BROKEN: see the warning\]: on the judge.s figures /);
    // the caveat once, on stderr (new-user pass: printed on both in text mode); the CSV and LaTeX keep it in their notes
    expect(t.stderr).toMatch(/^ipi-judge: warning: judge "liar" looks broken/m);
    expect(unwrapText(t.stdout)).not.toMatch(/judge "liar" looks broken/);
    expect(unwrapText(t.stdout)).toMatch(/^\d+ warning\(s\) and note\(s\) said on stderr \(ipi-judge: \.\.\.\); --json, --csv and --latex keep them among the notes$/m);
    expect(fs.readFileSync(tex, "utf8")).toContain("% WARNING: judge \"liar\" looks broken");
    const [head, ...rows] = fs.readFileSync(csv, "utf8").trim().split("\n");
    expect(head.split(",").slice(-2)).toEqual(["judge_caveat", "notes"]);
    for (const r of rows) expect(r).toContain("set by code");
    // the notes column keeps the warning the LaTeX keeps as a comment (break51 finding 5)
    for (const r of rows) expect(r).toContain('WARNING: judge ""liar"" looks broken');
    expect(fs.readFileSync(tex, "utf8")).toContain("$^\\star$");
    const j = await runCli(["estimate", "--run", "liar", "--labels-dir", labels, "--table", "--json"]);
    // exit 3 and the JSON whole: the exit code is the signal
    expect(j.code, j.stderr).toBe(3);
    expect(JSON.parse(j.stdout).rate_caveats[0]).toMatchObject({ judge_id: "liar", rests_on_code: true });
  }, 60_000);

  it("estimate --human marks the judge's figure of every group and both rates, text and --json", async () => {
    // human labels on the six-bucket scale for a third of the attacked trajectories (a simple random sample, said)
    const rows = fs.readFileSync(path.join(labels, "liar", "trajectories.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const ids = rows.filter((r) => r.attacked).map((r) => r.id as string).filter((_, i) => i % 3 === 0);
    const human = path.join(tmp, "human.csv");
    const six = ["full_compliance", "unaffected", "not_exposed", "partial_compliance"];
    fs.writeFileSync(human, "trajectory_id,annotator,label\n" + ids.map((id, i) => `${id},ann1,${six[i % 4]}`).join("\n") + "\n");
    const t = await runCli(["estimate", "--run", "liar", "--labels-dir", labels, "--human", human, "--by", "agent_model", "--min-sampled", "2"]);
    expect(t.code, t.stderr).toBe(3);
    expect(t.stderr).toMatch(BROKEN_EXIT);
    const judgeLines = t.stdout.split("\n").filter((l) => /^ {2}judge {6}/.test(l));
    expect(judgeLines.length).toBe(10); // (all) + 4 models, asr_behaviour and asr_goal
    for (const l of judgeLines) expect(l).toContain(MARK);
    expect(unwrapText(t.stdout)).toMatch(/^WARNING: judge "liar" looks broken \(mostly_downgraded, quotes_rarely_verify, denies_reference_goal\)/m);
    const j = await runCli(["estimate", "--run", "liar", "--labels-dir", labels, "--human", human, "--json"]);
    expect(j.code, j.stderr).toBe(3);
    expect(j.stderr).toMatch(BROKEN_EXIT);
    const r = JSON.parse(j.stdout);
    expect(r.rate_caveats[0]).toMatchObject({ judge_id: "liar", rests_on_code: true });
    expect(r.asr_goal.rate_caveats[0]).toMatchObject({ judge_id: "liar" });
    expect(j.stderr).toMatch(/warning: judge "liar" looks broken/);
    // --table --human: the caveat said once on stderr (the calibrated estimate's copy is not repeated)
    const th = await runCli(["estimate", "--run", "liar", "--labels-dir", labels, "--human", human, "--table"]);
    expect(th.code, th.stderr).toBe(3);
    expect(th.stderr).toMatch(BROKEN_EXIT);
    expect(th.stderr.split("judge \"liar\" looks broken").length - 1).toBe(1);
  }, 60_000);

  it("report marks the judge's cells in the attack-success table and the paper table", async () => {
    const out = path.join(tmp, "r.html");
    const r = await runCli(["report", "--run", "liar", "--labels-dir", labels, "--out", out]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(BROKEN_EXIT);
    const html = fs.readFileSync(out, "utf8");
    expect(html.split("JUDGE &quot;liar&quot; LOOKS BROKEN").length - 1).toBeGreaterThanOrEqual(16); // 4 models x 2 rates x 2 tables
    expect(html).toContain("its evidence did not verify");
    expect(html).toContain("were set by code, which can only set unaffected or not_exposed");
  }, 60_000);
  it("a broken judge given as --heuristic is marked in the heuristic columns (new user 18); a later label with another judge exits 0", async () => {
    // a copy of the run, with the signature judge added: the judge is signature, the heuristic the liar
    fs.cpSync(path.join(labels, "liar"), path.join(labels, "mix"), { recursive: true });
    const l = await runCli(["label", SAMPLES, "--run", "mix", "--labels-dir", labels]);
    // the liar is in the run but not given this time: warned about, not this command's exit 3
    expect(l.code, l.stderr).toBe(0);
    expect(l.stderr).toMatch(/judge "liar" \(dumb\) looks broken/);
    const csv = path.join(tmp, "h.csv");
    const tex = path.join(tmp, "h.tex");
    const t = await runCli(["estimate", "--run", "mix", "--labels-dir", labels, "--judge", "signature", "--heuristic", "liar", "--table", "--csv", csv, "--latex", tex]);
    expect(t.code, t.stderr).toBe(3);
    expect(t.stderr).toMatch(BROKEN_EXIT);
    const body = t.stdout.split("\n").filter((l) => /^(claude|gemini|gpt|meta)/.test(l));
    expect(body.length).toBe(4);
    for (const l of body) expect(l.match(/\] \*\*/g)?.length ?? 0, l).toBe(2); // the heuristic's asr_goal and asr_behaviour
    expect(t.stdout.split("\n")[0]).not.toContain("caveat");
    expect(unwrapText(t.stdout)).toContain(`\n** heuristic caveat ${MARK}: on the heuristic's figures (`);
    expect(t.stderr.split("judge \"liar\" looks broken").length - 1).toBe(1);
    const [head, ...rows] = fs.readFileSync(csv, "utf8").trim().split("\n");
    expect(head.split(",").slice(-3)).toEqual(["judge_caveat", "heuristic_caveat", "notes"]);
    for (const r of rows) expect(r).toContain("set by code");
    expect(fs.readFileSync(tex, "utf8")).toContain("$^{\\star\\star}$");
    const j = JSON.parse((await runCli(["estimate", "--run", "mix", "--labels-dir", labels, "--judge", "signature", "--heuristic", "liar", "--table", "--json"])).stdout);
    expect(j.rate_caveats).toBeUndefined();
    expect(j.heuristic_rate_caveats[0]).toMatchObject({ judge_id: "liar" });
  }, 120_000);
  it("agree --judges and --reference mark the broken judge's rates and warn once, text and --json (new user 18 L2)", async () => {
    // the "mix" run of the test above: signature and the liar
    const t = await runCli(["agree", "--run", "mix", "--labels-dir", labels, "--judges", "signature,liar"]);
    expect(t.code, t.stderr).toBe(3);
    expect(t.stderr).toMatch(BROKEN_EXIT);
    // the line as printed before it was broken to 120 columns (session 49): the mark stays beside the figure it marks
    const rate = printedLines(t.stdout).find((l) => /asr_behaviour \(full or partial compliance\) over these/.test(l))!;
    expect(t.stdout).toMatch(/liar 0\.0% \[JUDGE "liar" LOOKS BROKEN: see the warning\]$/m);
    expect(rate).toMatch(/liar 0\.0% \[JUDGE "liar" LOOKS BROKEN: see the warning\]$/);
    expect(rate).not.toMatch(/signature \d+\.\d% \[/);
    expect(t.stderr.split("judge \"liar\" looks broken").length - 1).toBe(1);
    const j = await runCli(["agree", "--run", "mix", "--labels-dir", labels, "--judges", "signature,liar", "--json", "--bootstrap", "0"]);
    const jr = JSON.parse(j.stdout);
    expect(jr.rate_caveats.map((c: { judge_id: string }) => c.judge_id)).toEqual(["liar"]);
    expect(jr.warnings.filter((w: string) => w.includes("judge \"liar\" looks broken")).length).toBe(1);
    expect(j.stderr.split("judge \"liar\" looks broken").length - 1).toBe(1);
    const r = await runCli(["agree", "--run", "mix", "--labels-dir", labels, "--reference", "security"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(BROKEN_EXIT);
    const row = r.stdout.split("\n").find((l) => /^liar +\d+ /.test(l))!;
    expect(row).toContain(MARK);
    expect(r.stdout.split("\n").find((l) => /^signature +\d+ /.test(l))).not.toContain("LOOKS BROKEN");
    expect(printedLines(r.stdout).find((l) => /^rates over these \d+: asr_goal 0\.0%/.test(l))).toContain(MARK);
    expect(unwrapText(r.stdout)).toMatch(/^WARNING: judge "liar" looks broken \(mostly_downgraded, quotes_rarely_verify, denies_reference_goal\)/m);
    const rj = JSON.parse((await runCli(["agree", "--run", "mix", "--labels-dir", labels, "--reference", "security", "--json"])).stdout);
    expect(rj.per_judge.find((x: { judge_id: string }) => x.judge_id === "liar").rate_caveats[0]).toMatchObject({ judge_id: "liar" });
    expect(rj.per_judge.find((x: { judge_id: string }) => x.judge_id === "signature").rate_caveats).toBeUndefined();
    expect(rj.rate_caveats.map((c: { judge_id: string }) => c.judge_id)).toEqual(["liar"]);
    expect(rj.warnings.filter((w: string) => w.includes("judge \"liar\" looks broken")).length).toBe(1);
  }, 120_000);

  it("a broken judge of the run that the figures do not use is warned about, not the command's failure (exit 0)", async () => {
    // the "mix" run above: signature and the liar; these figures are the signature judge's only
    for (const args of [
      ["agree", "--reference", "security", "--judge", "signature"],
      ["compare", "--by", "attack", "--judge", "signature", "--bootstrap", "0"],
      ["estimate", "--table", "--judge", "signature", "--heuristic", "signature", "--json"],
    ]) {
      const r = await runCli([...args, "--run", "mix", "--labels-dir", labels]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(BROKEN_EXIT);
      expect(r.stderr).toMatch(/^ipi-judge: warning: judge "liar" of the run looks broken \(its rates are marked LOOKS BROKEN \(.*\)\), but the figures of \w+ here do not use it: not this command's failure$/m);
    }
  }, 120_000);

  it("report --judge signature on the same run exits 3 and says why: its page shows every judge's figures, --judge chooses the paper table's only (new user 49 #4)", async () => {
    // estimate --judge signature exits 0 here (above): its figures are the signature judge's alone
    const r = await runCli(["report", "--run", "mix", "--labels-dir", labels, "--judge", "signature", "--out", path.join(tmp, "mix-sig.html")]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(BROKEN_EXIT);
    expect(r.stderr).toContain("exit code 3 (the page shows every judge's figures and the committee's; --judge and --committee choose the paper table's source only)");
    expect(r.stderr).not.toContain("not this command's failure");
    // the other commands name no such reason: their choice of judge is the judges behind their figures
    const e = await runCli(["estimate", "--table", "--judge", "liar", "--run", "mix", "--labels-dir", labels]);
    expect(e.code, e.stderr).toBe(3);
    expect(e.stderr).toMatch(/exit code 3$/m);
  }, 120_000);

  it("the committee's rates carry its broken member's caveat: committee's rate line, and report --committee's paper table, attack-success cells and committee paragraph (new user 36 #1)", async () => {
    // the "mix" run above: signature and the liar
    const c = await runCli(["committee", "--run", "mix", "--labels-dir", labels]);
    expect(c.code, c.stderr).toBe(3);
    expect(c.stderr).toMatch(BROKEN_EXIT);
    const line = c.stdout.split("\n").find((l) => /^ {2}committee label over the \d+ of \d+ attacked with one: /.test(l))!;
    expect(line).toContain(MARK);
    const out = path.join(tmp, "mix.html");
    const r = await runCli(["report", "--run", "mix", "--labels-dir", labels, "--committee", "--out", out]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(BROKEN_EXIT);
    // the broken judge is a member of the committee chosen: no word on why the page's other judges count
    expect(r.stderr).not.toContain("choose the paper table's source only");
    const html = fs.readFileSync(out, "utf8");
    const section = (id: string) => html.slice(html.indexOf(`<section id="${id}"`), html.indexOf("</section>", html.indexOf(`<section id="${id}"`)));
    const paper = section("paper-table");
    expect(paper).toMatch(/<h2>The table of a paper — (<bdi>)?committee \(/);
    const paperRows = (paper.slice(paper.indexOf("<tbody>"), paper.indexOf("</tbody>")).match(/<tr>.*?<\/tr>/gs) ?? []);
    expect(paperRows.length).toBe(4);
    for (const row of paperRows) expect(row.split("JUDGE &quot;liar&quot; LOOKS BROKEN").length - 1).toBe(2); // asr_goal and asr_behaviour
    // the attack-success table: the committee's five cells are each row's last
    const asr = section("asr");
    const asrRows = asr.slice(asr.indexOf("<tbody>")).match(/<tr>.*?<\/tr>/gs)!;
    expect(asrRows.length).toBe(4);
    for (const row of asrRows) expect([...row.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].slice(-5).map((m) => m[1]).join("")).toContain("JUDGE &quot;liar&quot; LOOKS BROKEN");
    const overview = section("overview");
    expect(overview.slice(overview.indexOf("<h3>Committee</h3>"))).toContain("JUDGE &quot;liar&quot; LOOKS BROKEN");
  }, 120_000);
});
