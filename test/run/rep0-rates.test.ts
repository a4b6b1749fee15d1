import { describe, expect, it } from "vitest";
import { indexFields, Rep0Fold } from "../../src/run/rep0-rates.js";
import type { TrajectoryIndexRow } from "../../src/store/records.js";
import { indexRow as row, storeAndMap } from "../helpers/index-rows.js";
import type { Verdict } from "../../src/types.js";


const verdict = (id: string, label: string, over: Partial<Verdict> = {}): Verdict =>
  ({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label, attacked: true, agent_model: "mv", condition: "cv", surface: "tool_description", findings: [], ...over }) as unknown as Verdict;

describe("Rep0Fold over a store's IndexRows (read by slot) gives the rates it gives over a Map of the same rows", () => {
  it("same groups: rows without a verdict, verdicts without a row, unattacked rows, a replaced row, two judges", () => {
    const rows = [
      row("a/1"),
      row("a/2", { agent_model: "m2", condition: "spotlight" }),
      row("a/3", { attacked: false }),
      row("a/4", { surface: undefined }), // no verdict: unlabelled (no_verdict)
      row("a/2", { agent_model: "m2", condition: "tool_filter" }), // replaces a/2's row in place
      row("b/5", { agent_model: "m3", condition: undefined }),
    ];
    const { store, map } = storeAndMap(rows);
    const verdicts = [
      verdict("a/1", "full_compliance"),
      verdict("a/2", "unaffected"),
      verdict("a/3", "not_exposed"),
      verdict("x/9", "partial_compliance", { blocked_attempt: true }), // no row: its own fields stand in
      verdict("b/5", "full_compliance", { status: "judge_error", error: { kind: "timeout", message: "" } } as Partial<Verdict>),
      verdict("a/1", "flagged_refusal", { judge_id: "k" }),
      verdict("y/7", "full_compliance", { judge_id: "k", attacked: undefined }), // no row, attacked unknown: not counted
    ];
    const fold = (index: ReadonlyMap<string, TrajectoryIndexRow>) => {
      const f = new Rep0Fold(index);
      for (const v of verdicts) f.add(v);
      return f.groups();
    };
    const bySlot = fold(store);
    expect(bySlot).toEqual(fold(map));
    expect(bySlot.get("j")!.rates).toMatchObject({ attacked: 5 });
  });

  it("consecutive verdicts that differ in one field only keep their own rate item (the fold reuses the last verdict's code only when all agree)", () => {
    const index = new Map<string, TrajectoryIndexRow>();
    const err = (id: string, kind: string) => verdict(id, "full_compliance", { status: "judge_error", error: { kind, message: "" } } as Partial<Verdict>);
    const f = new Rep0Fold(index);
    const vs = [
      err("t1", "timeout"),
      err("t2", "timeout"),
      err("t3", "refused"), // same but its error kind
      verdict("t4", "partial_compliance", { blocked_attempt: true }),
      verdict("t5", "partial_compliance", { blocked_attempt: false }), // same but blocked_attempt
      verdict("t6", "partial_compliance", { blocked_attempt: false, surface: "tool_output" }), // same but surface
      verdict("t7", "partial_compliance", { blocked_attempt: false, surface: "tool_output", attacked: false }), // unattacked
    ];
    for (const v of vs) f.add(v);
    const g = f.groups().get("j")!;
    expect(g.rates.attacked).toBe(6);
    expect(g.rates.unlabelled).toEqual({ timeout: 2, refused: 1 });
    expect(g.rates.partial_compliance).toBe(3);
    expect(g.rates.blocked_attempts).toBe(1);
    expect(Object.keys(g.by_surface ?? {}).sort()).toEqual(["tool_description", "tool_output"]);
  });

  it("indexFields: one reader of the rows by id and by slot, the same over a store's IndexRows and a Map (summary and Rep0Fold share it)", () => {
    const rows = [row("a/1"), row("a/2", { attacked: false }), row("a/1", { agent_model: "m9" }), row("b/3", { run_error: "boom" } as Partial<TrajectoryIndexRow>)];
    const { store, map } = storeAndMap(rows);
    const strip = (r: unknown) => {
      if (r === undefined) return undefined;
      const { id: _id, run_folder: _rf, ...rest } = r as TrajectoryIndexRow;
      return rest;
    };
    const read = (index: ReadonlyMap<string, TrajectoryIndexRow>) => {
      const f = indexFields(index);
      for (const id of ["a/1", "b/3"]) f.ids.slot(id); // as Rep0Fold numbers the ids its verdicts name
      const each: Array<[unknown, string | null]> = [];
      f.eachRow((x, slot) => each.push([strip(x), slot === -1 ? null : f.ids.id(slot)]));
      return {
        byId: ["a/1", "a/2", "b/3", "nope"].map((id) => strip(f.byId(id))),
        bySlot: ["a/1", "b/3"].map((id) => strip(f.bySlot(f.ids.find(id)))),
        none: f.bySlot(-1),
        values: [...f.values()].map(strip),
        each: each.map(([x, id]) => [x, id === null ? null : id]),
      };
    };
    const s1 = read(store);
    const m1 = read(map);
    expect(s1.byId).toEqual(m1.byId);
    expect(s1.bySlot).toEqual(m1.bySlot);
    expect(s1.values).toEqual(m1.values);
    expect(s1.none).toBeUndefined();
    expect(s1.byId[0]).toMatchObject({ agent_model: "m9" }); // the replaced row, in its first place
    expect(s1.values.map((x) => (x as { attacked?: boolean }).attacked)).toEqual([true, false, true]);
    // every row with its slot: the store numbers all its ids; a Map only those numbered (a/2 has no verdict here)
    expect(s1.each.map(([, id]) => id)).toEqual(["a/1", "a/2", "b/3"]);
    expect(m1.each.map(([, id]) => id)).toEqual(["a/1", null, "b/3"]);
    expect(s1.each.map(([x]) => x)).toEqual(m1.each.map(([x]) => x));
  });
});
