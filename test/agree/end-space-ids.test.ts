import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { endSpaceTwin, endSpaceWarning } from "../../src/agree/end-space-ids.js";
import { readHumanLabels } from "../../src/agree/human-file.js";
import { checkLabelPairing } from "../../src/agree/label-pairing.js";
import { AnnotationImportError, checkAnnotations, parseManifest } from "../../src/sample/import.js";

// break50 finding 2: label files' trajectory ids were trimmed, so "t1" and "t1 " (two trajectories to label and
// sample) merged: a census gave 42.9% for 37.5% and a disagreement vanished. Ids are now compared exactly as stored.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-end-space-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function manifestOf(ids: string[]) {
  const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: ids.length, design: {} };
  const rows = ids.map((id, i) => ({ item_id: `aa-00${i + 1}`, trajectory_id: id, stratum: "all", sampling_stratum: "all", committee_stratum: "A", stratum_size: ids.length, phase: 1, inclusion_probability: 1, weight: 1, content_sha256: `h-${id}` }));
  return parseManifest([header, ...rows].map((r) => JSON.stringify(r)).join("\n") + "\n");
}

describe("endSpaceTwin / endSpaceWarning", () => {
  it("names ids equal once trimmed, never the id itself", () => {
    expect(endSpaceTwin("t1 ", ["t1", "t1 ", "t2"])).toMatch(/"t1" differs from it only by white space at the ends/);
    expect(endSpaceTwin("t1", ["t1"])).toBe("");
    expect(endSpaceTwin("t1", ["T1", "t1x"])).toBe("");
    expect(endSpaceWarning("h.jsonl", [])).toBeUndefined();
    expect(endSpaceWarning("h.jsonl", [{ line: 3, id: "t1 ", run_id: "t1" }])).toMatch(/^label file h\.jsonl: 1 label row names a trajectory the run holds only without white space at the ends of the id \(line 3: "t1 " \(the run has "t1"\)\)/);
  });
});

describe("the label-file reader keeps trajectory ids exactly", () => {
  it('"t1" and "t1 " are two trajectories (CSV and JSONL); an id of spaces only is missing', () => {
    const csv = path.join(tmp, "h.csv");
    fs.writeFileSync(csv, 'trajectory_id,annotator,label\nt1,ann1,unaffected\n"t1 ",ann1,partial_compliance\n"  ",ann1,unaffected\n');
    const f = readHumanLabels(csv); // no conflict: two trajectories
    expect(f.rows.map((r) => r.trajectory_id)).toEqual(["t1", "t1 "]);
    expect(f.bad_rows).toEqual([{ line: 4, message: "missing trajectory_id" }]);
    const jl = path.join(tmp, "h.jsonl");
    fs.writeFileSync(jl, [{ trajectory_id: "t1", annotator: "a", label: "unaffected" }, { trajectory_id: "t1 ", annotator: "a", label: "full_compliance" }].map((o) => JSON.stringify(o)).join("\n") + "\n");
    expect(readHumanLabels(jl).rows.map((r) => r.trajectory_id)).toEqual(["t1", "t1 "]);
  });
});

describe("checkLabelPairing: an id the run holds only trimmed", () => {
  const fileOf = (ids: string[]) => ({ format: "jsonl" as const, bad_rows: [], rows: ids.map((id, i) => ({ trajectory_id: id, annotator: "a", label: "unaffected", line: i + 1, content_sha256: `h-${id}` })) });
  it('both "t1" and "t1 " in the run: each row pairs with its own trajectory, nothing said', () => {
    const run = new Map([["t1", "h-t1"], ["t1 ", "h-t1 "]]);
    const warnings: string[] = [];
    const p = checkLabelPairing(fileOf(["t1", "t1 "]), "h.jsonl", (id) => run.get(id) ?? null, warnings, "E");
    expect(p.refused_rows).toBe(0);
    expect(p.file.rows.map((r) => r.trajectory_id)).toEqual(["t1", "t1 "]);
    expect(warnings).toEqual([]);
  });
  it('only "t1" in the run: the "t1 " row is not put on "t1" (left to not_in_run) and is named', () => {
    const run = new Map([["t1", "h-t1"]]);
    const warnings: string[] = [];
    const p = checkLabelPairing(fileOf(["t1 "]), "h.jsonl", (id) => run.get(id) ?? null, warnings, "E");
    expect(p.refused_rows).toBe(0); // not a content change: the consumer counts it not_in_run
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/line 1: "t1 " \(the run has "t1"\)\): ids are compared exactly as stored/);
  });
});

describe("import-annotations matches trajectory_id exactly", () => {
  const rec = (trajectory_id: string) => ({ where: "h.csv row 1 (line 2)", trajectory_id, annotator: "a", label: "unaffected" });
  it('both in the sample: "t1 " is its own item', () => {
    const { rows } = checkAnnotations([rec("t1 ")], manifestOf(["t1", "t1 "]));
    expect(rows.map((r) => [r.item_id, r.trajectory_id])).toEqual([["aa-002", "t1 "]]);
  });
  it('only "t1" in the sample: "t1 " is refused, naming "t1"', () => {
    let e: unknown;
    try {
      checkAnnotations([rec("t1 ")], manifestOf(["t1"]));
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(AnnotationImportError);
    expect((e as AnnotationImportError).problems[0]).toBe(
      'h.csv row 1 (line 2): unknown trajectory_id "t1 " (not in this sample; ids are compared exactly as stored, and "t1" differs from it only by white space at the ends: correct the id if the label is for that trajectory)',
    );
    // with its item_id the row names two items
    expect(() => checkAnnotations([{ ...rec("t1 "), item_id: "aa-001" }], manifestOf(["t1"]))).toThrow(/item_id "aa-001" and trajectory_id "t1 " name different items; ids are compared exactly/);
  });
});
