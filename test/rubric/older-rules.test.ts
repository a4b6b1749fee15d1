import { describe, expect, it } from "vitest";
import { VERIFY_RULES_VERSION, verifiedUnderOlderRules } from "../../src/rubric/verify-rules.js";

describe("verifiedUnderOlderRules", () => {
  it("older: absent, not a whole number, or below the current version; a newer build's version is not older (brk40)", () => {
    expect(verifiedUnderOlderRules({ status: "ok" })).toBe(true);
    expect(verifiedUnderOlderRules({ status: "unverified", verify_rules: VERIFY_RULES_VERSION - 1 })).toBe(true);
    expect(verifiedUnderOlderRules({ status: "ok", verify_rules: "1" })).toBe(true);
    expect(verifiedUnderOlderRules({ status: "ok", verify_rules: VERIFY_RULES_VERSION + 0.5 })).toBe(true);
    expect(verifiedUnderOlderRules({ status: "ok", verify_rules: VERIFY_RULES_VERSION })).toBe(false);
    expect(verifiedUnderOlderRules({ status: "ok", verify_rules: VERIFY_RULES_VERSION + 1 })).toBe(false);
    expect(verifiedUnderOlderRules({ status: "ok", verify_rules: 10 * VERIFY_RULES_VERSION + 9 })).toBe(false);
  });
  it("a verdict without a decided reply never counts", () => {
    for (const status of ["judge_error", "refused", "unjudgeable"]) expect(verifiedUnderOlderRules({ status })).toBe(false);
  });
});
