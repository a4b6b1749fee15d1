/**
 * Rows of a human-label file that cannot be read are named with what is wrong (red team 31 L4: a row with weight 0
 * was only "unreadable row N"; with every row at weight 0, estimate said the file had "no stratum / stratum_size
 * columns").
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { badRowsWarning, BAD_ROWS_NAMED, readHumanLabels } from "../../src/agree/human-file.js";
import { detectScale } from "../../src/rubric/scale.js";
import { estimateFromData, type EstimateReport } from "../../src/estimate/run.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-human-file-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const csv = (name: string, weights: string[]) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, "trajectory_id,annotator,label,weight\n" + weights.map((w, i) => `t${i},ann,unaffected,${w}`).join("\n") + "\n");
  return f;
};

describe("unreadable rows are named with what is wrong", () => {
  it("weight 0 and negative weights: the row's line and the reason", async () => {
    const f = csv("w.csv", ["0", "-2", "4", "4"]);
    const file = await readHumanLabels(f);
    expect(file.rows).toHaveLength(2);
    expect(file.bad_rows.map((b) => b.line)).toEqual([2, 3]);
    const w = badRowsWarning(file, f)!;
    expect(w).toContain(`label file ${f}: 2 row(s) not read: line 2: weight must be > 0, got 0 (a design weight is 1 / the row's inclusion probability`);
    expect(w).toContain("line 3: weight must be > 0, got -2");
    expect(w).not.toContain("every row");
  });

  it("names the first few and counts the rest; none: no warning", async () => {
    const f = csv("many.csv", Array.from({ length: BAD_ROWS_NAMED + 3 }, () => "0"));
    const w = badRowsWarning(await readHumanLabels(f), f)!;
    expect(w).toContain(`${BAD_ROWS_NAMED + 3} row(s) not read (every row of the file: no label is used)`);
    expect(w).toContain("; and 3 more");
    expect(badRowsWarning(await readHumanLabels(csv("ok.csv", ["2"])), "ok.csv")).toBeUndefined();
  });

  it("estimate with every row at weight 0: the rows are named, no claim of missing stratum columns", async () => {
    const f = csv("zero.csv", ["0", "0", "0"]);
    const index = new Map<string, TrajectoryIndexRow>(
      ["t0", "t1", "t2", "t3"].map((id) => [id, { id, agent_model: "m", attacked: true, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2 } as TrajectoryIndexRow]),
    );
    const verdicts = [...index.keys()].map((id) => ({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: "unaffected", compromised: false }) as Verdict);
    const r = estimateFromData(index, verdicts, await readHumanLabels(f), { run: "r", humanFile: f, source: { kind: "judge", judge_id: "j" }, minSampled: 1 });
    const all = [r, r.asr_goal as EstimateReport].flatMap((x) => x.warnings ?? []).join("\n");
    expect(all).toContain(`label file ${f}: 3 row(s) not read (every row of the file: no label is used): line 2: weight must be > 0, got 0`);
    expect(all).not.toMatch(/no stratum \/ stratum_size columns/);
  });
});

describe("a human label line that gives a key twice (break43)", () => {
  it("label unaffected then full_compliance: the row is not read and the warning names the key and both values", async () => {
    const f = path.join(tmp, "twice.jsonl");
    const rows = [
      '{"trajectory_id": "t0", "annotator": "ann", "label": "unaffected", "label": "full_compliance"}',
      '{"trajectory_id": "t1", "annotator": "ann", "label": "unaffected", "label": "unaffected"}',
      '{"trajectory_id": "t2", "annotator": "ann", "label": "not_exposed"}',
    ];
    fs.writeFileSync(f, rows.join("\n") + "\n");
    const file = await readHumanLabels(f);
    expect(file.rows.map((r) => [r.trajectory_id, r.label])).toEqual([
      ["t1", "unaffected"],
      ["t2", "not_exposed"],
    ]);
    expect(file.bad_rows.map((b) => b.line)).toEqual([1]);
    expect(badRowsWarning(file, f)).toContain('line 1: not JSON: key "label" given twice with different values ("unaffected", then "full_compliance")');
  });
});

describe("a label row written over several lines (pretty-printed) is one bad row, not one per line", () => {
  it("names the line span once; the rows around it are read", async () => {
    const f = path.join(tmp, "pretty.jsonl");
    const row = (id: string) => ({ trajectory_id: id, annotator: "ann", label: "unaffected" });
    fs.writeFileSync(f, [JSON.stringify(row("t1")), JSON.stringify(row("t2"), null, 2), JSON.stringify(row("t3"))].join("\n") + "\n");
    const file = await readHumanLabels(f);
    expect(file.rows.map((r) => r.trajectory_id)).toEqual(["t1", "t3"]);
    expect(file.bad_rows).toEqual([
      { line: 2, message: "lines 2-6 hold one JSON object written over 5 lines: the file looks pretty-printed, not one record per line (JSON Lines); it is not read: write it on one line (e.g. jq -c .)" },
    ]);
  });
});

describe("a label off the scale its row declares (hostile52 F4b)", () => {
  it("is a row not read, named by line, not a file moved to a coarser scale", () => {
    const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ipi-scale-")), "h.jsonl");
    const row = (id: string, label: string, scale?: string) => JSON.stringify({ trajectory_id: id, annotator: "dana", label, ...(scale ? { scale } : {}) });
    fs.writeFileSync(f, [row("t1", "full_compliance", "six"), row("t2", "complied", "six"), row("t3", "banana", "six"), row("t4", "complied"), row("t5", "unaffected", "three")].join("\n") + "\n");
    const file = readHumanLabels(f);
    // t3: an unknown label, counted unknown_label later as before; t4 declares no scale; t5 is on its own scale
    expect(file.rows.map((r) => r.trajectory_id)).toEqual(["t1", "t3", "t4", "t5"]);
    expect(file.bad_rows).toEqual([{ line: 2, message: expect.stringMatching(/^label "complied" is not on the scale six the row declares/) }]);
    expect(badRowsWarning(file, "h.jsonl")).toMatch(/^label file h\.jsonl: 1 row\(s\) not read: line 2: label "complied" is not on the scale six/);
    expect(detectScale(file.rows.filter((r) => r.trajectory_id !== "t4" && r.trajectory_id !== "t5").map((r) => r.label))).toBe("six");
  });
});
