/**
 * compare's differences from the baseline (src/compare/baseline-diff.ts): paired by cell when each cell ran once
 * under both conditions (Newcombe's paired interval over the cells labelled under both, exact McNemar on the
 * discordant ones), unpaired and said so otherwise, null with a reason when no labelled cell is shared; then the
 * CLI on the like-for-like fixture (three conditions of gpt-4o on slack cells).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baselineDifference, baselineDifferences, differenceItems, type DifferenceItem } from "../../src/compare/baseline-diff.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { differenceText, baselineDifferenceLines, blockedDifferenceText } from "../../src/compare/baseline-diff-text.js";
import type { AsrCell } from "../../src/compare/analysis.js";
import { newcombePaired } from "../../src/stats/newcombe-paired.js";
import { newcombeUnpaired } from "../../src/stats/newcombe-unpaired.js";
import { mcnemarExact } from "../../src/stats/mcnemar-exact.js";
import { runCli } from "../helpers/cli.js";
import { compareConditions, formatCompare } from "../../src/compare/index.js";
import { compareRowsCsv } from "../../src/compare/rows-csv.js";
import type { Observation, UnlabelledItem } from "../../src/compare/data.js";
import { unwrapText } from "../../src/format/wrap-text.js";

/** n cells `c0..` under one condition, events on those listed. */
const runs = (condition: string, n: number, events: (i: number) => boolean, model = "m"): DifferenceItem[] =>
  Array.from({ length: n }, (_, i) => ({ model, condition, cell: `c${i}`, event: events(i) }));

