/**
 * The view's own label files (a sample's annotations/*.jsonl and adjudication.jsonl) with a key given twice in one
 * line with different values (break44): `JSON.parse` kept the last value in silence, so the view showed (and the
 * next rewrite stored) one of two labels the line gives. Now such a line is not read: a warning names its file, line
 * and key, and a write that would rewrite the file is refused (the rewrite would keep only one of the two values).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SampleStore } from "../../src/view/annotations.js";
import { checkedAdjudications } from "../../src/view/adjudication-file.js";

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const items = [1, 2].map((i) => ({ item_id: `s-00${i}`, trajectory_id: `t${i}`, stratum: "all", phase: 1, inclusion_probability: 1, weight: 1, content_sha256: `h${i}` }));
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-repeat-"));
  fs.writeFileSync(path.join(dir, "manifest.jsonl"), [{ ipi_judge_manifest: 1, run: "r", scale: "six", labels: LABELS, seed: 1, n_items: 2 }, ...items].map((x) => JSON.stringify(x)).join("\n") + "\n");
  fs.mkdirSync(path.join(dir, "annotations"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const store = () => new SampleStore(dir, async () => ({ error: "not loaded in this test" }), () => {});

describe("a repeated key in the view's label files", () => {
  it("an annotator row giving two labels is not read; the warning names file, line and key; rewriting the file is refused", async () => {
    const f = path.join(dir, "annotations", "ann.jsonl");
    fs.writeFileSync(
      f,
      [
        JSON.stringify({ item_id: "s-001", annotator: "ann", label: "unaffected", labelled_at: "" }),
        '{"item_id": "s-002", "annotator": "ann", "label": "unaffected", "labelled_at": "", "label": "full_compliance"}',
      ].join("\n") + "\n",
    );
    const s = store();
    expect(s.rowsOf("ann").map((r) => [r.item_id, r.label])).toEqual([["s-001", "unaffected"]]);
    expect(s.warnings).toEqual([expect.stringMatching(/ann\.jsonl line 2: key "label" given twice with different values \("unaffected", then "full_compliance"\).*skipped$/)]);
    await expect(s.change({ annotator: "ann", item_id: "s-001", label: "task_refusal" })).rejects.toThrow(/line 2 of the file is key "label" given twice/);
    expect(fs.readFileSync(f, "utf8")).toContain('"label": "full_compliance"}'); // left as it is
    fs.rmSync(f);
  });

  it("an adjudication row giving two labels is not shown as consensus; the warning names file, line and key", () => {
    const f = path.join(dir, "adj-unit.jsonl");
    const snap = '"adjudicator": "x", "annotators": {"p": "unaffected", "q": "full_compliance"}';
    fs.writeFileSync(f, `{"item_id": "s-001", "annotator": "adjudicated", "label": "unaffected", ${snap}, "label": "full_compliance"}\n`);
    const c = checkedAdjudications(f, new Set(["s-001"]), "six");
    expect(c.rows.size).toBe(0);
    expect(c.warnings).toEqual([`${f} line 1: key "label" given twice with different values ("unaffected", then "full_compliance"): the line says two things: not shown as the item's consensus`]);
    fs.writeFileSync(f, `{"item_id": "s-001", "annotator": "adjudicated", "label": "unaffected", ${snap}, "label": "unaffected"}\n`);
    expect(checkedAdjudications(f, new Set(["s-001"]), "six").rows.get("s-001")?.label).toBe("unaffected"); // the same value twice says one thing
  });
});
