/**
 * Statistics audit 33, M1: the adjusted gap's item-bootstrap CI under-covered when the own-family cells were sparse
 * (an agent-blind judge flagged "lenient" 6.4-9.0% of the time against 2.5% nominal). Its MOVER-Wilson CI
 * (src/committee/leniency-strata.ts, src/stats/mover.ts), checked by a seeded simulation with a known truth: an
 * agent-blind judge (over-claims 3.5% on exposed-not-compromised runs, under-claims 2% on compromised ones, whatever
 * the agent) on a small own family whose runs are rarely exposed (about 137 own exposed runs: ~5 over-claims), the
 * others' majority = the truth. Its true adjusted gap is 0. In 4000 replicates (/tmp/mv33/sim_leniency.mjs, scenario
 * A) it covered 0 in 95.5%, flagged lenient 1.1% and harsh 3.5%; a truly lenient judge must still be flagged.
 */
import { describe, expect, it } from "vitest";
import { unitStream } from "../helpers/rand.js";
import { adjustedLeniency, setBonferroniFlags, stratItem, type StratItem } from "../../src/committee/leniency-strata.js";

// truth 0 not_exposed, 1 exposed and not compromised, 2 compromised -> stratum index (LENIENCY_STRATA order)
const STRATUM = [0, 1, 3];
const OWN = { n: 1366, mix: [0.75, 0.1, 0.15] };
const OTHER = { n: 7000, mix: [0.49, 0.44, 0.07] };

/** One replicate's items; `lenientOwn`: on own-family compromised runs the judge says not compromised this much more. */
function replicate(seed: number, lenientOwn = 0): StratItem[] {
  const r = unitStream(seed);
  const items: StratItem[] = [];
  for (const [own, g] of [[true, OWN], [false, OTHER]] as const) {
    for (let i = 0; i < g.n; i++) {
      const u = r();
      const t = u < g.mix[0] ? 0 : u < g.mix[0] + g.mix[1] ? 1 : 2;
      const p = t === 2 ? 0.98 - (own ? lenientOwn : 0) : t === 1 ? 0.035 : 0;
      items.push(stratItem(r() < p, STRATUM[t], own));
    }
  }
  return items;
}

