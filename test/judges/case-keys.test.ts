/**
 * Keys of a judge's reply in another case than asked (review rev2b #7, src/judges/case-keys.ts):
 * - `"label":"unaffected"` beside `"Label":"Unaffected"` is the same label as read: accepted, "Label" named as not read
 *   (it was refused as a repeated key, the verdict lost);
 * - a key the label rests on given only in another case (`"Bucket"` in a finding read from `"label"`, a finding's
 *   `"Evidence"`, `"Findings"`, a quote's `"Quote"`) fails as `invalid_shape`, its message naming the spelling (it was
 *   read as absent, only named in extra_keys).
 */
import { describe, expect, it } from "vitest";
import { parseReply } from "../../src/judges/parse.js";
import { caseOnlyKey, caseOnlyMessage, replyCaseOnlyKey, sameLabelValue, sameReading } from "../../src/judges/case-keys.js";

const Q = '{"message_index":2,"quote":"email the password reset code"}';
const F = `{"bucket":"unaffected","evidence":[${Q}],"explanation":"x"}`;
const MODES = ["text", "json_object", "json_schema"] as const;

describe("sameReading", () => {
  it("labels and buckets compare canonicalized; other values as JSON text", () => {
    expect(sameReading("label", "unaffected", "Unaffected")).toBe(true);
    expect(sameReading("bucket", "Full Compliance", "full-compliance")).toBe(true);
    expect(sameReading("label", "unaffected", "full_compliance")).toBe(false);
    expect(sameReading("label", "maybe", "Maybe")).toBe(false); // no label: the schema refuses it anyway
    expect(sameReading("rationale", "r", "R")).toBe(false);
    expect(sameReading("evidence", [1], [1])).toBe(true);
  });
});

describe("caseOnlyKey / replyCaseOnlyKey", () => {
  it("finds an asked key present only in another case, in reading order, with its path", () => {
    expect(caseOnlyKey({ Bucket: "x", label: "y" }, ["bucket"], "findings[0]")).toEqual({ path: "findings[0]", asked: "bucket", spelled: "Bucket" });
    expect(caseOnlyKey({ bucket: "x", Bucket: "y" }, ["bucket"], "")).toBeUndefined(); // present: the other rule (extra-keys caseOf)
    expect(replyCaseOnlyKey({ label: "unaffected", findings: [{ bucket: "unaffected", evidence: [{ message_index: 1, Quote: "q" }] }] })).toEqual({
      path: "findings[0].evidence[0]",
      asked: "quote",
      spelled: "Quote",
    });
    expect(replyCaseOnlyKey({ label: "unaffected", evidence: [{ Quote: "q" }] })).toMatchObject({ path: "evidence[0]", asked: "quote" });
    expect(caseOnlyMessage({ path: "findings[0]", asked: "bucket", spelled: "Bucket" })).toBe('findings[0] has no "bucket" key, only "Bucket" (keys are case-sensitive): give it spelled "bucket"');
    // keys with a fallback are not asked for
    expect(replyCaseOnlyKey({ label: "unaffected", Rationale: "r", findings: [{ bucket: "unaffected", Explanation: "x", evidence: [{ Message_Index: 1, quote: "q" }] }] })).toBeUndefined();
  });
});

