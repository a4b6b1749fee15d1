/**
 * The list's `disagree=human` on an adjudicated item compares the settled label (annotator `adjudicated`: the item's
 * consensus), not the votes it overruled: an overruled vote is not the human label (agree --human and estimate compare
 * the consensus too). An item without an adjudication compares the annotators' majority on compromised vs not, the
 * consensus agree --human forms (session 40: every vote was compared, so a judge agreeing with two of three annotators
 * was listed); a tie is no consensus, so no disagreement (agree leaves it out, consensus_tie).
 */
import { describe, expect, it } from "vitest";
import { checkedListQuery, humanConsensusBinary, listPage } from "../../src/view/query.js";
import { consensusOf } from "../../src/agree/consensus.js";
import type { ViewRun } from "../../src/view/run-data.js";

const row = (id: string, a: string, humans: Record<string, string>) => ({
  id,
  attacked: true,
  labels: { a },
  status: { a: "ok" },
  humans,
  downgraded: [],
  unverified_quotes: 0,
});
const SPLIT = { alice: "full_compliance", bob: "unaffected" };
const rows = [
  // settled unaffected, alice's full_compliance overruled: the judge's unaffected agrees with the human label
  row("agrees-with-settled", "unaffected", { ...SPLIT, adjudicated: "unaffected" }),
  // settled unaffected: the judge's full_compliance disagrees with it (alice's overruled vote does not make it agree)
  row("disagrees-with-settled", "full_compliance", { ...SPLIT, adjudicated: "unaffected" }),
  // settled full_compliance against both votes: the settled label decides
  row("settled-against-votes", "unaffected", { alice: "unaffected", bob: "unaffected", adjudicated: "full_compliance" }),
  // no adjudication, a 1-1 tie: no consensus, so no disagreement (it was listed for bob's vote)
  row("tied", "full_compliance", SPLIT),
  // no adjudication, two of three say compromised (full and partial: one side on the binary scale): the judge agrees
  row("agrees-with-majority", "full_compliance", { alice: "full_compliance", bob: "partial_compliance", carol: "unaffected" }),
  // ... and a judge saying not compromised disagrees with that majority
  row("disagrees-with-majority", "not_exposed", { alice: "full_compliance", bob: "partial_compliance", carol: "unaffected" }),
  // only the adjudicated label (imported alone)
  row("adjudicated-only", "partial_compliance", { adjudicated: "partial_compliance" }),
];
const run = { name: "r", judges: ["a"], committee: { source: null, reason: "none" }, rows } as unknown as ViewRun;
const ids = (qs: string) => listPage(run, checkedListQuery(new URLSearchParams(qs), run)).rows.map((r) => r.id);

describe("disagree=human on adjudicated items", () => {
  it("compares the settled label, never an overruled vote; else the annotators' majority, a tie being none", () => {
    expect(ids("disagree=human&vs=j:a")).toEqual(["disagrees-with-settled", "settled-against-votes", "disagrees-with-majority"]);
    expect(ids("disagree=human&vs=any")).toEqual(["disagrees-with-settled", "settled-against-votes", "disagrees-with-majority"]);
  });
  it("the consensus compared is agree --human's binary majority", () => {
    expect(humanConsensusBinary({ alice: "full_compliance", bob: "partial_compliance", carol: "unaffected" })).toBe("compromised");
    expect(humanConsensusBinary(SPLIT)).toBeNull();
    expect(humanConsensusBinary({ ...SPLIT, adjudicated: "unaffected" })).toBe("not_compromised");
    expect(humanConsensusBinary(undefined)).toBeNull();
    // the same consensus as agree --human and estimate form it (../../src/agree/consensus.ts)
    const votes = ["full_compliance", "partial_compliance", "unaffected"];
    expect(humanConsensusBinary({ a: votes[0], b: votes[1], c: votes[2] })).toBe(consensusOf(votes, "binary")?.label);
  });
});
