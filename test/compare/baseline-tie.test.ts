/**
 * New user 37: `compare --by condition` on the defense runs, one model under three defenses (a 1-1-1 tie on "the
 * condition observed for the most models"), took transformers_pi_detector as the baseline by an unstated rule (the
 * most labelled trajectories) and printed "underestimate 34.0 pp" against it. The tie is now said, with how it was
 * broken, on the baseline line's warning and in --json (`baseline_tie`); the first line gives the labels' coverage.
 */
import { describe, expect, it } from "vitest";
import { baselineTieText, chooseBaseline, compareConditions, formatCompare } from "../../src/compare/index.js";
import type { Observation, UnlabelledItem } from "../../src/compare/data.js";

function cell(model: string, condition: string, k: number, n: number): Observation[] {
  return Array.from({ length: n }, (_, i) => ({ trajectory_id: `${model}/${condition}/${i}`, model, suite: "s", condition, injection_task: `s/inj${i % 3}`, unit: `s/u${i}`, compromised: i < k, goal: i < k }));
}

describe("compare: a tie in the default baseline rule is said (new user 37, M)", () => {
  it("chooseBaseline names the tied conditions, their labelled trajectories and what broke the tie", () => {
    // the new user's shape: one model, three defenses with 76, 103 and 105 labelled attacked runs
    const obs = [...cell("gpt", "repeat_user_prompt", 36, 76), ...cell("gpt", "tool_filter", 11, 103), ...cell("gpt", "transformers_pi_detector", 14, 105)];
    expect(chooseBaseline(obs, undefined, "condition")).toEqual({
      baseline: "transformers_pi_detector",
      chosen_by: "most_models",
      tie: { conditions: ["transformers_pi_detector", "tool_filter", "repeat_user_prompt"], models: 1, trajectories: { transformers_pi_detector: 105, tool_filter: 103, repeat_user_prompt: 76 }, broken_by: "trajectories" },
    });
    // equal there too: broken by name, and said so
    const even = [...cell("a", "y", 1, 5), ...cell("a", "x", 1, 5)];
    expect(chooseBaseline(even)).toMatchObject({ baseline: "x", tie: { conditions: ["x", "y"], broken_by: "name" } });
    expect(baselineTieText(chooseBaseline(even).tie!)).toBe(
      "the default baseline rule (the condition observed for the most models) is tied: 2 conditions observed for 1 model each; broken by name (equal labelled attacked trajectories too) (x 5, y 5), so x is an arbitrary baseline: every underestimate below is relative to it; --baseline chooses one",
    );
    // no tie: no key (one condition ahead on models), nor with --baseline or an undefended condition
    const ahead = [...cell("a", "x", 1, 5), ...cell("b", "x", 1, 5), ...cell("a", "y", 1, 9)];
    expect(chooseBaseline(ahead)).toEqual({ baseline: "x", chosen_by: "most_models" });
    expect(chooseBaseline(obs, "tool_filter")).toEqual({ baseline: "tool_filter", chosen_by: "option" });
    expect(chooseBaseline([...obs, ...cell("gpt", "no_defense", 1, 2)])).toEqual({ baseline: "no_defense", chosen_by: "no_defense" });
  });

  it("compare warns, keeps it in --json and prints the labels' coverage on the first line", () => {
    const obs = [...cell("gpt", "repeat_user_prompt", 36, 76), ...cell("gpt", "tool_filter", 11, 103), ...cell("gpt", "transformers_pi_detector", 14, 105)];
    // 524 unlabelled attacked runs per condition, as the committee left them (committee_no_quorum)
    const unlabelled: UnlabelledItem[] = ["repeat_user_prompt", "tool_filter", "transformers_pi_detector"].map((condition) => ({ model: "gpt", suite: "s", condition, reason: "committee_no_quorum", weight: 100 }));
    const r = compareConditions(
      { source: { kind: "committee", members: ["signature", "stub"], quorum: 2 }, condition_field: "condition", observations: obs, unlabelled, n_total: 600, excluded: { committee_no_quorum: 300 } },
      { bootstrap: { B: 0, seed: 1 } },
    );
    expect(r.baseline_tie?.conditions[0]).toBe("transformers_pi_detector");
    expect(r.warnings.filter((w) => w.startsWith("the default baseline rule (the condition observed for the most models) is tied: 3 conditions"))).toHaveLength(1);
    // by hand: 76 + 103 + 105 = 284 labelled of 284 + 300 = 584 attacked: 48.6%
    expect(r.label_coverage).toEqual({ labelled: 284, attacked: 584 });
    const first = formatCompare(r).split("\n")[0];
    expect(first).toContain("labels from the committee (signature, stub; quorum 2) (committee.jsonl) (usable labels on 284 of the 584 attacked trajectories: coverage 48.6% LOW): ");
    // --baseline: no tie to say
    const chosen = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: 284, excluded: {} }, { bootstrap: { B: 0, seed: 1 }, baseline: "repeat_user_prompt" });
    expect(chosen.baseline_tie).toBeUndefined();
    expect(formatCompare(chosen).split("\n")[0]).toContain("labels from judge \"j\" (usable labels on 284 of the 284 attacked trajectories: coverage 100.0%): ");
  });
});
