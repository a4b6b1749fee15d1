/**
 * What the docs say of VIGIL's coverage (new user 48, findings 1 and 9): the README sent a researcher to LLM judges
 * ("VIGIL needs an LLM judge"), though no judge can label a run whose injected text is not recorded (its `not_exposed`
 * never holds there, its compliance and `unaffected` stand unchecked: the labelled subset is its answers'); and
 * measured.md said 346 attacked runs "record no tool description at all" where the raw files give 284 (61 more record a
 * stale one, 2 `sop_exfiltration` ones record one that is not the injection). Pinned here so the words do not come back.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

const read = (p: string) => fs.readFileSync(path.join(ROOT, p), "utf8").replace(/\s+/g, " ");

describe("VIGIL coverage in the docs", () => {
  it("no page says an LLM judge fixes it; each says its labels there are selected by its answers", () => {
    for (const p of ["README.md", "docs/trying-llm-judges.md", "docs/measured.md"]) {
      const t = read(p);
      expect(t, p).not.toMatch(/VIGIL needs an LLM judge/);
      expect(t, p).toContain("injection_unchecked");
      expect(t, p).toMatch(/benchmark's (own )?verdict/);
    }
  });
  it("measured.md's count of runs without a usable description adds up, as recounted from the raw files", () => {
    const t = read("docs/measured.md");
    expect(t).not.toContain("346 of the 433 attacked runs record no tool description at all");
    expect(t).toContain("284 attacked runs record no tool description at all");
    expect(t).toContain("284 + 61 + 2 = 347");
    expect(284 + 61 + 2).toBe(347);
  });
});
