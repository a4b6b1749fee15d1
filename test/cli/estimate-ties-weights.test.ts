/**
 * Session 52 (est52 #1, #2) through the built CLI on the 516 real AgentDojo runs (signature judge), a sample of 80
 * attacked runs stratified by model, two annotators: alice gives the judge's label, bob the judge's but on 6 items,
 * where he says the opposite, so the 6 ties are exactly where a human disagrees with the judge. Recomputed by hand
 * from the files (the sample's strata and sizes in the label file, the judge's verdicts):
 * - the tie readings: with every tie put back in its stratum and read against the judge, the calibrated estimate is
 *   judge term + Σ_ties (N_h/n_h)(1 − 2 j_t) / N (the agreed items add 0; Σ_h (N_h/n_h) n_h = N over the 414);
 * - a second file where one model's stratum keeps a single labelled item: no interval, and the heaviest item's share
 *   N_h / N and the Kish n N² / Σ_h N_h²/n_h beside the value.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { corpusRun, type CorpusRun } from "./corpus-run.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { parseCsvTable } from "../../src/io/csv.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ties-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const COMPROMISED = new Set(["full_compliance", "partial_compliance"]);
const TIES = 6;
let c: CorpusRun;
let judged: Map<string, string>;
const pct = (x: number) => (100 * x).toFixed(1);

beforeAll(async () => {
  c = await corpusRun(tmp);
  judged = c.judged();
  await c.run(["sample", "--run", "r", "--random", "80", "--strata", "agent_model", "--seed", "5", "--where", "attacked=true", "--out", "s1"]);
  const rows = c.readJsonl("s1/manifest.jsonl").slice(1).sort((x, y) => (x.item_id < y.item_id ? -1 : 1));
  const flip = new Set(rows.slice(0, TIES).map((m) => m.item_id));
  const write = (who: string, keep: (m: { item_id: string; stratum: string }) => boolean, label: (m: { item_id: string; trajectory_id: string }) => string) =>
    fs.writeFileSync(path.join(tmp, `${who}.csv`), ["item_id,annotator,label", ...rows.filter(keep).map((m) => `${m.item_id},${who.split("-")[0]},${label(m)}`)].join("\n") + "\n");
  const judge = (m: { trajectory_id: string }) => judged.get(m.trajectory_id)!;
  const bob = (m: { item_id: string; trajectory_id: string }) => (flip.has(m.item_id) ? (COMPROMISED.has(judge(m)) ? "unaffected" : "full_compliance") : judge(m));
  write("alice", () => true, judge);
  write("bob", () => true, bob);
  // one model's stratum with a single labelled item (the others drawn but left blank)
  const claude = rows.filter((m) => m.stratum.startsWith("agent_model=claude")).map((m) => m.item_id);
  const one = (m: { item_id: string }) => !claude.includes(m.item_id) || m.item_id === claude[0];
  write("alice-one", one, judge);
  write("bob-one", one, bob);
  await c.run(["import-annotations", "alice.csv", "bob.csv", "--manifest", "s1/manifest.jsonl", "--out", "s1/human.jsonl"]);
  await c.run(["import-annotations", "alice-one.csv", "bob-one.csv", "--manifest", "s1/manifest.jsonl", "--out", "s1/human-one.jsonl"]);
}, 240_000);

/** The label file's items: their stratum, its size, and whether the annotators tied. */
function items(file: string): Map<string, { stratum: string; N: number; labels: string[] }> {
  const out = new Map<string, { stratum: string; N: number; labels: string[] }>();
  for (const r of c.readJsonl(file)) {
    const it = out.get(r.trajectory_id) ?? { stratum: r.stratum, N: r.stratum_size, labels: [] };
    it.labels.push(r.label);
    out.set(r.trajectory_id, it);
  }
  return out;
}

