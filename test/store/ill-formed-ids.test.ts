/**
 * Ids that are not well-formed UTF-16 (a lone surrogate, e.g. from a JSON `"\ud800"` escape) in the UTF-8 id table
 * (src/store/utf8-column.ts, id-slots.ts): UTF-8 cannot hold a lone surrogate (it is written as U+FFFD), so
 * "t\ud800", "t\udc00" and "t\ufffd" had one slot and a label run said two of them were duplicate ids
 * (the Map of id strings before issue 26 kept three trajectories).
 */
import { describe, expect, it } from "vitest";
import { IdSlots } from "../../src/store/id-slots.js";
import { Utf8Column } from "../../src/store/utf8-column.js";

const IDS = ["t\ud800", "t\udc00", "t\ufffd", "t\udc00\ud800", "t\ud83d\ude00", "t\ud83d", "t", "\ud800", "\ufffd", "é\ud800x"];

describe("ids with lone surrogates stay distinct", () => {
  it("IdSlots gives each its own slot and gives it back exactly", () => {
    const ids = new IdSlots();
    const slots = IDS.map((id) => ids.slot(id));
    expect(new Set(slots).size).toBe(IDS.length);
    IDS.forEach((id, k) => {
      expect(ids.find(id)).toBe(slots[k]);
      expect(ids.id(slots[k])).toBe(id);
    });
    expect(ids.find("t\udbff")).toBe(-1);
  });

  it("Utf8Column compares them exactly, and an overwritten index forgets its old string", () => {
    const col = new Utf8Column();
    const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));
    col.set(0, "t\ud800");
    col.set(1, "t\ufffd");
    expect(col.get(0)).toBe("t\ud800");
    expect(col.equals(0, "t\ud800", false, enc("t\ud800"))).toBe(true);
    expect(col.equals(0, "t\ufffd", false, enc("t\ufffd"))).toBe(false);
    expect(col.equals(1, "t\ud800", false, enc("t\ud800"))).toBe(false);
    expect(col.equals(1, "t\ufffd", false, enc("t\ufffd"))).toBe(true);
    col.set(0, "t\ufffd");
    expect(col.get(0)).toBe("t\ufffd");
    expect(col.equals(0, "t\ufffd", false, enc("t\ufffd"))).toBe(true);
  });
});
