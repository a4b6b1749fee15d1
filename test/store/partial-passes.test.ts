import { describe, expect, it } from "vitest";
import { carriedPasses, passesAfter, recordPasses } from "../../src/store/partial-passes.js";
import type { LabelState } from "../../src/store/run-snapshot.js";

const st = (o: Partial<LabelState>): LabelState => ({ state: "complete", started_at: "t1", pid: 1, host: "h", ...o });

describe("the passes that left a run short of its inputs (break 51 #2)", () => {
  it("a new run starts uncovered; a run recorded before the field: only a complete --limit last pass is known", () => {
    expect(carriedPasses(undefined, 0)).toEqual([]);
    expect(carriedPasses(undefined, 10)).toBeUndefined();
    expect(carriedPasses(st({}), 10)).toBeUndefined();
    expect(carriedPasses(st({ limit: 5 }), 5)).toEqual([{ started_at: "t1", limit: 5 }]);
    expect(carriedPasses(st({ state: "interrupted", limit: 5 }), 5)).toBeUndefined();
    expect(carriedPasses(st({ partial_passes: [{ started_at: "t0", where: "suite=x", left_out: 3 }] }), 5)).toEqual([{ started_at: "t0", where: "suite=x", left_out: 3 }]);
  });

  it("a limited pass adds itself whatever its outcome; a whole pass clears the list only when it completes", () => {
    const a = [{ started_at: "t0", limit: 5 }];
    expect(passesAfter(st({ partial_passes: a }), { where: "m=x", left_out: 2 })).toEqual([...a, { started_at: "t1", where: "m=x", left_out: 2 }]);
    expect(passesAfter(st({ state: "interrupted", partial_passes: a }), { limit: 3 })).toEqual([...a, { started_at: "t1", limit: 3 }]);
    expect(passesAfter(st({ partial_passes: a }), null)).toBeUndefined();
    expect(passesAfter(st({ state: "interrupted", partial_passes: a }), null)).toEqual(a);
    expect(passesAfter(st({ state: "cost_cap", partial_passes: [] }), null)).toEqual([]);
    expect(passesAfter(st({}), { limit: 3 })).toBeUndefined(); // covered stays covered
  });

  it("recordPasses: a --where that left nothing out is no limit", () => {
    const s = st({ partial_passes: [] });
    recordPasses(s, undefined, { text: "attacked=true,false", left_out: 0 });
    expect(s.partial_passes).toBeUndefined();
    const t = st({ partial_passes: [] });
    recordPasses(t, 100, { text: "suite=b", left_out: 7 });
    expect(t.partial_passes).toEqual([{ started_at: "t1", limit: 100, where: "suite=b", left_out: 7 }]);
  });
});
