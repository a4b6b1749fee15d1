import { describe, expect, it } from "vitest";
import { codeSetOf } from "../../src/estimate/table-code-set.js";
import { formatTable, paperTable, tableCsv } from "../../src/estimate/table.js";
import { tableLatex } from "../../src/estimate/table-latex.js";
import { parseCsv } from "../../src/io/csv.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

const row = (id: string, condition: string): TrajectoryIndexRow =>
  ({ id, agent_model: "gpt-4o", condition, attacked: true, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2 }) as TrajectoryIndexRow;
const verdict = (id: string, judge: string, label: Bucket, label_basis: string): Verdict =>
  ({ trajectory_id: id, judge_id: judge, repeat: 0, status: "ok", label, label_basis, attacked: true, compromised: label === "full_compliance" }) as Verdict;

// detector: 20 attacked runs, 16 not_exposed by code (injection_absent), 4 full compliance by finding;
// no_defense: 20 runs, 2 by code (exposure_found), the rest by finding. Same cells under both (like for like).
const ids = (c: string) => Array.from({ length: 20 }, (_, i) => `${c}-${i}`);
const index = new Map([...ids("det"), ...ids("none")].map((id) => [id, row(id, id.startsWith("det") ? "pi_detector" : "no_defense")] as const));
for (const r of index.values()) Object.assign(r, { suite: "s", user_task_id: `u${r.id.split("-")[1]}`, injection_task_id: "i", attack: "a" });
const verdicts: Verdict[] = [
  ...ids("det").map((id, i) => (i < 16 ? verdict(id, "j", "not_exposed", "injection_absent") : verdict(id, "j", "full_compliance", "finding"))),
  ...ids("none").map((id, i) => (i < 2 ? verdict(id, "j", "unaffected", "exposure_found") : verdict(id, "j", "full_compliance", "finding"))),
];

describe("estimate --table notes a row whose labels code mostly set (newuser52 finding 5)", () => {
  const t = paperTable("r", index, verdicts, { kind: "judge", judge_id: "j" }, { heuristic: "absent" });
  const note = t.notes.find((n) => n.startsWith("note: ESTABLISHED BY CODE"));

  it("names the row above 50% with its count, share and basis, and not the row below", () => {
    expect(note).toContain("gpt-4o | pi_detector 16 of 20 (80.0%; injection_absent 16)");
    expect(note).not.toContain("no_defense");
  });

  it("carries it into every output form: text, CSV notes, LaTeX comment lines", () => {
    expect(formatTable(t)).toContain("gpt-4o | pi_detector 16 of 20 (80.0%");
    const csv = parseCsv(tableCsv(t)).map((r) => r.fields);
    const notesAt = csv[0].indexOf("notes");
    expect(csv[1][notesAt]).toContain("ESTABLISHED BY CODE");
    expect(tableLatex(t)).toMatch(/^% note: ESTABLISHED BY CODE .*pi\\?_detector 16 of 20/m);
  });

  it("no note at or under the threshold, nor under 10 labels", () => {
    const half = verdicts.map((v, k) => (k >= 10 && k < 16 ? { ...v, label_basis: "finding" } : v)); // 10 of 20: not above 50%
    expect(paperTable("r", index, half, { kind: "judge", judge_id: "j" }, { heuristic: "absent" }).notes.some((n) => n.startsWith("note: ESTABLISHED BY CODE"))).toBe(false);
    const few = new Map([...index].filter(([k]) => /-[0-8]$/.test(k))); // 9 runs a row, all by code
    expect(paperTable("r", few, verdicts, { kind: "judge", judge_id: "j" }, { heuristic: "absent" }).notes.some((n) => n.startsWith("note: ESTABLISHED BY CODE"))).toBe(false);
  });

  it("a committee label counts as code-set when more than half of the votes that carried it were", () => {
    const two = [...verdicts, ...verdicts.map((v, k) => ({ ...v, judge_id: "k", ...(k === 0 ? { label_basis: "finding" } : {}) }))];
    const committee = [{ trajectory_id: "det-0", votes: { j: "not_exposed", k: "not_exposed" }, label: "not_exposed", compromised: false, unanimous: true, status: "ok" as const }];
    // det-0: j by code, k by finding: one of two carrying votes, not more than half
    expect(codeSetOf(two, { kind: "committee", members: ["j", "k"], left_out: [], quorum: 2 }, committee).size).toBe(0);
    const ct = paperTable("r", index, two.map((v) => ({ ...v, label_basis: v.trajectory_id === "det-0" ? "injection_absent" : v.label_basis })), { kind: "committee", members: ["j", "k"], left_out: [], quorum: 2 }, { heuristic: "absent" });
    expect(ct.notes.find((n) => n.startsWith("note: ESTABLISHED BY CODE"))).toContain("gpt-4o | pi_detector 16 of 20 (80.0%; injection_absent 16)");
  });
});
