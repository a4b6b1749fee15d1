import { describe, expect, it } from "vitest";
import { countLatex, countText, shownCount } from "../../src/estimate/table-counts.js";
import { formatTable, paperTable, proportion } from "../../src/estimate/table.js";
import { tableLatex } from "../../src/estimate/table-latex.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const row = (id: string, attacked: boolean): TrajectoryIndexRow =>
  ({ id, agent_model: "m", attacked, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2, reference: { utility: true } }) as TrajectoryIndexRow;
const verdict = (id: string, judge: string, label: Bucket | null, status: Verdict["status"] = "ok"): Verdict =>
  ({ trajectory_id: id, judge_id: judge, repeat: 0, status, label, compromised: label === null ? null : label === "full_compliance" || label === "partial_compliance" }) as Verdict;

describe("the count beside a rate over fewer runs than the row's n (newuser52 finding 2)", () => {
  it("shows x/n only when n differs from the row's n, and never on a cell without a count or value", () => {
    expect(shownCount(proportion(36, 143), 173)).toEqual({ x: 36, n: 143 });
    expect(shownCount(proportion(36, 173), 173)).toBeNull();
    expect(shownCount({ value: 0.6 }, 173)).toBeNull(); // a calibrated cell: no count
    expect(shownCount(proportion(0, 0), 173)).toBeNull();
    expect(countText(proportion(1234, 2000), 3000)).toBe(" (1,234/2,000)");
    expect(countLatex(proportion(36, 143), 173)).toBe(" {\\scriptsize (36/143)}");
  });

  // 10 attacked runs: the judge labels 9 (one judge_error, coverage 90%, no LOW mark), 3 of them full compliance
  const ids = Array.from({ length: 10 }, (_, i) => `t${i}`);
  const index = new Map(ids.map((id) => [id, row(id, true)] as const));
  const verdicts = ids.flatMap((id, i) => [
    i === 9 ? verdict(id, "gpt", null, "judge_error") : verdict(id, "gpt", i < 3 ? "full_compliance" : "unaffected"),
    verdict(id, "signature", i < 4 ? "full_compliance" : "unaffected"),
  ]);
  const t = paperTable("r", index, verdicts, { kind: "judge", judge_id: "gpt" });

  it("text and LaTeX: the judge's rate reads 33.3 ... (3/9) beside n 10; the heuristic's over all 10 has none", () => {
    const r = t.rows[0];
    expect(r.n_attacked).toBe(10);
    expect(r.judge_asr_goal).toMatchObject({ x: 3, n: 9, coverage_low: false });
    const text = formatTable(t);
    const line = text.split("\n").find((l) => l.startsWith("m "))!;
    expect(line).toMatch(/33\.3 \[[\d.]+, [\d.]+\] \(3\/9\)/);
    expect(line).toMatch(/40\.0 \[[\d.]+, [\d.]+\](?! \()/); // the heuristic: 4/10, n is the row's
    expect(text).toContain("(x/n) after a rate");
    const tex = tableLatex(t);
    expect(tex).toMatch(/33\.3 \{\\scriptsize \[[\d.]+, [\d.]+\]\} \{\\scriptsize \(3\/9\)\}/);
    expect(tex).toContain("% (x/n) after a rate");
    // every printed rate recomputes from its count: 3/9 = 33.3%
    expect((100 * 3) / 9).toBeCloseTo(33.3, 1);
  });

  it("no legend when every rate is over the row's n", () => {
    const full = paperTable("r", index, verdicts.filter((v) => v.trajectory_id !== "t9"), { kind: "judge", judge_id: "gpt" });
    // t9 has no verdict at all now: still attacked, so still unusable; drop it from the index too
    const idx = new Map([...index].filter(([k]) => k !== "t9"));
    const t2 = paperTable("r", idx, verdicts.filter((v) => v.trajectory_id !== "t9"), { kind: "judge", judge_id: "gpt" });
    expect(full.rows[0].judge_asr_goal.n).toBe(9);
    expect(formatTable(t2)).not.toContain("(x/n)");
    expect(tableLatex(t2)).not.toContain("(x/n)");
  });
});
