import { describe, expect, it } from "vitest";
import { misplacedItems, misplacedWarning, samplingFieldsOf } from "../../src/agree/stratum-check.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

// break48: a manifest edited by hand (a slack item's trajectory id replaced by a travel one) was imported and
// estimated with no word: the travel trajectory weighted as a slack one moved the calibrated rate from 49.0% to 51.9%.
const row = (id: string, suite: string, attack?: string) => ({ id, suite, attack, attacked: true }) as TrajectoryIndexRow;

describe("samplingFieldsOf: the stratum fields a label row's stratum names", () => {
  it("reads the fields of a sampling stratum, with or without its committee stratum; none for 'all' and A/D/U alone", () => {
    expect(samplingFieldsOf("suite=slack")).toEqual({ sampling: "suite=slack", fields: ["suite"] });
    expect(samplingFieldsOf("D|suite=slack,attack=(none)")).toEqual({ sampling: "suite=slack,attack=(none)", fields: ["suite", "attack"] });
    expect(samplingFieldsOf("all")).toBeNull();
    expect(samplingFieldsOf("A")).toBeNull();
    expect(samplingFieldsOf("my own stratum")).toBeNull(); // a file made by hand with its own names: not checked
  });
});

describe("misplacedItems: labelled trajectories whose stratum is not the one the run gives them", () => {
  const run = [row("a", "slack", "x"), row("b", "travel", "x"), row("c", "slack", "y,suite=z")];
  it("finds a trajectory labelled in another suite's stratum, once however many annotators labelled it", () => {
    const rows = [
      { trajectory_id: "a", stratum: "suite=slack", line: 1 },
      { trajectory_id: "b", stratum: "suite=slack", line: 2 },
      { trajectory_id: "b", stratum: "suite=slack", line: 3 },
      { trajectory_id: "gone", stratum: "suite=slack", line: 4 }, // not in the run: the frame check's business
    ];
    const m = misplacedItems(rows, run);
    expect(m).toEqual([{ trajectory_id: "b", line: 2, stratum: "suite=slack", run_stratum: "suite=travel" }]);
    const w = misplacedWarning(m, "h.jsonl", "no group gets a human or calibrated estimate (undefined: item_stratum_mismatch)");
    expect(w).toBe(
      "label file h.jsonl: 1 labelled trajectory is not in the stratum its rows name (line 2: trajectory b: suite=slack, the run says suite=travel): " +
        "the label file or the manifest it was imported with was changed after the draw (or the run's fields changed since), so the design weights do not describe it and no group gets a human or calibrated estimate (undefined: item_stratum_mismatch); " +
        "re-import the annotations with the manifest sample wrote",
    );
  });
  it("a value holding ',suite=' is read as the run's key, not split (no false finding); committee strata and missing values", () => {
    const rows = [
      { trajectory_id: "c", stratum: "A|suite=slack,attack=y,suite=z", line: 1 },
      { trajectory_id: "a", stratum: "D|attack=x,agent_model=(none)", line: 2 },
      { trajectory_id: "a", stratum: "U", line: 3 },
    ];
    expect(misplacedItems(rows, run)).toEqual([]);
  });
  it("rows without a stratum, or a stratum of names the tool does not write, are not checked", () => {
    expect(misplacedItems([{ trajectory_id: "b", line: 1 }, { trajectory_id: "b", stratum: "hand made", line: 2 }], run)).toEqual([]);
  });
});
