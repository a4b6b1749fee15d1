/** provenanceLine (src/verdict/provenance.ts): what the view's card and the report's item say of a re-verified or carried verdict. */
import { describe, expect, it } from "vitest";
import { provenanceLine } from "../../src/verdict/provenance.js";

describe("provenanceLine", () => {
  it("names the label and rules before, the earlier id; null for a verdict of its own", () => {
    expect(provenanceLine({ label: "unaffected" })).toBeNull();
    expect(provenanceLine({ label: "unaffected", reverified: { from_rules: null, label_before: "full_compliance", status_before: "ok", at: "2026-01-01T00:00:00.000Z" } })).toBe(
      "re-verified under newer verification rules with no judge call (2026-01-01T00:00:00.000Z): the label was full_compliance under an older build's rules (version not recorded)",
    );
    expect(provenanceLine({ label: "unaffected", reverified: { from_rules: 1, label_before: "unaffected", status_before: "ok", at: "x" }, carried_from: "a/b.json" })).toBe(
      "re-verified under newer verification rules with no judge call (x): the label unaffected stands under rules 1; carried from the earlier id a/b.json (the same content moved or renamed; no judge call)",
    );
    expect(provenanceLine({ label: "unaffected", reverified: { from_rules: 1, label_before: null, status_before: "unverified", at: "x" } })).toMatch(/the label was none \(unverified\) under rules 1/);
  });
});
