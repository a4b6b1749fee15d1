/**
 * New user 33: `compare --by condition` on the AgentDojo defense runs chose repeat_user_prompt, a defense, as the
 * baseline ("default: most_models") with "underestimate 0.0 pp": the run has no attacked undefended runs (claude's
 * no_defense runs are unattacked only). The baseline line and --json now say the baseline is a defense.
 */
import { describe, expect, it } from "vitest";
import { baselineFields, baselineNote, readsUndefended } from "../../src/compare/baseline-undefended.js";
import { chooseBaseline, compareConditions, formatCompare } from "../../src/compare/index.js";
import type { Observation } from "../../src/compare/data.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

function cell(model: string, condition: string, k: number, n: number): Observation[] {
  return Array.from({ length: n }, (_, i) => ({
    trajectory_id: `${model}/${condition}/${i}`,
    model,
    suite: "s",
    condition,
    injection_task: `s/inj${i % 3}`,
    unit: `s/u${i}`,
    compromised: i < k,
    goal: i < k,
  }));
}
const row = (id: string, agent_model: string, condition: string, attacked: boolean): TrajectoryIndexRow =>
  ({ id, agent_model, condition, suite: "s", attacked, source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;

describe("names read as undefended", () => {
  it("the ingest's rule: no_defense and its spellings, none, undefended; not a defense, not (none), not the ambiguous baseline", () => {
    for (const c of ["no_defense", "No-Defense", "no defence", "none", "NONE", "undefended"]) expect(readsUndefended(c)).toBe(true);
    for (const c of ["repeat_user_prompt", "tool_filter", "(none)", "", "spotlighting", "baseline", "off"]) expect(readsUndefended(c)).toBe(false);
  });
  it("the default baseline prefers an undefended name to the most models' condition (by condition only)", () => {
    const obs = [...cell("a", "spot", 1, 4), ...cell("b", "spot", 1, 4), ...cell("a", "none", 2, 4)];
    expect(chooseBaseline(obs)).toEqual({ baseline: "none", chosen_by: "undefended_name" });
    expect(chooseBaseline(obs, undefined, "condition")).toEqual({ baseline: "none", chosen_by: "undefended_name" });
    expect(chooseBaseline(obs, undefined, "attack")).toEqual({ baseline: "spot", chosen_by: "most_models" });
    expect(chooseBaseline([...obs, ...cell("a", "no_defense", 0, 2)])).toEqual({ baseline: "no_defense", chosen_by: "no_defense" });
  });
});

describe("a default baseline that is a defense is said (new user 33)", () => {
  const index = new Map<string, TrajectoryIndexRow>([
    ["c1", row("c1", "claude", "no_defense", false)],
    ["c2", row("c2", "claude", "no_defense", false)],
    ["g1", row("g1", "gpt", "repeat_user_prompt", true)],
  ]);
  it("baselineNote: the run's undefended conditions named with their runs and models; none for --baseline, an undefended baseline, another field", () => {
    expect(baselineNote("repeat_user_prompt", true, "condition", index.values())).toBe(
      "NOT an undefended condition: no compared condition reads as one (no_defense, none, undefended or the like); the run's no_defense: 2 runs (claude), none attacked, " +
        "so the baseline is the defense repeat_user_prompt and the underestimate is relative to it, not to no defense; --baseline chooses another",
    );
    expect(baselineNote("repeat_user_prompt", true, "condition")).toMatch(/or the like\), so the baseline is the defense repeat_user_prompt/);
    // a condition named baseline is kept as its own at ingest (it may be a baseline defense): named, not chosen
    expect(baselineNote("spot", true, "condition", [], ["spot", "baseline"])).toContain("or the like); baseline may mean undefended (--baseline baseline if so), so the baseline is the defense spot");
    expect(chooseBaseline([...cell("a", "spot", 1, 4), ...cell("b", "spot", 1, 4), ...cell("a", "baseline", 1, 4)])).toEqual({ baseline: "spot", chosen_by: "most_models" });
    expect(baselineNote("repeat_user_prompt", false, "condition", index.values())).toBeNull();
    expect(baselineNote("none", true, "condition")).toBeNull();
    expect(baselineNote("tool_output", true, "surface")).toBeNull();
    expect(baselineFields("x", "most_models", "attack")).toEqual({});
    expect(baselineFields("no_defense", "no_defense", "condition")).toEqual({ baseline_undefended: true });
  });
  it("compare: the baseline line, the worst-condition headers and --json", () => {
    const obs = [...cell("gpt", "repeat_user_prompt", 3, 10), ...cell("gpt", "tool_filter", 1, 10), ...cell("llama", "repeat_user_prompt", 2, 10)];
    const r = compareConditions(
      { source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length + 2, excluded: { unattacked: 2 } },
      { bootstrap: { B: 0, seed: 1 }, index },
    );
    expect(r).toMatchObject({ baseline: "repeat_user_prompt", baseline_chosen_by: "most_models", baseline_undefended: false });
    expect(r.baseline_note).toContain("the run's no_defense: 2 runs (claude), none attacked");
    const text = formatCompare(r);
    expect(text).toContain("; baseline repeat_user_prompt (default: most_models; NOT an undefended condition: ");
    expect(text).toContain("worst condition by asr_goal vs the baseline repeat_user_prompt (a defense, not no defense: see the baseline line):");
    const chosen = compareConditions(
      { source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {} },
      { bootstrap: { B: 0, seed: 1 }, baseline: "tool_filter" },
    );
    expect(chosen.baseline_note).toBeUndefined();
    expect(formatCompare(chosen)).toContain("baseline tool_filter (--baseline)");
  });
});
