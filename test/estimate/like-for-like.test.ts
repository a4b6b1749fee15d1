import { describe, expect, it } from "vitest";
import { estimateLikeForLike } from "../../src/estimate/like-for-like.js";
import { likeForLikeWarnings, isLikeForLikeWarning, GROUP_MIX_MARK, MODEL_MIX_MARK } from "../../src/stats/like-for-like.js";
import { groupSetMix } from "../../src/estimate/group-mix.js";
import { pooledConditions, pooledModels } from "../../src/estimate/pooled.js";
import { checkStrataTotal } from "../../src/agree/sample-frame.js";
import { uncoveredRows } from "../../src/estimate/design-cells.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { estimateFromData, groupValue } from "../../src/estimate/run.js";
import { formatEstimate } from "../../src/estimate/format.js";
import type { HumanLabelFile } from "../../src/agree/human-file.js";
import type { Verdict } from "../../src/types.js";

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
      "agent models ran different conditions (\"gpt\": \"filter\", \"none\"; \"llama\": \"none\"), each figure pooled over its own, so their per-model rates are not like for like; add condition to --by for one figure per model and condition",
    );
    expect(w[1]).toMatch(/^agent models ran different suites \("gpt": banking, slack; "llama": banking\)/);
    expect(w).toHaveLength(2);
    expect(w.every(isLikeForLikeWarning)).toBe(true);
    expect(w[0]).toContain(MODEL_MIX_MARK);
  });
  it("--by agent_model,condition: the very warnings label and the table give", () => {
    const items = rows.map((r) => ({ model: r.agent_model, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id }));
    expect(estimateLikeForLike(rows, ["agent_model", "condition"], groupValue)).toEqual(likeForLikeWarnings(items));
    expect(estimateLikeForLike(rows, ["model", "condition"], groupValue)).toEqual(likeForLikeWarnings(items));
  });
  it("--by condition: the conditions, pooled over the models, are compared: on their models (new user 33), then their suites", () => {
    expect(estimateLikeForLike(rows, ["condition"], groupValue)).toEqual([
      "the --by condition groups pool different agent models, each its own (gpt only: filter; 2 agent models (gpt, llama): none), so their rates side by side are not like for like: " +
        "a difference between them may be the agent models', not the condition's; narrow with --where agent_model=gpt (the agent model every group holds), or add agent_model to --by for one figure per agent model",
      expect.stringMatching(/^all agent models: its conditions ran different suites \("filter": banking; "none": banking, slack\)/),
    ]);
  });
  it("--by suite: suites differ by design, their models do not (new user 33); no --by: nothing side by side; with agent_model, models are compared within each suite", () => {
    expect(estimateLikeForLike(rows, ["suite"], groupValue)).toEqual([expect.stringMatching(/^the --by suite groups pool different agent models, each its own \(gpt only: slack; 2 agent models \(gpt, llama\): banking\)/)]);
    expect(estimateLikeForLike(rows.filter((r) => r.agent_model === "gpt"), ["suite"], groupValue)).toEqual([]);
    expect(estimateLikeForLike(rows, [], groupValue)).toEqual([]);
    const w = estimateLikeForLike(rows, ["agent_model", "suite"], groupValue);
    expect(w[0]).toMatch(/^within suite=banking: agent models ran different conditions/);
    expect(w.some((x) => x.startsWith("within suite=slack"))).toBe(false);
  });
  it("--by metadata.<key> compares its groups as conditions (break52 3: a 15-attack defense-free group beside a one-attack defense read as like for like)", () => {
    const md = (m: string, defense: string | undefined, attack: string, u: string) => ({ ...row(m, "c", "banking", u), attack, ...(defense ? { metadata: { defense } } : {}) }) as TrajectoryIndexRow;
    const runs = [md("gpt", undefined, "ii", "u1"), md("gpt", undefined, "dos", "u1"), md("gpt", "filter", "ii", "u1")];
    const w = estimateLikeForLike(runs, ["agent_model", "metadata.defense"], groupValue);
    expect(w.some((x) => /^"gpt": its conditions ran different attacks/.test(x))).toBe(true);
    // with condition too: both compared as one condition; alone: the defenses pooled over the models are compared
    expect(estimateLikeForLike(runs, ["agent_model", "condition", "metadata.defense"], groupValue).some((x) => /different attacks/.test(x))).toBe(true);
    expect(estimateLikeForLike(runs, ["metadata.defense"], groupValue).some((x) => /different attacks/.test(x))).toBe(true);
    // the same attacks under every defense value: no warning
    expect(estimateLikeForLike([md("gpt", undefined, "ii", "u1"), md("gpt", "filter", "ii", "u1")], ["agent_model", "metadata.defense"], groupValue)).toEqual([]);
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
      "agent models ran different suites (\"m\": s1, s2; \"n\": s1), so their per-model rates are not like for like; --where suite=s1 removes the suite difference only: on those suites their (suite, user task, injection task, attack) cells still differ (\"m\" 2, \"n\" 1; 1 shared by all); compare --common-tasks compares them on the tasks every model ran",
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
      "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 10 of the run's 12 trajectories: the other 2 are in cells with no labelled item (none drawn there, e.g. a disagreement cell phase 2 drew nothing from; none labelled; or no labelled item with a consensus, e.g. annotators tied on each) (agent_model=claude): all unattacked runs, which no ASR figure counts, so no estimate below is affected",
    ]);
    const w2: string[] = [];
    const attackedFrame = [row("gpt", "c", "s", "u1"), row("claude", "c", "s", "u1"), row("claude", "c", "s", "u2", false)];
    checkStrataTotal({ known: "exact" } as Parameters<typeof checkStrataTotal>[0], 10, 12, 10, "h.jsonl", w2, () => uncoveredRows(cells, attackedFrame));
    expect(w2).toEqual([
      "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 10 of the run's 12 trajectories: the other 2 are in cells with no labelled item (none drawn there, e.g. a disagreement cell phase 2 drew nothing from; none labelled; or no labelled item with a consensus, e.g. annotators tied on each) (all in sampling strata with none: agent_model=claude): no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them",
    ]);
  });
});

