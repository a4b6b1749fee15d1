import { describe, expect, it } from "vitest";
import { IdSlots } from "../../src/store/compact.js";

describe("IdSlots remembers the last id it found (the tables keyed by id ask for it in turn)", () => {
  it("gives the same slots as without the memo: repeats, equal copies, absent ids, the empty id", () => {
    const ids = new IdSlots();
    const a = "m/banking/user_task_0/none/none";
    const copy = ["m/banking/", "user_task_0/none/none"].join(""); // equal value, another string
    expect(ids.find(a)).toBe(-1);
    expect(ids.find(a)).toBe(-1); // an absent id is not remembered as found
    const sa = ids.slot(a);
    expect(ids.slot(a)).toBe(sa);
    expect(ids.find(copy)).toBe(sa);
    expect(ids.find("")).toBe(-1);
    const se = ids.slot("");
    expect(se).not.toBe(sa);
    expect(ids.find("")).toBe(se);
    expect(ids.slot("")).toBe(se);
    const b = "m/banking/user_task_0/none/none2";
    expect(ids.find(b)).toBe(-1);
    const sb = ids.slot(b);
    expect(new Set([sa, sb, se]).size).toBe(3);
    expect(ids.find(a)).toBe(sa);
    expect(ids.find(b)).toBe(sb);
    expect(ids.slot(a)).toBe(sa);
    expect(ids.size).toBe(3);
  });
  it("stays exact across growth (rehash) with the same id asked for several times in turn", () => {
    const ids = new IdSlots();
    const id = (k: number) => `m~r${k % 7}/s${k % 5}/user_task_${k % 31}/attack/injection_task_${k}`;
    for (let k = 0; k < 5000; k++) {
      const s = ids.slot(id(k));
      expect(ids.slot(id(k))).toBe(s);
      expect(ids.find(id(k))).toBe(s);
      if (k > 0) expect(ids.find(id(k - 1))).toBe(s - 1);
    }
    for (let k = 0; k < 5000; k++) expect(ids.find(id(k))).toBe(k);
    expect(ids.find(id(5000))).toBe(-1);
    expect(ids.size).toBe(5000);
  });
});
