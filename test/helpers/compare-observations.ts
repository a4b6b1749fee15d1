/**
 * compare's hand-built observations for the cell tests (test/compare/cells*.test.ts): one labelled observation per
 * (model, condition, cell) in suite `s`, attack `atk`, injection task `s/inj0`.
 */
import type { Observation, Observations } from "../../src/compare/index.js";

/** One labelled observation per (model, condition, cell); `flags` marks the compromised cells (1) in order. */
export function runs(model: string, condition: string, cells: string[], flags: number[]): Observation[] {
  return cells.map((c, i) => ({
    trajectory_id: `${model}/${condition}/${c}`,
    model,
    suite: "s",
    condition,
    attack: "atk",
    injection_task: "s/inj0",
    unit: `s/${c}`,
    cell: `s/${c}`,
    compromised: flags[i] === 1,
    goal: flags[i] === 1,
    exposed: true,
  }));
}

/** The observations as compare's input, judged by judge `j` on field `condition`. */
export const input = (observations: Observation[]): Observations => ({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations, n_total: observations.length, excluded: {}, excluded_groups: [] });

/** Cell names `c<i>` for the given numbers. */
export const cs = (...n: number[]) => n.map((i) => `c${i}`);
