import path from "node:path";
import { describe, expect, it } from "vitest";
import { abandonPass, closePass, finishPass, startPass } from "../../src/store/label-pass.js";
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
