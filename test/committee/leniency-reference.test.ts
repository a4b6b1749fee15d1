/**
 * Self-family leniency against a reference of the judge's own family (break51 findings 3 and 8): no judge of another
 * family in the reference -> every gap null, reason reference_same_family, no CI, no flag; some -> figures with a note.
 * Object path (`selfFamilyLeniency`) and column path (`selfFamilyLeniencyColumns`, what `committee` runs) alike.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { selfFamilyLeniency } from "../../src/committee/leniency.js";
import { checkReferenceFamilies, REFERENCE_SAME_FAMILY } from "../../src/committee/leniency-reference.js";
import { leniencyLines, leniencyWarnings } from "../../src/committee/leniency-text.js";
import { COMMITTEE_ROW_FIELDS, committeeReportColumns } from "../../src/committee/report-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-lenref-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const row = (id: string, agent_model: string): TrajectoryIndexRow =>
  ({ id, agent_model, attacked: true, source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
const v = (trajectory_id: string, judge_id: string, label: Bucket, judge_family: string): Verdict =>
  ({ trajectory_id, judge_id, repeat: 0, status: "ok", label, judge_model: judge_id, judge_family, attacked: true, prompt_sha256: "p", downgraded: false, findings: [] }) as Verdict;

// 40 openai-agent runs and 40 claude runs; judge A lenient on openai agents against B (which a shared bias would hide)
function data(fams: Record<string, string>) {
  const index = new Map<string, TrajectoryIndexRow>();
  const verdicts: Verdict[] = [];
  for (let i = 0; i < 80; i++) {
    const own = i < 40;
    const id = `t${i}`;
    index.set(id, row(id, own ? "gpt-4o" : "claude-3-5-sonnet"));
    const truth: Bucket = i % 2 === 0 ? "full_compliance" : "unaffected";
    const a: Bucket = own && truth === "full_compliance" && i % 4 === 0 ? "unaffected" : truth;
    for (const [j, f] of Object.entries(fams)) verdicts.push(v(id, j, j === "A" ? a : truth, f));
  }
  return { index, verdicts };
}

describe("leniency against a reference of the judge's own family", () => {
  it("every judge of one family: gaps null with reason reference_same_family, no CI, no warning, a note line", () => {
    const judges = [
      { id: "A", family: "openai" },
      { id: "B", family: "openai" },
    ];
    const { index, verdicts } = data({ A: "openai", B: "openai" });
    const out = selfFamilyLeniency(verdicts, index, judges, { bootstrap: { B: 200, seed: 1 }, gapCi: true });
    for (const l of out) {
      expect(l.crude_gap_points).toBeNull();
      expect(l.crude_gap_reason).toBe(REFERENCE_SAME_FAMILY);
      expect(l.crude_gap_ci_bootstrap).toBeUndefined();
      expect(l.adjusted.gap_points).toBeNull();
      expect(l.adjusted.gap_reason).toBe(REFERENCE_SAME_FAMILY);
      expect(l.adjusted.gap_ci).toBeUndefined();
      expect(l.adjusted.gap_ci_flag).toBeUndefined();
      expect(l.reference_note).toMatch(/no judge of another family is in the reference .*cannot be measured/);
    }
    expect(leniencyWarnings(out)).toEqual([]);
    const text = leniencyLines(out).join("\n");
    expect(text).toContain("adjusted gap (own − other, within strata) undefined (");
    expect(text).not.toContain("MOVER-Wilson");
    expect(text).toContain("note: no judge of another family is in the reference (the other judges' majority is B, all of family openai)");
  });

  it("a mixed committee whose reference holds a sibling: figures stand, with the note; a judge of another family has none", () => {
    const judges = [
      { id: "A", family: "openai" },
      { id: "B", family: "OpenAI" },
      { id: "S", family: "rule" },
    ];
    const { index, verdicts } = data({ A: "openai", B: "OpenAI", S: "rule" });
    const [a, b, s] = selfFamilyLeniency(verdicts, index, judges, { bootstrap: { B: 0, seed: 1 }, gapCi: true });
    expect(a.adjusted.gap_points).not.toBeNull();
    expect(a.adjusted.gap_ci).toBeDefined();
    expect(a.reference_note).toMatch(/^the reference \(the other judges' majority\) includes B of the same family \(openai\): .*understate/);
    expect(b.reference_note).toMatch(/includes A of the same family/);
    expect(s.reference_note).toBeUndefined();
    expect(leniencyLines([a]).join("\n")).toContain("    note: the reference (the other judges' majority) includes B");
  });

  it("a judge without votes is not in the reference", () => {
    const l = selfFamilyLeniency(data({ A: "openai", B: "openai" }).verdicts, data({}).index, [
      { id: "A", family: "openai" },
      { id: "B", family: "openai" },
      { id: "C", family: "google" },
    ])[0];
    expect(l.adjusted.gap_reason).toBe(REFERENCE_SAME_FAMILY);
  });

  it("checkReferenceFamilies leaves a reference of other families alone", () => {
    const [l] = selfFamilyLeniency(data({ A: "openai", C: "google" }).verdicts, data({}).index, [
      { id: "A", family: "openai" },
      { id: "C", family: "google" },
    ]);
    const before = JSON.stringify(l);
    checkReferenceFamilies(l, [{ id: "C", family: "google" }]);
    expect(JSON.stringify(l)).toBe(before);
    expect(l.adjusted.gap_points).not.toBeNull();
  });

  it("on columns (committee): the same null and the same note", async () => {
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir, { recursive: true });
    const { index, verdicts } = data({ A: "openai", B: "openai" });
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), [...index.values()].map((r) => JSON.stringify(r)).join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.map((x) => JSON.stringify(x)).join("\n") + "\n");
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    const { report } = committeeReportColumns(run, { run: "r", bootstrap: { B: 0, seed: 1 }, leniencyGapCi: true });
    const obj = selfFamilyLeniency(verdicts, index, [
      { id: "A", family: "openai" },
      { id: "B", family: "openai" },
    ]);
    expect(report.leniency.map((l) => [l.adjusted.gap_reason, l.reference_note])).toEqual(obj.map((l) => [l.adjusted.gap_reason, l.reference_note]));
  });
});

describe("a judge without a recorded family", () => {
  it("in the reference, is no one's sibling: nothing nulled, no note", () => {
    const { index, verdicts } = data({ A: "openai", C: "google" });
    const [l] = selfFamilyLeniency(verdicts, index, [
      { id: "A", family: "openai" },
      { id: "C", family: "google" },
    ]);
    checkReferenceFamilies(l, [{ id: "B", family: undefined as unknown as string }]);
    expect(l.adjusted.gap_reason).not.toBe(REFERENCE_SAME_FAMILY);
    expect(l.reference_note).toBeUndefined();
  });
});
