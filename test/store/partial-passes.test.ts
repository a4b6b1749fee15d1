import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { carriedPasses, isCovered, passText, recordPasses } from "../../src/store/partial-passes.js";
import type { LabelState } from "../../src/store/run-snapshot.js";

const st = (o: Partial<LabelState>): LabelState => ({ state: "complete", started_at: "t1", pid: 1, host: "h", ...o });
const abs = (p: string) => path.resolve(p);
const none = { inputs: [] as string[] };

describe("the inputs a run read only in part (break 51 #2, per input since session 52)", () => {
  it("a new run starts with nothing covered and no pass; a record of this build carries as it is", () => {
    expect(carriedPasses(undefined, 0, none)).toEqual({ partial_passes: [], covered_inputs: [] });
    const rec = { partial_passes: [{ started_at: "t0", limit: 5, inputs: ["a"], resolved: [abs("a")] }], covered_inputs: [abs("b")] };
    expect(carriedPasses(st(rec), 5, { inputs: ["a", "b"] })).toEqual(rec);
  });

  it("a folder covers what is in it, not the folder holding it", () => {
    expect(isCovered("/c/runs/gpt", ["/c/runs"])).toBe(true);
    expect(isCovered("/c/runs", ["/c/runs/gpt"])).toBe(false);
    expect(isCovered("/c/runs-2", ["/c/runs"])).toBe(false);
  });

  it("label A --limit, then a full label B: A stays listed; a full label A then clears it", () => {
    const s = st({ state: "complete", partial_passes: [], covered_inputs: [] });
    recordPasses(s, 100, undefined, ["A"], ["A"]);
    expect(s.partial_passes).toEqual([{ started_at: "t1", limit: 100, inputs: ["A"], resolved: [abs("A")] }]);
    const t = st({ started_at: "t2", partial_passes: s.partial_passes, covered_inputs: s.covered_inputs });
    recordPasses(t, undefined, undefined, ["B"], ["A", "B"]);
    expect(t.partial_passes).toEqual(s.partial_passes);
    expect(t.covered_inputs).toEqual([abs("B")]);
    const u = st({ started_at: "t3", partial_passes: t.partial_passes, covered_inputs: t.covered_inputs });
    recordPasses(u, undefined, undefined, ["A"], ["A", "B"]);
    expect(u.partial_passes).toEqual([]);
  });

  it("a full pass ends covering only when complete; a limited pass over covered inputs adds nothing", () => {
    const a = [{ started_at: "t0", limit: 5, inputs: ["A", "B"], resolved: [abs("A"), abs("B")] }];
    const s = st({ state: "interrupted", partial_passes: a, covered_inputs: [] });
    recordPasses(s, undefined, undefined, ["A"], ["A", "B"]);
    expect(s.partial_passes).toEqual(a);
    const t = st({ partial_passes: a, covered_inputs: [] });
    recordPasses(t, undefined, undefined, ["A"], ["A", "B"]);
    expect(t.partial_passes).toEqual([{ started_at: "t0", limit: 5, inputs: ["B"], resolved: [abs("B")] }]);
    const u = st({ partial_passes: [], covered_inputs: [abs("A")] });
    recordPasses(u, 3, undefined, ["A"], ["A"]);
    expect(u.partial_passes).toEqual([]);
  });

  it("a --where that left nothing out is no limit; a pass of session 51 (no inputs) clears once every input is covered", () => {
    const s = st({ partial_passes: [], covered_inputs: [] });
    recordPasses(s, undefined, { text: "attacked=true,false", left_out: 0 }, ["A"], ["A"]);
    expect(s.partial_passes).toEqual([]);
    const old = [{ started_at: "t0", where: "suite=b", left_out: 7 }];
    const t = st({ partial_passes: old, covered_inputs: [] });
    recordPasses(t, undefined, undefined, ["A"], ["A", "B"]);
    expect(t.partial_passes).toEqual(old);
    recordPasses(t, undefined, undefined, ["B"], ["A", "B"]);
    expect(t.partial_passes).toEqual([]);
  });

  it("an older build's record: the last whole invocation's inputs covered, the run's others of unknown history", () => {
    const last = { at: "t0", inputs: ["B"], judges: [], options: {} };
    const r = carriedPasses(st({}), 10, { inputs: ["A", "B"], last_invocation: last });
    expect(r.covered_inputs).toEqual([abs("B")]);
    expect(r.partial_passes).toEqual([{ started_at: "t1", history_unknown: true, inputs: ["A"], resolved: [abs("A")] }]);
    expect(passText(r.partial_passes[0]!)).toBe(`pass history unknown (labelled by an older build) of A (${path.resolve("A")})`);
    // one invocation (or none recorded): nothing unknown; a last pass under --limit: that pass over its inputs
    expect(carriedPasses(st({}), 10, { inputs: ["A"], last_invocation: { ...last, inputs: ["A"] } }).partial_passes).toEqual([]);
    expect(carriedPasses(st({}), 10, { inputs: ["A"] }).partial_passes).toEqual([]);
    expect(carriedPasses(st({ limit: 5 }), 5, { inputs: ["A"], last_invocation: { ...last, inputs: ["A"] } }).partial_passes).toEqual([{ started_at: "t1", limit: 5, inputs: ["A"], resolved: [abs("A")] }]);
  });

  it("an input no longer there leaves the listed passes only at a settled full pass (runs53: a moved folder read partial for ever)", () => {
    const gone = path.join(os.tmpdir(), `partial-passes-gone-${process.pid}`);
    const there = fs.mkdtempSync(path.join(os.tmpdir(), "partial-passes-there-"));
    try {
      const passes = [{ started_at: "t0", limit: 10, inputs: ["runs", "other"], resolved: [gone, there] }];
      const unsettled = st({ partial_passes: passes, covered_inputs: [] });
      recordPasses(unsettled, undefined, undefined, ["moved"], ["runs", "other", "moved"], false);
      expect(unsettled.partial_passes).toEqual(passes);
      const settled = st({ partial_passes: passes, covered_inputs: [] });
      recordPasses(settled, undefined, undefined, ["moved"], ["runs", "other", "moved"], true);
      expect(settled.partial_passes).toEqual([{ started_at: "t0", limit: 10, inputs: ["other"], resolved: [there] }]); // there: stays
      const cut = st({ state: "interrupted", partial_passes: passes, covered_inputs: [] });
      recordPasses(cut, undefined, undefined, ["moved"], ["runs", "other", "moved"], true);
      expect(cut.partial_passes).toEqual(passes); // only a pass that ended complete
    } finally {
      fs.rmSync(there, { recursive: true, force: true });
    }
  });

  it("a relative input is named with the path it resolved to when given; an absolute one as it is", () => {
    expect(passText({ started_at: "t0", limit: 5, inputs: ["runs"], resolved: ["/x/runs"] })).toBe("--limit 5 of runs (/x/runs) (started t0)");
    expect(passText({ started_at: "t0", limit: 5, inputs: ["/x/runs"], resolved: ["/x/runs"] })).toBe("--limit 5 of /x/runs (started t0)");
  });
});
