import { describe, expect, it } from "vitest";
import { IdBits } from "../../src/store/id-bits.js";
import { IdSlots } from "../../src/store/id-slots.js";

describe("IdBits: a set of ids as one bit per id slot", () => {
  it("counts each id once, tells members exactly, and grows past its first bytes", () => {
    const slots = new IdSlots();
    for (let i = 0; i < 5000; i++) slots.slot(`m/suite/user_task_${i}/attack/injection_task_${i % 7}`);
    const bits = new IdBits(slots);
    expect(bits.size).toBe(0);
    expect(bits.has("m/suite/user_task_3/attack/injection_task_3")).toBe(false);
    for (const i of [3, 4999, 3, 17, 4999]) bits.add(`m/suite/user_task_${i}/attack/injection_task_${i % 7}`);
    expect(bits.size).toBe(3);
    expect(bits.has("m/suite/user_task_17/attack/injection_task_3")).toBe(true);
    expect(bits.has("m/suite/user_task_18/attack/injection_task_4")).toBe(false);
    expect(bits.has("never/seen")).toBe(false);
    // an id the table lacks is added to it
    bits.add("new/id");
    expect(bits.has("new/id")).toBe(true);
    expect(bits.size).toBe(4);
    expect(slots.find("new/id")).toBeGreaterThanOrEqual(0);
  });
});
