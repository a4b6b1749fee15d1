import path from "node:path";
import { describe, expect, it } from "vitest";
import { abandonPass, closePass, finishPass, killedBefore, startPass } from "../../src/store/label-pass.js";
import type { RunSnapshot } from "../../src/store/run-snapshot.js";

const snap = (o: Partial<RunSnapshot> = {}): RunSnapshot => ({ version: 1, run: "r", created_at: "t0", updated_at: "t0", inputs: [], judges: [], counts: { trajectories: 0, verdicts: 0, errors: 0 }, stopped_judges: {}, extra: {}, ...o });

describe("one invocation's label_state", () => {
  it("start: running with the record carried; finish: its outcome and the inputs it covered", () => {
    const d = snap();
    startPass(d, ["A"], { trajectories: 0, verdicts: 0, errors: 0 }, "t1");
    expect(d.label_state).toMatchObject({ state: "running", started_at: "t1", partial_passes: [], covered_inputs: [] });
    expect(d.inputs).toEqual(["A"]);
    finishPass(d, { interrupted: false, inputs: ["A"] });
    expect(d.label_state).toMatchObject({ state: "complete", partial_passes: [], covered_inputs: [path.resolve("A")] });
  });

  it("close marks an unfinished invocation failed; abandon puts the snapshot back", () => {
    const d = snap({ inputs: ["A"], label_state: { state: "complete", started_at: "t0", pid: 1, host: "h" } });
    const before = startPass(d, ["B"], { trajectories: 3, verdicts: 3, errors: 0 }, "t1");
    closePass(d.label_state, false);
    expect(d.label_state?.state).toBe("failed");
    abandonPass(d, before);
    expect(d.inputs).toEqual(["A"]);
    expect(d.label_state).toEqual({ state: "complete", started_at: "t0", pid: 1, host: "h" });
  });
});

describe("killed invocations carried from pass to pass (break55 #3: the run's cost is a lower bound after one)", () => {
  it("a last invocation left running (killed) counts one more; a finished one carries the count; none: undefined", () => {
    expect(killedBefore(undefined)).toBeUndefined();
    expect(killedBefore({ state: "complete", started_at: "t0", pid: 1, host: "h" })).toBeUndefined();
    expect(killedBefore({ state: "running", started_at: "t1", pid: 1, host: "h" })).toEqual({ count: 1, last_started_at: "t1" });
    const carried = { count: 1, last_started_at: "t1" };
    expect(killedBefore({ state: "complete", started_at: "t2", pid: 2, host: "h", killed_before: carried })).toEqual(carried);
    expect(killedBefore({ state: "running", started_at: "t3", pid: 3, host: "h", killed_before: carried })).toEqual({ count: 2, last_started_at: "t3" });
  });
  it("startPass records it in the new label_state", () => {
    const d = snap({ label_state: { state: "running", started_at: "t0", pid: 1, host: "h" } });
    startPass(d, ["A"], { trajectories: 3, verdicts: 3, errors: 0 }, "t1");
    expect(d.label_state?.killed_before).toEqual({ count: 1, last_started_at: "t0" });
    finishPass(d, { interrupted: false, inputs: ["A"] });
    startPass(d, ["A"], { trajectories: 3, verdicts: 3, errors: 0 }, "t2");
    expect(d.label_state?.killed_before).toEqual({ count: 1, last_started_at: "t0" });
  });
});
