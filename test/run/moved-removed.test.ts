/**
 * The `input_removed` statement of a label run that moved trajectories (hostile52 F5, src/run/moved-removed.ts): said
 * as moved, not as lost runs.
 */
import { describe, expect, it } from "vitest";
import { sayMovedRemoved } from "../../src/run/moved-removed.js";

const removed = (count: number) => ({ count, examples: ["a"], files: [], message: "input_removed: N trajectories whose input is gone" });

describe("sayMovedRemoved", () => {
  it("every removed id moved: moved set, the message says nothing was lost", () => {
    const r = removed(2);
    sayMovedRemoved(r, new Set(["a", "b"]), [{ from: "a", swapped: false }, { from: "b", swapped: false }]);
    expect(r.moved).toBe(2);
    expect(r.message).toMatch(/^input_removed: the 2 old ids of the trajectories this label run moved \(its warning "moved 2 trajectories"\) are left out of the figures; .*no trajectory was lost$/);
  });
  it("some moved: the warning kept, with how many moved", () => {
    const r = removed(3);
    sayMovedRemoved(r, new Set(["a", "b", "c"]), [{ from: "a", swapped: false }, { from: "z", swapped: true }]);
    expect(r.moved).toBe(1);
    expect(r.message).toBe("input_removed: N trajectories whose input is gone; 1 of them are old ids of trajectories this label run moved (its warning \"moved 2 trajectories\": their content is counted under the new ids), 2 have no new id");
  });
  it("no move, or none of them removed: unchanged", () => {
    const r = removed(1);
    sayMovedRemoved(r, new Set(["a"]), []);
    sayMovedRemoved(r, new Set(["a"]), [{ from: "q", swapped: false }]);
    expect(r).toEqual(removed(1));
  });
});
