/**
 * newuser54 #5: a table over a population that leaves out every unattacked run (`--where attacked=true`, or the human
 * sample's recorded one) printed 0 as the CSV's `n_unattacked` and LaTeX's `Utility $n$`, where each condition had 25
 * unattacked runs in the run: "n/a" (and an empty CSV cell, `utility_reason` beside) say what is true.
 */
import { describe, expect, it } from "vitest";
import { insertCountColumns, LATEX_COUNT_TITLES, latexCountLegend, unattackedOutside } from "../../src/estimate/table-row-counts.js";

describe("utility n when the population leaves out the unattacked runs", () => {
  it("n/a in the tables' utility n; a row with its unattacked runs keeps its count", () => {
    const rows = [
      { utility: { n: 0, value: null, reason: "unattacked_outside_sample_population" } },
      { utility: { n: 0, value: null, reason: "unattacked_outside_where" } },
      { utility: { n: 16, value: 0.75 } },
      { utility: { n: 0, value: null, reason: "no_unattacked_trajectories" } },
    ];
    expect(rows.map(unattackedOutside)).toEqual([true, true, false, false]);
    const head = ["Model", "$n$", "Utility", "Blocked"];
    const body = rows.map(() => ["m", "10", "x", "0"]);
    insertCountColumns(head, body, [], rows, 1, LATEX_COUNT_TITLES);
    expect(head).toEqual(["Model", "$n$", "Utility", "Utility $n$", "Blocked"]);
    expect(body.map((b) => b[3])).toEqual(["n/a", "n/a", "16", "0"]);
    expect(latexCountLegend(false)[0]).toMatch(/n\/a where the population \(--where, or the human sample's\) leaves out every unattacked run/);
  });
});
