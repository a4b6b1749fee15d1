/**
 * `estimate --by` keys its groups by their values, not by the values joined with " / " (fix50b): model `a / b` with
 * condition `c` and model `a` with condition `b / c` both print `a / b / c`, and their runs were pooled into one group.
 */
import { describe, expect, it } from "vitest";
import { groupDomains, groupValue } from "../../src/estimate/groups.js";
import { groupSetMix } from "../../src/estimate/group-mix.js";
import { estimateLikeForLike } from "../../src/estimate/like-for-like.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const rows = [
  { agent_model: "a / b", condition: "c", suite: "s1" },
  { agent_model: "a / b", condition: "c", suite: "s1" },
  { agent_model: "a", condition: "b / c", suite: "s2" },
] as unknown as TrajectoryIndexRow[];

describe("estimate --by: groups whose joined values print alike stay apart", () => {
  it("model 'a / b' with condition 'c' and model 'a' with condition 'b / c' are two groups, each named by field", () => {
    const g = groupDomains(Uint32Array.from([0, 1, 2]), ["model", "condition"], (u) => rows[u]);
    expect([...g].map(([name, x]) => [name, x.fields, [...x.units]])).toEqual([
      ["(all)", {}, [0, 1, 2]],
      ['model="a / b" / condition=c', { model: "a / b", condition: "c" }, [0, 1]],
      ['model=a / condition="b / c"', { model: "a", condition: "b / c" }, [2]],
    ]);
  });

  it("a name no other group prints stays the plain joined values", () => {
    const g = groupDomains(Uint32Array.from([0, 1]), ["model", "condition"], (u) => rows[u]);

    expect([...g.keys()]).toEqual(["(all)", "a / b / c"]);
  });

  it("the group-mix warning counts the two groups apart (each its own suite)", () => {
    const w = groupSetMix(rows, ["model", "condition"], groupValue, "suite");
    expect(w).toContain('s1 only: model="a / b" / condition=c');
    expect(w).toContain('s2 only: model=a / condition="b / c"');
  });

  it("estimate's like-for-like parts are keyed by value: 'x, suite=y' beside 'x' stays two parts", () => {
    const r = [
      { agent_model: "m", condition: "c1", attack: "x, suite=y", suite: "z", user_task_id: "u", injection_task_id: "i" },
      { agent_model: "m", condition: "c2", attack: "x", suite: "y, suite=z", user_task_id: "u2", injection_task_id: "i" },
    ] as unknown as TrajectoryIndexRow[];
    const w = estimateLikeForLike(r, ["model", "condition", "attack", "suite"], groupValue);
    // one condition per part: nothing to compare in either; merged, m's c1 and c2 ran different cells and were flagged
    expect(w.filter((x) => x.startsWith("within"))).toEqual([]);
  });
});
