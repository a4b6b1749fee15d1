import { describe, expect, it } from "vitest";
import { formatUtilityRate, utilityTable, withUtilityOutside } from "../../src/compare/utility.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const row = (id: string, model: string, condition: string, attacked: boolean, utility?: boolean) =>
  ({ id, agent_model: model, condition, attacked, ...(attacked ? { attack: "ii" } : {}), ...(utility === undefined ? {} : { reference: { utility } }) }) as unknown as TrajectoryIndexRow;

describe("utility beside ASR", () => {
  const rows = [
    row("1", "m", "no_defense", true, true),
    row("2", "m", "no_defense", true, false),
    row("3", "m", "no_defense", false, true),
    row("4", "m", "tool_filter", true, false),
    row("5", "m", "tool_filter", true),
    row("6", "m", "tool_filter", false, true),
  ];
  it("per model x condition, under attack and without attack, Wilson intervals, missing counted", () => {
    const u = utilityTable(rows, "condition");
    expect(u.map((c) => c.condition)).toEqual(["no_defense", "tool_filter"]);
    expect(u[0].under_attack).toMatchObject({ rate: 0.5, passed: 1, n: 2, missing: 0 });
    expect(u[0].without_attack).toMatchObject({ rate: 1, n: 1 });
    expect(u[1].under_attack).toMatchObject({ rate: 0, n: 1, missing: 1 });
    expect(u[1].under_attack.ci95!.upper).toBeGreaterThan(0.5); // Wilson, not a zero-width Wald interval
    expect(formatUtilityRate(u[0].under_attack)).toMatch(/^50\.0% \[\d+\.\d%, \d+\.\d%\] n=2$/);
  });
  it("runs that ended in an agent error are counted per kind and said beside the rate (session 50)", () => {
    const err = (r: TrajectoryIndexRow) => ({ ...r, run_error: "server error" }) as TrajectoryIndexRow;
    const u = utilityTable([err(row("1", "m", "d", true, false)), row("2", "m", "d", true, true), err(row("3", "m", "d", false, false)), row("4", "m", "d", false, true)], "condition");
    expect(u[0].under_attack).toMatchObject({ n: 2, run_errors: 1 });
    expect(u[0].without_attack).toMatchObject({ n: 2, run_errors: 1 });
    expect(formatUtilityRate(u[0].under_attack)).toMatch(/^50\.0% \[\d+\.\d%, \d+\.\d%\] n=2 \(1 ended in an error\)$/);
    expect(formatUtilityRate(rows.length ? utilityTable(rows, "condition")[0].under_attack : u[0].under_attack)).not.toContain("error");
  });
  it("by attack: unattacked runs fall in (none); no utility at all gives []", () => {
    const u = utilityTable(rows, "attack");
    expect(u.find((c) => c.condition === "(none)")!.without_attack.n).toBe(2);
    expect(u.find((c) => c.condition === "ii")!.without_attack).toMatchObject({ rate: null, reason: "no_unattacked_trajectories" });
    // undefined in the house wording, never "n/a (code)" (new-user report 17)
    expect(formatUtilityRate(u.find((c) => c.condition === "ii")!.without_attack)).toMatch(/^undefined \(/);
    expect(formatUtilityRate(u.find((c) => c.condition === "ii")!.without_attack)).not.toContain("no_unattacked_trajectories");
    expect(utilityTable([row("9", "m", "x", true)], "condition")).toEqual([]);
  });
  it("unattacked runs all of injection tasks: without attack is undefined for that reason (newuser16)", () => {
    const inj = { ...row("i", "m", "no_defense", false, true), user_task_id: "injection_task_1" } as TrajectoryIndexRow;
    const u = utilityTable([row("1", "m", "no_defense", true, true), inj], "condition");
    expect(u[0].without_attack).toMatchObject({ rate: null, reason: "only_injection_task_runs" });
    expect(u[0].injection_task_runs).toMatchObject({ rate: 1, n: 1 });
  });
});

describe("withUtilityOutside: a filter's reason, not 'no unattacked trajectory' (break53 #3b)", () => {
  it("gives the cells whose unattacked runs the filter left out the filter's reason; the others keep theirs", () => {
    // --where attacked=true (the human sample's population) kept the attacked runs only
    const cells = utilityTable([row("1", "m", "a", true, true), row("2", "m", "b", true, false), row("3", "k", "a", true, true)], "condition");
    expect(cells.every((c) => c.without_attack.reason === "no_unattacked_trajectories")).toBe(true);
    const out = withUtilityOutside(cells, (model) => (model === "m" ? "unattacked_outside_sample_population" : false));
    expect(out.map((c) => [c.model, c.condition, c.without_attack.reason])).toEqual([
      ["k", "a", "no_unattacked_trajectories"], // the run had none of k's: said so
      ["m", "a", "unattacked_outside_sample_population"],
      ["m", "b", "unattacked_outside_sample_population"],
    ]);
    expect(formatUtilityRate(out[1].without_attack)).toBe("undefined (the human sample's population left out the unattacked runs; --no-sample-population reads them)");
    // a cell with a rate is never touched
    const kept = utilityTable([row("1", "m", "a", false, true)], "condition");
    expect(withUtilityOutside(kept, () => "unattacked_outside_where")[0].without_attack).toMatchObject({ rate: 1, n: 1 });
  });
});
