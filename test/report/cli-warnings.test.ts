/**
 * Review 16 item 4: the HTML report carries every warning `compare` prints about the figures it shows (its rates by
 * condition keep every cell, as `compare --all-cells`): models run on different task sets, conditions covering
 * different cells, utility over other suites. Over the run read as columns and as objects (`--where`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";

let dir: string;
let labels: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-report-cliw-"));
  labels = path.join(dir, "labels");
  expect((await runCli(["label", path.join(DATA, "agentdojo-defenses"), "--run", "d", "--labels-dir", labels, "--json"])).code).toBe(0);
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const reportWarnings = (file: string): string[] =>
  [...fs.readFileSync(file, "utf8").matchAll(/<div class="warn">([\s\S]*?)<\/div>/g)].map((m) =>
    m[1].replace(/<[^>]+>/g, "").replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"),
  );

describe("report carries compare's warnings over the same figures", () => {
  for (const where of [[], ["--where", "suite=banking,slack,travel,workspace"]]) {
    it(`every warning of compare --all-cells is in the report${where.length ? " (--where: the object path)" : ""}`, async () => {
      const cmp = await runCli(["compare", "--run", "d", "--labels-dir", labels, "--all-cells", "--bootstrap", "0", "--json", ...where]);
      expect(cmp.code).toBe(0);
      const cw: string[] = JSON.parse(cmp.stdout).warnings.filter((w: string) => !w.startsWith("where:"));
      expect(cw.some((w) => w.startsWith("the agent models were run on different task sets"))).toBe(true);
      const out = path.join(dir, `r${where.length}.html`);
      expect((await runCli(["report", "--run", "d", "--labels-dir", labels, "--out", out, ...where])).code).toBe(0);
      const rw = reportWarnings(out);
      for (const w of cw) expect(rw.some((r) => r.includes(w.replace(/^--all-cells: /, ""))), w).toBe(true);
      // the copies are named for the command whose counts they are: compare --all-cells (review 17 item 2)
      for (const r of rw.filter((x) => x.startsWith("compare --by"))) expect(r).toMatch(/^compare --by \w+ --all-cells: /);
    }, 60_000);
  }
});

describe("report says which trajectories its rates are over, and where compare's default prints other figures (review 17 item 2)", () => {
  const SLICE = path.join(DATA, "like-for-like", "runs");
  /** Attacked trajectories per `model|condition` of a compare --json result (its rows pooled over suites). */
  const attackedOf = (r: { asr: Array<{ model: string; suite: string; condition: string; attacked: number }> }) =>
    new Map(r.asr.filter((a) => a.suite === null).map((a) => [`${a.model}|${a.condition}`, a.attacked]));
  it("names each model and condition compare counts otherwise, with both counts, at the top and at the rates", async () => {
    expect((await runCli(["label", SLICE, "--run", "l", "--labels-dir", labels, "--json"])).code).toBe(0);
    const cmd = ["compare", "--run", "l", "--labels-dir", labels, "--bootstrap", "0", "--json"];
    const like = JSON.parse((await runCli(cmd)).stdout);
    const all = JSON.parse((await runCli([...cmd, "--all-cells"])).stdout);
    const out = path.join(dir, "l.html");
    expect((await runCli(["report", "--run", "l", "--labels-dir", labels, "--out", out])).code).toBe(0);
    const notes = reportWarnings(out).filter((w) => w.startsWith("Rates over every cell: this report's rates by condition"));
    expect(notes.length).toBe(3); // the top, the table per agent model and condition, the section by condition
    const note = notes[0];
    expect(note).toContain("are over every attacked trajectory of each row, as compare --by condition --all-cells prints them; the charts by condition and the paper table are like for like instead");
    const [nLike, nAll] = [attackedOf(like), attackedOf(all)];
    let named = 0;
    // compare's rows: each model on the cells common to its own conditions (cells.per_model, session 29)
    for (const [model, pm] of Object.entries(like.cells.per_model as Record<string, { dropped: Record<string, { trajectories: number; of: number }> }>))
      for (const [cond, x] of Object.entries(pm.dropped)) {
        // the note's two counts are those the two commands print
        expect(nAll.get(`${model}|${cond}`)).toBe(x.of);
        expect(nLike.get(`${model}|${cond}`)).toBe(x.of - x.trajectories);
        expect(note).toContain(`${model} under condition ${cond}: ${x.of} attacked trajectories in the per-model table, ${x.of - x.trajectories} in the charts, the paper table and compare (${x.trajectories} in cells another condition of the model lacks)`);
        named++;
      }
    expect(named).toBe(3);
    // one condition: nothing to compare like for like, no note for it
    const same = path.join(dir, "same.html");
    expect((await runCli(["report", "--run", "l", "--labels-dir", labels, "--out", same, "--where", "condition=no_defense"])).code).toBe(0);
    expect(reportWarnings(same).some((w) => w.startsWith("Rates over every cell: this report's rates by condition"))).toBe(false);
  }, 60_000);
});
