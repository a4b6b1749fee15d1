import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { buildPopulation } from "../../src/sample/population.js";
import { drawSample } from "../../src/sample/sample.js";
import { readTrajectoryIndex } from "../../src/store/run-store.js";
import { designAgreement, weightedAgreement } from "../../src/stats/weighted.js";
import { SAMPLES, VECTORS } from "../helpers/paths.js";
import { committeeRow } from "../sample/fixtures.js";

/** Run the CLI in-process (src/cli/main.ts), capturing stdout and stderr. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const so = vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => {
    stdout += String(c);
    return true;
  });
  const se = vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => {
    stderr += String(c);
    return true;
  });
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    so.mockRestore();
    se.mockRestore();
    process.exitCode = undefined;
  }
}

const jsonl = (f: string) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const frac = (s: string) => {
  const [a, b] = s.split("/").map(Number);
  return b === undefined ? a : a / b;
};
const tiny = JSON.parse(fs.readFileSync(path.join(VECTORS, "design_two_phase_tiny_exact.json"), "utf8"));

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cli-sample-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("sample -> Label Studio export -> import-annotations on the tiny exact design", () => {
  it("gives a human-label file whose pi, weights and weighted kappa match design_two_phase_tiny_exact.json", async () => {
    // Population: N = 100 chat trajectories, 20 with committee disagreement (test/data/vectors/NOTES.md §7, tiny vector).
    const N = tiny.design.population.N as number;
    const ND = tiny.design.population.N_D_committee_disagreement as number;
    const src = path.join(tmp, "tiny", "tiny.jsonl");
    fs.mkdirSync(path.dirname(src), { recursive: true });
    const ids = Array.from({ length: N }, (_, i) => `u${String(i).padStart(3, "0")}`);
    fs.writeFileSync(
      src,
      ids
        .map((id, i) =>
          JSON.stringify({
            id,
            messages: [
              { role: "user", content: `Summarize document ${i}.` },
              { role: "assistant", content: `Document ${i} is about topic ${i * 7}.` },
            ],
          }),
        )
        .join("\n") + "\n",
    );
    const labels = path.join(tmp, "tiny", "labels");
    const lab = await cli(["label", src, "--run", "tiny", "--labels-dir", labels, "--json"]);
    expect(lab.code).toBe(0);
    const runDir = path.join(labels, "tiny");
    const isD = (i: number) => i % 5 === 0; // 20 of 100
    const committee = ids.map((id, i) => committeeRow(id, isD(i) ? { a: "unaffected", b: "full_compliance" } : { a: "unaffected", b: "unaffected" }));
    expect(committee.filter((c) => !(c as { unanimous: boolean }).unanimous)).toHaveLength(ND);
    fs.writeFileSync(path.join(runDir, "committee.jsonl"), committee.map((c) => JSON.stringify(c)).join("\n") + "\n");

    // A seed whose phase 1 realises the vector's split: 7 unanimous + 3 disagreement items.
    const pop = buildPopulation((await readTrajectoryIndex(runDir)).values(), committee as never, []);
    let seed = 1;
    const want = tiny.design.phase2.realised;
    while (drawSample(pop, { random: 10, disagreement: 5, seed }).items.filter((i) => i.phase === 1 && i.committee_stratum === "D").length !== want.S1_hits_D) seed++;

    const out = path.join(tmp, "tiny", "study");
    const s = await cli(["sample", "--run", "tiny", "--labels-dir", labels, "--random", "10", "--disagreement", "5", "--seed", String(seed), "--out", out, "--json"]);
    // the hand-made committee (judges a, b) is not the run's (the signature judge): said, not silent
    expect(s.stderr).toMatch(/^ipi-judge: warning: committee\.jsonl is stale \(committee\.jsonl counts votes of judge\(s\) a, b, which have no verdicts in the run now\)/);
    expect(s.code).toBe(0);
    const summary = JSON.parse(s.stdout);
    expect(summary).toMatchObject({ items: 15, phase1: 10, phase2: 5, population: 100, disagreement_pool: 20, seed });

    const manifest = jsonl(path.join(out, "manifest.jsonl"));
    const rows = manifest.slice(1);
    const piA = frac(tiny.records.find((r: { stratum: string }) => r.stratum === "A").pi_design); // "1/10"
    const piD = frac(tiny.records.find((r: { stratum: string }) => r.stratum === "D").pi_design); // "7/20"
    expect(tiny.design.inclusion_probabilities.D_exclude_already_selected).toMatch(/= 7\/20$/);
    for (const r of rows) {
      expect(r.inclusion_probability).toBeCloseTo(r.stratum === "A" ? piA : piD, 13);
      expect(r.weight).toBeCloseTo(r.stratum === "A" ? 10 : 20 / 7, 12);
      expect(r.stratum_size).toBe(r.stratum === "A" ? 80 : 20);
    }
    expect(rows.filter((r) => r.stratum === "A")).toHaveLength(want.n_A);
    expect(rows.filter((r) => r.stratum === "D")).toHaveLength(want.n_D);

    // The vector's records, matched to the sampled items by (stratum, phase), in item-id order.
    type Rec = { stratum: string; in_S1: boolean; judge: string; human: string };
    const recs: Rec[] = tiny.records;
    const group = (st: string, ph: number) => rows.filter((r) => r.stratum === st && r.phase === ph).sort((a, b) => (a.item_id < b.item_id ? -1 : 1));
    const pairs = new Map<string, Rec>();
    const assign = (items: { item_id: string }[], rs: Rec[]) => {
      expect(items).toHaveLength(rs.length);
      items.forEach((it, k) => pairs.set(it.item_id, rs[k]));
    };
    assign(group("A", 1), recs.filter((r) => r.stratum === "A"));
    assign(group("D", 1), recs.filter((r) => r.stratum === "D" && r.in_S1));
    assign(group("D", 2), recs.filter((r) => r.stratum === "D" && !r.in_S1));

    // A completed Label Studio export, made from the label-studio.json tasks we handed out.
    const bucket = (x: string) => (x === "comp" ? "full_compliance" : "unaffected");
    const tasks = JSON.parse(fs.readFileSync(path.join(out, "label-studio.json"), "utf8"));
    const exportJson = tasks.map((t: { data: { item_id: string } }, i: number) => ({
      id: 100 + i,
      data: t.data,
      annotations: [
        {
          id: 1000 + i,
          completed_by: { id: 7, email: "annotator@example.org" },
          was_cancelled: false,
          result: [{ from_name: "label", to_name: "trajectory", type: "choices", value: { choices: [bucket(pairs.get(t.data.item_id)!.human)] } }],
        },
        ...(i === 0 ? [{ id: 9999, completed_by: 8, was_cancelled: true, result: [] }] : []),
      ],
    }));
    const lsFile = path.join(tmp, "tiny", "project-1-export.json");
    fs.writeFileSync(lsFile, JSON.stringify(exportJson, null, 2));
    const human = path.join(tmp, "tiny", "human.jsonl");
    const imp = await cli(["import-annotations", lsFile, "--manifest", path.join(out, "manifest.jsonl"), "--out", human, "--json"]);
    // a two-phase sample of the tool's own design, every item labelled: the weights 1/pi sum to an estimate of N, not
    // N, which is the design working: recorded in the JSON, not warned (new user 47; src/sample/weight-sums.ts)
    expect(imp.stderr.split("\n").filter(Boolean)).toEqual([]);
    expect(JSON.parse(imp.stdout).design_weights).toMatchObject({ differs_because: ["two_phase"], fits_design: true, warned: false });
    expect(imp.code).toBe(0);
    expect(JSON.parse(imp.stdout)).toMatchObject({ labels: 15, unlabelled: 1, items_labelled: 15, labelled_by_phase: { "1": 10, "2": 5 } });

    const hl = jsonl(human);
    expect(hl).toHaveLength(15);
    for (const h of hl) {
      expect(Object.keys(h)).toEqual(expect.arrayContaining(["trajectory_id", "annotator", "label", "item_id", "stratum", "phase", "inclusion_probability", "weight"]));
      expect(h.annotator).toBe("7"); // the user id, as the id-only export form gives (test/data/cases/E11)
    }
    const judge = hl.map((h) => pairs.get(h.item_id)!.judge);
    const humanBin = hl.map((h) => (h.label === "full_compliance" || h.label === "partial_compliance" ? "comp" : "not"));
    expect(humanBin).toEqual(hl.map((h) => pairs.get(h.item_id)!.human));

    // Horvitz–Thompson weights (1/pi) from the file: the vector's w_ht estimates.
    const ht = weightedAgreement(judge, humanBin, hl.map((h) => h.weight), tiny.categories);
    const e = tiny.expected_derived;
    expect(ht.sum_weights).toBeCloseTo(frac(e.w_ht.sum_weights), 10);
    expect(ht.po.value!).toBeCloseTo(frac(e.w_ht.po.exact), 12);
    expect(ht.kappa.value!).toBeCloseTo(frac(e.w_ht.kappa.exact), 12);
    expect(ht.ac1.value!).toBeCloseTo(frac(e.w_ht.ac1.exact), 12);
    // Post-stratified weights N_h/n_h from the file's stratum and stratum_size: the vector's w_ps estimates and SEs.
    const sizes = Object.fromEntries(hl.map((h) => [h.stratum, h.stratum_size]));
    const ps = designAgreement(hl.map((h, k) => ({ judge: judge[k], human: humanBin[k], stratum: h.stratum })), sizes, tiny.categories);
    expect(ps.kappa.value!).toBeCloseTo(frac(e.w_ps.kappa.exact), 12);
    expect(ps.kappa.se!).toBeCloseTo(e.w_ps.kappa.se_linearized_fpc, 6);
    expect(ps.po.value!).toBeCloseTo(frac(e.w_ps.po.exact), 12);
    expect(ps.prevalence_human[0].value!).toBeCloseTo(frac(e.w_ps.prev_human_comp.exact), 12);

    // Re-running sample with the same seed gives byte-identical files.
    const again = path.join(tmp, "tiny", "study-again");
    expect((await cli(["sample", "--run", "tiny", "--labels-dir", labels, "--random", "10", "--disagreement", "5", "--seed", String(seed), "--out", again])).code).toBe(0);
    for (const f of fs.readdirSync(out)) expect(fs.readFileSync(path.join(again, f)).equals(fs.readFileSync(path.join(out, f)))).toBe(true);
  }, 60_000);
});

describe("sample and import-annotations on real AgentDojo runs", () => {
  let labels: string;
  beforeAll(async () => {
    labels = path.join(tmp, "real", "labels");
    const r = await cli(["label", SAMPLES, "--run", "s", "--labels-dir", labels, "--json"]);
    expect(r.code).toBe(0);
  }, 60_000);

  it("N2 = 0 works without committee verdicts; phase 2 without them is a usage error", async () => {
    const out = path.join(tmp, "real", "nocommittee");
    const r = await cli(["sample", "--run", "s", "--labels-dir", labels, "--random", "12", "--strata", "agent_model", "--seed", "3", "--out", out]);
    // 12 over 4 models: each group under estimate's 10, said at sample time (new-user report 31, L6); else at most notes
    const minWarn = /^ipi-judge: warning: by agent_model, \d+ of \d+ groups get fewer than 10 sampled attacked trajectories, the fewest estimate's default --min-sampled takes .*\n/m;
    expect(r.stderr).toMatch(minWarn);
    expect(r.stderr.replace(minWarn, "")).toMatch(/^(note: .*\n)*$/); // (tasks too long for a spreadsheet cell)
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/sampled 12 of 82 trajectories of run s \(seed 3, scale six\)/);
    expect(r.stdout).toMatch(/give annotators: tasks.jsonl, tasks.csv, label-studio.json, label-studio-config.xml, instructions.md/);
    expect(r.stdout).toMatch(/keep private: +manifest.jsonl, design.json/);
    // the strata table: counts first, the stratum's name (as long as --strata makes it) last (session 40)
    // pi is over the sampling stratum: its N and phase-1 n stand beside it (new user 47); without a committee a cell is its sampling stratum
    expect(r.stdout).toMatch(/^ {2}( +)N +n +sampling N +phase-1 n +inclusion probability {2}stratum$/m);
    const cellRows = [...r.stdout.matchAll(/^ {2} +(\d+) +(\d+) +(\d+) +(\d+) +(0\.\d{6}) {2}agent_model=\S+$/gm)];
    expect(cellRows.length).toBeGreaterThan(0);
    for (const [, N, n, Ns, n1, pi] of cellRows) {
      expect([N, n]).toEqual([Ns, n1]);
      expect(Number(pi)).toBeCloseTo(Number(n1) / Number(Ns), 6);
    }
    const m = jsonl(path.join(out, "manifest.jsonl"));
    expect(m[0].design.request.strata).toEqual(["agent_model"]);
    expect(m.slice(1).every((x) => x.phase === 1 && x.committee_stratum === null)).toBe(true);
    const e = await cli(["sample", "--run", "s", "--labels-dir", labels, "--random", "12", "--disagreement", "3", "--seed", "3", "--out", path.join(tmp, "real", "x")]);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/--disagreement 3 needs committee verdicts/);
  });

  it("a committee run: sample, fill tasks.csv, import; errors name the row and write nothing", async () => {
    const runDir = path.join(labels, "s");
    const verdicts = jsonl(path.join(runDir, "verdicts.jsonl"));
    // committee of the signature judge and a second judge that disagrees on every fourth trajectory
    const committee = verdicts.map((v, i) => committeeRow(v.trajectory_id, { signature: v.label, other: i % 4 === 0 ? "task_refusal" : v.label }));
    fs.writeFileSync(path.join(runDir, "committee.jsonl"), committee.map((c) => JSON.stringify(c)).join("\n") + "\n");
    const out = path.join(tmp, "real", "study");
    const args = ["sample", "--run", "s", "--labels-dir", labels, "--random", "16", "--disagreement", "8", "--strata", "suite", "--seed", "42", "--out", out];
    const r = await cli([...args, "--json"]);
    expect(r.code).toBe(0);
    const sum = JSON.parse(r.stdout);
    const long = jsonl(path.join(out, "tasks.jsonl")).filter((t) => t.trajectory.length > 32_767).length;
    expect(sum.long_tasks).toBe(long);
    // the hand-made committee includes a judge ("other") with no verdicts in the run: said, not silent
    const stale = r.stderr.split("\n").filter((l) => l.startsWith("ipi-judge: warning: committee.jsonl is stale"));
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatch(/judge\(s\) other, which have no verdicts/);
    // 24 over 4 suites: each under estimate's minimum, said (new-user report 31, L6)
    expect(r.stderr).toMatch(/ipi-judge: warning: by suite, \d+ of 4 groups get fewer than 10 sampled attacked trajectories/);
    // this draw leaves travel's agreement cell with one attacked and one unattacked trajectory (of 15): 2 labelled
    // items, so estimate's variance is defined (the unattacked one adds a 0) and nothing is said (stats55 finding 1;
    // before, "one sampled attacked trajectory" was warned here as if it were undefined)
    const cell = jsonl(path.join(out, "manifest.jsonl")).slice(1).filter((x) => x.stratum === "A|suite=travel");
    expect(cell.map((x) => x.stratum_size)).toEqual([15, 15]);
    expect(r.stderr).not.toMatch(/strat(um|a) of the sample hold/);
    const rest = r.stderr
      .split("\n")
      .filter((l) => l && !l.startsWith("ipi-judge: warning: committee.jsonl is stale") && !l.startsWith("ipi-judge: warning: by suite, ") && !/^ipi-judge: warning: \d+ strat/.test(l))
      .join("\n");
    if (long > 0) expect(rest + "\n").toBe(`note: ${long} task(s) are longer than 32767 characters, the cell limit of Excel and LibreOffice: label those in Label Studio or from tasks.jsonl, not by opening tasks.csv in a spreadsheet\n`);
    else expect(rest).toBe("");
    expect(sum).toMatchObject({ items: 24, phase1: 16, phase2: 8, population: 82 });
    expect(sum.cells.every((c: { stratum: string }) => /^[AD]\|suite=/.test(c.stratum))).toBe(true);

    // too large requests: exit 2 with the reason; --allow-short takes all and says so
    const big = await cli(["sample", "--run", "s", "--labels-dir", labels, "--random", "0", "--disagreement", "500", "--seed", "1", "--out", path.join(tmp, "real", "big")]);
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/--disagreement 500 asks for more than the disagreement pool holds \(\d+ trajectories/);
    const short = await cli(["sample", "--run", "s", "--labels-dir", labels, "--random", "0", "--disagreement", "500", "--seed", "1", "--allow-short", "--out", path.join(tmp, "real", "big")]);
    expect(short.code).toBe(0);
    expect(short.stderr).toMatch(/note: phase 2: asked for 500, the disagreement pool holds \d+/);
    // another seed into the same folder would lose the private manifest
    const clash = await cli([...args.slice(0, -3), "43", "--out", out]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/already holds a different sample/);

    // the annotator fills tasks.csv in a spreadsheet (every item but one), and the file comes back as is
    const csv = fs.readFileSync(path.join(out, "tasks.csv"), "utf8");
    const tasks = jsonl(path.join(out, "tasks.jsonl"));
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const filled = ["item_id,annotator,label,trajectory", ...tasks.map((t, i) => `${t.item_id},${i === 3 ? "" : "dana"},${i === 3 ? "" : ["Unaffected", "full-compliance", "not_exposed"][i % 3]},${q(t.trajectory)}`)].join("\r\n");
    expect(csv.startsWith("item_id,annotator,label,trajectory\r\n")).toBe(true);
    const filledFile = path.join(tmp, "real", "filled.csv");
    fs.writeFileSync(filledFile, filled);
    const human = path.join(tmp, "real", "human.jsonl");
    const imp = await cli(["import-annotations", filledFile, "--manifest", path.join(out, "manifest.jsonl"), "--out", human]);
    // item 3 left unlabelled: the labelled items' weights do not sum to N, and that is said (src/sample/weight-sums.ts)
    expect(imp.stderr.split("\n").filter(Boolean)).toEqual([expect.stringMatching(/^ipi-judge: warning: the rows' weight \(1\/inclusion_probability\) sums over the labelled items to .*because sampled items have no label \(nonresponse\)/)]);
    expect(imp.code).toBe(0);
    expect(imp.stdout).toMatch(/imported 23 labels from 1 annotator on 23 of 24 items \(scale six\)/);
    expect(imp.stdout).toMatch(/design-weighted label shares/);
    // the adjudication file's rows are not one more annotator (new-user report 31, L5: "from 3 annotator(s)"); a row as
    // view writes it: an adjudicator and the disagreement it settled (erin's label is not imported here: warned as changed since)
    const adjFile = path.join(tmp, "real", "adjudication.jsonl");
    fs.writeFileSync(adjFile, JSON.stringify({ item_id: tasks[0].item_id, annotator: "adjudicated", label: "unaffected", adjudicator: "lead", annotators: { dana: "unaffected", erin: "full_compliance" } }) + "\n");
    const impAdj = await cli(["import-annotations", filledFile, adjFile, "--manifest", path.join(out, "manifest.jsonl"), "--out", path.join(tmp, "real", "human-adj.jsonl")]);
    expect(impAdj.code).toBe(0);
    expect(impAdj.stdout).toMatch(/^imported 24 labels: 23 labels from 1 annotator and 1 adjudicated label \(by "lead" 1\), on 23 of 24 items \(scale six\)/);
    // what the shares are over, and that estimate --human's consensus figure is the one to report (new-user report 17)
    expect(imp.stdout).toMatch(/label shares \(w = 1\/pi\): a check of what was imported, not a rate to report: .* the human rate to report is estimate --human's/);
    expect(imp.stdout).not.toMatch(/population estimate/);
    const hl = jsonl(human);
    const manifest = new Map(jsonl(path.join(out, "manifest.jsonl")).slice(1).map((m) => [m.item_id, m]));
    for (const h of hl) {
      const m = manifest.get(h.item_id)!;
      expect(h).toMatchObject({ trajectory_id: m.trajectory_id, stratum: m.stratum, phase: m.phase, inclusion_probability: m.inclusion_probability, weight: m.weight });
    }

    // a bad file: exit 1, every problem with its row, and the previous output untouched
    const before = fs.readFileSync(human, "utf8");
    const badFile = path.join(tmp, "real", "bad.csv");
    const first = tasks[0].item_id;
    fs.writeFileSync(badFile, `item_id,annotator,label\n${first},dana,unaffected\nnope-001,dana,unaffected\n${first},dana,task_refusal\n${tasks[1].item_id},dana,hacked\n`);
    const bad = await cli(["import-annotations", badFile, "--manifest", path.join(out, "manifest.jsonl"), "--out", human]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/3 problems in the annotations; nothing was written/);
    expect(bad.stderr).toMatch(/bad.csv row 2 \(line 3\): unknown item_id "nope-001"/);
    expect(bad.stderr).toMatch(/bad.csv row 3 \(line 4\): annotator "dana" labelled item .* "task_refusal" here and "unaffected" at bad.csv row 1/);
    expect(bad.stderr).toMatch(/bad.csv row 4 \(line 5\): label "hacked" is not on the six scale/);
    expect(fs.readFileSync(human, "utf8")).toBe(before);
  }, 60_000);

  it("names the committee whose disagreements phase 2 draws from, in text, JSON and design.json (new-user pass)", async () => {
    const runDir = path.join(labels, "s");
    const verdicts = jsonl(path.join(runDir, "verdicts.jsonl"));
    const meta = { committee_judges: ["signature", "other"], excluded_judges: ["third"], quorum: 2 };
    const rows = verdicts.map((v, i) => ({ ...committeeRow(v.trajectory_id, { signature: v.label, other: i % 4 === 0 ? "task_refusal" : v.label }), ...meta }));
    fs.writeFileSync(path.join(runDir, "committee.jsonl"), rows.map((c) => JSON.stringify(c)).join("\n") + "\n");
    const base = ["sample", "--run", "s", "--labels-dir", labels, "--random", "4", "--disagreement", "2", "--seed", "5"];
    const want = { name: "committee (other, signature; quorum 2)", members: ["other", "signature"], left_out: ["third"], quorum: 2 };
    const t = await cli([...base, "--out", path.join(tmp, "real", "named-text")]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^  phase 2 \(disagreement\): 2 of \d+ left in the pool of \d+ \(trajectories where the committee \(other, signature; quorum 2\) was not unanimous\)$/m);
    const j = await cli([...base, "--out", path.join(tmp, "real", "named-json"), "--json"]);
    expect(JSON.parse(j.stdout).committee).toEqual(want);
    expect(JSON.parse(fs.readFileSync(path.join(tmp, "real", "named-json", "design.json"), "utf8")).committee).toEqual(want);
    // the --where path (objects, not columns) names it the same way
    const w = await cli([...base, "--disagreement", "1", "--where", "suite=banking,slack,travel,workspace", "--out", path.join(tmp, "real", "named-where"), "--json"]);
    expect(w.code, w.stderr).toBe(0);
    expect(JSON.parse(w.stdout).committee).toEqual(want);
    // a committee file that does not record its quorum (an older version): said, not guessed
    fs.writeFileSync(path.join(runDir, "committee.jsonl"), rows.map(({ quorum: _q, excluded_judges: _e, ...c }) => JSON.stringify(c)).join("\n") + "\n");
    const old = await cli([...base, "--out", path.join(tmp, "real", "named-old"), "--json"]);
    expect(JSON.parse(old.stdout).committee).toEqual({ name: "committee (other, signature; quorum not recorded)", members: ["other", "signature"], left_out: null, quorum: null });
    // no committee file: null, and the text says phase 2 has none
    fs.rmSync(path.join(runDir, "committee.jsonl"));
    const none = await cli([...base.slice(0, -4), "--seed", "5", "--out", path.join(tmp, "real", "named-none"), "--json"]);
    expect(JSON.parse(none.stdout).committee).toBeNull();
  }, 60_000);

  it("a cell the draw missed (inclusion probability above 0, n 0) is warned at draw time, in the JSON too; the table shows what pi is over (new user 47)", async () => {
    const runDir = path.join(labels, "s");
    const verdicts = jsonl(path.join(runDir, "verdicts.jsonl"));
    const rows = verdicts.map((v, i) => ({ ...committeeRow(v.trajectory_id, { signature: v.label, other: i % 4 === 0 ? "task_refusal" : v.label }), committee_judges: ["signature", "other"], quorum: 2 }));
    fs.writeFileSync(path.join(runDir, "committee.jsonl"), rows.map((c) => JSON.stringify(c)).join("\n") + "\n");
    const base = ["sample", "--run", "s", "--labels-dir", labels, "--random", "8", "--disagreement", "3", "--strata", "suite", "--seed", "2"];
    const j = await cli([...base, "--out", path.join(tmp, "real", "undrawn-json"), "--json"]);
    expect(j.code, j.stderr).toBe(0);
    const sum = JSON.parse(j.stdout);
    const empty = sum.cells.filter((c: { N: number; n: number; inclusion_probability: number }) => c.N > 0 && c.n === 0 && c.inclusion_probability > 0);
    expect(empty.length).toBeGreaterThan(0); // this seed leaves a cell empty (the test's premise)
    expect(sum.undrawn).toEqual(empty.map((c: { stratum: string; N: number; inclusion_probability: number }) => ({ stratum: c.stratum, N: c.N, inclusion_probability: c.inclusion_probability })));
    const warned = j.stderr.split("\n").filter((l) => / of the design got no draw \(n 0\) though /.test(l));
    expect(warned).toHaveLength(1);
    for (const c of empty) expect(warned[0]).toContain(`${c.stratum} (N ${c.N}, inclusion probability ${c.inclusion_probability.toFixed(6)})`);
    expect(warned[0]).toMatch(/no labelling can change that; draw again with coarser --strata/);
    // the table: each cell's sampling stratum's N and phase-1 n beside pi; outside D, pi = phase-1 n / sampling N
    const t = await cli([...base, "--out", path.join(tmp, "real", "undrawn-text")]);
    expect(t.stdout).toMatch(/^ {2}( +)N +n +sampling N +phase-1 n +inclusion probability {2}stratum$/m);
    expect(t.stdout).toMatch(/which the inclusion probability is over/);
    const table = [...t.stdout.matchAll(/^ {2} +(\d+) +(\d+) +(\d+) +(\d+) +(0\.\d{6}) {2}([ADU])\|(suite=\w+)$/gm)];
    expect(table.length).toBe(sum.cells.length);
    const alloc = new Map(JSON.parse(fs.readFileSync(path.join(tmp, "real", "undrawn-text", "design.json"), "utf8")).phase1.allocation.map((a: { sampling_stratum: string }) => [a.sampling_stratum, a]));
    for (const [, , , Ns, n1, pi, code, s] of table) {
      const a = alloc.get(s) as { N: number; n: number };
      expect([Number(Ns), Number(n1)]).toEqual([a.N, a.n]);
      if (code !== "D") expect(Number(pi)).toBeCloseTo(a.n / a.N, 6);
      else expect(Number(pi)).toBeGreaterThan(a.n / a.N); // phase 2's chance added
    }
  }, 60_000);

  it("usage errors exit 2; --help shows examples", async () => {
    const base = ["sample", "--run", "s", "--labels-dir", labels, "--out", path.join(tmp, "real", "u")];
    expect((await cli([...base, "--random", "5"])).code).toBe(2); // no --seed
    const bad = await cli([...base, "--random", "5", "--seed", "1", "--scale", "five"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--scale must be six or three/);
    const strata = await cli([...base, "--random", "5", "--seed", "1", "--strata", "model"]);
    expect(strata.code).toBe(2);
    expect(strata.stderr).toMatch(/unknown stratum field "model"/);
    const neg = await cli([...base, "--random", "-3", "--seed", "1"]);
    expect(neg.code).toBe(2);
    const none = await cli(["sample", "--run", "nope", "--labels-dir", labels, "--random", "5", "--seed", "1", "--out", path.join(tmp, "real", "u")]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no run "nope"/);
    const noManifest = await cli(["import-annotations", "x.csv", "--manifest", path.join(tmp, "missing.jsonl"), "--out", path.join(tmp, "h.jsonl")]);
    expect(noManifest.code).toBe(1);
    expect(noManifest.stderr).toMatch(/manifest .*missing.jsonl not found/);
    const h1 = await cli(["sample", "--help"]);
    expect(h1.code).toBe(0);
    expect(h1.stdout).toMatch(/Examples:\n  ipi-judge sample --run committee --random 119 --disagreement 100 --seed 7 --out study1/);
    const h2 = await cli(["import-annotations", "--help"]);
    expect(h2.code).toBe(0);
    expect(h2.stdout).toMatch(/Label Studio/);
  });
});
