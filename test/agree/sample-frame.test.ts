import { describe, expect, it } from "vitest";
import { checkStrataTotal, type FrameCheck } from "../../src/agree/sample-frame.js";

describe("checkStrataTotal: what the label file's strata cover (new-user report 31, item 7)", () => {
  it("a --where sample whose file's cells hold fewer than the population: 'cover 698 of the 702', why the rest is out, never two totals side by side", () => {
    const check = { known: "exact", population: { N_run: 702, filter: "attack=important_instructions" } } as unknown as FrameCheck;
    const w: string[] = [];
    checkStrataTotal(check, 698, 780, 702, "h.jsonl", w, () => ({ n: 0, attacked: 0, strata: [] }));
    expect(w).toEqual([
      "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 698 of the 702 trajectories of the run the sample's --where attack=important_instructions keeps: " +
        "the other 4 are in cells with no labelled item (none drawn there, e.g. a disagreement cell phase 2 drew nothing from; none labelled; or no labelled item with a consensus, e.g. annotators tied on each): the human and calibrated estimates do not represent them",
    ]);
    expect(w[0]).not.toMatch(/hold 698 trajectories, the 702/);
  });
});
