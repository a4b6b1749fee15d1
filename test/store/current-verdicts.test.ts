import { describe, expect, it } from "vitest";
import { CurrentVerdicts } from "../../src/store/current-verdicts.js";
import { IdSlots } from "../../src/store/id-slots.js";
import type { Verdict } from "../../src/types.js";

const slim = (id: string, judge = "j", repeat = 0): Verdict =>
  ({ trajectory_id: id, judge_id: judge, repeat, status: "ok", label: "unaffected", findings: [] }) as unknown as Verdict;

describe("CurrentVerdicts.idsWithout", () => {
  it("gives the ids of the current verdicts whose slot is not held, one per verdict, in storage order, as asking each verdict's id does", () => {
    const ids = new IdSlots();
    const cv = new CurrentVerdicts(ids);
    for (const v of [slim("a"), slim("b"), slim("a", "k"), slim("c"), slim("b"), slim("d", "j", 1), slim("a", "j", 1)]) cv.add(v);
    const held = new Set(["b", "d"].map((id) => ids.slot(id)));
    const got = [...cv.idsWithout((slot) => held.has(slot))].map((x) => x.trajectory_id);
    const want = [...cv].filter((v) => !held.has(ids.find(v.trajectory_id))).map((v) => v.trajectory_id);
    expect(got).toEqual(want);
    expect(got).toEqual(["a", "a", "c", "a"]); // a per judge and repeat; b (superseded, then stored again) is held
    expect([...cv.idsWithout(() => true)]).toEqual([]);
  });
});
