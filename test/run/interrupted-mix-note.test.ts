/**
 * An interrupted read's NOT LIKE FOR LIKE warnings are said to be over the part read (new user 43: Ctrl-C during the
 * 11,384-run scale set left a summary advising `--where suite=banking,slack,travel`, because gpt-4o's workspace runs
 * had not been read yet). `addInputWarnings` (src/run/label-summary.ts).
 */
import { describe, expect, it } from "vitest";
import { addInputWarnings } from "../../src/run/label-summary.js";
import { MODEL_MIX_MARK } from "../../src/stats/like-for-like.js";
import type { RunSummary } from "../../src/run/summary.js";

const read = { duplicateIds: 0, referenceChanged: 0, changedDuringRead: 0, prepareFailed: 0 };
const summaryWith = (warnings: string[]) => ({ trajectories: 5151, warnings: [...warnings] }) as unknown as RunSummary;
const mix = `${MODEL_MIX_MARK}: gpt-4o ran the suites banking, slack, travel; claude ran banking, slack, travel, workspace (add --where suite=banking,slack,travel)`;

describe("addInputWarnings on an interrupted read", () => {
  it("says the like-for-like warnings are over the trajectories read so far", () => {
    const s = summaryWith([mix]);
    addInputWarnings(s, [], { ...read, interrupted: true });
    expect(s.warnings).toEqual([
      mix,
      "the NOT LIKE FOR LIKE warning is over the 5151 trajectories of the run so far (the reading was interrupted): the input not read yet may change them and the --where they advise; the same command reads it",
    ]);
  });
  it("says nothing on a read that finished, or with no such warning", () => {
    const a = summaryWith([mix]);
    addInputWarnings(a, [], { ...read, interrupted: false });
    expect(a.warnings).toEqual([mix]);
    const b = summaryWith(["another warning"]);
    addInputWarnings(b, [], { ...read, interrupted: true });
    expect(b.warnings).toEqual(["another warning"]);
  });
});
