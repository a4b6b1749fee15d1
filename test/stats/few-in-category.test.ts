/**
 * fewInCategory (src/stats/few-in-category.ts): a kappa resting on a category used 1-4 times is said so, with the
 * kappa one changed label can give (new user 44: 1/0/0/359 read kappa, AC1 and PABAK 1.000 with nothing said).
 */
import { describe, expect, it } from "vitest";
import { FEW_IN_CATEGORY, fewInCategory } from "../../src/stats/few-in-category.js";
import { cohenKappa } from "../../src/stats/cohen.js";
import { referenceAgreement, formatReferenceAgreement } from "../../src/agree/reference.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

const names = { rater: "judge", reference: "the benchmark's security", yes: "yes", no: "no" };

describe("fewInCategory", () => {
  it("1/0/0/359: one run carries kappa 1.000; one label the other way gives 0", () => {
    const f = fewInCategory([[1, 0], [0, 359]], names)!;
    expect(cohenKappa([[1, 0], [0, 359]]).value).toBeCloseTo(1, 12);
    expect(f.fewest).toBe(1);
    expect(f.kappa_one_changed).toBe(0);
    expect(f.text).toBe(
      "kappa rests on few items: a category was used 1 time (the benchmark's security yes 1, no 359; judge yes 1, no 359; fewer than 5), so one label the other way can take kappa to 0.000; read the counts below, not the coefficient, and pool more runs before quoting it",
    );
  });
  it("the single relabel farthest from the table's kappa, each computed as cohenKappa computes it", () => {
    const t = [[3, 1], [0, 96]];
    const f = fewInCategory(t, names)!;
    const base = cohenKappa(t).value!;
    // all eight single relabels that exist (the empty cell c has none): off the diagonal and onto it
    const moves = [[[2, 1], [1, 96]], [[2, 2], [0, 96]], [[3, 0], [0, 97]], [[4, 0], [0, 96]], [[3, 2], [0, 95]], [[3, 1], [1, 95]]].map((m) => cohenKappa(m).value!);
    const far = moves.reduce((x, y) => (Math.abs(y - base) > Math.abs(x - base) ? y : x));
    expect(f.kappa_one_changed).toBeCloseTo(far, 12);
    expect(f.kappa_one_changed).toBeCloseTo(Math.min(...moves), 12); // here the farthest is the lowest
    expect(f.fewest).toBe(3);
  });
  it("nothing on the diagonal (kappa -1.000): every single relabel moves it up, none leaves it undefined (stats55 finding 2)", () => {
    // by hand (p_o, p_e = Σ row·col / n²): zero6.csv's 6 items, a yes/b no 3 and a no/b yes 3, one relabelled gives
    // [[1, 2], [3, 0]] (or its mirror): p_o 1/6, p_e 1/2, kappa -2/3; zero.csv's 4 items: [[1, 1], [2, 0]], p_o 1/4, p_e 1/2, kappa -1/2
    for (const [t, k, said] of [[[[0, 3], [3, 0]], -2 / 3, "-0.667"], [[[0, 2], [2, 0]], -0.5, "-0.500"]] as const) {
      expect(cohenKappa(t as unknown as number[][]).value).toBeCloseTo(-1, 12);
      const f = fewInCategory(t as unknown as number[][], names)!;
      expect(f.kappa_one_changed).toBeCloseTo(k, 12);
      expect(f.text).toContain(`so one label the other way can take kappa to ${said};`);
      expect(f.text).not.toContain("undefined");
    }
  });
  it("none at 5 or more uses on both sides, nor when a category is unused (one-category's case)", () => {
    expect(fewInCategory([[5, 0], [0, 95]], names)).toBeNull();
    expect(fewInCategory([[0, 0], [3, 97]], names)).toBeNull();
    expect(fewInCategory([[4, 1], [1, 94]], names)).toBeNull(); // 5 a side: not few
    expect(fewInCategory([[4, 0], [1, 95]], names)?.fewest).toBe(FEW_IN_CATEGORY - 1);
  });
});

describe("agree --reference: the FEW ITEMS line and the JSON field", () => {
  it("a comparison over 360 runs with one success", () => {
    const index = new Map<string, TrajectoryIndexRow>();
    const verdicts: Verdict[] = [];
    for (let i = 0; i < 360; i++) {
      const id = `t${i}`;
      index.set(id, { id, attacked: true, reference: { security: i === 0 } } as unknown as TrajectoryIndexRow);
      verdicts.push({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: i === 0 ? "full_compliance" : "unaffected", compromised: i === 0, attacked: true } as Verdict);
    }
    const a = referenceAgreement("j", verdicts, index);
    expect(a.kappa).toBeCloseTo(1, 12);
    expect(a.few_in_category?.fewest).toBe(1);
    expect(formatReferenceAgreement(a)).toContain("\n  FEW ITEMS: kappa rests on few items: a category was used 1 time");
  });
});