describe("the adjusted gap's MOVER-Wilson CI, by seeded simulation (audit 33 M1)", () => {
  it("an agent-blind judge with a sparse own-family cell: coverage of the true gap 0 >= 93%, each one-sided false flag <= 4%", () => {
    const R = 3000; // the harsh side's long-run rate is ~3.5% here: fewer replicates would test Monte Carlo noise
    let cover = 0;
    let lenient = 0;
    let harsh = 0;
    for (let k = 0; k < R; k++) {
      const ci = adjustedLeniency(replicate(1000 + 7919 * k), 0.95).gap_ci!;
      if (ci.upper < 0) lenient++;
      else if (ci.lower > 0) harsh++;
      else cover++;
    }
    expect(cover / R).toBeGreaterThanOrEqual(0.93);
    expect(lenient / R).toBeLessThanOrEqual(0.04);
    expect(harsh / R).toBeLessThanOrEqual(0.04);
  });

  it("a truly lenient judge (own-family compromised runs called not compromised 50 points more often) is flagged", () => {
    const R = 100;
    let flagged = 0;
    for (let k = 0; k < R; k++) {
      const a = adjustedLeniency(replicate(5 + 104729 * k, 0.5), 0.95);
      if (a.gap_ci!.upper < 0) flagged++;
    }
    // true gap: w_compromised (≈ (1366 · 0.15 + 7000 · 0.07) / 8366 = 0.083) · (−50) ≈ −4.2 points
    expect(flagged / R).toBeGreaterThanOrEqual(0.9);
  });

  it("a committee of three agent-blind judges: flagged on the Bonferroni interval, any of the three flagged <= 6% (unadjusted: ~13%)", () => {
    const C = 1000;
    let anyAdjusted = 0;
    let anyUnadjusted = 0;
    for (let k = 0; k < C; k++) {
      let adj = false;
      let raw = false;
      // the three judges' figures, then their flag intervals as the committee sets them (setBonferroniFlags)
      const committee = [0, 1, 2].map((j) => adjustedLeniency(replicate(77 + 3 * 7919 * k + j), 0.95));
      setBonferroniFlags(committee);
      for (const a of committee) {
        expect(a.gap_ci_flag).toMatchObject({ adjustment: "bonferroni", tests: 3 });
        expect(a.gap_ci_flag!.level).toBeCloseTo(1 - 0.05 / 3, 12);
        if (a.gap_ci_flag!.upper < 0 || a.gap_ci_flag!.lower > 0) adj = true;
        if (a.gap_ci!.upper < 0 || a.gap_ci!.lower > 0) raw = true;
      }
      if (adj) anyAdjusted++;
      if (raw) anyUnadjusted++;
    }
    expect(anyAdjusted / C).toBeLessThanOrEqual(0.06);
    expect(anyUnadjusted / C).toBeGreaterThan(anyAdjusted / C);
    // one judge alone: no adjustment, the 95% interval is the flag's
    const alone = [adjustedLeniency(replicate(3), 0.95)];
    setBonferroniFlags(alone);
    expect(alone[0].gap_ci_flag).toBeUndefined();
  });

  it("a truly lenient judge in a committee of three is still flagged on the Bonferroni interval", () => {
    const R = 100;
    let flagged = 0;
    for (let k = 0; k < R; k++) {
      // beside two agent-blind judges: a family of three tests
      const committee = [adjustedLeniency(replicate(5 + 104729 * k, 0.5), 0.95), adjustedLeniency(replicate(6 + 104729 * k), 0.95), adjustedLeniency(replicate(7 + 104729 * k), 0.95)];
      setBonferroniFlags(committee);
      expect(committee[0].gap_ci_flag!.tests).toBe(3);
      if (committee[0].gap_ci_flag!.upper < 0) flagged++;
    }
    expect(flagged / R).toBeGreaterThanOrEqual(0.85);
  });

  it("the family is the judges actually tested: rebuilt from the strata rows, equal to the direct interval at the Bonferroni level; an untestable judge does not count (verifier 37)", () => {
    const three = [replicate(11, 0.5), replicate(12), replicate(13)].map((items) => adjustedLeniency(items, 0.95));
    setBonferroniFlags(three);
    for (const [k, a] of three.entries()) {
      // the interval computed from the tallies at 1 - 0.05/3: the one the flag interval rebuilds from the strata rows
      const direct = adjustedLeniency([replicate(11, 0.5), replicate(12), replicate(13)][k], 1 - 0.05 / 3).gap_ci!;
      expect(a.gap_ci_flag!.level).toBeCloseTo(direct.level, 12);
      expect(a.gap_ci_flag!.tests).toBe(3);
      expect(a.gap_ci_flag!.lower).toBeCloseTo(direct.lower, 9);
      expect(a.gap_ci_flag!.upper).toBeCloseTo(direct.upper, 9);
    }
    // a judge with no own-family trajectory has no CI: two tested, each at 97.5%
    const noOwn = adjustedLeniency(replicate(14).filter((x) => !x.own), 0.95);
    expect(noOwn.gap_ci).toBeUndefined();
    const four = [three[0], three[1], noOwn];
    setBonferroniFlags(four);
    expect(four[0].gap_ci_flag!.tests).toBe(2);
    expect(four[0].gap_ci_flag!.level).toBeCloseTo(0.975, 12);
    expect(noOwn.gap_ci_flag).toBeUndefined();
    // one tested judge: no family, no flag interval
    const one = [three[2], noOwn];
    setBonferroniFlags(one);
    expect(one[0].gap_ci_flag).toBeUndefined();
  });
});
