/**
 * Annotations of another draw imported against a manifest (red team 40, src/sample/other-sample.ts): every row was an
 * `unknown item_id` with no word of why; now the first problem names both study tags and the cause. A typo or an id
 * of the same sample is no such note; the count of problems is the rows'.
 */
import { describe, expect, it } from "vitest";
import { AnnotationImportError, checkAnnotations, parseManifest } from "../../src/sample/import.js";
import { otherSampleProblem } from "../../src/sample/other-sample.js";
import type { ManifestRow } from "../../src/sample/export.js";

const row = (item_id: string, trajectory_id: string): ManifestRow => ({ item_id, trajectory_id, stratum: "A", sampling_stratum: "all", committee_stratum: "A", stratum_size: 10, phase: 1, inclusion_probability: 0.2, weight: 5 });
const manifest = parseManifest(
  [{ ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: 2, design: {} }, row("abc123-001", "t1"), row("abc123-002", "t2")].map((r) => JSON.stringify(r)).join("\n") + "\n",
);
const rec = (item_id: string, n: number) => ({ where: `a.jsonl line ${n}`, item_id, annotator: "ann", label: "unaffected" });

describe("annotations of another sample", () => {
  it("names the other study tag and the likely cause first; the count is the rows'", () => {
    let e: unknown;
    try {
      checkAnnotations([rec("c7160f-001", 1), rec("c7160f-002", 2), rec("abc123-001", 3)], manifest);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(AnnotationImportError);
    const err = e as AnnotationImportError;
    expect(err.message).toMatch(/^2 problems in the annotations/);
    expect(err.problems[0]).toBe(
      "item ids of another sample: study tag c7160f (2 rows), while this manifest's items are abc123: the annotations were given for another draw (another --seed, run or sample folder); import them with that sample's manifest.jsonl",
    );
    expect(err.problems.slice(1)).toEqual(['a.jsonl line 1: unknown item_id "c7160f-001" (not in this sample\'s manifest)', 'a.jsonl line 2: unknown item_id "c7160f-002" (not in this sample\'s manifest)']);
  });
  it("a typo, or an id of this sample's tag that it does not hold, is no other sample", () => {
    expect(otherSampleProblem(["abc123-009", "item-7", "abc12-001"], ["abc123-001"])).toBeUndefined();
  });
});
