/**
 * est53 #2 through the built CLI: `estimate --by agent_model,condition` without `--table` is like for like by default,
 * as the table (test/estimate/cut-run.ts: model M's no_defense ran attacks A and B, its D attack A alone). The
 * M / no_defense group is over its 20 runs on the cells both conditions ran (a domain estimate, recomputed here from
 * the run's files: the judge's rate there plus the mean human-minus-judge difference of the labelled ones, one stratum
 * so equal weights), the same figure as the table's row; a line says which population; `--own-mix` gives every run,
 * with the warning; `--by agent_model,metadata.defense` (the condition named in metadata) is cut alike.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CUT_RUNS, cutByHand, isCutM, writeCutRun } from "../estimate/cut-run.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-bycut-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const { human, humanOf } = writeCutRun(tmp, "cut");
// the same run with its condition in metadata.defense only (as a corpus's manifest may name it)
const { human: mHuman } = writeCutRun(tmp, "meta");
const trajFile = path.join(tmp, "meta", "trajectories.jsonl");
fs.writeFileSync(trajFile, fs.readFileSync(trajFile, "utf8").trim().split("\n").map((l) => {
  const { condition, ...r } = JSON.parse(l);
  return JSON.stringify({ ...r, metadata: { defense: condition } });
}).join("\n") + "\n");
const est = async (run: string, h: string, extra: string[]) => {
  const r = await runCli(["estimate", "--run", run, "--labels-dir", tmp, "--human", h, "--judge", "gpt", "--min-sampled", "5", ...extra], { cwd: tmp });
  expect([0, 3], r.stderr).toContain(r.code);
  return r;
};

const byHand = (keep: (k: number) => boolean): number => cutByHand(keep, humanOf);
const isM = isCutM;
type G = { group: string; n_population: number; over_cells?: { kept: number; left_out: number }; calibrated: { asr: number } };

describe("estimate --by agent_model,condition (no --table): like for like by default (est53 #2)", () => {
  it("--json: M / no_defense over its 20 shared-cell runs, by hand, as the table's row; (all) over all 80; --own-mix over its 40", async () => {
    const e = JSON.parse((await est("cut", human, ["--by", "agent_model,condition", "--json"])).stdout);
    expect(e.groups_over).toBe("like_for_like_cells");
    const g = e.groups.find((x: G) => x.group === "M / no_defense") as G;
    expect(g.n_population).toBe(20);
    expect(g.over_cells).toEqual({ kept: 20, left_out: 20 });
    expect(g.calibrated.asr).toBeCloseTo(byHand((k) => isM(k, "A")), 12);
    expect(e.groups[0].n_population).toBe(CUT_RUNS.length);
    const t = JSON.parse((await est("cut", human, ["--table", "--heuristic", "gpt", "--json"])).stdout);
    const row = t.rows.find((r: { agent_model: string; condition: string }) => r.agent_model === "M" && r.condition === "no_defense");
    expect(row.calibrated_asr_behaviour.value).toBeCloseTo(g.calibrated.asr, 12);
    // the condition warning the cut answers is gone (the groups as cut ran the same cells under each condition of M)
    expect(e.warnings.some((w: string) => w.includes(`"M": its conditions ran different`))).toBe(false);
    const own = JSON.parse((await est("cut", human, ["--by", "agent_model,condition", "--json", "--own-mix"])).stdout);
    expect(own.groups_over).toBe("own_mix");
    const og = own.groups.find((x: G) => x.group === "M / no_defense") as G;
    expect(og.n_population).toBe(40);
    expect(og.over_cells).toBeUndefined();
    expect(og.calibrated.asr).toBeCloseTo(byHand((k) => isM(k)), 12);
    expect(own.warnings.some((w: string) => w.includes(`"M": its conditions ran different attacks`))).toBe(true);
  });

  it("text: the population line, the cut group's note", async () => {
    const text = unwrapText((await est("cut", human, ["--by", "agent_model,condition"])).stdout);
    expect(text).toContain("population: like for like: each agent model's groups over its attacked runs on the (suite, user task, injection task, attack) cells all its conditions ran, as estimate --table's rows and compare --by condition pair them: 1 group cut (M / no_defense: 20 of 40; 20 runs on cells of their own left out, 20 kept), the others over all their runs; (all) over every attacked run; --own-mix gives each group over all its own runs");
    expect(text).toContain("note: over its model's shared cells (like for like, as the paper table's row): 20 attacked runs");
    const own = unwrapText((await est("cut", human, ["--by", "agent_model,condition", "--own-mix"])).stdout);
    expect(own).toContain("population: own mix (--own-mix): each group over every attacked run of its own");
    expect(own).toContain(`WARNING: NOT LIKE FOR LIKE: "M": its conditions ran different attacks`);
  });

  it("--by agent_model,metadata.defense: cut as the condition; --own-mix where there is no condition to compare is refused", async () => {
    const e = JSON.parse((await est("meta", mHuman, ["--by", "agent_model,metadata.defense", "--json"])).stdout);
    const g = e.groups.find((x: G) => x.group === "M / no_defense") as G;
    expect(g.over_cells).toEqual({ kept: 20, left_out: 20 });
    expect(g.calibrated.asr).toBeCloseTo(byHand((k) => isM(k, "A")), 12);
    for (const by of ["agent_model", "condition", "metadata.defense"]) {
      const r = await runCli(["estimate", "--run", "cut", "--labels-dir", tmp, "--human", human, "--judge", "gpt", "--by", by, "--own-mix"], { cwd: tmp });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--own-mix is an option of --table, or of --by agent_model with condition or a metadata.<key>");
    }
    // --by agent_model alone: no cut (each model pooled over its conditions, warned), no population line
    const one = JSON.parse((await est("cut", human, ["--by", "agent_model", "--json"])).stdout);
    expect(one.groups.find((x: G) => x.group === "M").n_population).toBe(60);
  });
});
