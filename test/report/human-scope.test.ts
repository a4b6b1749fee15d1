import { describe, expect, it } from "vitest";
import { humanScope, humanScopeText } from "../../src/report/human-scope.js";
import { humanAgreement, type HumanLabelFile } from "../../src/agree/human.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

describe("humanScope (new-user report 31, item 7: report --where said 'human labels on 85 trajectories' when it kept 19)", () => {
  const h = { items: 85, excluded_items: { outside_where: 66, consensus_tie: 1 } };
  it("counts the labelled trajectories inside --where, and of how many", () => {
    expect(humanScope(h, true)).toEqual({ items: 85, in_where: 19 });
    expect(humanScopeText(h, true, "human.jsonl")).toBe("19 trajectories inside --where (of the 85 labelled in human.jsonl)");
  });
  it("without --where: every labelled trajectory, as before", () => {
    expect(humanScope(h, false)).toEqual({ items: 85, in_where: 85 });
    expect(humanScopeText({ items: 1200, excluded_items: {} }, false)).toBe("1,200 trajectories");
  });
});

describe("the count inside --where is of the items the run holds inside it (break45)", () => {
  // t1, t2 attacked in banking (kept), t3 attacked in slack (outside), u1 unattacked in slack (outside, left out as
  // unattacked first), u2 unattacked in banking (inside), gone: not in the run. Before: 6 - outside_where 1 = 5
  // "inside --where suite=banking", counting the slack item u1 and the item not in the run.
  const row = (id: string, suite: string, attacked: boolean): TrajectoryIndexRow => ({ id, suite, attacked, source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
  const all = [row("t1", "banking", true), row("t2", "banking", true), row("t3", "slack", true), row("u1", "slack", false), row("u2", "banking", false)];
  const file: HumanLabelFile = { format: "jsonl", rows: ["t1", "t2", "t3", "u1", "u2", "gone"].map((t, i) => ({ trajectory_id: t, annotator: "a", label: "unaffected", line: i + 1 })), bad_rows: [] };
  const verdicts = all.map((r) => ({ trajectory_id: r.id, judge_id: "j", repeat: 0, status: "ok", label: "unaffected", judge_model: "j", judge_family: "f" }) as Verdict);
  const kept = new Map(all.filter((r) => r.suite === "banking").map((r) => [r.id, r]));
  it("counts 3 (t1, t2, u2), not 5", () => {
    const r = humanAgreement(file, verdicts.filter((v) => kept.has(v.trajectory_id)), kept, { scale: "six", bootstrap: { B: 0, seed: 1 }, population: all });
    expect(r.excluded_items).toEqual({ not_in_run: 1, unattacked: 2, outside_where: 1 });
    expect(r.items_in_where).toBe(3);
    expect(humanScopeText(r, true, "h.jsonl")).toBe("3 trajectories inside --where (of the 6 labelled in h.jsonl)");
  });
});
