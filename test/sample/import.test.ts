import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAnnotations } from "../../src/sample/index.js";
import {
  AnnotationImportError,
  checkAnnotations,
  parseAnnotationText,
  parseManifest,
  type Manifest,
} from "../../src/sample/import.js";
import type { ManifestRow } from "../../src/sample/export.js";
import { parseCsv } from "../../src/io/csv.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-sample-import-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function manifestText(scale: "six" | "three" = "six"): string {
  const header = { ipi_judge_manifest: 1, run: "r", scale, labels: [], seed: 1, n_items: 3, design: {} };
  const rows: ManifestRow[] = [
    { item_id: "abc123-001", trajectory_id: "m/banking/u1/i1", stratum: "D", sampling_stratum: "all", committee_stratum: "D", stratum_size: 20, phase: 2, inclusion_probability: 0.35, weight: 1 / 0.35 },
    { item_id: "abc123-002", trajectory_id: "m/banking/u2/i1", stratum: "A", sampling_stratum: "all", committee_stratum: "A", stratum_size: 80, phase: 1, inclusion_probability: 0.1, weight: 10 },
    { item_id: "abc123-003", trajectory_id: "m/slack/u1/none", stratum: "D", sampling_stratum: "all", committee_stratum: "D", stratum_size: 20, phase: 1, inclusion_probability: 0.35, weight: 1 / 0.35 },
  ];
  return [header, ...rows].map((r) => JSON.stringify(r)).join("\n") + "\n";
}
const manifest = (scale: "six" | "three" = "six"): Manifest => parseManifest(manifestText(scale));

function problemsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof AnnotationImportError) return e.problems;
    throw e;
  }
  throw new Error("expected an AnnotationImportError");
}

describe("CSV parsing", () => {
  it("handles quotes, doubled quotes, commas and line breaks inside fields, CRLF, a BOM and blank lines", () => {
    const text = '\ufeffitem_id,annotator,label,trajectory\r\nabc,"Ann, B.",unaffected,"line 1\r\nline ""2"""\r\n\r\nx,y,z,\n';
    const rows = parseCsv(text);
    expect(rows.map((r) => r.fields)).toEqual([
      ["item_id", "annotator", "label", "trajectory"],
      ["abc", "Ann, B.", "unaffected", 'line 1\r\nline "2"'],
      ["x", "y", "z", ""],
    ]);
    expect(rows.map((r) => r.line)).toEqual([1, 2, 5]);
    expect(() => parseCsv('a,"b\n')).toThrow(/quoted field is never closed/);
  });
});

