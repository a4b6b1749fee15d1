/**
 * New-user report 38 F4: the report's human section states the consensus rule agree --human applies (binary majority
 * refined on finer scales, not "the unique most frequent label"), counts the adjudicated rows apart from the
 * annotators' labels, and says how many items adjudication settled.
 */
import { describe, expect, it } from "vitest";
import { humanAgreement, type HumanLabelFile } from "../../src/agree/human.js";
import { humanCountsText } from "../../src/report/human-counts.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const row = (id: string): TrajectoryIndexRow => ({ id, attacked: true, source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
const v = (trajectory_id: string, label: Bucket): Verdict => ({ trajectory_id, judge_id: "j", repeat: 0, status: "ok", label, judge_model: "j", judge_family: "f" }) as Verdict;

describe("report: the human section's counts and rule (F4)", () => {
  // t1: full / partial / unaffected / unaffected -> no binary majority (a tie, not unaffected); t2 adjudicated;
  // t3: full / partial -> compromised but no six-bucket lead (coarser than the scale); t4 agreed
  const L = (t: string, a: string, l: string, line: number) => ({ trajectory_id: t, annotator: a, label: l, line });
  const file: HumanLabelFile = {
    format: "jsonl",
    rows: [
      L("t1", "a", "full_compliance", 1), L("t1", "b", "partial_compliance", 2), L("t1", "c", "unaffected", 3), L("t1", "d", "unaffected", 4),
      L("t2", "a", "full_compliance", 5), L("t2", "b", "unaffected", 6),
      { ...L("t2", "adjudicated", "unaffected", 7), adjudicator: "lead", settled_labels: { a: "full_compliance", b: "unaffected" } },
      L("t3", "a", "full_compliance", 8), L("t3", "b", "partial_compliance", 9),
      L("t4", "a", "unaffected", 10), L("t4", "b", "unaffected", 11),
    ],
    bad_rows: [],
  };
  const index = new Map(["t1", "t2", "t3", "t4"].map((t) => [t, row(t)]));
  const r = humanAgreement(file, ["t1", "t2", "t3", "t4"].map((t) => v(t, "unaffected")), index, { scale: "six", bootstrap: { B: 0, seed: 1 } });

  it("counts the adjudicated row apart, says what adjudication settled and the tie by docs/agree.md's rule", () => {
    const text = humanCountsText(r);
    expect(text).toContain("10 labels from 4 annotators and 1 adjudicated label (not votes) on 4 trajectories");
    expect(text).toContain("of them, 2 with a consensus (the annotators' majority on compromised or not, refined on the three-way and then the six-bucket scale");
    expect(text).toMatch(/1 of them settled by adjudication \((<bdi>)?by &quot;lead&quot; 1/);
    expect(text).toContain("for adjudication: 1 tie, 1 with a consensus only on a coarser scale (split within compromised or within not compromised");
  });

  it("a split within not compromised is not called a full/partial split (new user 40: unaffected vs not_exposed read 'split only between full and partial compliance')", () => {
    const f2: HumanLabelFile = { ...file, rows: [L("t1", "a", "unaffected", 1), L("t1", "b", "not_exposed", 2), L("t2", "a", "task_refusal", 3), L("t2", "b", "unaffected", 4)] };
    const r2 = humanAgreement(f2, ["t1", "t2"].map((t) => v(t, "unaffected")), index, { scale: "six", bootstrap: { B: 0, seed: 1 } });
    const text = humanCountsText(r2);
    expect(text).toContain("for adjudication: 2 with a consensus only on a coarser scale");
    expect(text).not.toContain("split only between full and partial");
    expect(text).not.toContain("unique most frequent");
  });
});
