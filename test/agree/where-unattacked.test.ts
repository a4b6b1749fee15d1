/**
 * `--where attack=X` leaves out AgentDojo's unattacked runs (they record no attack): utility without attack then
 * reads undefined for the filter, not for a run without unattacked runs; the note says so and gives the `(none)`
 * that keeps them (session 40).
 */
import { describe, expect, it } from "vitest";
import { tableUnattackedNote, unattackedLeftOut, unattackedLeftOutNote, unattackedOutsideRow } from "../../src/agree/where-unattacked.js";
import { applyWhere, parseWhere } from "../../src/store/where.js";
import { paperTable } from "../../src/estimate/table.js";
import { cellText } from "../../src/estimate/table.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

const row = (id: string, model: string, condition: string, attack: string | undefined, utility?: boolean, user = "user_task_0"): TrajectoryIndexRow =>
  ({ id, agent_model: model, condition, attacked: attack !== undefined, ...(attack ? { attack } : {}), user_task_id: user, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2, ...(utility === undefined ? {} : { reference: { utility } }) }) as TrajectoryIndexRow;
const rows = [
  row("a1", "gpt", "no_defense", "important_instructions", true),
  row("a2", "gpt", "tool_filter", "important_instructions", false),
  row("a3", "gpt", "no_defense", "tool_knowledge", true),
  row("u1", "gpt", "no_defense", undefined, true),
  row("u2", "gpt", "tool_filter", undefined, false),
  row("u3", "llama", "no_defense", undefined, true),
  row("u4", "gpt", "no_defense", undefined), // no utility verdict: not counted
  row("i1", "gpt", "no_defense", undefined, true, "injection_task_2"), // an injection-task run: not in utility
];

describe("unattacked runs left out by --where attack=...", () => {
  it("counts the user-task runs with a utility verdict the attack clause alone leaves out", () => {
    const l = unattackedLeftOut(rows, parseWhere(["attack=important_instructions"]));
    expect(l?.rows.map((r) => r.id)).toEqual(["u1", "u2", "u3"]);
    expect(l?.values).toEqual(["(none)"]);
    // another clause leaving them out is not the attack's doing
    expect(unattackedLeftOut(rows, parseWhere(["attack=important_instructions", "model=gpt"]))?.rows.map((r) => r.id)).toEqual(["u1", "u2"]);
    // (none) keeps them; no attack clause, no note
    expect(unattackedLeftOut(rows, parseWhere(["attack=important_instructions,(none)"]))).toBeNull();
    expect(unattackedLeftOut(rows, parseWhere(["model=gpt"]))).toBeNull();
    expect(unattackedLeftOut(rows, null)).toBeNull();
  });
  it("the note says why utility is undefined and gives the --where that keeps them, quoted", () => {
    const f = parseWhere(["attack=important_instructions"])!;
    expect(unattackedLeftOutNote(unattackedLeftOut(rows, f)!, f, "utility (without attack) reads undefined on 2 of the 2 rows")).toBe(
      "utility (without attack) reads undefined on 2 of the 2 rows because --where attack=important_instructions leaves out the run's 3 unattacked runs of the user's own tasks with a utility verdict (they record no attack), not because the run has none; " +
        "--where 'attack=important_instructions,(none)' keeps them ((none) matches runs without an attack; the attack-success rates count attacked runs only, so they stay the same)",
    );
  });
  it("the paper table: the rows whose unattacked runs the filter left out read unattacked_outside_where, not 'no unattacked trajectory'", () => {
    const f = parseWhere(["attack=important_instructions"])!;
    const kept = new Map(applyWhere(rows, f).kept.map((r) => [r.id, r]));
    const verdicts = ["a1", "a2"].map((id) => ({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: "unaffected", compromised: false }) as Verdict);
    const l = unattackedLeftOut(rows, f);
    const t = paperTable("r", kept, verdicts, { kind: "judge", judge_id: "j" }, { unattackedOutside: unattackedOutsideRow(l) });
    expect(t.rows.map((r) => [r.condition, r.utility.value, r.utility.reason])).toEqual([
      ["no_defense", null, "unattacked_outside_where"],
      ["tool_filter", null, "unattacked_outside_where"],
    ]);
    expect(cellText(t.rows[0].utility)).toBe("undefined (--where left out the unattacked runs)");
    expect(tableUnattackedNote(l, f, t.rows)).toMatch(/^utility \(without attack\) reads undefined on 2 of the 2 rows because --where attack=important_instructions leaves out/);
    // without the predicate (a run that has no unattacked run): the reason as before
    const plain = paperTable("r", kept, verdicts, { kind: "judge", judge_id: "j" });
    expect(plain.rows[0].utility.reason).toBe("no_unattacked_trajectories");
    expect(tableUnattackedNote(null, f, plain.rows)).toBeNull();
  });
  it("the human sample's recorded population, not a --where typed: the cell and the note name it and --no-sample-population (new user 48)", () => {
    const f = { ...parseWhere(["attacked=true"])!, fromSample: "ds1/human.jsonl" };
    const kept = new Map(applyWhere(rows, f).kept.map((r) => [r.id, r]));
    const verdicts = ["a1", "a2"].map((id) => ({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: "unaffected", compromised: false }) as Verdict);
    const l = unattackedLeftOut(rows, f);
    expect(l?.fromSample).toBe("ds1/human.jsonl");
    const t = paperTable("r", kept, verdicts, { kind: "judge", judge_id: "j" }, { unattackedOutside: unattackedOutsideRow(l) });
    expect(t.rows.map((r) => r.utility.reason)).toEqual(["unattacked_outside_sample_population", "unattacked_outside_sample_population"]);
    expect(cellText(t.rows[0].utility)).toBe("undefined (the human sample's population left out the unattacked runs; --no-sample-population reads them)");
    expect(tableUnattackedNote(l, f, t.rows)).toBe(
      "utility (without attack) reads undefined on 2 of the 2 rows because the human sample's population (--where attacked=true, recorded in ds1/human.jsonl with the sample and applied to every figure) leaves out " +
        "the run's 3 unattacked runs of the user's own tasks with a utility verdict (they record no attack), not because the run has none; " +
        "--no-sample-population reads the whole run, them too (the attack-success rates count attacked runs only)",
    );
  });
  it("--where attacked=true leaves them out as an attack clause does, and the note gives attacked=true,false (new user 44)", () => {
    const f = parseWhere(["attacked=true"])!;
    const l = unattackedLeftOut(rows, f);
    expect(l?.rows.map((r) => r.id)).toEqual(["u1", "u2", "u3"]);
    expect(unattackedLeftOutNote(l!, f, "utility without attack is not shown")).toBe(
      "utility without attack is not shown because --where attacked=true leaves out the run's 3 unattacked runs of the user's own tasks with a utility verdict (they record no attack), not because the run has none; " +
        "--where 'attacked=true,false' keeps them (the attack-success rates count attacked runs only, so they stay the same)",
    );
    expect(unattackedLeftOut(rows, parseWhere(["attacked=true,false"]))).toBeNull();
    // both clauses: each named, each widened
    const both = parseWhere(["attack=important_instructions", "attacked=true"])!;
    expect(unattackedLeftOutNote(unattackedLeftOut(rows, both)!, both, "x")).toContain(
      "--where attack=important_instructions attacked=true leaves out the run's 3 unattacked runs",
    );
    expect(unattackedLeftOutNote(unattackedLeftOut(rows, both)!, both, "x")).toContain("--where 'attack=important_instructions,(none)' --where 'attacked=true,false' keeps them ((none) matches");
  });
});