describe("baselineDifference", () => {
  it("pairs by cell: the 2x2 table, Newcombe's paired interval and the exact McNemar p", () => {
    // cells 0-9 event under both, 10-39 condition only... : both 10, condition only 5 (10-14), baseline only 12 (15-26), neither 13
    const cond = runs("d", 40, (i) => i < 15);
    const base = runs("b", 40, (i) => i < 10 || (i >= 15 && i < 27));
    const d = baselineDifference("m", "d", "b", "asr_goal", cond, base);
    expect(d.paired).toBe(true);
    expect(d.pairs).toMatchObject({ n: 40, both: 10, condition_only: 5, baseline_only: 12, neither: 13, unpaired_left_out: { condition: 0, baseline: 0 } });
    const ref = newcombePaired({ both: 10, first_only: 5, second_only: 12, neither: 13 });
    expect(d.difference).toBeCloseTo(-7 / 40, 12);
    expect(d.ci95).toEqual({ lower: ref.lower, upper: ref.upper, method: "newcombe_paired_hybrid_score" });
    expect(d.mcnemar_p).toBe(mcnemarExact(5, 12).p);
    expect(d.condition_rate).toEqual({ count: 15, n: 40 });
    expect(d.baseline_rate).toEqual({ count: 22, n: 40 });
    expect(differenceText(d)).toMatch(/^asr_goal -17\.5 pp \[-\d+\.\d, [+-]\d+\.\d\] \(37\.5% vs 55\.0%, paired over 40 cells: 5 vs 12 discordant, exact McNemar p = 0\.\d{3}\)$/);
  });

  it("leaves out, and counts, the runs whose cell has no label under the other condition", () => {
    const d = baselineDifference("m", "d", "b", "asr_behaviour", runs("d", 10, (i) => i < 3), runs("b", 8, (i) => i < 5));
    expect(d.pairs).toMatchObject({ n: 8, unpaired_left_out: { condition: 2, baseline: 0 } });
    expect(differenceText(d)).toContain("left out, no label of the cell under the other: 2 + 0");
  });

  it("says of each left-out cell whether the other side never ran it or ran it with no usable label (break50 4)", () => {
    // d labels c0-c9, b labels c0-c7 and ran c8 without a usable label; b labels c10, which d never ran
    const base = [...runs("b", 8, (i) => i < 5), { model: "m", condition: "b", cell: "c10", event: false }];
    const d = baselineDifference("m", "d", "b", "asr_goal", runs("d", 10, (i) => i < 3), base, undefined, { condition: new Set(), baseline: new Set(["c8"]) });
    expect(d.pairs).toMatchObject({ n: 8, unpaired_left_out: { condition: 2, baseline: 1 }, unpaired_unlabelled_there: { condition: 1, baseline: 0 } });
    expect(differenceText(d)).toContain("left out, no run of the cell under the other: 1 + 1; run under the other but with no usable label there: 1 + 0)");
    // every left-out cell never run under the other: only that is said
    const all = baselineDifference("m", "d", "b", "asr_goal", runs("d", 10, (i) => i < 3), runs("b", 8, (i) => i < 5), undefined, { condition: new Set(), baseline: new Set() });
    expect(differenceText(all)).toContain("left out, no run of the cell under the other: 2 + 0)");
    expect(differenceText(all)).not.toContain("no usable label");
    // baselineDifferences gives the unlabelled runs' cells to the ASR rates only
    const items = { asr_goal: [...runs("d", 10, (i) => i < 3), ...base], utility_under_attack: [...runs("d", 10, (i) => i < 3), ...base] };
    const ds = baselineDifferences(items, { m: ["b", "d"] }, "b", undefined, [{ model: "m", condition: "b", cell: "c8" }]);
    expect(ds.find((x) => x.rate === "asr_goal")!.pairs!.unpaired_unlabelled_there).toEqual({ condition: 1, baseline: 0 });
    const u = ds.find((x) => x.rate === "utility_under_attack")!;
    expect(u.pairs!.unpaired_unlabelled_there).toBeUndefined();
    expect(differenceText(u)).toContain("left out, no utility verdict of the cell under the other: 2 + 1)");
  });

  it("counts the cells both ran with a label under neither, and marks pairs over under 80% of the cells both ran (newuser52 6)", () => {
    // d labels c0-c7; b labels c0-c5 and ran c6, c7 unlabelled; both ran c8, c9 with no usable label on either side
    const un = { condition: new Set(["c8", "c9"]), baseline: new Set(["c6", "c7", "c8", "c9"]) };
    const d = baselineDifference("m", "d", "b", "asr_goal", runs("d", 8, (i) => i < 3), runs("b", 6, (i) => i < 5), undefined, un);
    expect(d.pairs).toMatchObject({ n: 6, unpaired_unlabelled_there: { condition: 2, baseline: 0 }, unlabelled_under_both: 2, pair_coverage: 0.6, pair_coverage_low: true });
    // 6 + 2 + 0 + 2 = the 10 cells both ran: every one is counted somewhere on the line
    expect(differenceText(d)).toContain("run under the other but with no usable label there: 2 + 0; 2 run under both with a usable label under neither; paired over 6 of the 10 cells both ran (60.0%) [coverage_low])");
    // at 80% or more: no mark; no cell unlabelled on both sides: nothing said of it
    const ok = baselineDifference("m", "d", "b", "asr_goal", runs("d", 8, (i) => i < 3), runs("b", 8, (i) => i < 5), undefined, { condition: new Set(), baseline: new Set() });
    expect(ok.pairs).toMatchObject({ unlabelled_under_both: 0, pair_coverage: 1, pair_coverage_low: false });
    expect(differenceText(ok)).not.toMatch(/coverage_low|under neither/);
    // utility (no unlabelled sets): no coverage fields
    expect(baselineDifference("m", "d", "b", "utility_under_attack", runs("d", 8, (i) => i < 3), runs("b", 6, (i) => i < 5)).pairs!.pair_coverage).toBeUndefined();
  });

  it("is unpaired, and says why, when a cell ran several times or has no task ids", () => {
    const twice = [...runs("d", 10, (i) => i < 3), { model: "m", condition: "d", cell: "c0", event: true }];
    const d = baselineDifference("m", "d", "b", "asr_goal", twice, runs("b", 10, (i) => i < 6));
    expect(d).toMatchObject({ paired: false, unpaired_reason: "several runs of one cell under a condition", condition_rate: { count: 4, n: 11 }, baseline_rate: { count: 6, n: 10 } });
    const ref = newcombeUnpaired(4, 11, 6, 10);
    expect(d.ci95).toEqual({ lower: ref.lower, upper: ref.upper, method: "newcombe_unpaired_hybrid_score" });
    expect(d.mcnemar_p).toBeUndefined();
    const weighted = baselineDifference("m", "d", "b", "asr_goal", [{ model: "m", condition: "d", cell: "c0", event: true, weight: 2 }], runs("b", 2, () => false));
    expect(weighted.paired).toBe(false);
    const noIds = baselineDifference("m", "d", "b", "asr_goal", [{ model: "m", condition: "d", event: true }], runs("b", 2, () => false));
    expect(noIds).toMatchObject({ paired: false, unpaired_reason: "cells unknown (runs without user or injection task ids)" });
    expect(differenceText(noIds)).toContain("unpaired (cells unknown");
  });

  it("undefined is not zero: no shared labelled cell, or no run on one side, is null with a reason", () => {
    const apart = baselineDifference("m", "d", "b", "asr_goal", runs("d", 3, () => false), [{ model: "m", condition: "b", cell: "x", event: false }]);
    expect(apart).toMatchObject({ difference: null, ci95: null, paired: true });
    expect(apart.reason).toMatch(/^no_shared_labelled_cell: 3 cells labelled under d, 1 under b, none under both$/);
    expect(differenceText(apart)).toMatch(/^asr_goal undefined \(/);
    const empty = baselineDifference("m", "d", "b", "utility_under_attack", [], runs("b", 3, () => true));
    expect(empty).toMatchObject({ difference: null, reason: "no_run_with_a_utility_verdict_under d" });
    // the same cells with no discordant one: an interval, and McNemar undefined (nothing to test), never p = 1 by default
    const same = baselineDifference("m", "d", "b", "asr_goal", runs("d", 5, (i) => i < 2), runs("b", 5, (i) => i < 2));
    expect(same).toMatchObject({ difference: 0, mcnemar_p: null, mcnemar_reason: "no_discordant_pairs" });
  });

  it("gives every model's other conditions against its own baseline, and none for a model not run under it", () => {
    const items = { asr_goal: [...runs("b", 4, () => true), ...runs("d", 4, () => false), ...runs("d", 4, () => false, "other")] };
    const ds = baselineDifferences(items, { m: ["b", "d"], other: ["d"] }, "b");
    expect(ds.map((d) => [d.model, d.condition, d.rate])).toEqual([["m", "d", "asr_goal"]]);
    expect(ds[0].difference).toBe(-1);
    const lines = baselineDifferenceLines(ds, "b", "condition", 5, 5, { m: ["b", "d"], other: ["d"] });
    expect(lines[1]).toMatch(/^difference from the baseline b, same model \(condition − baseline/);
    expect(lines.at(-1)).toBe("  (no difference from the baseline for other: not run under b)");
  });
});

describe("asr_behaviour's difference says the blocked attempts it counts (newuser48: Progent read -2.5 pp while 71 of its 81 compromised runs were refused calls)", () => {
  const ds = baselineDifferences({ asr_goal: [...runs("b", 10, (i) => i < 4), ...runs("d", 10, () => false)], asr_behaviour: [...runs("b", 10, (i) => i < 5), ...runs("d", 10, (i) => i < 4)] }, { m: ["b", "d"] }, "b");
  const cell = (condition: string, compromised: number, blocked: number | null) =>
    ({ model: "m", suite: null, condition, asr_behaviour: { count: compromised, n: 10 }, blocked_attempts: blocked }) as unknown as AsrCell;

  it("on the asr_behaviour difference only, with both rows' counts", () => {
    const line = baselineDifferenceLines(ds, "b", "condition", 2, 2, { m: ["b", "d"] }, [cell("b", 5, 0), cell("d", 4, 3)])[2];
    expect(line).toContain("exact McNemar p = 1.000); blocked attempts: 3 of d's 4 compromised, 0 of b's 5 (rows above)");
    expect(line.match(/blocked attempts/g)).toHaveLength(1);
    const behaviour = ds.find((d) => d.rate === "asr_behaviour")!;
    expect(blockedDifferenceText(behaviour, [cell("b", 5, null), cell("d", 4, 0)])).toBe("; blocked attempts: 0 of d's 4 compromised, unknown of b's 5 (rows above)");
  });

  it("says nothing when neither row has a blocked attempt, or a row is not there", () => {
    const behaviour = ds.find((d) => d.rate === "asr_behaviour")!;
    expect(blockedDifferenceText(behaviour, [cell("b", 5, 0), cell("d", 4, 0)])).toBe("");
    expect(blockedDifferenceText(behaviour, [cell("d", 4, 3)])).toBe("");
    expect(baselineDifferenceLines(ds, "b", "condition", 2, 2, { m: ["b", "d"] }).join("\n")).not.toContain("blocked attempts");
  });
});

describe("differenceItems: compared by another field than the defense (--by attack, --by surface)", () => {
  // break42: with --by attack a model's rows pool the defenses it ran under; the baseline attack ran under two
  // defenses, the other attack under one, so every cell held two baseline runs and the difference was "unpaired"
  // between a no_defense attack and a pool of defended and undefended runs. A cell is the same defense too.
  const obs = (attack: string, defense: string, i: number, goal: boolean): Observation => ({
    trajectory_id: `${defense}/${attack}/${i}`, model: "m", suite: "s", condition: attack, defense, injection_task: "s/i", unit: `s/u${i}/i`,
    cell: `s\u0000u${i}\u0000i`, goal, compromised: goal,
  });
  it("pairs each run with the baseline's run of the same cell under the same defense", () => {
    const xs = [
      ...Array.from({ length: 10 }, (_, i) => obs("ii", "no_defense", i, i < 8)),
      ...Array.from({ length: 10 }, (_, i) => obs("ii", "tool_filter", i, false)),
      ...Array.from({ length: 10 }, (_, i) => obs("tk", "no_defense", i, i < 2)),
    ];
    const [d] = baselineDifferences({ asr_goal: differenceItems(xs, null, "attack").asr_goal }, { m: ["ii", "tk"] }, "ii");
    expect(d).toMatchObject({ condition: "tk", paired: true, difference: -0.6, pairs: { n: 10, both: 2, condition_only: 0, baseline_only: 6, unpaired_left_out: { condition: 0, baseline: 10 } } });
    expect(d.baseline_rate).toEqual({ count: 8, n: 10 });
  });
  it("the utility runs too: attacked by cell and defense, unattacked by (suite, user task) and defense", () => {
    const row = (attack: string | undefined, condition: string, i: number, utility: boolean): TrajectoryIndexRow =>
      ({ id: `${condition}/${attack}/${i}`, agent_model: "m", suite: "s", user_task_id: `u${i}`, ...(attack ? { attack, injection_task_id: "i", attacked: true } : { attacked: false }), condition, reference: { utility } }) as TrajectoryIndexRow;
    const rows = [
      ...Array.from({ length: 6 }, (_, i) => row("ii", "no_defense", i, true)),
      ...Array.from({ length: 6 }, (_, i) => row("ii", "tool_filter", i, false)),
      ...Array.from({ length: 6 }, (_, i) => row("tk", "no_defense", i, i < 3)),
    ];
    const items = differenceItems([], rows, "attack");
    const [d] = baselineDifferences({ utility_under_attack: items.utility_under_attack }, { m: ["ii", "tk"] }, "ii");
    expect(d).toMatchObject({ paired: true, difference: -0.5, pairs: { n: 6, unpaired_left_out: { condition: 0, baseline: 6 } } });
  });
  it("utility without attack by attack or surface: one reason (an unattacked run has neither), said once in the text, not at the end of every line", () => {
    // break42: every --by attack line ended "utility without attack undefined (no_run_with_a_utility_verdict_under X)",
    // true of every attack, and read as if the runs were missing
    const row = (attack: string | undefined, i: number, utility: boolean): TrajectoryIndexRow =>
      ({ id: `${attack}/${i}`, agent_model: "m", suite: "s", user_task_id: `u${i}`, ...(attack ? { attack, injection_task_id: "i", attacked: true, surface: attack === "ii" ? "tool_output" : "tool_description" } : { attacked: false }), condition: "no_defense", reference: { utility } }) as TrajectoryIndexRow;
    const rows = [...[0, 1, 2, 3].map((i) => row("ii", i, i < 2)), ...[0, 1, 2, 3].map((i) => row("tk", i, i < 3)), ...[0, 1, 2, 3].map((i) => row(undefined, i, true))];
    for (const [field, cond, base] of [["attack", "tk", "ii"], ["surface", "tool_description", "tool_output"]] as const) {
      const items = differenceItems([], rows, field);
      const ds = baselineDifferences(items, { m: [base, cond] }, base, field);
      expect(ds.map((d) => [d.rate, d.difference === null ? null : "defined", d.reason ?? null]), field).toEqual([
        ["utility_under_attack", "defined", null],
        ["utility_without_attack", null, `unattacked_runs_have_no_${field}`],
      ]);
      const lines = baselineDifferenceLines(ds, base, field, 4, 20);
      expect(lines[1], field).toContain(`; utility without attack has no difference by ${field}: an unattacked run has no ${field} (unattacked_runs_have_no_${field}; each model's utility without attack is its own line above):`);
      expect(lines.slice(2).join("\n"), field).not.toContain("utility without attack");
      expect(lines.slice(2), field).toHaveLength(1);
    }
    // by condition the unattacked runs have one: the difference is given, or undefined for its own reason, per line
    const byCondition = baselineDifferences(differenceItems([], rows, "condition"), { m: ["no_defense", "x"] }, "no_defense", "condition");
    expect(byCondition.find((d) => d.rate === "utility_without_attack")?.reason).toBe("no_run_with_a_utility_verdict_under x");
    expect(baselineDifferenceLines(byCondition, "no_defense", "condition", 4, 20).join("\n")).toContain("utility without attack undefined (no_run_with_a_utility_verdict_under x)");
  });
});

describe("a model run under the baseline whose runs there have no usable label", () => {
  // break42: gpt-5-mini's 360 attacked no_defense runs all judge errors read "(no difference from the baseline for
  // gpt-5-mini: not run under no_defense)" and, in --csv, model_not_under_baseline: it was run there
  it("gives its differences as undefined for want of a label there, never 'not run under' the baseline", () => {
    const o = (model: string, condition: string, i: number, goal: boolean): Observation => ({
      trajectory_id: `${model}/${condition}/${i}`, model, suite: "s", condition, injection_task: "s/i", unit: `s/u${i}/i`, cell: `s\u0000u${i}\u0000i\u0000a`, goal, compromised: goal, attack: "a",
    });
    const u = (model: string, condition: string, i: number): UnlabelledItem => ({ model, suite: "s", condition, attack: "a", cell: `s\u0000u${i}\u0000i\u0000a`, unit: `s/u${i}/i`, reason: "http" });
    const obs = [...Array.from({ length: 6 }, (_, i) => o("m", "d", i, i < 2)), ...Array.from({ length: 6 }, (_, i) => o("k", "b", i, i < 3)), ...Array.from({ length: 6 }, (_, i) => o("k", "d", i, false))];
    const unlabelled = Array.from({ length: 6 }, (_, i) => u("m", "b", i));
    const r = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, unlabelled, n_total: 18, excluded: {} }, { bootstrap: { B: 0, seed: 1 }, baseline: "b" });
    const mine = r.baseline_differences.filter((d) => d.model === "m");
    expect(mine.map((d) => [d.condition, d.rate, d.difference, d.reason])).toEqual([
      ["d", "asr_goal", null, "no_labelled_run_under b"],
      ["d", "asr_behaviour", null, "no_labelled_run_under b"],
    ]);
    const text = formatCompare(r);
    expect(text).not.toContain("not run under b");
    expect(text).toMatch(/^ {2}m +d +asr_goal undefined \(no_labelled_run_under b\)/m);
    expect(compareRowsCsv(r)).not.toContain("model_not_under_baseline");
  });
});

