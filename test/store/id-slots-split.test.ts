import { describe, expect, it } from "vitest";
import { IdSlots } from "../../src/store/compact.js";

describe("IdSlots holds an ASCII id with a / as folder + rest, exactly (issue 26)", () => {
  it("never confuses ids that share a folder, a rest, or the same characters cut elsewhere", () => {
    const ids = new IdSlots();
    const cases = [
      "m/banking/user_task_0/none/none",
      "m/banking/user_task_0/none/none2",
      "m/banking/user_task_0/nonE/none",
      "m/banking/user_task_0/none", // a folder of another id, as an id
      "m/banking/user_task_0/none/", // ends with its cut: the rest is ""
      "m/banking/user_task_0/none//",
      "m/banking/user_task_0/no/ne/none",
      "m/banking/user_task_0/nonenone",
      "m/banking/user_task_0/none/none/",
      "/",
      "//",
      "a",
      "",
      "é/x", // not ASCII: held whole
      "m/é/none",
      "m/banking/user_task_0/none/nonée",
      "m/banking/user_task_0/none/none\uD800", // a lone surrogate
      "m~r5/banking/user_task_0/important_instructions/injection_task_1",
      "m~r5/banking/user_task_0/important_instructions/injection_task_10",
    ];
    const slots = cases.map((id) => ids.slot(id));
    expect(new Set(slots).size).toBe(cases.length);
    for (let k = 0; k < cases.length; k++) {
      expect(ids.find(cases[k])).toBe(slots[k]);
      expect(ids.slot(cases[k])).toBe(slots[k]);
      expect(ids.id(slots[k])).toBe(cases[k]);
    }
    for (const other of ["m/banking/user_task_0/none/non", "m/banking/user_task_0/none/nonee", "m/banking/user_task_0/", "m/banking/user_task_1/none/none", "x/", "é/y"]) expect(ids.find(other)).toBe(-1);
    expect(ids.size).toBe(cases.length);
  });
  it("stays exact across growth with many ids per folder and many folders", () => {
    const ids = new IdSlots();
    const id = (k: number) => `m~r${k % 97}/s${k % 5}/user_task_${k % 31}/attack/injection_task_${k}`;
    for (let k = 0; k < 30_000; k++) expect(ids.slot(id(k))).toBe(k);
    for (let k = 0; k < 30_000; k += 7) {
      expect(ids.find(id(k))).toBe(k);
      expect(ids.id(k)).toBe(id(k));
    }
    expect(ids.find(`${id(5)}x`)).toBe(-1);
  });
});
