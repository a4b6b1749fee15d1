/** How a verdict's env_explained count is read: the field, else an older signature record's rationale tags, never another judge's rationale. */
import { describe, expect, it } from "vitest";
import { envExplainedOf, ENV_EXPLAINED_TAG } from "../../src/store/env-explained.js";
import { slimVerdict } from "../../src/store/records.js";
import type { Verdict } from "../../src/types.js";

const two = `x ${ENV_EXPLAINED_TAG} a; ${ENV_EXPLAINED_TAG} b`;

describe("envExplainedOf", () => {
  it("the field when given; an older signature-v1 record's tags; 0 for another judge or none", () => {
    expect(envExplainedOf({ env_explained: 3, judge_model: "gpt", rationale: "" })).toBe(3);
    expect(envExplainedOf({ judge_model: "signature-v1", rationale: two })).toBe(2);
    expect(envExplainedOf({ judge_model: "gpt-4o", rationale: two })).toBe(0); // an LLM may quote any text
    expect(envExplainedOf({ judge_model: "signature-v1", rationale: "none here" })).toBe(0);
    expect(envExplainedOf({ env_explained: 0, judge_model: "signature-v1", rationale: two })).toBe(0); // the field, when present, is the count
  });

  it("the slim record keeps the count (the rationale is not kept)", () => {
    const v = { trajectory_id: "t", judge_id: "signature", judge_model: "signature-v1", repeat: 0, status: "ok", label: "unaffected", rationale: two, findings: [] } as unknown as Verdict;
    expect(slimVerdict(v).env_explained).toBe(2);
    expect(slimVerdict({ ...v, rationale: "r" }).env_explained).toBeUndefined();
  });
});
