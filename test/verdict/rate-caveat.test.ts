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

  it("rests on code is reported, not a trigger: a code-set not_exposed can be right (check 16: signature on AgentDyn)", () => {
    expect(judgeRestsOnCode({ attacked_labels: 10, code_established_share: 0.6 })).toBe(true);
    expect(judgeRestsOnCode({ attacked_labels: 10, code_established_share: 0.5 })).toBe(false); // not more than half
    expect(judgeRestsOnCode({ attacked_labels: 9, code_established_share: 1 })).toBe(false); // too few to say
    expect(rateCaveat(health({ verdicts: 20, usable: 20, attacked_labels: 20, code_established: 15 }))).toBeNull();
  });

  it("flags that only leave fewer labels (coverage says so) are no caveat: VIGIL's input records no injected text", () => {
    const h = health({ verdicts: 100, usable: 20, unverified: 80, quotes: 20, quotes_verified: 20, attacked_labels: 20, code_established: 0 });
    expect(h.flags.map((f) => f.code)).toContain("mostly_unverified");
    expect(rateCaveat(h)).toBeNull();
  });

  it("a broken judge (its quotes never verify) is named with its flags", () => {
    const h = health({ verdicts: 60, usable: 60, downgraded: 60, quotes: 60, quotes_verified: 0, attacked_labels: 50, code_established: 50 });
    const c = rateCaveat(h)!;
    expect(c.flags).toEqual(["mostly_downgraded", "quotes_rarely_verify"]);
    expect(c.rests_on_code).toBe(true);
    expect(c.message).toMatch(/^judge "j" looks broken \(mostly_downgraded, quotes_rarely_verify\): its evidence did not verify; 50 of its 50 attacked labels \(100\.0%\) were set by code/);
    expect(rateCaveatMarker([c])).toBe(' [JUDGE "j" LOOKS BROKEN: see the warning]');
  });
});
