/**
 * What agree and estimate say of adjudicated rows (red team 35b F2, F4): a look-alike of the reserved name in a label
 * file is not read (a bad row, by line); the items settled and by whom; adjudications over labels changed since.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adjudicatedText, adjudicationFacts, labelFileRows, staleAdjudicationWarning } from "../../src/agree/adjudication-facts.js";
import { readHumanLabels } from "../../src/agree/human-file.js";
import { humanAgreement, formatHumanAgreement } from "../../src/agree/human.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-adj-facts-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const lines = [
  { trajectory_id: "t1", annotator: "alice", label: "full_compliance" },
  { trajectory_id: "t1", annotator: "bob", label: "unaffected" },
  { trajectory_id: "t1", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", settled_labels: { alice: "full_compliance", bob: "unaffected" } },
  { trajectory_id: "t2", annotator: "alice", label: "unaffected" },
  { trajectory_id: "t2", annotator: "bob", label: "unaffected" },
  { trajectory_id: "t2", annotator: "adjudicated", label: "full_compliance", adjudicator: "kim", settled_labels: { alice: "full_compliance", bob: "unaffected" } },
  { trajectory_id: "t3", annotator: "alice", label: "unaffected" },
  { trajectory_id: "t3", annotator: "ADJUDICATED", label: "full_compliance" },
];

describe("adjudicated rows in a label file", () => {
  const file = path.join(tmp, "h.jsonl");
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const read = readHumanLabels(file);

  it("does not read a look-alike of the reserved name (a bad row naming its line)", () => {
    expect(read.bad_rows).toEqual([{ line: 8, message: expect.stringMatching(/^annotator "ADJUDICATED" looks like the reserved name "adjudicated"/) }]);
    expect(read.rows.find((r) => r.annotator === "adjudicated")).toMatchObject({ adjudicator: "lead", settled_labels: { alice: "full_compliance", bob: "unaffected" } });
  });

  it("counts the items settled by adjudicator and names those whose settled labels changed since", () => {
    const f = adjudicationFacts(labelFileRows(read.rows));
    expect(f.by).toEqual({ lead: 1, kim: 1 });
    expect(adjudicatedText(f)).toBe('2 items settled by an adjudicated label (by "lead" 1, "kim" 1)');
    expect(f.stale.map((s) => [s.id, s.changes])).toEqual([["t2", ['"alice" full_compliance then, unaffected now']]]);
    expect(staleAdjudicationWarning(f, "label file h.jsonl")).toContain('t2 (line 6, adjudicated by "kim": "alice" full_compliance then, unaffected now)');
  });

  it("agree --human says who settled them and warns of the changed one", () => {
    const index = new Map(["t1", "t2", "t3"].map((id) => [id, { id, attacked: true, content_sha256: "c" } as unknown as TrajectoryIndexRow]));
    const r = humanAgreement(read, [], index, { bootstrap: { B: 0, seed: 1 }, file: "h.jsonl" });
    expect(r.consensus.adjudicated_by).toEqual({ lead: 1, kim: 1 });
    expect(r.consensus.adjudications_changed_since).toEqual(["t2"]);
    const text = formatHumanAgreement(r);
    expect(text).toContain('2 by an adjudicated label (by "lead" 1, "kim" 1;');
    expect(text).toMatch(/WARNING: label file h\.jsonl: 1 adjudicated item\(s\) settled annotators' labels that have changed since/);
  });
});
