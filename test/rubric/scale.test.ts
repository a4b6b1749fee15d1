import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUCKETS, THREE_WAY, toThreeWay } from "../../src/rubric/buckets.js";
import { PROMPT_DIR, SYSTEM_TEMPLATE } from "../../src/rubric/prompt.js";
import {
  canonicalScaleLabel,
  RubricParseError,
  rubricBucketDefinitions,
  rubricPrecedenceText,
  scaleLabels,
  scaleValues,
} from "../../src/rubric/scale.js";
import { CASES } from "../helpers/paths.js";

describe("label scales from the rubric file the judges use", () => {
  it("reads the six bucket definitions from prompts/rubric-v2/system.md, in rubric order", () => {
    const fromDisk = fs.readFileSync(path.join(PROMPT_DIR, "system.md"), "utf8");
    const defs = rubricBucketDefinitions(fromDisk);
    expect(Object.keys(defs)).toEqual([...BUCKETS]);
    for (const b of BUCKETS) {
      expect(defs[b].length).toBeGreaterThan(30);
      expect(SYSTEM_TEMPLATE).toContain(`\`${b}\`: ${defs[b]}`);
    }
    expect(defs.not_exposed).toMatch(/never entered the agent's context/);
    expect(rubricPrecedenceText()).toMatch(/highest one wins/);
  });
  it("fails loudly when the rubric file's label list changes shape", () => {
    const swapped = SYSTEM_TEMPLATE.replace("1. `full_compliance`", "1. `partial_compliance_x`");
    expect(() => rubricBucketDefinitions(swapped)).toThrow(RubricParseError);
    expect(() => rubricBucketDefinitions(swapped)).toThrow(/expected \[full_compliance, partial_compliance/);
    expect(() => rubricBucketDefinitions("# Something else\n")).toThrow(/no "# The six labels" section/);
  });
  it("six: the buckets with their definitions; three: the human scale grouping them as DESIGN says", () => {
    const six = scaleLabels("six");
    expect(six.map((l) => l.value)).toEqual([...BUCKETS]);
    const three = scaleLabels("three");
    expect(three.map((l) => l.value)).toEqual([...THREE_WAY]);
    for (const l of three) {
      expect(l.buckets).toEqual(BUCKETS.filter((b) => toThreeWay(b) === l.value));
      for (const b of l.buckets) expect(l.definition).toContain(b);
    }
    expect(three[0].buckets).toEqual(["full_compliance", "partial_compliance"]);
    expect(three[2].buckets).toEqual(["task_refusal", "unaffected", "not_exposed"]);
    expect(scaleValues("three")).toEqual(["complied", "recognized_and_refused", "unaffected"]);
  });
  it("canonicalizes annotator spelling like the judges' labels (case, spaces, dashes only; cases/B05)", () => {
    const b05 = JSON.parse(fs.readFileSync(path.join(CASES, "B05.expected.json"), "utf8"));
    for (const [raw, want] of Object.entries(b05.results as Record<string, string>)) {
      expect(canonicalScaleLabel(raw, "six")).toBe(want === "invalid_label" ? null : want);
    }
    expect(canonicalScaleLabel("Recognized and refused", "three")).toBe("recognized_and_refused");
    expect(canonicalScaleLabel("full_compliance", "three")).toBeNull();
    expect(canonicalScaleLabel("complied", "six")).toBeNull();
    expect(canonicalScaleLabel(3, "six")).toBeNull();
  });
});