describe("parseReply: case-spelled keys (rev2b #7)", () => {
  it('"Label" beside "label" with the same label in another case: accepted, "Label" named as not read', () => {
    for (const mode of MODES) {
      const r = parseReply(`{"findings":[${F}],"label":"unaffected","Label":"Unaffected","rationale":"r"}`, mode);
      expect(r, mode).toMatchObject({ ok: true, extraKeys: ["Label"], reply: { label: "unaffected" } });
      const b = parseReply(`{"findings":[{"bucket":"unaffected","Bucket":" UNAFFECTED ","evidence":[${Q}],"explanation":"x"}],"label":"unaffected","rationale":"r"}`, mode);
      expect(b, mode).toMatchObject({ ok: true, extraKeys: ["findings[].Bucket"] });
    }
  });

  it('"label" written twice as the same label in another case: accepted; another label, or another key clashing in the same object, still refused', () => {
    for (const mode of MODES) {
      const r = parseReply(`{"findings":[${F}],"label":"unaffected","rationale":"r","label":"Unaffected"}`, mode);
      expect(r, mode).toMatchObject({ ok: true, reply: { label: "unaffected" } });
      const f = parseReply(`{"findings":[{"bucket":"unaffected","evidence":[${Q}],"bucket":"UNAFFECTED"}],"label":"unaffected","rationale":"r"}`, mode);
      expect(f, mode).toMatchObject({ ok: true });
      const other = parseReply(`{"findings":[${F}],"label":"unaffected","rationale":"r","label":"full_compliance"}`, mode);
      expect(other, mode).toMatchObject({ ok: false, kind: "ambiguous", repeatedKey: true });
      // the same-label repeat does not hide a later clash in the same object
      const later = parseReply(`{"findings":[${F}],"label":"unaffected","label":"Unaffected","rationale":"r","rationale":"s"}`, mode);
      expect(later, mode).toMatchObject({ ok: false, kind: "ambiguous", repeatedKey: true });
      expect((later as { message: string }).message).toContain('"rationale"');
    }
    expect(sameLabelValue("label", '"unaffected"', '"Unaffected"')).toBe(true);
    expect(sameLabelValue("rationale", '"r"', '"R"')).toBe(false);
  });

  it("a different label under the other spelling is still ambiguous (a repeated key)", () => {
    const r = parseReply(`{"findings":[${F}],"label":"unaffected","Label":"Full Compliance","rationale":"r"}`, "json_object");
    expect(r).toMatchObject({ ok: false, kind: "ambiguous", repeatedKey: true });
  });

  it("a required key present only in another case fails as invalid_shape naming the spelling, in every mode", () => {
    const cases: [string, string][] = [
      [`{"findings":[{"label":"unaffected","Bucket":"full_compliance","evidence":[${Q}],"explanation":"x"}],"label":"unaffected","rationale":"r"}`, 'findings[0] has no "bucket" key, only "Bucket"'],
      [`{"findings":[{"bucket":"full_compliance","Evidence":[${Q}],"explanation":"x"}],"label":"full_compliance","rationale":"r"}`, 'findings[0] has no "evidence" key, only "Evidence"'],
      [`{"label":"unaffected","rationale":"r","evidence":[${Q}],"Findings":[{"bucket":"full_compliance","evidence":[${Q}]}]}`, 'the reply has no "findings" key, only "Findings"'],
      [`{"label":"full_compliance","rationale":"r","EVIDENCE":[${Q}]}`, 'the reply has no "evidence" key, only "EVIDENCE"'],
      [`{"findings":[{"bucket":"unaffected","evidence":[{"message_index":2,"Quote":"email the password reset code"}]}],"label":"unaffected","rationale":"r"}`, 'findings[0].evidence[0] has no "quote" key, only "Quote"'],
      [`{"findings":[{"Label":"unaffected","evidence":[${Q}]}],"label":"unaffected","rationale":"r"}`, 'findings[0] has no "label" key, only "Label"'],
    ];
    for (const [reply, message] of cases)
      for (const mode of MODES) {
        const r = parseReply(reply, mode);
        expect(r, `${mode} ${reply}`).toMatchObject({ ok: false, kind: "invalid_shape" });
        expect((r as { message: string }).message, reply).toContain(message);
      }
  });

  it("a finding read from its lenient \"label\" with no variant, and keys with a fallback, still read as before", () => {
    const r = parseReply(`{"findings":[{"label":"unaffected","evidence":[${Q}],"Explanation":"x"}],"label":"unaffected","Rationale":"r"}`, "json_object");
    expect(r).toMatchObject({ ok: true, extraKeys: ["Rationale", "findings[].Explanation"] });
  });
});
