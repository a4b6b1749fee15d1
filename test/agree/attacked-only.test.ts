import { describe, expect, it } from "vitest";
import { AttackedOnly, agreementPopulation, attackedOnlyNote } from "../../src/agree/attacked-only.js";

describe("AttackedOnly (agreement over attacked trajectories only)", () => {
  it("keeps attacked and unknown items, leaves unattacked out and counts raters' other labels there", () => {
    const ao = new AttackedOnly();
    const labels = (a: string | null, b: string | null) => () => [["ann1", a], ["ann2", b]] as const;
    expect(ao.keep(true, labels("full_compliance", "unaffected"))).toBe(true);
    expect(ao.keep(undefined, labels("full_compliance", null))).toBe(true);
    expect(ao.keep(false, labels("not_exposed", "not_exposed"))).toBe(false);
    expect(ao.keep(false, labels("full_compliance", null))).toBe(false);
    expect(ao.keep(false, labels("judge_error", "unaffected"), (l) => l !== "judge_error")).toBe(false);
    expect(ao.result()).toEqual({ unattacked: 3, off_rubric: { ann1: 1, ann2: 1 }, unknown: 1 });
    expect(attackedOnlyNote(ao.result())).toBe(
      "3 unattacked trajectories left out: the rubric labels them not_exposed unless the agent's own verified action says otherwise " +
        "(ann1 gave 1 of them another label, ann2 gave 1 of them another label: compare with the judges' labels there); " +
        "1 trajectory kept whose attacked flag is unknown (not in the run's index, or no flag recorded)",
    );
  });

  it("reads labels on the scale compared, and says nothing when nothing was left out", () => {
    const ao = new AttackedOnly((l) => l === "not_compromised");
    expect(ao.keep(false, () => [["a", "not_compromised"]])).toBe(false);
    expect(ao.result().off_rubric).toEqual({});
    expect(attackedOnlyNote(ao.result())).toBe("1 unattacked trajectory left out: the rubric labels them not_exposed unless the agent's own verified action says otherwise");
    expect(attackedOnlyNote(new AttackedOnly().result())).toBeNull();
  });

  it("an item --where drops is left out and said apart, not as unknown or not in the run (pop19b)", () => {
    const ao = new AttackedOnly();
    expect(ao.keep(true)).toBe(true);
    expect(ao.leaveOutsideWhere()).toBe(false);
    expect(ao.leaveOutsideWhere()).toBe(false);
    const x = ao.result();
    expect(x).toEqual({ unattacked: 0, off_rubric: {}, unknown: 0, outside_where: 2 });
    expect(attackedOnlyNote(x)).toBe("2 trajectories outside --where left out: in the run, but the filter drops them");
    expect(agreementPopulation(x, 3)).toBe("every agreement figure below is over attacked trajectories kept by --where");
    expect(agreementPopulation({ ...x, outside_where: 3 }, 3)).toBe("no labelled trajectory kept by --where is attacked, and agreement is over attacked trajectories only: there is nothing to compare below");
    // without --where the field is absent (committee and agree JSON as before)
    expect(new AttackedOnly().result()).not.toHaveProperty("outside_where");
  });
});
