import { describe, expect, it } from "vitest";
import { emptyHealth, withFlags, type JudgeHealth } from "../../src/verdict/health.js";
import { judgeRestsOnCode, rateCaveat, rateCaveatMarker, rateCaveats } from "../../src/verdict/rate-caveat.js";

const health = (o: Partial<JudgeHealth>): JudgeHealth => withFlags({ ...emptyHealth("j", "m"), ...o });

describe("rateCaveat: the caveat of a judge's rates", () => {
  it("a healthy judge whose labels are its findings has none", () => {
    const h = health({ verdicts: 60, usable: 60, quotes: 60, quotes_verified: 55, attacked_labels: 50, code_established: 10 });
    expect(rateCaveat(h)).toBeNull();
    expect(rateCaveatMarker(rateCaveats([h], ["j"]))).toBe("");
  });

  it("rests on code by the code-established rule: more than 50% of at least 10 attacked labels", () => {
    expect(judgeRestsOnCode({ attacked_labels: 10, code_established_share: 0.6 })).toBe(true);
    expect(judgeRestsOnCode({ attacked_labels: 10, code_established_share: 0.5 })).toBe(false); // not more than half
    expect(judgeRestsOnCode({ attacked_labels: 9, code_established_share: 1 })).toBe(false); // too few to say
    const c = rateCaveat(health({ verdicts: 20, usable: 20, attacked_labels: 20, code_established: 15 }))!;
    expect(c).toMatchObject({ rests_on_code: true, flags: [], code_established: 15, attacked_labels: 20 });
    expect(c.message).toContain("15 of its 20 attacked labels (75.0%) were set by code");
    expect(rateCaveatMarker([c])).toBe(" [JUDGE j, RESTS ON CODE: see the warning]");
  });

  it("a broken judge (its quotes never verify) is named with its flags", () => {
    const h = health({ verdicts: 60, usable: 60, downgraded: 60, quotes: 60, quotes_verified: 0, attacked_labels: 50, code_established: 50 });
    const c = rateCaveat(h)!;
    expect(c.flags).toEqual(["mostly_downgraded", "quotes_rarely_verify"]);
    expect(c.message).toMatch(/^judge j looks broken \(mostly_downgraded, quotes_rarely_verify\); 50 of its 50 attacked labels \(100\.0%\)/);
    expect(rateCaveatMarker([c])).toBe(" [JUDGE j LOOKS BROKEN, RESTS ON CODE: see the warning]");
  });
});
