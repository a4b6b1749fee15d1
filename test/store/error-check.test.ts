/**
 * A judge_crash line of errors.jsonl whose `repeat` or `verdict_seq` label cannot have written (task s41 #3: a hand
 * edit, a corrupt line) is refused by file, line and why, never counted as a crash of a real repeat: by the check
 * itself (src/store/error-check.ts), by `readErrors`, and through the built CLI by label's resume (its summary's
 * crash count, which every figure command's exit 3 weighs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { errorRecordProblem } from "../../src/store/error-check.js";
import { readErrors } from "../../src/store/records.js";
import { takeJournalWarnings } from "../../src/store/skipped-lines.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-error-check-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const crash = (id: string, repeat: unknown, verdict_seq: unknown) =>
  JSON.stringify({ path: "x.json", kind: "judge_crash", message: `judge signature on ${id}: boom`, trajectory_id: id, judge_id: "signature", repeat, verdict_seq });
const BAD: [unknown, unknown][] = [
  [1e9, 3],
  [-1, 3],
  [1.5, 3],
  ["3", 3],
  [0, 1e9],
  [0, -2],
  [0, 2.5],
];

describe("errorRecordProblem", () => {
  it("a crash's repeat outside 0..99 or not an integer, a verdict_seq that is no count or above the verdict lines: why; label's own: none", () => {
    for (const [repeat, verdict_seq] of BAD) expect(errorRecordProblem({ kind: "judge_crash", repeat, verdict_seq }, 100)).toMatch(/not counted as a crash$/);
    expect(errorRecordProblem({ kind: "judge_crash", repeat: 1e9 })).toMatch(/^a judge_crash record's repeat 1000000000 is not a repeat label writes/);
    expect(errorRecordProblem({ kind: "judge_crash", repeat: 0, verdict_seq: 5 }, 4)).toMatch(/^verdict_seq 5 is more than the 4 line\(s\) of verdicts\.jsonl/);
    expect(errorRecordProblem({ kind: "judge_crash", repeat: 99, verdict_seq: 4 }, 4)).toBeUndefined();
    expect(errorRecordProblem({ kind: "judge_crash" })).toBeUndefined(); // an older crash record: no such fields
    expect(errorRecordProblem({ kind: "parse_error", path: "a.json" })).toBeUndefined();
  });
  it("readErrors refuses such lines, naming errors.jsonl and each line", async () => {
    const d = path.join(tmp, "read");
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, "errors.jsonl"), [crash("ok", 0, 0), ...BAD.map(([r, s], i) => crash(`t${i}`, r, s))].join("\n") + "\n");
    takeJournalWarnings();
    const errors = await readErrors(d);
    expect(errors.map((e) => e.trajectory_id)).toEqual(["ok"]);
    const w = takeJournalWarnings().join("\n");
    expect(w).toMatch(/errors\.jsonl: 7 lines skipped \(not an ingest error record\): lines 2, 3, 4, 5, 6, \.\.\. \(7 in all\); refused: line 2: a judge_crash record's repeat 1000000000 is not a repeat label writes/);
  });
});

describe("CLI: label's resume counts no crash of such a line", () => {
  it("crashes of no real repeat do not make the judge look broken; a real one still counts", async () => {
    const labels = path.join(tmp, "labels");
    const args = ["label", SAMPLES, "--judge", "signature", "--run", "e", "--labels-dir", labels, "--limit", "3"];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    const file = path.join(labels, "e", "errors.jsonl");
    const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
    // seven crashes of ghost items no repeat label writes, against the judge's 3 verdicts (would be 70%: broken), one real
    fs.appendFileSync(file, [...BAD.map(([r, s], i) => crash(`ghost-${i}`, r, s)), crash("ghost-real", 0, 3)].join("\n") + "\n");
    const r = await runCli([...args, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`errors\\.jsonl: 7 lines skipped \\(not an ingest error record\\): lines ${before + 1}, ${before + 2}, .*refused: line ${before + 1}: a judge_crash record's repeat 1000000000 is not a repeat label writes`));
    const summary = JSON.parse(fs.readFileSync(path.join(labels, "e", "summary.json"), "utf8"));
    expect(summary.judges.find((j: { judge_id: string }) => j.judge_id === "signature").judge_crashes).toBe(1);
    // a figure command reads the run's crashes as label counted them: the judge is not broken by them
    const c = await runCli(["compare", "--by", "attack", "--judge", "signature", "--bootstrap", "0", "--run", "e", "--labels-dir", labels]);
    expect(c.stderr).not.toMatch(/crashed on/);
  }, 120_000);
});

describe("verdictFileLines", () => {
  it("counts lines by newlines, a last line without one too; 0 for a missing file", async () => {
    const { verdictFileLines } = await import("../../src/store/error-check.js");
    const f = path.join(tmp, "v.jsonl");
    expect(verdictFileLines(f)).toBe(0);
    fs.writeFileSync(f, "{}\n{}\n");
    expect(verdictFileLines(f)).toBe(2);
    fs.appendFileSync(f, "{}");
    expect(verdictFileLines(f)).toBe(3);
    fs.writeFileSync(f, "x\n".repeat(1_500_000)); // across reads of 1 MB
    expect(verdictFileLines(f)).toBe(1_500_000);
  });
});
