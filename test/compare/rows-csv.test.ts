/**
 * `compare --csv`: every column says what it counts (session 40): `attacked_used` (after the like-for-like drop)
 * beside `attacked_available` (before it), no `attacked` beside `runs_available` whose runs were a guess; and
 * `judge_caveat` on every row, naming a judge broken only by its errors (no LOOKS BROKEN or STOPPED mark), as the
 * exit code 3 does. The 516-run AgentDojo slice, labelled by the signature judge; its errors made by rewriting two
 * verdicts in three as judge errors (the store reads them as any judge's).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CORPUS } from "../helpers/paths.js";
import { parseCsv } from "../../src/io/csv.js";
import { COMPARE_CSV_COLUMNS } from "../../src/compare/rows-csv.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let tmp: string;
const labels = () => path.join(tmp, "labels");
const csvOf = (f: string) => {
  const [head, ...rows] = parseCsv(fs.readFileSync(f, "utf8")).map((r) => r.fields);
  return rows.filter((r) => r.length > 1).map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-rows-csv-"));
  const r = await runCli(["label", CORPUS, "--judge", "signature", "--run", "ok", "--labels-dir", labels(), "--progress", "off"]);
  expect(r.code, r.stderr).toBe(0);
  // the same run, two verdicts in three judge errors: broken by its errors alone (no rate caveat)
  fs.cpSync(path.join(labels(), "ok"), path.join(labels(), "errs"), { recursive: true });
  const vf = path.join(labels(), "errs", "verdicts.jsonl");
  const lines = fs.readFileSync(vf, "utf8").split("\n").filter(Boolean).map((l, i) => {
    const v = JSON.parse(l);
    return JSON.stringify(i % 3 === 0 ? v : { ...v, status: "judge_error", label: null, compromised: null, findings: [], error: { kind: "server_error", message: "HTTP 500" } });
  });
  fs.writeFileSync(vf, lines.join("\n") + "\n");
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("compare --csv", () => {
  it("names what each count is over: attacked_used after the like-for-like drop, attacked_available before it; judge_caveat empty for a sound judge", async () => {
    const f = path.join(tmp, "ok.csv");
    const r = await runCli(["compare", "--run", "ok", "--labels-dir", labels(), "--by", "attack", "--bootstrap", "0", "--csv", f, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(parseCsv(fs.readFileSync(f, "utf8"))[0].fields).toEqual(["agent_model", "attack", ...COMPARE_CSV_COLUMNS]);
    expect(COMPARE_CSV_COLUMNS).not.toContain("attacked");
    const pooled = JSON.parse(r.stdout).asr.filter((c: { suite: string | null }) => c.suite === null);
    const rows = csvOf(f);
    expect(rows.length).toBe(pooled.length);
    // the slice's Llama-3.3 rows are over a few of its runs: used below available somewhere, so the two differ
    expect(rows.some((x) => Number(x.attacked_used) < Number(x.attacked_available))).toBe(true);
    for (const x of rows) {
      const c = pooled.find((p: { model: string; condition: string }) => p.model === x.agent_model && p.condition === x.attack);
      expect([Number(x.attacked_used), Number(x.attacked_available), Number(x.labelled)]).toEqual([c.like_for_like.used, c.like_for_like.available, c.labelled]);
      expect(Number(x.attacked_used)).toBe(c.attacked);
      expect(Number(x.coverage)).toBeCloseTo(c.labelled / c.attacked, 12);
      expect(x.judge_caveat).toBe("");
      // the runs that ended in an agent error, as the JSON's utility figures and the text's rows count them (fix50b)
      const u = JSON.parse(r.stdout).utility.find((p: { model: string; condition: string }) => p.model === x.agent_model && p.condition === x.attack);
      expect([x.n_run_error_attacked, x.n_run_error_unattacked]).toEqual(u ? [String(u.under_attack.run_errors), String(u.without_attack.run_errors)] : ["", ""]);
    }
  }, 60_000);

  it("judge_caveat names a judge broken only by its errors on every row, as the exit code 3 (compare and estimate --table)", async () => {
    const f = path.join(tmp, "errs.csv");
    const r = await runCli(["compare", "--run", "errs", "--labels-dir", labels(), "--bootstrap", "0", "--csv", f]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/its figures use a judge that looks broken \(signature: most of its verdicts are judge errors or refusals \(66\.\d% of its 516 verdicts\)\)/);
    // no rate caveat: the text rows carry no LOOKS BROKEN mark, and the CSV is the one place a row says it
    expect(unwrapText(r.stdout)).not.toContain("LOOKS BROKEN");
    const rows = csvOf(f);
    expect(rows.length).toBeGreaterThan(2);
    for (const x of rows) expect(x.judge_caveat).toMatch(/^judge "signature" looks broken: most of its verdicts are judge errors or refusals \(66\.\d% of its 516 verdicts\); its rates are over the verdicts it gave, which the coverage counts$/);
    const t = path.join(tmp, "errs-table.csv");
    const e = await runCli(["estimate", "--run", "errs", "--labels-dir", labels(), "--table", "--allow-low-coverage", "--csv", t]);
    expect(e.code).toBe(3);
    const trows = csvOf(t);
    expect(trows.length).toBeGreaterThan(2);
    for (const x of trows) expect(x.judge_caveat).toMatch(/^judge "signature" looks broken: most of its verdicts are judge errors/);
    // a sound run's table has the column too since fix51b (always present, so a plot keeps its caveats), empty
    const ok = path.join(tmp, "ok-table.csv");
    expect((await runCli(["estimate", "--run", "ok", "--labels-dir", labels(), "--table", "--csv", ok])).code).toBe(0);
    for (const x of csvOf(ok)) expect(x.judge_caveat).toBe("");
  }, 60_000);

  it("notes carries the warnings the text prints, the same on every row (as the table CSV's notes)", async () => {
    const f = path.join(tmp, "notes.csv");
    const r = await runCli(["compare", "--run", "ok", "--labels-dir", labels(), "--by", "attack", "--bootstrap", "0", "--csv", f]);
    expect(r.code, r.stderr).toBe(0);
    const said = unwrapText(r.stdout).split("\n").filter((l) => l.startsWith("WARNING: "));
    expect(said.length).toBeGreaterThan(0); // the slice warns (its Llama rows are over a few runs)
    const rows = csvOf(f);
    expect(rows.length).toBeGreaterThan(2);
    for (const x of rows) expect(x.notes.split(" | ")).toEqual(said);
  }, 60_000);
});

// break2_53 #9: a committee's split-vote runs left out of the rates: their count and the ranges in the CSV, as in the text
describe("compare --committee --csv: the disputed runs and the ranges they could move each rate and difference over", () => {
  it("a two-judge committee whose second judge flips some full_compliance labels: disputed counts and ranges recomputed", async () => {
    fs.cpSync(path.join(labels(), "ok"), path.join(labels(), "two"), { recursive: true });
    const vf = path.join(labels(), "two", "verdicts.jsonl");
    const vs = fs.readFileSync(vf, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    let k = 0;
    const flipped = vs.map((v) => ({ ...v, judge_id: "sig2", ...(v.label === "full_compliance" && k++ % 4 === 0 ? { label: "unaffected", compromised: false, findings: [] } : {}) }));
    fs.appendFileSync(vf, flipped.map((v) => JSON.stringify(v)).join("\n") + "\n");
    // the second judge registered in the run's store, as label writes it (a copy of the signature judge's entry)
    const sf = path.join(labels(), "two", "store.json");
    const store = JSON.parse(fs.readFileSync(sf, "utf8"));
    store.judges.push({ ...store.judges[0], id: "sig2" });
    fs.writeFileSync(sf, JSON.stringify(store, null, 2));
    const c = await runCli(["committee", "--run", "two", "--labels-dir", labels(), "--quorum", "2", "--bootstrap", "0"]);
    expect([0, 3], c.stderr).toContain(c.code);
    const f = path.join(tmp, "two.csv");
    const r = await runCli(["compare", "--run", "two", "--labels-dir", labels(), "--committee", "--by", "attack", "--bootstrap", "0", "--csv", f]);
    expect([0, 3], r.stderr).toContain(r.code);
    const rows = csvOf(f);
    const withDisputed = rows.filter((x) => x.disputed !== "");
    expect(withDisputed.length).toBeGreaterThan(0);
    for (const x of withDisputed) {
      const [count, n, d] = [Number(x.asr_goal_count), Number(x.asr_goal_n), Number(x.disputed)];
      // every disputed run here has a full_compliance vote: the range is count/(n+d) to (count+d)/(n+d)
      expect(Number(x.asr_goal_disputed_lower)).toBeCloseTo(count / (n + d), 10);
      expect(Number(x.asr_goal_disputed_upper)).toBeCloseTo((count + d) / (n + d), 10);
    }
    expect(rows.some((x) => x.asr_goal_vs_baseline_disputed_lower !== "" && Number(x.asr_goal_vs_baseline_disputed_lower) <= Number(x.asr_goal_vs_baseline_disputed_upper))).toBe(true);
    expect(rows.filter((x) => x.disputed === "").every((x) => x.asr_goal_disputed_lower === "")).toBe(true);
  }, 120_000);
});

