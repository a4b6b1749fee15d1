/**
 * Labels collected outside the view (a filled tasks.csv or Label Studio, then import-annotations --out FILE) are
 * adjudicated in the view given `--human FILE` (new-user report 31, L4).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adjudicationNote, importedSampleLabels } from "../../src/view/imported-labels.js";
import { SampleStore } from "../../src/view/annotations.js";
import { parseManifest } from "../../src/sample/import.js";

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const items = [1, 2, 3].map((i) => ({ item_id: `s-00${i}`, trajectory_id: `t${i}`, stratum: "all", phase: 1, inclusion_probability: 1, weight: 1, content_sha256: `h${i}` }));
let dir: string;
let human: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-imported-"));
  fs.writeFileSync(path.join(dir, "manifest.jsonl"), [{ ipi_judge_manifest: 1, run: "r", scale: "six", labels: LABELS, seed: 1, n_items: 3 }, ...items].map((x) => JSON.stringify(x)).join("\n") + "\n");
  fs.mkdirSync(path.join(dir, "annotations"));
  // ann labelled in the view; bob's labels came through tasks.csv and import-annotations
  fs.writeFileSync(path.join(dir, "annotations", "ann.jsonl"), items.map((x) => JSON.stringify({ item_id: x.item_id, annotator: "ann", label: "unaffected", labelled_at: "2026-01-01T00:00:00Z" })).join("\n") + "\n");
  human = path.join(dir, "human.jsonl");
  const row = (i: number, annotator: string, label: string, sha = `h${i}`) => JSON.stringify({ trajectory_id: `t${i}`, annotator, label, item_id: `s-00${i}`, content_sha256: sha });
  fs.writeFileSync(human, [row(1, "ann", "unaffected"), row(1, "bob", "not_exposed"), row(2, "bob", "unaffected"), row(3, "bob", "full_compliance", "other"), row(2, "adjudicated", "unaffected"), row(9, "bob", "unaffected")].join("\n") + "\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const store = () => new SampleStore(dir, async () => ({ error: "not loaded in this test" }), () => {});

describe("importedSampleLabels", () => {
  it("maps the file's rows to the sample's items; leaves out adjudicated rows, items not in the sample, and labels given for another text (said)", () => {
    const m = parseManifest(fs.readFileSync(path.join(dir, "manifest.jsonl"), "utf8"), "manifest.jsonl");
    const r = importedSampleLabels(human, m, "six");
    expect([...r.labels.keys()].sort()).toEqual(["ann", "bob"]);
    expect([...r.labels.get("bob")!]).toEqual([["s-001", "not_exposed"], ["s-002", "unaffected"]]);
    expect(r.warnings).toEqual(["human.jsonl: 1 label(s) were given for another text than the sample's item: not shown for adjudication"]);
  });
});

describe("the view's adjudication with --human FILE", () => {
  it("lists the item an annotator file and the imported file disagree on, and records both annotators when adjudicated", async () => {
    const s = store();
    expect(s.disagreements()).toEqual([]);
    expect(s.adjudicationNote()).toMatch(/only one annotator's labels found: the view reads the sample folder's annotations\/\*\.jsonl\. .*start the view with --human FILE/);
    s.useImported(human);
    const d = s.disagreements();
    expect(d.map((x) => x.item_id)).toEqual(["s-001"]);
    expect(d[0].rows.map((r) => [r.annotator, r.label, r.imported_from])).toEqual([
      ["ann", "unaffected", undefined],
      ["bob", "not_exposed", "human.jsonl"],
    ]);
    expect(s.adjudicationNote()).toBeNull();
    const row = await s.adjudicate({ item_id: "s-001", label: "unaffected", adjudicator: "dana" });
    expect(row.annotators).toEqual({ ann: "unaffected", bob: "not_exposed" });
  });

  it("adjudicationNote: none with two annotators; names the --human file it read", () => {
    expect(adjudicationNote(2, undefined)).toBeNull();
    expect(adjudicationNote(0, "/x/h.jsonl")).toMatch(/^no annotator's labels found: .*annotations\/\*\.jsonl and h\.jsonl \(--human\)/);
  });
});
