/**
 * The view's row columns: codes share equal values, slots grow past the first capacity, a row is built with every
 * field in the page's JSON order, and the list reads index rows then orphans in their given order.
 */
import { describe, expect, it } from "vitest";
import { Codes, ColumnRows, RowColumns } from "../../src/view/row-columns.js";

describe("Codes", () => {
  it("gives undefined code 0, one code per equal value, strings and objects apart", () => {
    const c = new Codes<string | Record<string, unknown>>();
    expect(c.code(undefined)).toBe(0);
    const a = c.code({ x: "1" });
    expect(c.code({ x: "1" })).toBe(a);
    expect(c.code('{"x":"1"}')).not.toBe(a);
    expect(c.code({ x: null })).not.toBe(c.code({}));
    expect(c.values[a]).toEqual({ x: "1" });
  });
});

describe("RowColumns", () => {
  it("keeps 3,000 rows past the first capacity and builds each in the page's key order", () => {
    const c = new RowColumns();
    for (let i = 0; i < 3000; i++) {
      const { slot, added } = c.slot(`id-${i}-é`);
      expect(added).toBe(true);
      expect(slot).toBe(i);
      c.setField(slot, "suite", i % 2 ? "banking" : undefined);
      c.attacked[slot] = i % 3 === 0 ? 1 : 0;
      if (i % 5 === 0) c.reference[slot] = 1;
    }
    expect(c.slot("id-7-é")).toEqual({ slot: 7, added: false });
    const r = c.row(2999);
    expect(Object.keys(r)).toEqual(["id", "attacked", "labels", "status", "downgraded", "unverified_quotes", "refs", "search", "agent_model", "suite", "condition", "attack", "surface", "user_task_id", "injection_task_id", "reference", "committee", "humans"]);
    expect(JSON.stringify(r)).toBe('{"id":"id-2999-é","attacked":false,"labels":{},"status":{},"downgraded":[],"unverified_quotes":0,"refs":-1,"search":"","suite":"banking"}');
    expect(c.row(0).reference).toBe(true);
    expect(c.row(0).attacked).toBe(true);
    expect(c.row(1).reference).toBeUndefined();
    // a built row is a copy: writing into it changes nothing
    r.suite = "x";
    expect(c.row(2999).suite).toBe("banking");
  });

  it("lists index rows, then orphans in the given order; at() takes negative positions as arrays do", () => {
    const c = new RowColumns();
    for (const id of ["a", "b", "o1", "o2"]) c.slot(id);
    const rows = new ColumnRows(c, 2, [3, 2]);
    expect(rows.length).toBe(4);
    expect([...rows].map((r) => r.id)).toEqual(["a", "b", "o2", "o1"]);
    expect(rows.at(-1)?.id).toBe("o1");
    expect(rows.at(4)).toBeUndefined();
    expect(rows.at(1.5)).toBeUndefined();
  });
});
