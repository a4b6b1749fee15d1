import { describe, expect, it } from "vitest";
import { IndexRows, ROW_SHAPES_SHARED_MAX } from "../../src/store/index-rows.js";
import { IdSlots } from "../../src/store/id-slots.js";
import { slimIndexRow, type TrajectoryIndexRow } from "../../src/store/records.js";

const row = (i: number, folder?: string): TrajectoryIndexRow =>
  slimIndexRow({
    id: `t${i}`,
    attacked: i % 2 === 0,
    agent_model: `m${i % 7}`,
    suite: `s${i % 3}`,
    ...(folder !== undefined ? { run_folder: folder } : {}),
  } as TrajectoryIndexRow);

describe("IndexRows", () => {
  it("gives back each slim row as stored (fields, order, run_folder), in first-stored order, a later row replacing in place", () => {
    const rows = new IndexRows(new IdSlots());
    const stored = [row(0, "/c/runs_base"), row(1), row(2, "/c/debug_run"), row(3, "/c/runs_base")];
    for (const r of stored) rows.set(r);
    rows.set(row(1, "/c/debug_run")); // replaces t1 in place
    const want = [stored[0], row(1, "/c/debug_run"), stored[2], stored[3]];
    expect([...rows.values()].map((r) => JSON.stringify(r))).toEqual(want.map((r) => JSON.stringify(r)));
    expect(rows.get("t2")?.run_folder).toBe("/c/debug_run");
    expect(rows.get("t0")).toEqual(stored[0]);
    expect("run_folder" in (rows.get("t1") ?? {})).toBe(true);
    rows.set(row(3)); // a row without a folder drops it
    expect("run_folder" in (rows.get("t3") ?? {})).toBe(false);
  });

  it("codes run_folder apart from the shared shapes: many folders times few shapes stays within the shared table", () => {
    const rows = new IndexRows(new IdSlots());
    // 21 shapes x (ROW_SHAPES_SHARED_MAX / 10) folders: as shapes with the folder inside, past the shared table's limit
    const folders = ROW_SHAPES_SHARED_MAX / 10;
    let n = 0;
    for (let f = 0; f < folders; f++) for (let k = 0; k < 21; k++) rows.set(row(n++ * 21 + k, `/copies/r${f}`));
    expect(rows.size).toBe(n);
    const shapes = (rows as unknown as { shapes: unknown[] }).shapes.length;
    expect(shapes).toBeLessThanOrEqual(42);
    expect(rows.get(`t${(n - 1) * 21 + 20}`)?.run_folder).toBe(`/copies/r${folders - 1}`);
  });

  it("reads by slot (slotAt, fieldsOf) the rows iteration rebuilds, without their id and run_folder; undefined for a slot without a row", () => {
    const ids = new IdSlots();
    const rows = new IndexRows(ids);
    for (const r of [row(0, "/c/a"), row(1), row(2, "/c/b")]) rows.set(r);
    rows.set(row(1, "/c/b")); // replaces t1 in place
    const noRow = ids.slot("t9"); // a slot the rows do not hold (a verdict's trajectory without a row)
    const rebuilt = [...rows.values()];
    expect(rows.size).toBe(3);
    for (let i = 0; i < rows.size; i++) {
      const slot = rows.slotAt(i);
      expect(ids.id(slot)).toBe(rebuilt[i].id);
      const { id: _id, run_folder: _f, ...rest } = rebuilt[i];
      expect(rows.fieldsOf(slot)).toEqual(rest);
      expect(Object.isFrozen(rows.fieldsOf(slot))).toBe(true);
    }
    expect(rows.fieldsOf(noRow)).toBeUndefined();
  });
});