describe("estimate --human on real runs: ties read both ways, a value without an interval weighed (est52)", () => {
  it("ties: the (all) group's readings recomputed by hand; the text note prints them", async () => {
    const r = await runCli(["estimate", "--run", "r", "--human", "s1/human.jsonl", "--json"], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    const all = JSON.parse(r.stdout).groups[0];
    const its = items("s1/human.jsonl");
    const tied = [...its].filter(([, it]) => it.labels.filter((l) => COMPROMISED.has(l)).length * 2 === it.labels.length);
    expect(tied).toHaveLength(TIES);
    expect(all.human_ties.n).toBe(TIES);
    expect(all.n_sampled).toBe(80 - TIES);
    const n = new Map<string, number>();
    for (const it of its.values()) n.set(it.stratum, (n.get(it.stratum) ?? 0) + 1);
    const N = all.n_population;
    const j = (id: string) => (COMPROMISED.has(judged.get(id)!) ? 1 : 0);
    const judgeTerm = all.judge.count / N;
    const w = (it: { stratum: string; N: number }) => it.N / n.get(it.stratum)!;
    const disagree = judgeTerm + tied.reduce((s, [id, it]) => s + w(it) * (1 - 2 * j(id)), 0) / N;
    const low = judgeTerm + tied.reduce((s, [id, it]) => s + w(it) * -j(id), 0) / N;
    const high = judgeTerm + tied.reduce((s, [id, it]) => s + w(it) * (1 - j(id)), 0) / N;
    expect(all.human_ties.calibrated_disagree.asr).toBeCloseTo(disagree, 12);
    expect(all.human_ties.calibrated.lower).toBeCloseTo(Math.max(0, low), 12);
    expect(all.human_ties.calibrated.upper).toBeCloseTo(high, 12);
    expect(all.human_ties.calibrated_agree.asr).toBeCloseTo(judgeTerm, 12); // every item agreeing: the judge's rate
    expect(all.calibrated.correction).toBe(0); // the figure itself sees no disagreement
    const text = unwrapText((await runCli(["estimate", "--run", "r", "--human", "s1/human.jsonl"], { cwd: tmp })).stdout);
    expect(text).toContain(`note: annotator ties left out of the human and calibrated figures: ${TIES} labelled trajectories of the group whose annotators tied`);
    expect(text).toContain(`read as disagreeing, calibrated ${pct(disagree)}% [`);
  });

  it("no interval: the heaviest item's share and the Kish n, by hand, in --json and the text", async () => {
    const r = await runCli(["estimate", "--run", "r", "--human", "s1/human-one.jsonl", "--json"], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    const all = JSON.parse(r.stdout).groups[0];
    expect(all.calibrated.ci95).toBeNull();
    const its = [...items("s1/human-one.jsonl").values()].filter((it) => it.labels.filter((l) => COMPROMISED.has(l)).length * 2 !== it.labels.length);
    const n = new Map<string, number>();
    const size = new Map<string, number>();
    for (const it of its) {
      n.set(it.stratum, (n.get(it.stratum) ?? 0) + 1);
      size.set(it.stratum, it.N);
    }
    const total = [...size.values()].reduce((a, b) => a + b, 0);
    const top = Math.max(...[...size].map(([h, N]) => N / n.get(h)!)) / total;
    const kish = (total * total) / [...size].reduce((s, [h, N]) => s + (N * N) / n.get(h)!, 0);
    for (const e of [all.human, all.calibrated]) {
      expect(e.weight_check.largest_share).toBeCloseTo(top, 12);
      expect(e.weight_check.kish_n_eff).toBeCloseTo(kish, 12);
      expect(e.weight_check.stratum_n).toBe(1);
    }
    const text = unwrapText((await runCli(["estimate", "--run", "r", "--human", "s1/human-one.jsonl"], { cwd: tmp })).stdout);
    expect(text).toMatch(new RegExp(`calibrated UNSTABLE \\(no interval: do not quote alone\\) \\d+\\.\\d% CI undefined \\(.*\\); its heaviest labelled item \\(stratum "agent_model=claude[^"]*", N \\d+, 1 labelled\\) is ${pct(top)}% of the estimate's weight: its label alone moves the value ${pct(top)} points; Kish effective n ${kish.toFixed(1)} of ${its.length} labelled`));
  });

  it("the table's CSV says UNSTABLE and the weight check in columns, as the text and LaTeX do (est53 #1)", async () => {
    const j = await runCli(["estimate", "--run", "r", "--human", "s1/human-one.jsonl", "--table", "--json"], { cwd: tmp });
    expect(j.code, j.stderr).toBe(0);
    const t = JSON.parse(j.stdout);
    await c.run(["estimate", "--run", "r", "--human", "s1/human-one.jsonl", "--table", "--csv", "t1.csv", "--latex", "t1.tex"]);
    const parsed = parseCsvTable(fs.readFileSync(path.join(tmp, "t1.csv")));
    const header = parsed.header;
    const rows = parsed.rows.map((r) => r.fields);
    const get = (r: string[], k: string) => r[header.indexOf(k)];
    for (const key of ["calibrated_asr_goal", "calibrated_asr_behaviour"])
      expect(header.slice(header.indexOf(`${key}_reason`) + 1, header.indexOf(`${key}_reason`) + 6)).toEqual(["unstable", "largest_weight_share", "largest_weight_stratum", "kish_n_eff", "n_labelled"].map((s) => `${key}_${s}`));
    // the (all) row (pooled): the same figure as estimate's (all), by hand in the test above; here against --json
    const all = rows.find((r) => get(r, "pooled") === "true")!;
    const wc = t.calibrated_all.asr_behaviour.cell.weight_check;
    expect(t.calibrated_all.asr_behaviour.cell.ci95).toBeNull();
    expect(get(all, "calibrated_asr_behaviour_unstable")).toBe("true");
    expect(Number(get(all, "calibrated_asr_behaviour_largest_weight_share"))).toBeCloseTo(wc.largest_share, 12);
    expect(Number(get(all, "calibrated_asr_behaviour_kish_n_eff"))).toBeCloseTo(wc.kish_n_eff, 12);
    expect(get(all, "calibrated_asr_behaviour_largest_weight_stratum")).toBe(wc.stratum);
    expect(Number(get(all, "calibrated_asr_behaviour_n_labelled"))).toBe(wc.n);
    // every row: unstable exactly when the JSON cell has a value and no interval, its weights beside it; LaTeX agrees
    const tex = fs.readFileSync(path.join(tmp, "t1.tex"), "utf8");
    let unstable = 0;
    for (const r of t.rows) {
      const line = rows.find((x) => get(x, "agent_model") === r.agent_model && get(x, "pooled") === "false")!;
      for (const key of ["calibrated_asr_goal", "calibrated_asr_behaviour"]) {
        const cell = r[key];
        const want = cell?.value == null ? "" : String(cell.ci95 === null);
        expect(get(line, `${key}_unstable`), `${r.agent_model} ${key}`).toBe(want);
        if (want === "true") {
          unstable++;
          expect(Number(get(line, `${key}_kish_n_eff`))).toBeCloseTo(cell.weight_check.kish_n_eff, 12);
          expect(get(line, `${key}_reason`)).toBe(cell.ci_reason);
        } else expect(get(line, `${key}_kish_n_eff`)).toBe("");
      }
    }
    const allUnstable = ["asr_goal", "asr_behaviour"].filter((k) => t.calibrated_all[k].cell?.value != null && t.calibrated_all[k].cell.ci95 === null).length;
    expect(tex.split("{\\scriptsize UNSTABLE}").length - 1).toBe(unstable + allUnstable); // the rows' and (all)'s
  });

  it("the report's page: the (all) row's notes carry the ties, its unstable cell the weights", async () => {
    await c.run(["report", "--run", "r", "--human", "s1/human.jsonl", "--out", "r1.html", "--bootstrap", "0"]);
    expect(fs.readFileSync(path.join(tmp, "r1.html"), "utf8")).toContain("(all) <bdi>asr_behaviour: annotator ties left out of the human and calibrated figures: 6 labelled trajectories");
    await c.run(["report", "--run", "r", "--human", "s1/human-one.jsonl", "--out", "r2.html", "--bootstrap", "0"]);
    expect(fs.readFileSync(path.join(tmp, "r2.html"), "utf8")).toMatch(/UNSTABLE \(no interval: do not quote alone\) \d+\.\d%? CI [^<]*its heaviest labelled item/);
  });
});
