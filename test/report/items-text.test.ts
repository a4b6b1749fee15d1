import { describe, expect, it } from "vitest";
import { itemsPopulationText } from "../../src/report/items-text.js";
import type { ReportModel } from "../../src/report/data.js";

describe("itemsPopulationText: what the committee's disagreement list is over (new-user report 17)", () => {
  const committee = {} as NonNullable<ReportModel["committee"]>;
  it("splits the list into attacked (the committee's not-unanimous count) and unattacked items", () => {
    expect(itemsPopulationText({ committee, items_total: 48, items_unattacked: 16 })).toBe(
      `32 on attacked trajectories, the committee's "not unanimous" count; 16 on unattacked ones, which its agreement figures leave out`,
    );
  });
  it("says nothing when no listed item is unattacked, or without a committee", () => {
    expect(itemsPopulationText({ committee, items_total: 48, items_unattacked: 0 })).toBe("");
    expect(itemsPopulationText({ committee: null, items_total: 48 })).toBe("");
  });
});
