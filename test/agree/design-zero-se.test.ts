import { describe, expect, it } from "vitest";
import { formatHumanAgreement, humanAgreement, type HumanLabelFile } from "../../src/agree/human.js";
import { designFigureText, explainZeroSe, type AgreeDesignEstimate } from "../../src/agree/design-zero-se.js";
import type { SmallCountEstimate } from "../../src/agree/design-small-count.js";
import { designAgreement } from "../../src/stats/weighted.js";
import { intervalsForJson } from "../../src/format/interval-json.js";
import { writeJson } from "../../src/io/json-stream.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

// new user 45, finding 2: a two-stratum sample where every random-stratum item agrees with the humans and every
// disagreement-stratum item does not had design-weighted agreement 0.734 (SE 0) from 16 labelled items.
const row = (id: string): TrajectoryIndexRow => ({ id, attacked: true, source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
const v = (trajectory_id: string, label: Bucket): Verdict => ({ trajectory_id, judge_id: "j", repeat: 0, status: "ok", label, judge_model: "j", judge_family: "f" }) as Verdict;

/** A: 4 of 40 labelled, all agree (judge and human unaffected); D: 2 of `nD` labelled, all disagree (judge compromised, human not). */
function study(nD: number, nA = 40) {
  const a = ["a1", "a2", "a3", "a4"];
  const d = ["d1", "d2"];
  const f: HumanLabelFile = {
    format: "jsonl",
    rows: [...a.map((t) => ({ t, s: "A", n: nA })), ...d.map((t) => ({ t, s: "D", n: nD }))].map((r, i) => ({ trajectory_id: r.t, annotator: "h", label: "unaffected", line: i + 1, weight: r.n / (r.s === "A" ? 4 : 2), stratum: r.s, stratum_size: r.n })),
    bad_rows: [],
  };
  const verdicts = [...a.map((t) => v(t, "unaffected")), ...d.map((t) => v(t, "full_compliance"))];
  const index = new Map([...a, ...d].map((id) => [id, row(id)]));
  const population = [...a, ...d, ...Array.from({ length: nA - 4 + nD - 2 }, (_, i) => `o${i}`)].map(row);
  return humanAgreement(f, verdicts, index, { scale: "binary", bootstrap: { B: 0, seed: 1 }, population });
}

describe("agree --human: a design-weighted SE of 0 from a sample is never a bare 0 (new user 45)", () => {
  it("each stratum all agree or all disagree: SE undefined with its reason; agreement and PABAK get the exact zero-event interval", () => {
    const r = study(12);
    const d = r.judges[0].design_weighted!;
    // w_A = 40/4 = 10, w_D = 12/2 = 6: p_o = 40/52
    expect(d.po.value).toBeCloseTo(40 / 52, 12);
    const kish = (40 + 12) ** 2 / (4 * 100 + 2 * 36);
    expect(d.kish_n_eff).toBeCloseTo(kish, 12);
    const bound = 1 - Math.pow(0.025, 1 / kish); // two-sided Clopper-Pearson upper bound, 0 seen
    const po = d.po as AgreeDesignEstimate;
    expect(po.se).toBeNull();
    expect(po.se_no_fpc).toBeNull();
    expect(po.ci_wald).toBeNull();
    expect(po.flags).toEqual(["se_zero_in_sample"]);
    expect(po.se_reason).toMatch(/^se_zero_within_strata \(in each stratum not labelled whole the labelled items all agree with the human consensus, or all disagree: no sampling error was seen among the 6 labelled, which is not none; 46 trajectories of those strata are unlabelled\)$/);
    expect(po.ci_exact).toMatchObject({ method: "zero_event_bound", level: 0.95 });
    expect(po.ci_exact!.lower).toBeCloseTo(40 / 52 - bound, 12);
    expect(po.ci_exact!.upper).toBeCloseTo(Math.min(1, 40 / 52 + bound), 12);
    // PABAK = 2 p_o − 1 on two categories: its interval is the agreement's, mapped
    const pabak = d.pabak as AgreeDesignEstimate;
    expect(pabak.se).toBeNull();
    expect(pabak.ci_exact!.lower).toBeCloseTo(2 * po.ci_exact!.lower - 1, 12);
    expect(pabak.ci_exact!.upper).toBeCloseTo(2 * po.ci_exact!.upper - 1, 12);
    const text = formatHumanAgreement(r);
    expect(text.split("\n").find((l) => l.includes("design-weighted ("))).not.toMatch(/SE 0\b/);
    // 1.3 effective disagreements (fewer than 10): the zero-event bound is joined with the Korn-Graubard interval, as
    // estimate does (session 46, ../../src/agree/design-small-count.ts); scipy: beta.ppf(0.025, x, k - x + 1) with
    // k = 52²/472, x = (40/52)·k gives 0.29152 below the bound's 0.29453
    const sc = (po as SmallCountEstimate).ci_small_count!;
    expect(sc.method).toBe("union_zero_event_bound_korn_graubard");
    expect(sc.lower).toBeCloseTo(0.29151918909265184, 8);
    expect(sc.upper).toBe(1);
    expect(text).toContain(`agreement 0.769 (SE undefined: 0 sampling error seen, not none; 95% CI [0.292, 1.000], the zero-event bound joined with the exact small-count one)`);
    expect(text).toMatch(/SE undefined where its linearised value is 0: in each stratum not labelled whole the labelled items all agree .*; an exact CI is the estimate ± the two-sided Clopper-Pearson upper bound \d+\.\d% on the share/);
    // JSON: null + reason, never 0
    let json = "";
    writeJson(r, (s) => (json += s), { objects: intervalsForJson });
    const back = JSON.parse(json);
    expect(back.judges[0].design_weighted.po.se).toBeNull();
    expect(back.judges[0].design_weighted.po.se_reason).toMatch(/^se_zero_within_strata/);
    expect(back.judges[0].design_weighted.po.ci_exact.upper).toBeCloseTo(po.ci_exact!.upper, 12);
  });

  it("kappa and AC1 with SE 0 in a sample: undefined with the reason, no exact CI (a kappa is no share)", () => {
    const r = study(12);
    const k = r.judges[0].design_weighted!.ac1 as AgreeDesignEstimate;
    expect(k.value).not.toBeNull();
    expect(k.se).toBeNull();
    expect(k.ci_exact).toBeUndefined();
    expect(designFigureText(k, () => "plain")).toMatch(/\(SE undefined: 0 sampling error seen, not none; no exact CI: not a share\)$/);
    // built directly: a perfect table in a sample
    const est = designAgreement([{ judge: "a", human: "a", stratum: "A" }, { judge: "b", human: "b", stratum: "A" }, { judge: "a", human: "a", stratum: "A" }], { A: 10 }, ["a", "b"]);
    expect(est.kappa.se).toBe(0);
    const out = explainZeroSe(est, { n: new Map([["A", 3]]), N: { A: 10 } });
    expect(out.kappa).toMatchObject({ value: 1, se: null, ci_wald: null, flags: ["se_zero_in_sample"] });
    expect((out.kappa as AgreeDesignEstimate).ci_exact).toBeUndefined();
    expect(out.kappa.se_reason).toMatch(/^se_zero_within_strata \(in each stratum not labelled whole the labelled items all count the same in it .*; 7 trajectories of those strata are unlabelled\)$/);
    expect((out.po as AgreeDesignEstimate).ci_exact!.upper).toBe(1);
  });

  it("a census (every stratum labelled whole) keeps SE 0, said so", () => {
    const r = study(2, 4);
    const d = r.judges[0].design_weighted!;
    expect(d.po.value).toBeCloseTo(4 / 6, 12);
    expect(d.po.se).toBe(0);
    expect(d.po.se_reason).toMatch(/^census \(every stratum of these items was labelled whole/);
    expect(formatHumanAgreement(r)).toContain("agreement 0.667 (SE 0: census, every stratum labelled whole)");
  });

  it("a non-zero SE is left as it was", () => {
    const est = designAgreement([{ judge: "a", human: "a", stratum: "A" }, { judge: "b", human: "a", stratum: "A" }, { judge: "a", human: "a", stratum: "A" }], { A: 10 }, ["a", "b"]);
    const out = explainZeroSe(est, { n: new Map([["A", 3]]), N: { A: 10 } });
    expect(out.po).toEqual(est.po);
    expect(out.po.se).toBeGreaterThan(0);
  });
});