// new user 33: `estimate --human --committee --by condition` on AgentDyn's defenses printed DRIFT (gpt-4o only)
// beside no_defense (five models) with no warning: every condition ran the same cells, and with agent_model not in
// --by the per-condition check saw one pooled "model". The rows read as DRIFT cutting ASR 9.0% -> 0.8%.
describe("groups side by side that pool different agent models or suites (new user 33)", () => {
  const models = ["gemini", "gpt-4o", "gpt-5-mini", "llama", "qwen"];
  const dyn = [
    ...models.flatMap((m) => [row(m, "no_defense", "shopping", "u1"), row(m, "no_defense", "github", "u2")]),
    ...["gemini", "gpt-4o", "llama", "qwen"].flatMap((m) => [row(m, "tool_filter", "shopping", "u1"), row(m, "tool_filter", "github", "u2")]),
    ...["drift", "progent"].flatMap((c) => [row("gpt-4o", c, "shopping", "u1"), row("gpt-4o", c, "github", "u2")]),
  ];
  it("--by condition: each group's models named, groups of one set together, the shared model to narrow to", () => {
    const w = estimateLikeForLike(dyn, ["condition"], groupValue);
    expect(w).toEqual([
      "the --by condition groups pool different agent models, each its own (gpt-4o only: drift, progent; 4 agent models (gemini, gpt-4o, llama, qwen): tool_filter; " +
        "5 agent models (gemini, gpt-4o, gpt-5-mini, llama, qwen): no_defense), so their rates side by side are not like for like: a difference between them may be the agent models', " +
        "not the condition's; narrow with --where agent_model=gpt-4o (the agent model every group holds), or add agent_model to --by for one figure per agent model",
    ]);
    expect(w.every(isLikeForLikeWarning)).toBe(true);
    // narrowed as advised: like for like, nothing said
    expect(estimateLikeForLike(dyn.filter((r) => r.agent_model === "gpt-4o"), ["condition"], groupValue)).toEqual([]);
    // split by model: nothing pooled, nothing said about the models' sets
    expect(estimateLikeForLike(dyn, ["agent_model", "condition"], groupValue).some((x) => x.includes(GROUP_MIX_MARK))).toBe(false);
  });
  it("no model shared by every group: said; long lists cut", () => {
    const w = groupSetMix([row("a", "c1", "s", "u1"), row("b", "c2", "s", "u1")], ["condition"], groupValue, "agent_model");
    expect(w).toContain("(a only: c1; b only: c2)");
    expect(w).toContain("no agent model is held by every group, or add agent_model to --by");
    const many = Array.from({ length: 12 }, (_, i) => row(`m${String(i).padStart(2, "0")}`, "c1", "s", "u1"));
    expect(groupSetMix([...many, row("m00", "c2", "s", "u1")], ["condition"], groupValue, "agent_model")).toContain("12 agent models (m00, m01, m02, m03, m04, m05, m06, m07, ... (4 more)): c1");
  });
  it("the same models in different shares: said with the two groups furthest apart (session 33's leftover: sets, not shares)", () => {
    const rep = (m: string, c: string, n: number) => Array.from({ length: n }, (_, i) => row(m, c, "s", `u${i}`));
    const even = [...rep("a", "none", 50), ...rep("b", "none", 50)];
    const skew = [...rep("a", "def", 90), ...rep("b", "def", 10)];
    const w = groupSetMix([...even, ...skew], ["condition"], groupValue, "agent_model");
    expect(w).toBe(
      "the --by condition groups pool the same agent models in different shares (def: a 90%, b 10%; none: a 50%, b 50%; 40 points of the mix differ), so their " +
        "rates side by side are not like for like: a difference between them may be the agent models' shares, not the condition's; add agent_model to --by for one figure per agent model",
    );
    expect(isLikeForLikeWarning(w!)).toBe(true);
    // shares 5 points apart: below the bar, nothing said
    expect(groupSetMix([...even, ...rep("a", "def", 55), ...rep("b", "def", 45)], ["condition"], groupValue, "agent_model")).toBeNull();
    // one model only: no shares to differ
    expect(groupSetMix([...rep("a", "none", 5), ...rep("a", "def", 50)], ["condition"], groupValue, "agent_model")).toBeNull();
  });
  it("--by attack (no model, condition or suite in --by): the groups' suites compared too", () => {
    const w = estimateLikeForLike([row("a", "c", "banking", "u1"), { ...row("a", "c", "github", "u1"), attack: "tk" }], ["attack"], groupValue);
    expect(w).toEqual([expect.stringMatching(/^the --by attack groups pool different suites, each its own \(banking only: ii; github only: tk\).*no suite is held by every group, or add suite to --by/)]);
  });
  it("a one-model group names its model when the groups hold several; a pooled group lists its models", () => {
    const one = dyn.filter((r) => r.condition === "drift");
    expect(pooledModels(["condition"], one, 5)).toBe("one agent model only: gpt-4o (of the 5 the groups hold; see the NOT LIKE FOR LIKE warning)");
    expect(pooledModels(["condition"], one, 1)).toBeNull();
    expect(pooledModels(["agent_model", "condition"], one, 5)).toBeNull();
    expect(pooledModels(["condition"], dyn.filter((r) => r.condition === "tool_filter"), 5)).toMatch(/^pooled over 4 agent models \(gemini, gpt-4o, llama, qwen\)/);
  });
});

