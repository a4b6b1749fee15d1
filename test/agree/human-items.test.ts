/**
 * Where a labelled trajectory stands for `agree --human --where` (src/agree/human-items.ts): a trajectory the run holds
 * but `--where` drops is `outside_where`, never `not_in_run` (pop19b: agree said "not_in_run 18" where estimate said
 * "outside --where 13" plus ties on the same file and filter).
 */
import { describe, expect, it } from "vitest";
import { formConsensus, ITEM_REASON_ORDER, orderedReasons, runLookup } from "../../src/agree/human-items.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const row = (id: string, attacked = true): TrajectoryIndexRow => ({ id, attacked, source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;

describe("human-items", () => {
  const all = [row("in"), row("out"), row("out-tie"), row("out-unatt", false), row("in-tie"), row("unlabelled")];
  const index = new Map([all[0], all[4]].map((r) => [r.id, r]));
  const place = runLookup(index, all, new Set(["in", "out", "out-tie", "out-unatt", "in-tie", "gone"]));

  it("runLookup: in the index, in the run outside it, or not in the run", () => {
    expect(place("in")).toEqual({ row: all[0], outside: false });
    expect(place("out")).toEqual({ row: all[1], outside: true });
    expect(place("gone")).toEqual({ outside: false });
    // only labelled rows are kept
    expect(place("unlabelled")).toEqual({ outside: false });
  });

  it("formConsensus: not_in_run, unattacked, outside_where, then ties, each item once", () => {
    const agree = (l: string) => new Map([["a", l], ["b", l]]);
    const tie = new Map([["a", "full_compliance"], ["b", "unaffected"]]);
    const items = new Map([
      ["in", agree("unaffected")],
      ["out", agree("full_compliance")],
      ["out-tie", tie],
      ["out-unatt", tie],
      ["in-tie", tie],
      ["gone", agree("unaffected")],
    ]);
    const c = formConsensus(items, place, "six", "six", (l) => l, new Set());
    expect([...c.consensus.keys()]).toEqual(["in"]);
    expect(c.itemEx).toEqual({ outside_where: 2, unattacked: 1, consensus_tie: 1, not_in_run: 1 });
    expect(c.adjudication.map((a) => a.trajectory_id)).toEqual(["in-tie"]);
    expect(orderedReasons(c.itemEx)).toEqual([["not_in_run", 1], ["unattacked", 1], ["outside_where", 2], ["consensus_tie", 1]]);
    expect(ITEM_REASON_ORDER.indexOf("unattacked")).toBeLessThan(ITEM_REASON_ORDER.indexOf("outside_where"));
  });
});
