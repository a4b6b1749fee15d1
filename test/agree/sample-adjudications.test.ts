/**
 * New-user report 38 F1: the sample folder's adjudication.jsonl (where view saves adjudications, beside annotations/)
 * is read by import-annotations when not given, and said; agree/estimate/report warn, by count, when the label file
 * lacks adjudications its sample folder holds.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { missingAdjudicationsWarning, sampleAdjudicationFiles } from "../../src/agree/sample-adjudications.js";
import { importAnnotations } from "../../src/sample/index.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-sample-adj-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: 2, design: {} };
const mrows = ["001", "002"].map((n) => ({ item_id: `abc-${n}`, trajectory_id: `t${n}`, stratum: "A", sampling_stratum: "all", committee_stratum: "A", stratum_size: 20, phase: 1, inclusion_probability: 0.1, weight: 10 }));
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

/** A sample folder as view leaves it: manifest, annotations/<name>.jsonl, adjudication.jsonl. */
function sampleFolder(name: string): string {
  const d = path.join(tmp, name);
  fs.mkdirSync(path.join(d, "annotations"), { recursive: true });
  fs.writeFileSync(path.join(d, "manifest.jsonl"), jsonl([header, ...mrows]));
  fs.writeFileSync(path.join(d, "annotations", "ann.jsonl"), jsonl([{ item_id: "abc-001", annotator: "ann", label: "unaffected" }, { item_id: "abc-002", annotator: "ann", label: "unaffected" }]));
  fs.writeFileSync(path.join(d, "annotations", "bob.jsonl"), jsonl([{ item_id: "abc-001", annotator: "bob", label: "full_compliance" }, { item_id: "abc-002", annotator: "bob", label: "unaffected" }]));
  fs.writeFileSync(
    path.join(d, "adjudication.jsonl"),
    jsonl([{ item_id: "abc-001", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", annotators: { ann: "unaffected", bob: "full_compliance" } }]),
  );
  return d;
}

describe("import-annotations reads the sample folder's adjudication file (F1)", () => {
  it("finds it from annotations/ files or the manifest, not when it was given", () => {
    const d = sampleFolder("find");
    const files = [path.join(d, "annotations", "ann.jsonl")];
    expect(sampleAdjudicationFiles(files, path.join(d, "manifest.jsonl"))).toEqual([path.join(fs.realpathSync(d), "adjudication.jsonl")]);
    expect(sampleAdjudicationFiles([path.join(d, "adjudication.jsonl"), ...files], path.join(d, "manifest.jsonl"))).toEqual([]);
  });

  it("imports the adjudication with the documented command and records the manifest; left out on request, with a warning", async () => {
    const d = sampleFolder("imp");
    const files = ["ann", "bob"].map((a) => path.join(d, "annotations", `${a}.jsonl`));
    const out = path.join(tmp, "elsewhere", "human.jsonl");
    const res = await importAnnotations({ files, manifest: path.join(d, "manifest.jsonl"), out });
    expect(res.sample_adjudications).toEqual([{ file: path.join(fs.realpathSync(d), "adjudication.jsonl"), adjudications: 1, read: true }]);
    expect(res.summary.adjudicated_labels).toBe(1);
    const rows = fs.readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.find((r) => r.annotator === "adjudicated")).toMatchObject({ item_id: "abc-001", label: "full_compliance" });
    expect(rows[0].sample_manifest).toBe(path.join("..", "imp", "manifest.jsonl"));
    expect(missingAdjudicationsWarning(out)).toBeUndefined();

    const noAdj = path.join(tmp, "elsewhere", "noadj.jsonl");
    const res2 = await importAnnotations({ files, manifest: path.join(d, "manifest.jsonl"), out: noAdj, sampleAdjudication: false });
    expect(res2.summary.adjudicated_labels).toBe(0);
    expect(res2.warnings.join("\n")).toMatch(/1 adjudication\(s\) of this sample left out \(--no-sample-adjudication\)/);
    // the label file's recorded manifest leads to the folder: the lack is said by count
    expect(missingAdjudicationsWarning(noAdj)).toMatch(/^label file .*noadj\.jsonl lacks 1 of the 1 adjudication in .*adjudication\.jsonl \(item abc-001\)/);
  });

  it("warns for an older label file in the sample folder without the adjudications; not for another sample's items", () => {
    const d = sampleFolder("old");
    const pre = path.join(d, "human-pre.jsonl");
    fs.writeFileSync(pre, jsonl([{ trajectory_id: "t001", item_id: "abc-001", annotator: "ann", label: "unaffected" }, { trajectory_id: "t001", item_id: "abc-001", annotator: "bob", label: "full_compliance" }]));
    expect(missingAdjudicationsWarning(pre)).toMatch(/lacks 1 of the 1 adjudication/);
    const other = path.join(d, "other.jsonl");
    fs.writeFileSync(other, jsonl([{ trajectory_id: "x", item_id: "zzz-001", annotator: "ann", label: "unaffected" }]));
    expect(missingAdjudicationsWarning(other)).toBeUndefined();
  });

  it("says once, with the path tried, that a moved label file's recorded manifest is not found and the check was skipped", async () => {
    const d = sampleFolder("moved");
    const files = ["ann", "bob"].map((a) => path.join(d, "annotations", `${a}.jsonl`));
    const out = path.join(tmp, "out-moved", "noadj.jsonl");
    await importAnnotations({ files, manifest: path.join(d, "manifest.jsonl"), out, sampleAdjudication: false });
    expect(missingAdjudicationsWarning(out)).toMatch(/lacks 1 of the 1 adjudication/);
    // verifier's repro: cp out/noadj.jsonl ./moved-noadj.jsonl: the relative record now leads nowhere
    const moved = path.join(tmp, "moved-noadj.jsonl");
    fs.copyFileSync(out, moved);
    const w = missingAdjudicationsWarning(moved) ?? "";
    const tried = path.resolve(tmp, path.join("..", "moved", "manifest.jsonl"));
    expect(w).toContain(`label file ${moved} names the sample manifest ${path.join("..", "moved", "manifest.jsonl")}`);
    expect(w).toContain(`not found at ${tried}`);
    expect(w).toMatch(/check for adjudications the label file lacks was skipped/);
    expect(w.split("not found at").length - 1).toBe(1); // once, though every row records it
  });
});

describe("an adjudication changed since the import (red team 37c F2)", () => {
  it("names the item and both labels, and says to import again; nothing when label and adjudicator are unchanged", async () => {
    const d = sampleFolder("changed");
    const files = ["ann", "bob"].map((a) => path.join(d, "annotations", `${a}.jsonl`));
    const out = path.join(d, "human.jsonl");
    await importAnnotations({ files, manifest: path.join(d, "manifest.jsonl"), out });
    expect(missingAdjudicationsWarning(out)).toBeUndefined();
    const adj = path.join(d, "adjudication.jsonl");
    const row = { item_id: "abc-001", annotator: "adjudicated", label: "task_refusal", adjudicator: "lead", annotators: { ann: "unaffected", bob: "full_compliance" } };
    fs.writeFileSync(adj, jsonl([row]));
    expect(missingAdjudicationsWarning(out)).toBe(
      `label file ${out} holds 1 adjudication that ${adj} now records differently (item abc-001: "full_compliance" by "lead" in the label file, "task_refusal" by "lead" in adjudication.jsonl): ` +
        `the label file's (older) adjudicated label is used as that item's consensus; import the annotations again with that file (import-annotations reads a sample folder's adjudication.jsonl itself)`,
    );
    // another adjudicator, same label: said too
    fs.writeFileSync(adj, jsonl([{ ...row, label: "Full compliance", adjudicator: "kim" }]));
    expect(missingAdjudicationsWarning(out)).toMatch(/item abc-001: "full_compliance" by "lead" in the label file, "Full compliance" by "kim" in adjudication\.jsonl/);
    // the same label in another spelling, the same adjudicator: nothing
    fs.writeFileSync(adj, jsonl([{ ...row, label: "Full compliance" }]));
    expect(missingAdjudicationsWarning(out)).toBeUndefined();
  });
});

describe("lines of the sample's adjudication file that cannot be read (break45)", () => {
  it("are named with file and line, and the count the check covered is said (they were skipped in silence)", async () => {
    const d = sampleFolder("badlines");
    const files = ["ann", "bob"].map((a) => path.join(d, "annotations", `${a}.jsonl`));
    const out = path.join(d, "human.jsonl");
    await importAnnotations({ files, manifest: path.join(d, "manifest.jsonl"), out, sampleAdjudication: false });
    const adj = path.join(d, "adjudication.jsonl");
    const good = JSON.stringify({ item_id: "abc-001", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", annotators: {} });
    // an adjudication of abc-002 on a truncated line, one giving two labels, and an array line: none counted before, nothing said
    fs.writeFileSync(adj, [good, '{"item_id": "abc-002", "annotator": "adjudicated", "lab', '{"item_id": "abc-002", "annotator": "adjudicated", "label": "unaffected", "label": "task_refusal"}', "[]"].join("\n") + "\n");
    const w = missingAdjudicationsWarning(out) ?? "";
    expect(w).toContain(`${adj}: 3 lines not read (line 2: not JSON (`);
    expect(w).toMatch(/line 3: key "label" given twice with different values \("unaffected", then "task_refusal"\)/);
    expect(w).toContain("line 4: not a JSON object): the check for adjudications label file");
    expect(w).toContain("covered its 1 readable adjudication only");
    expect(w).toMatch(/lacks 1 of the 1 adjudication in .*\(item abc-001\)/);
  });

  it("an adjudication file that cannot be read is said, not taken as holding none", async () => {
    const d = sampleFolder("unreadable");
    const out = path.join(d, "human.jsonl");
    await importAnnotations({ files: ["ann", "bob"].map((a) => path.join(d, "annotations", `${a}.jsonl`)), manifest: path.join(d, "manifest.jsonl"), out, sampleAdjudication: false });
    const adj = path.join(d, "adjudication.jsonl");
    fs.rmSync(adj);
    fs.mkdirSync(adj); // a folder where the file was: existsSync says yes, reading fails
    expect(missingAdjudicationsWarning(out)).toMatch(/adjudication\.jsonl could not be read \(EISDIR\): the check for adjudications label file .* lacks was skipped/);
  });
});
