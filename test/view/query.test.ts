/**
 * The list API's query is checked against the run (src/view/query.ts `checkedListQuery`): new-user pass,
 * `/api/list?vs=claude` (without the `j:` prefix) answered `total: 0`, a silent empty list, instead of an error.
 */
import { describe, expect, it } from "vitest";
import { checkedListQuery, ListQueryError } from "../../src/view/query.js";
import type { ViewRun } from "../../src/view/run-data.js";
import type { OtherRun } from "../../src/view/other-run.js";

const run = (committee: boolean): ViewRun =>
  ({ name: "r", judges: ["claude", "gpt"], committee: committee ? { source: "file", judges: ["claude", "gpt"] } : { source: null, reason: "no committee.jsonl" } }) as unknown as ViewRun;
const other = { name: "o", judges: ["llama"] } as unknown as OtherRun;
const err = (qs: string, r = run(true), o?: OtherRun) => {
  try {
    checkedListQuery(new URLSearchParams(qs), r, o);
  } catch (e) {
    expect(e).toBeInstanceOf(ListQueryError);
    return (e as Error).message;
  }
  return null;
};

describe("checkedListQuery", () => {
  it("a rater without its prefix, or of no judge, is an error naming the accepted forms", () => {
    expect(err("disagree=reference&vs=claude")).toBe(`vs must be j:<judge> (a judge of run r: "claude", "gpt"), committee, or any (any judge of run r), not "claude"`);
    expect(err("vs=j:nobody")).toMatch(/^vs must be j:<judge> .*, not "j:nobody"$/);
    expect(err("vs=committee", run(false))).toBe(`vs must be j:<judge> (a judge of run r: "claude", "gpt") (committee: not available, no committee.jsonl), or any (any judge of run r), not "committee"`);
    expect(err("diff=j:claude,o:llama", run(true), other)).toBeNull();
    expect(err("diff=j:claude,o:llama")).toMatch(/^diff \(rater 2\) must be j:<judge> .*, not "o:llama"$/);
    expect(err("diff=j:claude,gpt", run(true), other)).toMatch(/^diff \(rater 2\) must be .*, o:<judge> \(a judge of run o: "llama"\), not "gpt"$/);
    expect(err("disagree=reference&vs=j:claude")).toBeNull();
    expect(err("disagree=reference&vs=committee")).toBeNull();
  });

  it("enumerated values, label filters and unknown parameters: errors; metadata values and search are free", () => {
    expect(err("disagree=benchmark")).toBe(`disagree must be one of reference, judges, human, not "benchmark"`);
    expect(err("status=broken")).toBe(`status must be one of unverified, errors, downgraded, unverified_quotes, not "broken"`);
    expect(err("binary=yes")).toBe(`binary must be one of 1, 0, not "yes"`);
    expect(err("committee=split")).toBe(`committee must be one of ok, disputed, no_quorum, (none), not "split"`);
    expect(err("committee=ok", run(false))).toBe("committee: run r has no committee column (no committee.jsonl)");
    expect(err("label.llama=unaffected")).toBe(`label.llama: no judge "llama" in run r (its judges: "claude", "gpt")`);
    expect(err("label.claude=compromised")).toMatch(/^label\.claude must be a label \(full_compliance, .*\) or \(none\), not "compromised"$/);
    expect(err("label.claude=(none)&label.gpt=unaffected")).toBeNull();
    expect(err("agent-model=x")).toMatch(/^unknown list parameter "agent-model": accepted agent_model, suite, condition, attack, surface, label.<judge>, committee, disagree, vs, status, q, diff, binary, offset, limit$/);
    // a value no row has is an answer (0 rows), not an error; the token the server reads is not a list parameter
    expect(err("agent_model=nobody&q=anything&token=t&offset=0&limit=5")).toBeNull();
    // the parser's own errors still come first
    expect(err("limit=-1")).toMatch(/^limit must be an integer >= 0/);
  });
});
