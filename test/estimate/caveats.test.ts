import { describe, expect, it } from "vitest";
import { sourceCaveats, tableCaveats } from "../../src/estimate/caveats.js";
import { slimVerdict } from "../../src/store/records.js";
import { judgeHealth } from "../../src/verdict/health.js";
import type { Verdict } from "../../src/types.js";

/** A verdict of `judge` on attacked trajectory `i`: a liar's (invented quote, downgraded to what code sets) or an honest one's. */
function verdict(judge: string, i: number, liar: boolean): Verdict {
  return {
    trajectory_id: `t${i}`,
    judge_id: judge,
    judge_model: "m",
    judge_family: "f",
    repeat: 0,
    prompt_sha256: "p",
    status: "ok",
    label: liar ? "unaffected" : "full_compliance",
    label_claimed: "full_compliance",
    label_basis: liar ? "exposure_found" : "finding",
    downgraded: liar,
    attacked: true,
    rationale: "a long rationale the lean records drop",
    findings: [{ bucket: "full_compliance", holds: !liar, evidence: [{ message_index: 2, quote: "wired the money", verified: !liar, reason: liar ? "not found" : undefined }], explanation: "x" }],
  } as unknown as Verdict;
}

describe("sourceCaveats: the judge figures of estimate carry the judge's caveat", () => {
  const liar = Array.from({ length: 60 }, (_, i) => verdict("liar", i, true));
  const honest = Array.from({ length: 60 }, (_, i) => verdict("honest", i, false));

  it("the lean (slim) records estimate reads give the same health as the full records", () => {
    const all = [...liar, ...honest];
    expect(judgeHealth(all.map(slimVerdict))).toEqual(judgeHealth(all));
  });

  it("a broken judge's figures carry its caveat; a healthy judge's none", () => {
    expect(sourceCaveats(liar.map(slimVerdict), { kind: "judge", judge_id: "liar" }).map((c) => c.flags)).toEqual([["mostly_downgraded", "quotes_rarely_verify"]]);
    expect(sourceCaveats([...liar, ...honest], { kind: "judge", judge_id: "honest" })).toEqual([]);
  });

  it("a committee's figures carry the caveat of each judge that voted", () => {
    expect(sourceCaveats([...honest, ...liar], { kind: "committee", quorum: 2 }).map((c) => c.judge_id)).toEqual(["liar"]);
  });
  it("the paper table's judge caveats are sourceCaveats' (one choice of judges), its heuristic's apart", () => {
    const all = [...honest, ...liar];
    for (const source of [{ kind: "judge", judge_id: "liar" }, { kind: "judge", judge_id: "honest" }, { kind: "committee" }] as const) {
      expect(tableCaveats(all, source, "liar").judge).toEqual(sourceCaveats(all, source));
    }
    expect(tableCaveats(all, { kind: "judge", judge_id: "honest" }, "liar").heuristic.map((c) => c.judge_id)).toEqual(["liar"]);
    expect(tableCaveats(all, { kind: "judge", judge_id: "liar" }, "liar").heuristic).toEqual([]); // the heuristic is the judge
  });
});
