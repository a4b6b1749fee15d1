/**
 * The report's "Attack success by condition" section points to `compare` for the reversals and the worst condition.
 * compare now refuses a run with several judges and no --judge/--committee (new user 37), so the pointer names the
 * labels the section used: --committee (building committee.jsonl first when the report computed its own), or --judge.
 */
import { describe, expect, it } from "vitest";
import { compareHint } from "../../src/report/html.js";
import type { ReportModel } from "../../src/report/data.js";

type M = Parameters<typeof compareHint>[0];
/** The hint as read (escapeHtml isolates each value in <bdi>). */
const hint = (m: M) => compareHint(m).replace(/<\/?bdi>/g, "");
const base = { run: "def", conditions: [{ field: "condition" }] as unknown as ReportModel["conditions"] };
const committee = (source: "committee.jsonl" | "computed", left_out: string[] = []) => ({ source, left_out }) as unknown as NonNullable<ReportModel["committee"]>;

describe("report: the compare command beside the conditions section names whose labels", () => {
  it("the stored committee: --committee", () => {
    expect(hint({ ...base, committee: committee("committee.jsonl"), condition_source: "committee" } as M)).toBe("ipi-judge compare --run def --by condition --committee");
  });
  it("a committee the report computed: build committee.jsonl first (with the judges it left out), then --committee", () => {
    expect(hint({ ...base, committee: committee("computed", ["stub"]), condition_source: "committee" } as M)).toBe(
      "ipi-judge committee --run def --exclude-judge stub, then ipi-judge compare --run def --by condition --committee",
    );
  });
  it("one judge: --judge ID", () => {
    expect(hint({ ...base, committee: null, condition_source: "signature" } as M)).toBe("ipi-judge compare --run def --by condition --judge signature");
  });
});
