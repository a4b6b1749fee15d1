import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { drawnItems, drawnText, drawnWarning } from "../../src/agree/drawn-items.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-drawn-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const jsonl = (f: string, rows: object[]) => fs.writeFileSync(f, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");

describe("drawn items without a label (break 51 #7)", () => {
  const dir = path.join(tmp, "s1");
  fs.mkdirSync(dir);
  jsonl(path.join(dir, "manifest.jsonl"), [{ ipi_judge_manifest: 1, n_items: 5 }, ...[0, 1, 2, 3, 4].map((i) => ({ item_id: `it-${i}`, trajectory_id: `t${i}` }))]);
  const row = (i: number, label: string | null, annotator = "a") => ({ trajectory_id: `t${i}`, item_id: `it-${i}`, annotator, label, sample_manifest: "manifest.jsonl" });

  it("counts the recorded manifest's items and those the file labels (any annotator, once each)", () => {
    const f = path.join(dir, "h.jsonl");
    jsonl(f, [row(0, "unaffected"), row(0, "unaffected", "b"), row(2, "full_compliance"), row(3, null)]);
    const d = drawnItems(f)!;
    expect(d).toMatchObject({ drawn: 5, labelled: 2, without_label: 3 });
    expect(drawnText(d)).toBe("2 labelled of the 5 drawn; 3 without a label: treated as missing at random within their strata");
    expect(drawnWarning(f, d)).toMatch(/^drawn_without_label: 3 of the 5 items drawn in the sample of label file .*h\.jsonl \(60\.0%\) have no label: .*missing at random within their strata/);
  });

  it("every drawn item labelled: said, no warning; no recorded or findable manifest, or a CSV: not known", () => {
    const f = path.join(dir, "all.jsonl");
    jsonl(f, [0, 1, 2, 3, 4].map((i) => row(i, "unaffected")));
    expect(drawnText(drawnItems(f))).toBe("all 5 drawn items labelled");
    expect(drawnWarning(f, drawnItems(f))).toBeUndefined();
    const moved = path.join(tmp, "moved.jsonl");
    fs.copyFileSync(f, moved); // its manifest.jsonl is not beside it
    expect(drawnItems(moved)).toBeUndefined();
    const plain = path.join(tmp, "plain.jsonl");
    jsonl(plain, [{ trajectory_id: "t0", annotator: "a", label: "unaffected" }]);
    expect(drawnItems(plain)).toBeUndefined();
    const csv = path.join(tmp, "h.csv");
    fs.writeFileSync(csv, "trajectory_id,annotator,label\nt0,a,unaffected\n");
    expect(drawnItems(csv)).toBeUndefined();
    expect(drawnText(undefined)).toBeUndefined();
  });
});