describe("compare CLI: baseline_differences", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-diff-"));
    const r = await runCli(["label", "test/data/like-for-like/runs", "--judge", "signature", "--run", "l", "--labels-dir", tmp, "--progress", "off"]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("--json, text and --csv give each condition's difference from the baseline, paired over the shared cells", async () => {
    const csv = path.join(tmp, "rows.csv");
    const j = await runCli(["compare", "--run", "l", "--labels-dir", tmp, "--by", "condition", "--bootstrap", "0", "--json", "--csv", csv]);
    expect(j.code, j.stderr).toBe(0);
    const res = JSON.parse(j.stdout);
    const diffs = res.baseline_differences as Array<Record<string, unknown>>;
    expect(diffs.length).toBeGreaterThan(0);
    for (const d of diffs) {
      expect(d.baseline).toBe(res.baseline);
      expect(d.condition).not.toBe(res.baseline);
      if (d.difference !== null) expect(d).toHaveProperty("ci95.method");
      else expect(typeof d.reason).toBe("string");
    }
    const goal = diffs.find((d) => d.rate === "asr_goal" && d.difference !== null)!;
    expect(goal.paired).toBe(true);
    expect((goal.pairs as { n: number }).n).toBeGreaterThan(0);
    const t = await runCli(["compare", "--run", "l", "--labels-dir", tmp, "--by", "condition", "--bootstrap", "0"]);
    expect(t.code, t.stderr).toBe(0);
    expect(unwrapText(t.stdout)).toContain(`difference from the baseline ${res.baseline}, same model`);
    expect(unwrapText(t.stdout)).toMatch(/asr_goal [+-]?\d+\.\d pp \[/);
    const head = fs.readFileSync(csv, "utf8").split("\n")[0].split(",");
    expect(head).toContain("asr_goal_vs_baseline_mcnemar_p");
    expect(head.slice(-2)).toEqual(["judge_caveat", "notes"]); // the warnings the text prints, as the table CSV's notes
  });
});

// issue 26: the utility items were one object per run (a million at 1M); they are one per distinct (model,
// condition, event, cell) with its count as `weight`, and the differences are those of the runs one by one.
describe("differenceItems: utility runs folded by (model, condition, event, cell), the differences unchanged (issue 26)", () => {
  const row = (condition: string, u: string, utility: boolean, attacked: boolean): TrajectoryIndexRow =>
    ({ id: `${condition}${u}${utility}${attacked}${Math.random()}`, agent_model: "m", condition, suite: "s", user_task_id: u, attacked, ...(attacked ? { attack: "a", injection_task_id: "i" } : {}), reference: { utility }, content_sha256: "h", source: { format: "t", path: "p" }, n_messages: 2 }) as TrajectoryIndexRow;
  const rows = [
    ...Array.from({ length: 5 }, () => row("b", "u1", true, false)), row("b", "u2", false, false), row("b", "u2", false, false),
    ...Array.from({ length: 3 }, () => row("d", "u1", false, false)), row("d", "u2", true, false),
    row("b", "u1", true, true), row("b", "u1", true, true), row("d", "u1", false, true),
  ];
  it("one item per distinct key with its count, the same differences as one item per run", () => {
    const items = differenceItems([], rows, "condition");
    expect(items.utility_without_attack).toEqual([
      { model: "m", condition: "b", event: true, cell: "s\u0000u1", weight: 5 },
      { model: "m", condition: "b", event: false, cell: "s\u0000u2", weight: 2 },
      { model: "m", condition: "d", event: false, cell: "s\u0000u1", weight: 3 },
      { model: "m", condition: "d", event: true, cell: "s\u0000u2" },
    ]);
    expect(items.utility_under_attack!.map((x) => x.weight ?? 1)).toEqual([2, 1]);
    const perRun = (xs: readonly DifferenceItem[]) => xs.flatMap((x) => Array.from({ length: x.weight ?? 1 }, () => ({ ...x, weight: undefined })));
    const unfolded = { utility_without_attack: perRun(items.utility_without_attack!), utility_under_attack: perRun(items.utility_under_attack!) };
    expect(unfolded.utility_without_attack).toHaveLength(11);
    expect(baselineDifferences(items, { m: ["b", "d"] }, "b")).toEqual(baselineDifferences(unfolded, { m: ["b", "d"] }, "b"));
  });
});

// break53 #6: compared by a metadata key whose values decide the defense, pairing "under its own defense" never pairs
describe("defenseFollowsValue: the models whose defense follows from the compared value (break53 #6)", () => {
  it("a defense under one compared value only: the model pairs by the cells the values define", async () => {
    const { defenseFollowsValue } = await import("../../src/compare/baseline-diff.js");
    const xs = [
      { model: "a", condition: "scale", defense: "no_defense" },
      { model: "a", condition: "defenses", defense: "tool_filter" },
      { model: "a", condition: "defenses", defense: "spotlighting" },
      { model: "b", condition: "attack1", defense: "no_defense" },
      { model: "b", condition: "attack2", defense: "no_defense" },
      { model: "c", condition: "x" },
    ];
    expect([...defenseFollowsValue(xs)]).toEqual(["a"]);
  });
});

// break53 #7: no cell run under both: 0/0 is undefined, not "coverage 0, not low"
describe("pair coverage with no cell run under both (break53 #7)", () => {
  it("null with its reason, not 0 and false", async () => {
    const { baselineDifference } = await import("../../src/compare/baseline-diff.js");
    const it1 = (condition: string, cell: string) => ({ model: "m", condition, cell, event: false });
    const d = baselineDifference("m", "a", "b", "asr_goal", [it1("a", "x1")], [it1("b", "y1")], "attack", { condition: new Set(), baseline: new Set() });
    expect(d.difference).toBeNull();
    expect(d.pairs).toMatchObject({ n: 0, pair_coverage: null, pair_coverage_low: null, pair_coverage_reason: "no_cell_run_under_both" });
  });
});
