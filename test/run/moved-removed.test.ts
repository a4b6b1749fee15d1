/**
 * The `input_removed` statement of a label run that moved trajectories (hostile52 F5, src/run/moved-removed.ts): said
 * as moved, not as lost runs.
 */
import { describe, expect, it } from "vitest";
import { sayMovedRemoved, sayShiftedRemoved } from "../../src/run/moved-removed.js";

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

describe("sayShiftedRemoved (runs55 #3)", () => {
  it("the removed ids are old ids of rows that moved up: named so, with the rows gone", () => {
    const r = removed(2);
    const moves = [{ from: "f:3", swapped: true }, { from: "f:4", swapped: true }, { from: "f:5", swapped: true }];
    sayShiftedRemoved(r, new Set(["f:4", "f:5"]), moves, ["f:1", "f:3"]);
    expect(r.message).toMatch(/^input_removed: 2 trajectories no longer in the input are left out of the figures: 2 of them \("f:4", "f:5"\) are old ids of rows that moved up/);
    // f:3's earlier content was carried on (to another line); f:1's was not: the row gone
    expect(r.message).toContain('the row no longer in the input is the one labelled as "f:1"');
  });
  it("more ids lost their content than the file lost rows (row 10 deleted, row 30 edited: rev2a55 #2): the count and the ids agree, the edit said", () => {
    const r = removed(1);
    sayShiftedRemoved(r, new Set(["f:40"]), [{ from: "f:40", swapped: true }], ["f:10", "f:30"]);
    expect(r.message).toContain('the 1 row no longer in the input is one of the 2 labelled as "f:10", "f:30": 2 ids lost their labelled content and the file holds 1 row fewer, so 1 of them was edited, not deleted');
    expect(r.message).toContain("which one was deleted cannot be told from the content");
    expect(r.message).not.toContain("the rows no longer in the input are");
  });
  it("some removed ids shifted: said after the message; none or a move between folders: unchanged", () => {
    const r = removed(2);
    sayShiftedRemoved(r, new Set(["f:4", "g"]), [{ from: "f:4", swapped: true }], []);
    expect(r.message).toMatch(/^input_removed: N trajectories whose input is gone; 1 of them \("f:4"\) is the old id of a row .*; which row left the input cannot be told from the moves$/);
    const q = removed(1);
    sayShiftedRemoved(q, new Set(["a"]), [{ from: "a", swapped: false }], ["b"]);
    sayShiftedRemoved(q, new Set(["a"]), [], []);
    expect(q).toEqual(removed(1));
  });
});

