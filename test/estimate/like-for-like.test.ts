import { describe, expect, it } from "vitest";
import { estimateLikeForLike } from "../../src/estimate/like-for-like.js";
import { groupValue } from "../../src/estimate/run.js";
import { likeForLikeWarnings, isLikeForLikeWarning, MODEL_MIX_MARK } from "../../src/stats/like-for-like.js";
import { checkStrataTotal } from "../../src/agree/sample-frame.js";
import { uncoveredRows } from "../../src/estimate/design-cells.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

// nufix13a: estimate --by printed gpt-4o (three defenses, four suites) beside Llama (one defense, three suites)
// with no like-for-like warning, although label, report and estimate --table warn about the same runs.
let n = 0;
const row = (agent_model: string, condition: string, suite: string, u: string, attacked = true): TrajectoryIndexRow =>
  ({ id: `t${n++}`, agent_model, condition, suite, attack: "ii", user_task_id: u, injection_task_id: "i1", attacked, content_sha256: `h${n}`, source: { format: "t", path: "p" }, n_messages: 2 }) as TrajectoryIndexRow;
const rows = [
  row("gpt", "none", "banking", "u1"),
  row("gpt", "none", "slack", "u1"),
  row("gpt", "filter", "banking", "u1"),
  row("llama", "none", "banking", "u1"),
  row("llama", "none", "banking", "u2"),
];

describe("estimateLikeForLike: the groups estimate --by prints side by side (nufix13a)", () => {
  it("--by agent_model: models pooled over different conditions are said first, then what else differs", () => {
    const w = estimateLikeForLike(rows, ["agent_model"], groupValue);
    expect(w[0]).toBe(
      "agent models ran different conditions (gpt: filter, none; llama: none), each figure pooled over its own, so their per-model rates are not like for like; add condition to --by for one figure per model and condition",
    );
    expect(w[1]).toMatch(/^agent models ran different suites \(gpt: banking, slack; llama: banking\)/);
    expect(w).toHaveLength(2);
    expect(w.every(isLikeForLikeWarning)).toBe(true);
    expect(w[0]).toContain(MODEL_MIX_MARK);
  });
  it("--by agent_model,condition: the very warnings label and the table give", () => {
    const items = rows.map((r) => ({ model: r.agent_model, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id }));
    expect(estimateLikeForLike(rows, ["agent_model", "condition"], groupValue)).toEqual(likeForLikeWarnings(items));
    expect(estimateLikeForLike(rows, ["model", "condition"], groupValue)).toEqual(likeForLikeWarnings(items));
  });
  it("--by condition: the conditions, pooled over the models, are compared", () => {
    expect(estimateLikeForLike(rows, ["condition"], groupValue)).toEqual([expect.stringMatching(/^all agent models: its conditions ran different suites \(filter: banking; none: banking, slack\)/)]);
  });
  it("--by suite (or attack): suites side by side differ by design: nothing said; with agent_model, models are compared within each suite", () => {
    expect(estimateLikeForLike(rows, ["suite"], groupValue)).toEqual([]);
    expect(estimateLikeForLike(rows, [], groupValue)).toEqual([]);
    const w = estimateLikeForLike(rows, ["agent_model", "suite"], groupValue);
    expect(w[0]).toMatch(/^within suite=banking: agent models ran different conditions/);
    expect(w.some((x) => x.startsWith("within suite=slack"))).toBe(false);
  });
  it("models run on the same cells under the same conditions: no warning", () => {
    const same = [row("a", "c", "s", "u1"), row("b", "c", "s", "u1")];
    expect(estimateLikeForLike(same, ["agent_model"], groupValue)).toEqual([]);
  });
});

describe("narrowing advice does not promise like for like (nufix13a)", () => {
  const cell = (model: string, suite: string, u: string) => ({ model, condition: "c", attack: "a", suite, user_task_id: u, injection_task_id: "i" });
  it("suites narrowed but cells on them still differ: says the narrowing removes the suite difference only, points to compare --common-tasks", () => {
    expect(likeForLikeWarnings([cell("m", "s1", "u1"), cell("m", "s1", "u2"), cell("m", "s2", "u1"), cell("n", "s1", "u1")])).toEqual([
      "agent models ran different suites (m: s1, s2; n: s1), so their per-model rates are not like for like; --where suite=s1 removes the suite difference only: on those suites their (suite, user task, injection task, attack) cells still differ (m 2, n 1; 1 shared by all); compare --common-tasks compares them on the tasks every model ran",
    ]);
  });
  it("suites narrowed onto the same cells: the narrowing is offered as like for like", () => {
    expect(likeForLikeWarnings([cell("m", "s1", "u1"), cell("m", "s2", "u1"), cell("n", "s1", "u1")])[0]).toMatch(
      /; narrow with --where suite=s1 \(on which they ran the same cells\), or compare --common-tasks/,
    );
  });
});

describe("strata with no labelled item that hold only unattacked runs (nufix13a)", () => {
  const cells = ["A|agent_model=gpt", "D|agent_model=gpt"];
  const frame = [row("gpt", "c", "s", "u1"), row("claude", "c", "s", "u1", false), row("claude", "c", "s", "u2", false)];
  it("uncoveredRows: the frame's rows in sampling strata with no cell, counted with the attacked ones", () => {
    expect(uncoveredRows(cells, frame)).toEqual({ n: 2, attacked: 0, strata: ["agent_model=claude"] });
    expect(uncoveredRows(["A|agent_model=gpt", "weird"], frame)).toBeNull();
  });
  it("says they are unattacked and affect no estimate; any attacked one keeps the old warning", () => {
    const w: string[] = [];
    checkStrataTotal({ known: "exact" } as Parameters<typeof checkStrataTotal>[0], 10, 12, 10, "h.jsonl", w, () => uncoveredRows(cells, frame));
    expect(w).toEqual([
      "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 10 of the run's 12 trajectories: the other 2 are in cells with no labelled item (none drawn there, e.g. a disagreement cell phase 2 drew nothing from, or none labelled) (agent_model=claude): all unattacked runs, which no ASR figure counts, so no estimate below is affected",
    ]);
    const w2: string[] = [];
    const attackedFrame = [row("gpt", "c", "s", "u1"), row("claude", "c", "s", "u1"), row("claude", "c", "s", "u2", false)];
    checkStrataTotal({ known: "exact" } as Parameters<typeof checkStrataTotal>[0], 10, 12, 10, "h.jsonl", w2, () => uncoveredRows(cells, attackedFrame));
    expect(w2).toEqual([
      "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 10 of the run's 12 trajectories: the other 2 are in cells with no labelled item (none drawn there, e.g. a disagreement cell phase 2 drew nothing from, or none labelled) (all in sampling strata with none: agent_model=claude): the human and calibrated estimates do not represent them",
    ]);
  });
});