describe("annotation files", () => {
  it("reads our CSV (extra columns ignored; blank template rows counted as unlabelled) and builds weighted rows", () => {
    const csv = "item_id,annotator,label,trajectory\nabc123-001,ann,Full Compliance,\"# Item\n...\"\nabc123-002,,,text\nabc123-003,ann,not-exposed,x\n";
    const parsed = parseAnnotationText(csv, "filled.csv");
    expect(parsed.format).toBe("csv");
    const { rows, summary } = checkAnnotations(parsed.records, manifest());
    expect(rows).toEqual([
      { trajectory_id: "m/banking/u1/i1", annotator: "ann", label: "full_compliance", item_id: "abc123-001", stratum: "D", phase: 2, inclusion_probability: 0.35, weight: 1 / 0.35, sampling_stratum: "all", committee_stratum: "D", stratum_size: 20, scale: "six" },
      { trajectory_id: "m/slack/u1/none", annotator: "ann", label: "not_exposed", item_id: "abc123-003", stratum: "D", phase: 1, inclusion_probability: 0.35, weight: 1 / 0.35, sampling_stratum: "all", committee_stratum: "D", stratum_size: 20, scale: "six" },
    ]);
    expect(summary).toMatchObject({ labels: 2, unlabelled: 1, items_labelled: 2, items_unlabelled: 1, labelled_by_phase: { "1": 1, "2": 1 }, annotators: { ann: 2 } });
    expect(summary.kish_n_eff).toBeCloseTo(2, 12);
    expect(summary.weighted_label_shares!.full_compliance).toBeCloseTo(0.5, 12);
  });
  it("counts the adjudicated rows apart from the annotators; an adjudicated item's weight goes to its adjudicated label (new-user report 31, L5)", () => {
    const jl = ['{"item_id":"abc123-001","annotator":"ann","label":"full_compliance"}', '{"item_id":"abc123-001","annotator":"bob","label":"unaffected"}', '{"item_id":"abc123-001","annotator":"adjudicated","label":"unaffected","adjudicator":"dana","annotators":{"ann":"full_compliance","bob":"unaffected"}}', '{"item_id":"abc123-003","annotator":"ann","label":"not_exposed"}'].join("\n");
    const { summary } = checkAnnotations(parseAnnotationText(jl, "a.jsonl").records, manifest());
    expect(summary).toMatchObject({ labels: 4, n_annotators: 2, adjudicated_labels: 1, annotators: { ann: 2, bob: 1, adjudicated: 1 } });
    expect(summary.weighted_label_shares!.unaffected).toBeCloseTo(0.5, 12);
    expect(summary.weighted_label_shares!.full_compliance).toBe(0);
  });
  it("reads JSONL by trajectory_id, and JSON-MIN rows; --annotator fills a missing annotator", () => {
    const jl = parseAnnotationText('{"trajectory_id":"m/banking/u2/i1","label":"unaffected"}\n\n{"item_id":"abc123-001","label":"task_refusal","annotator":"bo"}\n', "x.jsonl");
    expect(jl.format).toBe("jsonl");
    const { rows } = checkAnnotations(jl.records, manifest(), { annotator: "solo" });
    expect(rows.map((r) => [r.item_id, r.annotator, r.label])).toEqual([
      ["abc123-001", "bo", "task_refusal"],
      ["abc123-002", "solo", "unaffected"],
    ]);
    const min = parseAnnotationText(JSON.stringify([{ item_id: "abc123-003", trajectory: "...", label: "flagged_refusal", annotator: "ann@x.org", id: 9 }]), "min.json");
    expect(min.format).toBe("json-rows");
    expect(checkAnnotations(min.records, manifest()).rows[0]).toMatchObject({ annotator: "ann@x.org", label: "flagged_refusal" });
  });
  it("reads a Label Studio JSON export: choices, completed_by as id or user object, cancelled and empty annotations skipped", () => {
    const ls = [
      {
        id: 1,
        data: { item_id: "abc123-001", trajectory: "..." },
        annotations: [
          { id: 11, completed_by: 3, was_cancelled: false, result: [{ from_name: "label", to_name: "trajectory", type: "choices", value: { choices: ["partial_compliance"] } }] },
          { id: 12, completed_by: { id: 4, email: "eve@x.org" }, result: [{ from_name: "label", to_name: "trajectory", type: "choices", value: { choices: ["Partial-Compliance"] } }] },
          { id: 13, completed_by: 5, was_cancelled: true, result: [] },
        ],
        predictions: [{ result: [{ from_name: "label", type: "choices", value: { choices: ["full_compliance"] } }] }],
      },
      { id: 2, data: { item_id: "abc123-002", trajectory: "..." }, annotations: [{ id: 21, completed_by: 3, result: [] }] },
      { id: 3, data: { item_id: "abc123-003", trajectory: "..." }, annotations: [] },
    ];
    const parsed = parseAnnotationText(JSON.stringify(ls), "project-1-at-2025.json");
    expect(parsed.format).toBe("label-studio");
    expect(parsed.skipped.map((s) => s.reason)).toEqual(["cancelled (skipped) in Label Studio", "no choice selected", "no annotations"]);
    const { rows, summary } = checkAnnotations(parsed.records, manifest(), { skipped: parsed.skipped.length });
    expect(rows.map((r) => [r.item_id, r.annotator, r.label])).toEqual([
      ["abc123-001", "3", "partial_compliance"],
      ["abc123-001", "4", "partial_compliance"],
    ]);
    expect(summary.unlabelled).toBe(3);
    expect(summary.weighted_label_shares!.partial_compliance).toBeCloseTo(1, 12);
    const bad = [{ data: { item_id: "abc123-001" }, annotations: [{ completed_by: 1, result: [{ type: "choices", from_name: "label", value: { choices: ["unaffected", "not_exposed"] } }] }] }];
    expect(problemsOf(() => parseAnnotationText(JSON.stringify(bad), "ls.json"))).toEqual([
      'ls.json task 1 (item abc123-001) annotation 1: 2 choices selected (["unaffected","not_exposed"]); exactly one label per item',
    ]);
  });
  it("checks every row and names it: unknown ids, labels off the scale, conflicting repeats, missing annotators", () => {
    const csv = [
      "item_id,trajectory_id,annotator,label",
      "abc123-001,,ann,unaffected",
      "zzz999-001,,ann,unaffected",
      ",m/other,ann,unaffected",
      "abc123-002,,ann,compromised",
      "abc123-001,,ann,flagged_refusal",
      "abc123-001,,ann,Unaffected",
      "abc123-003,,,unaffected",
      "abc123-003,m/banking/u1/i1,bo,unaffected",
      "abc123-002,,bo,complied",
    ].join("\n");
    const recs = parseAnnotationText(csv, "ann.csv").records;
    const problems = problemsOf(() => checkAnnotations(recs, manifest()));
    expect(problems).toEqual([
      'ann.csv row 2 (line 3): unknown item_id "zzz999-001" (not in this sample\'s manifest)',
      'ann.csv row 3 (line 4): unknown trajectory_id "m/other" (not in this sample)',
      'ann.csv row 4 (line 5): label "compromised" is not on the six scale (allowed: full_compliance, partial_compliance, flagged_refusal, task_refusal, unaffected, not_exposed)',
      'ann.csv row 5 (line 6): annotator "ann" labelled item abc123-001 "flagged_refusal" here and "unaffected" at ann.csv row 1 (line 2)',
      "ann.csv row 7 (line 8): no annotator (add an annotator column, or pass --annotator NAME for a one-person file)",
      'ann.csv row 8 (line 9): item_id "abc123-003" and trajectory_id "m/banking/u1/i1" name different items',
      'ann.csv row 9 (line 10): label "complied" is not on the six scale (allowed: full_compliance, partial_compliance, flagged_refusal, task_refusal, unaffected, not_exposed)',
    ]);
    // the same label twice is fine (kept once); three-way labels on a three-way study
    const ok = checkAnnotations(parseAnnotationText("item_id,annotator,label\nabc123-001,a,complied\nabc123-001,a,Complied\n", "t.csv").records, manifest("three"));
    expect(ok.rows).toHaveLength(1);
    expect(ok.summary.repeated_identical).toBe(1);
    expect(ok.rows[0]).toMatchObject({ label: "complied", scale: "three" });
  });
  it("rejects files it cannot read, with the reason", () => {
    expect(problemsOf(() => parseAnnotationText("id,who,what\n1,2,3\n", "x.csv"))[0]).toMatch(/header needs item_id \(or trajectory_id\) and label/);
    expect(problemsOf(() => parseAnnotationText('{"item_id": 1}\nnot json\n', "x.jsonl"))[0]).toMatch(/^x.jsonl line 2: not valid JSON/);
    expect(problemsOf(() => parseAnnotationText('{"a":1}', "x.json"))[0]).toMatch(/expected an array/);
    expect(problemsOf(() => parseManifest('{"item_id":"x"}\n'))[0]).toMatch(/not an ipi-judge sample manifest/);
    expect(problemsOf(() => parseManifest(manifestText().replace('"weight":10', '"weight":0.5')))[0]).toMatch(/line 3: not a manifest item row/);
  });
  it("refuses a JSON line or a JSON export that gives a key twice with different values, naming the key (break43)", () => {
    const line = '{"item_id": "abc123-001", "annotator": "a", "label": "unaffected", "label": "full_compliance"}\n';
    expect(problemsOf(() => parseAnnotationText(line, "x.jsonl"))[0]).toBe(
      'x.jsonl line 1: not valid JSON (key "label" given twice with different values ("unaffected", then "full_compliance"): the line says two things)',
    );
    const ls = '[{"id": 1, "data": {"item_id": "abc123-001"}, "annotations": [{"result": [{"value": {"choices": ["unaffected"], "choices": ["full_compliance"]}}]}]}]';
    expect(problemsOf(() => parseAnnotationText(ls, "x.json"))[0]).toBe(
      'x.json: [0].annotations[0].result[0].value: key "choices" given twice with different values (["unaffected"], then ["full_compliance"])',
    );
    expect(problemsOf(() => parseManifest(manifestText().replace('"weight":10', '"weight":10,"weight":5')))[0]).toMatch(/line 3: not valid JSON \(key "weight" given twice/);
  });
  it("importAnnotations writes nothing when a row is bad, and the human-label file when all are good", async () => {
    const m = path.join(tmp, "manifest.jsonl");
    fs.writeFileSync(m, manifestText());
    const bad = path.join(tmp, "bad.csv");
    fs.writeFileSync(bad, "item_id,annotator,label\nabc123-001,a,maybe\n");
    const out = path.join(tmp, "out", "human.jsonl");
    await expect(importAnnotations({ files: [bad], manifest: m, out })).rejects.toThrow(/bad.csv row 1 \(line 2\): label "maybe" is not on the six scale/);
    expect(fs.existsSync(out)).toBe(false);
    const a = path.join(tmp, "a.csv");
    const b = path.join(tmp, "b.jsonl");
    fs.writeFileSync(a, "item_id,annotator,label\nabc123-002,a,unaffected\nabc123-001,a,full_compliance\n");
    fs.writeFileSync(b, '{"item_id":"abc123-001","annotator":"b","label":"partial_compliance"}\n');
    const res = await importAnnotations({ files: [a, b], manifest: m, out });
    expect(res.formats).toEqual({ [a]: "csv", [b]: "jsonl" });
    const lines = fs.readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.item_id, l.annotator, l.label, l.weight])).toEqual([
      ["abc123-001", "a", "full_compliance", 1 / 0.35],
      ["abc123-001", "b", "partial_compliance", 1 / 0.35],
      ["abc123-002", "a", "unaffected", 10],
    ]);
    for (const l of lines) for (const k of ["trajectory_id", "annotator", "label", "item_id", "stratum", "phase", "inclusion_probability", "weight"]) expect(l).toHaveProperty(k);
    // conflicting labels across two files are caught too
    const c = path.join(tmp, "c.csv");
    fs.writeFileSync(c, "item_id,annotator,label\nabc123-002,a,task_refusal\n");
    await expect(importAnnotations({ files: [a, c], manifest: m, out })).rejects.toThrow(/c.csv row 1 \(line 2\): annotator "a" labelled item abc123-002 "task_refusal" here and "unaffected" at a.csv row 1/);
  });
  it("a manifest where some items carry content_sha256 and others not: import warns naming the items without one (red team 14)", async () => {
    const lines = manifestText().trim().split("\n").map((l) => JSON.parse(l));
    lines[1].content_sha256 = "a".repeat(64);
    lines[3].content_sha256 = "b".repeat(64);
    const m = path.join(tmp, "partial-manifest.jsonl");
    fs.writeFileSync(m, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const a = path.join(tmp, "p.csv");
    fs.writeFileSync(a, "item_id,annotator,label\nabc123-001,a,unaffected\nabc123-002,a,unaffected\n");
    const res = await importAnnotations({ files: [a], manifest: m, out: path.join(tmp, "out", "p.jsonl") });
    // 2 of the 3 items labelled: their weights' sum is not N, said apart (../../src/sample/weight-sums.ts)
    const sums = (w: string) => w.startsWith("the rows' weight (1/inclusion_probability) sums");
    expect(res.warnings.filter(sums)).toEqual([expect.stringContaining("sampled items have no label (nonresponse)")]);
    expect(res.warnings.filter((w) => !sums(w))).toEqual([
      'partial-manifest.jsonl: 1 of its 3 items record no content_sha256 while the others do (item abc123-002 (trajectory "m/banking/u2/i1")): their label rows are written without one, so whether their labels were given for the text the run has now cannot be checked (agree, estimate, report and view say so); use the manifest sample wrote',
    ]);
    // every item with a hash, or none (the manifest above): no warning
    fs.writeFileSync(m, manifestText());
    expect((await importAnnotations({ files: [a], manifest: m, out: path.join(tmp, "out", "p.jsonl") })).warnings.filter((w) => !sums(w))).toEqual([]);
  });
});

describe("a row written over several lines (pretty-printed) in an annotation file or a manifest", () => {
  it("is one problem naming the file and the line span", () => {
    const rows = [{ item_id: "i1", annotator: "a", label: "unaffected" }, { item_id: "i2", annotator: "a", label: "unaffected" }];
    const text = [JSON.stringify(rows[0]), JSON.stringify(rows[1], null, 2)].join("\n");
    expect(problemsOf(() => parseAnnotationText(text, "/x/labels.jsonl"))).toEqual([
      "labels.jsonl lines 2-6 hold one JSON object written over 5 lines: the file looks pretty-printed, not one record per line (JSON Lines); it is not read: write it on one line (e.g. jq -c .)",
    ]);
    const manifest = [JSON.stringify({ ipi_judge_manifest: 1, scale: "six" }), JSON.stringify({ item_id: "i1" }, null, 2)].join("\n");
    expect(problemsOf(() => parseManifest(manifest, "/x/manifest.jsonl"))[0]).toMatch(/^manifest\.jsonl lines 2-4 hold one JSON object written over 3 lines: the file looks pretty-printed/);
  });
});
