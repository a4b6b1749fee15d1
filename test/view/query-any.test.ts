/**
 * New-user report 38 F3: the list's "rater compared" unset compares the committee (else the first judge); `vs=any`
 * is the union over the run's judges (a row kept when any judge disagrees).
 */
import { describe, expect, it } from "vitest";
import { checkedListQuery, listPage } from "../../src/view/query.js";
import type { ViewRun } from "../../src/view/run-data.js";

const row = (id: string, labels: Record<string, string>, committee: string, humans: Record<string, string>) => ({
  id,
  attacked: true,
  labels,
  status: Object.fromEntries(Object.keys(labels).map((j) => [j, "ok"])),
  committee: { label: committee, status: "ok" },
  humans,
  downgraded: [],
  unverified_quotes: 0,
});
// t1: only judge a disagrees with the humans; t2: only b; t3: a, b and the committee; t4: nobody
const rows = [
  row("t1", { a: "full_compliance", b: "unaffected" }, "unaffected", { alice: "unaffected" }),
  row("t2", { a: "unaffected", b: "full_compliance" }, "unaffected", { alice: "unaffected" }),
  row("t3", { a: "full_compliance", b: "full_compliance" }, "full_compliance", { alice: "unaffected" }),
  row("t4", { a: "unaffected", b: "unaffected" }, "unaffected", { alice: "unaffected" }),
];
const run = { name: "r", judges: ["a", "b"], committee: { source: "file", judges: ["a", "b"] }, rows } as unknown as ViewRun;
const ids = (qs: string) => listPage(run, checkedListQuery(new URLSearchParams(qs), run)).rows.map((r) => r.id);

describe("disagreement with the humans: which rater", () => {
  it("unset compares the committee; a judge, that judge; any, the union over the judges", () => {
    expect(ids("disagree=human")).toEqual(["t3"]);
    expect(ids("disagree=human&vs=j:a")).toEqual(["t1", "t3"]);
    expect(ids("disagree=human&vs=j:b")).toEqual(["t2", "t3"]);
    expect(ids("disagree=human&vs=any")).toEqual(["t1", "t2", "t3"]);
  });
});

describe("vs: the error names any; a repeated vs is refused (red team 37c F7)", () => {
  const err = (qs: string) => {
    try {
      checkedListQuery(new URLSearchParams(qs), run);
    } catch (e) {
      return (e as Error).message;
    }
    return undefined;
  };
  it("says any is accepted", () => {
    expect(err("disagree=human&vs=ANY")).toBe(`vs must be j:<judge> (a judge of run r: "a", "b"), committee, or any (any judge of run r), not "ANY"`);
  });
  it("refuses vs given twice, whatever the first value", () => {
    expect(err("disagree=human&vs=any&vs=j:nope")).toBe(`vs is given 2 times ("any", "j:nope"): give each list parameter once`);
    expect(err("disagree=human&disagree=judges")).toMatch(/^disagree is given 2 times/);
    expect(err("disagree=human&vs=any")).toBeUndefined();
  });
});
