/**
 * Session 52 (est52 #3) through the built CLI: `estimate --table --human` on a run whose like-for-like cells cut a row
 * (test/estimate/cut-run.ts: model M's no_defense ran attacks A and B, its D attack A alone). The cut row's calibrated
 * cell is a domain estimate over its own 20 runs (recomputed here from the run's files: the judge's rate over them
 * plus the mean human-minus-judge difference of the labelled ones, one stratum so equal weights); `--own-mix` gives the
 * row over its 40 runs and the estimate over the same 40; the `(all)` row says it is over every run, in the text,
 * the LaTeX comment lines and the report's page.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CUT_RUNS, cutByHand, isCutM, writeCutRun } from "../estimate/cut-run.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cutcli-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const { human, humanOf } = writeCutRun(tmp, "cut");
const args = ["--run", "cut", "--labels-dir", tmp, "--human", human, "--judge", "gpt", "--min-sampled", "5"];
const table = async (extra: string[] = []) => {
  const r = await runCli(["estimate", ...args, "--table", "--heuristic", "gpt", ...extra], { cwd: tmp });
  expect([0, 3], r.stderr).toContain(r.code);
  return r;
};

const byHand = (keep: (k: number) => boolean): number => cutByHand(keep, humanOf);
const isM = isCutM;

describe("estimate --table --human: the cut row's calibrated cell over its own runs (est52 #3)", () => {
  it("--json: M | no_defense over its 20 shared-cell runs, by hand; --own-mix over its 40", async () => {
    const t = JSON.parse((await table(["--json"])).stdout);
    const row = t.rows.find((r: { agent_model: string; condition: string }) => r.agent_model === "M" && r.condition === "no_defense");
    expect([row.n_attacked, row.n_attacked_left_out]).toEqual([20, 20]);
    expect(row.calibrated_asr_behaviour.value).toBeCloseTo(byHand((k) => isM(k, "A")), 12);
    expect(t.notes.some((n: string) => n.startsWith("calibrated cells of the rows the like-for-like cells cut (M | no_defense: n 20, 20 left out)"))).toBe(true);
    expect(t.calibrated_all.rows_left_out).toBe(20);
    const own = JSON.parse((await table(["--json", "--own-mix"])).stdout);
    const ownRow = own.rows.find((r: { agent_model: string; condition: string }) => r.agent_model === "M" && r.condition === "no_defense");
    expect(ownRow.n_attacked).toBe(40);
    expect(ownRow.calibrated_asr_behaviour.value).toBeCloseTo(byHand((k) => isM(k)), 12);
    expect(own.calibrated_all.rows_left_out).toBe(0);
  });

  it("text and LaTeX: the (all) row says it is over every run, not the rows' cells", async () => {
    const text = unwrapText((await table()).stdout);
    expect(text).toContain(`(all): the calibrated estimate over all ${CUT_RUNS.length} attacked trajectories of the rows' agent models and conditions, every run of theirs: not the like-for-like cells the rows above are over (their n sum to 60; 20 runs on cells of their own left out there)`);
    await table(["--latex", "t.tex"]);
    expect(fs.readFileSync(path.join(tmp, "t.tex"), "utf8")).toContain("% (all): the calibrated estimate over all 80 attacked trajectories of the rows' agent models and conditions");
  });

  it("the report's page: the cut row has its cell, and (all) says what it is over", async () => {
    const r = await runCli(["report", "--run", "cut", "--labels-dir", tmp, "--human", human, "--out", "r.html", "--bootstrap", "0"], { cwd: tmp });
    expect([0, 3], r.stderr).toContain(r.code);
    const html = fs.readFileSync(path.join(tmp, "r.html"), "utf8");
    expect(html).toContain("the calibrated estimate over <bdi>all 80 attacked trajectories of the rows&#39; agent models and conditions, every run of theirs");
    expect(html).not.toContain("over every attacked run of the row (the human sample");
  });
});
