/**
 * Session 52 (est52 #3): with `--human`, a paper-table row that the like-for-like cells cut had no calibrated cell (the
 * estimate was over every attacked run of its model and condition). The groups are now cut alike
 * (src/estimate/group-cells.ts): the row's calibrated cell is a domain estimate over the row's own runs, recomputed
 * here by hand; the `(all)` row stays over every run and says it is not over the rows' cells.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { paperTable, formatTable } from "../../src/estimate/table.js";
import { estimateFromData } from "../../src/estimate/run.js";
import { withCalibratedAll } from "../../src/estimate/table-all.js";
import { readHumanLabels } from "../../src/agree/human-file.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { CUT_RUNS, LABELLED, writeCutRun } from "./cut-run.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cut-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const src = { kind: "judge" as const, judge_id: "gpt" };

describe("estimate --table --human: a row the shared cells cut gets its calibrated cell over its own runs (est52 #3)", async () => {
  const { dir, human, humanOf } = writeCutRun(tmp, "cut");
  const { index, verdicts } = await readLeanRun(dir, { content: true });
  const file = readHumanLabels(human);
  const est = (likeForLikeCells: boolean) =>
    estimateFromData(index, verdicts, file, { run: "cut", humanFile: human, source: src, by: ["agent_model", "condition"], minSampled: 5, likeForLikeCells });

  it("M | no_defense: the domain estimate over its 20 A runs, by hand: judge rate there + mean (human - judge) of its labelled items", () => {
    const e = est(true);
    expect(e.groups_over).toBe("like_for_like_cells");
    const g = e.groups.find((x) => x.group === "M / no_defense")!;
    expect(g.n_population).toBe(20);
    expect(g.over_cells).toEqual({ kept: 20, left_out: 20 });
    const dom = CUT_RUNS.map((r, k) => ({ r, k })).filter(({ r }) => r.model === "M" && r.condition === "no_defense" && r.attack === "A");
    const judge = dom.filter(({ r }) => r.full).length / dom.length;
    const lab = dom.filter(({ k }) => LABELLED.includes(k));
    const d = lab.reduce((s, { r, k }) => s + (humanOf(k) ? 1 : 0) - (r.full ? 1 : 0), 0) / lab.length; // one stratum: equal weights
    expect(g.n_sampled).toBe(10);
    expect(g.calibrated.asr).toBeCloseTo(judge + d, 12);
    expect(g.warnings[0]).toMatch(/^over its model's shared cells \(like for like, as the paper table's row\): 20 attacked runs .* 20 on cells of its own left out; its human and calibrated figures are domain estimates/);
    // (all) is never cut
    expect(e.groups[0].n_population).toBe(CUT_RUNS.length);
    expect(e.groups[0].over_cells).toBeUndefined();
    // without the option: every run of the group, as before
    expect(est(false).groups.find((x) => x.group === "M / no_defense")!.n_population).toBe(40);
  });

  it("the table: the cut row's cell is that estimate, said in the notes; without the cut groups it has none; (all) says what it is over", async () => {
    const e = est(true);
    const t = withCalibratedAll(paperTable("cut", index, verdicts, src, { calibrated: e }), e);
    const row = t.rows.find((r) => r.agent_model === "M" && r.condition === "no_defense")!;
    expect(row.n_attacked).toBe(20);
    expect(row.calibrated_asr_behaviour!.value).toBeCloseTo(e.groups.find((x) => x.group === "M / no_defense")!.calibrated.asr!, 12);
    expect(t.notes.some((n) => n.startsWith("calibrated cells of the rows the like-for-like cells cut (M | no_defense: n 20, 20 left out): over the row's own n runs"))).toBe(true);
    const text = unwrapText(formatTable(t));
    expect(text).toContain(`(all): the calibrated estimate over all ${CUT_RUNS.length} attacked trajectories of the rows' agent models and conditions, every run of theirs: not the like-for-like cells the rows above are over (their n sum to 60; 20 runs on cells of their own left out there)`);
    const old = paperTable("cut", index, verdicts, src, { calibrated: est(false) });
    expect(old.rows.find((r) => r.agent_model === "M" && r.condition === "no_defense")!.calibrated_asr_behaviour).toMatchObject({ value: null, reason: "calibrated_over_all_runs_not_like_for_like_cells" });
  });
});
