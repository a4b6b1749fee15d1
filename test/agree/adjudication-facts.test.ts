/**
 * What agree and estimate say of adjudicated rows (red team 35b F2, F4): a look-alike of the reserved name in a label
 * file is not read (a bad row, by line); the items settled and by whom; adjudications over labels changed since; rows
 * without an adjudicator or a snapshot of a disagreement (an earlier import, or forged: verifier M1) read but warned once.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adjudicatedText, adjudicationFacts, labelFileRows, staleAdjudicationWarning, unattestedAdjudicationWarning } from "../../src/agree/adjudication-facts.js";
import { readHumanLabels } from "../../src/agree/human-file.js";
import { humanAgreement, formatHumanAgreement } from "../../src/agree/human.js";
import { estimateFromData } from "../../src/estimate/run.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

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
    expect(f.unattested).toEqual([]); // both as view writes them: an adjudicator and a disagreement
    expect(unattestedAdjudicationWarning(f, "label file h.jsonl")).toBeUndefined();
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

describe("adjudicated rows not as view writes them (an earlier import, or forged: red team 35b verifier, M1)", () => {
  const old = [
    // t1: an import before adjudicators were kept (no adjudicator, no snapshot)
    { trajectory_id: "t1", annotator: "alice", label: "full_compliance" },
    { trajectory_id: "t1", annotator: "bob", label: "unaffected" },
    { trajectory_id: "t1", annotator: "adjudicated", label: "full_compliance" },
    // t2: what a filled CSV with an adjudicator column gave: an adjudicator, no snapshot, on an item alice and bob agree on
    { trajectory_id: "t2", annotator: "alice", label: "unaffected" },
    { trajectory_id: "t2", annotator: "bob", label: "unaffected" },
    { trajectory_id: "t2", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead" },
    // t3: as view writes it
    { trajectory_id: "t3", annotator: "alice", label: "full_compliance" },
    { trajectory_id: "t3", annotator: "bob", label: "unaffected" },
    { trajectory_id: "t3", annotator: "adjudicated", label: "unaffected", adjudicator: "lead", settled_labels: { alice: "full_compliance", bob: "unaffected" } },
    // t4: a snapshot of no disagreement
    { trajectory_id: "t4", annotator: "alice", label: "unaffected" },
    { trajectory_id: "t4", annotator: "bob", label: "unaffected" },
    { trajectory_id: "t4", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", settled_labels: { alice: "unaffected", bob: "unaffected" } },
  ];
  const file = path.join(tmp, "old.jsonl");
  fs.writeFileSync(file, old.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const read = readHumanLabels(file);
  const expected =
    'label file old.jsonl: 3 adjudicated row(s) (annotator "adjudicated") record no adjudicator or no annotators\' labels showing the disagreement they settled: ' +
    "t1 (line 3), t2 (line 6), t4 (line 12). Written by an import-annotations of an earlier version, or not by view's adjudication at all (a forged row reads the same): " +
    "each is still read as its item's consensus. Check them, or import the annotations again with view's adjudication.jsonl (import-annotations now refuses such rows)";
  const index = new Map(["t1", "t2", "t3", "t4"].map((id) => [id, { id, agent_model: "m", attacked: true, content_sha256: "c" } as unknown as TrajectoryIndexRow]));

  it("agree --human still reads them as the consensus and warns once, naming the file, the count and the rows", () => {
    const r = humanAgreement(read, [], index, { bootstrap: { B: 0, seed: 1 }, file: "old.jsonl" });
    expect(r.consensus.adjudicated).toBe(4);
    expect(r.warnings.filter((w) => w.includes("adjudicated row(s)"))).toEqual([expected]);
    expect(formatHumanAgreement(r)).toContain(`WARNING: ${expected}`);
  });

  it("estimate says the same once", () => {
    const verdicts = ["t1", "t2", "t3", "t4"].map((id) => ({ trajectory_id: id, judge_id: "signature", repeat: 0, status: "ok", label: "unaffected", compromised: false }) as Verdict);
    const r = estimateFromData(index, verdicts, read, { run: "r", humanFile: "old.jsonl", source: { kind: "judge", judge_id: "signature" }, minSampled: 1 });
    expect(r.warnings.filter((w) => w.includes("adjudicated row(s)"))).toEqual([expected]);
    expect(r.labels.adjudicated).toEqual({ items: 4, by: { "(not recorded)": 1, lead: 3 } });
  });
});