describe("estimate's text: the warning marked NOT LIKE FOR LIKE, the one-model rows named (new user 33)", () => {
  const rs = [
    ...["a", "b"].flatMap((m) => [row(m, "no_defense", "s", "u1"), row(m, "no_defense", "s", "u2")]),
    row("a", "drift", "s", "u1"),
    row("a", "drift", "s", "u2"),
  ];
  const index = new Map(rs.map((r) => [r.id, r]));
  const verdicts = rs.map((r) => ({ trajectory_id: r.id, judge_id: "j", judge_model: "j", judge_family: "f", repeat: 0, status: "ok", label: "unaffected", findings: [] }) as unknown as Verdict);
  const file = { format: "csv", bad_rows: [], rows: rs.slice(0, 2).flatMap((r, i) => ["x", "y"].map((a, k) => ({ trajectory_id: r.id, annotator: a, label: "unaffected", line: 2 + 2 * i + k }))) } as unknown as HumanLabelFile;
  it("--by condition", () => {
    const text = formatEstimate(estimateFromData(index, verdicts, file, { run: "r", humanFile: "h.jsonl", by: ["condition"], rate: "asr_behaviour", likeForLike: true }));
    expect(text).toContain("WARNING: NOT LIKE FOR LIKE: the --by condition groups pool different agent models, each its own (a only: drift; 2 agent models (a, b): no_defense)");
    expect(text).toMatch(/\ndrift: N 2, labelled 0\n(.*\n){3}  note: one agent model only: a \(of the 2 the groups hold; see the NOT LIKE FOR LIKE warning\)\n/);
  });

  it("a group pooling runs with and without a condition (model) names the missing one (none) (new user 35)", () => {
    const rows = [{ id: "a", attacked: true, agent_model: "m", condition: "no_defense" }, { id: "b", attacked: true }] as TrajectoryIndexRow[];
    expect(pooledConditions(["agent_model"], rows)).toMatch(/^pooled over 2 conditions \(\(none\), no_defense\)/);
    expect(pooledModels(["condition"], rows)).toMatch(/^pooled over 2 agent models \(\(none\), m\)/);
    expect(pooledConditions(["agent_model"], [rows[1]])).toBeNull();
  });
});
