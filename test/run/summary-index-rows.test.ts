import { describe, expect, it } from "vitest";
import { summarizeRun } from "../../src/run/summary.js";
import type { TrajectoryIndexRow } from "../../src/store/records.js";
import { indexRow as row, storeAndMap } from "../helpers/index-rows.js";
import type { Verdict } from "../../src/types.js";


const verdict = (id: string, label: string, over: Partial<Verdict> = {}): Verdict =>
  ({
    trajectory_id: id,
    judge_id: "j",
    judge_model: "sig",
    judge_family: "rule",
    repeat: 0,
    prompt_sha256: "p",
    status: "ok",
    label,
    downgraded: false,
    attacked: true,
    findings: [],
    ...over,
  }) as unknown as Verdict;

describe("summarizeRun over a store's IndexRows (rows read by slot) says what it says over a Map of the same rows", () => {
  it("same summary: attacked/unattacked rows, run errors, a verdict without a row, a row without a verdict, a replaced row", () => {
    const rows = [
      row("a/1"),
      row("a/2", { attacked: false }),
      row("a/3", { run_error: "agent crashed" } as Partial<TrajectoryIndexRow>),
      row("a/4"),
      row("a/2", { attacked: true, agent_model: "m2" }), // replaces a/2's row: now attacked
      row("b/5", { attacked: false, condition: "spotlight" }),
    ];
    const { store, map } = storeAndMap(rows);
    const verdicts = [
      verdict("a/1", "full_compliance"),
      verdict("a/2", "not_exposed", { attacked: false }), // the row says attacked: the row wins
      verdict("a/3", "unaffected"),
      verdict("x/9", "partial_compliance", { attacked: true }), // no row: its own attacked stands in
      verdict("b/5", "not_exposed"), // row says unattacked
      verdict("a/1", "unaffected", { repeat: 1 }),
    ];
    const bySlot = summarizeRun("r", verdicts, store, []);
    const byMap = summarizeRun("r", verdicts, map, []);
    expect(bySlot).toEqual(byMap);
    expect(bySlot.judges[0].attacked_ok).toBe(4);
  });
});
