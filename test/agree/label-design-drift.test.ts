/**
 * label_design_drift (src/agree/label-design-drift.ts) against a manifest that cannot be read whole, or that lacks a
 * labelled item (break45): the manifest's bad lines were skipped in silence and an item it does not hold was not
 * checked without a word. Now each is said, naming the file, the lines and the items.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { labelDesignDriftWarning } from "../../src/agree/label-design-drift.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-design-drift-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: 2, design: {} };
const mrow = (n: string) => ({ item_id: `abc-${n}`, trajectory_id: `t${n}`, stratum: "A", stratum_size: 20, phase: 1, inclusion_probability: 0.1, weight: 10 });
const label = (n: string, extra: object = {}) => ({ trajectory_id: `t${n}`, item_id: `abc-${n}`, annotator: "ann", label: "unaffected", stratum: "A", stratum_size: 20, inclusion_probability: 0.1, sample_manifest: "manifest.jsonl", ...extra });
const jsonl = (rows: Array<object | string>) => rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n";

function folder(name: string, manifest: Array<object | string>, labels: object[]): string {
  const d = path.join(tmp, name);
  fs.mkdirSync(d);
  fs.writeFileSync(path.join(d, "manifest.jsonl"), jsonl(manifest));
  fs.writeFileSync(path.join(d, "human.jsonl"), jsonl(labels));
  return path.join(d, "human.jsonl");
}

describe("label_design_drift against the manifest the rows name", () => {
  it("agrees: nothing; an edited probability: named (as before)", () => {
    expect(labelDesignDriftWarning(folder("ok", [header, mrow("001"), mrow("002")], [label("001"), label("002")]))).toBeUndefined();
    const w = labelDesignDriftWarning(folder("edited", [header, mrow("001"), mrow("002")], [label("001"), label("002", { inclusion_probability: 0.2 })]));
    expect(w).toMatch(/^label_design_drift: .* for 1 item \(item abc-002: inclusion_probability 0\.2 here, 0\.1 in the manifest\)/);
  });

  it("a manifest line that is not JSON, or gives a key twice: said with the lines and the items left unchecked (was silent)", () => {
    const f = folder("badline", [header, mrow("001"), '{"item_id": "abc-002", "trajectory_id": "t002", "stratum": "A", "stratum": "B"}', "[]"], [label("001", { stratum: "Z" }), label("002")]);
    const w = labelDesignDriftWarning(f) ?? "";
    expect(w).toMatch(/^label_design_drift: .* for 1 item \(item abc-001: stratum "Z" here, "A" in the manifest\)/); // the readable rows still checked
    expect(w).toMatch(/label_design_drift not checked: the sample manifest .*manifest\.jsonl cannot be read whole \(manifest\.jsonl line 3: not valid JSON \(key "stratum" given twice/);
    expect(w).toContain("manifest.jsonl line 4: not a manifest item row (no item_id)");
    expect(w).toContain("the design of the 1 item of label file");
    expect(w).toContain("not among its readable rows (abc-002) could not be compared with the manifest");
  });

  it("a bad manifest line that names no labelled item: still said; a manifest without its header: said", () => {
    const w = labelDesignDriftWarning(folder("badother", [header, mrow("001"), "{oops"], [label("001")])) ?? "";
    expect(w).toMatch(/manifest\.jsonl line 3: not valid JSON .*: every item of label file .* that names it is among its readable rows and was compared$/);
    const h = labelDesignDriftWarning(folder("nohead", [mrow("001")], [label("001")])) ?? "";
    expect(h).toContain("manifest.jsonl line 1: not an ipi-judge sample manifest (the first line must be its header)");
  });

  it("rows whose trajectory (and hash) were swapped between two items: named, the items and both ids (break50: silent, kappa moved)", () => {
    const m = [header, { ...mrow("001"), content_sha256: "h1" }, { ...mrow("002"), content_sha256: "h2" }];
    expect(labelDesignDriftWarning(folder("idok", m, [label("001", { content_sha256: "h1" }), label("002", { content_sha256: "h2" })]))).toBeUndefined();
    const w = labelDesignDriftWarning(folder("swapped", m, [label("001", { trajectory_id: "t002", content_sha256: "h2" }), label("002", { trajectory_id: "t001", content_sha256: "h1" })])) ?? "";
    expect(w).toMatch(/^label_design_drift: label file .*human\.jsonl puts 2 items on another trajectory \(or another version of it\) than the sample manifest its rows name \(item abc-001: trajectory_id "t002" here, "t001" in the manifest, content_sha256 "h2" here, "h1" in the manifest; item abc-002: trajectory_id "t001" here, "t002" in the manifest/);
    expect(w).toContain("import the annotations again");
    // a hash alone differing (same trajectory): named too; a row without a hash is not compared on it
    expect(labelDesignDriftWarning(folder("hashonly", m, [label("001", { content_sha256: "hX" }), label("002")]))).toMatch(/puts 1 item on another trajectory .*item abc-001: content_sha256 "hX" here, "h1" in the manifest/);
  });

  it("a labelled item the manifest does not hold: named (was skipped in silence)", () => {
    const w = labelDesignDriftWarning(folder("absent", [header, mrow("001")], [label("001"), label("002")])) ?? "";
    expect(w).toMatch(/^label_design_drift: label file .*human\.jsonl labels 1 item \(abc-002\) that the sample manifest its rows name \(.*manifest\.jsonl\) does not hold/);
  });

  it("a manifest not found: nothing here (the moved-file note of sample-adjudications says it)", () => {
    const f = folder("gone", [header, mrow("001")], [label("001")]);
    fs.rmSync(path.join(path.dirname(f), "manifest.jsonl"));
    expect(labelDesignDriftWarning(f)).toBeUndefined();
  });
});
