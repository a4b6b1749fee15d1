/**
 * The list's `disagree=human` on an adjudicated item compares the settled label (annotator `adjudicated`: the item's
 * consensus), not the votes it overruled: an overruled vote is not the human label (agree --human and estimate compare
 * the consensus too). An item without an adjudication still compares every annotator's label.
 */
import { describe, expect, it } from "vitest";
import { checkedListQuery, listPage } from "../../src/view/query.js";
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
  // no adjudication: every annotator's label, as before (bob's unaffected differs from the judge)
  row("not-adjudicated", "full_compliance", SPLIT),
  // only the adjudicated label (imported alone)
  row("adjudicated-only", "partial_compliance", { adjudicated: "partial_compliance" }),
];
const run = { name: "r", judges: ["a"], committee: { source: null, reason: "none" }, rows } as unknown as ViewRun;
const ids = (qs: string) => listPage(run, checkedListQuery(new URLSearchParams(qs), run)).rows.map((r) => r.id);

describe("disagree=human on adjudicated items", () => {
  it("compares the settled label, never an overruled vote", () => {
    expect(ids("disagree=human&vs=j:a")).toEqual(["disagrees-with-settled", "settled-against-votes", "not-adjudicated"]);
    expect(ids("disagree=human&vs=any")).toEqual(["disagrees-with-settled", "settled-against-votes", "not-adjudicated"]);
  });
});
