/**
 * `store_corrupt_lines` after a repair: a partial last line (a full disk, a killed writer) is counted by the open that
 * finds it and cut off before appending; `errors.jsonl` is append-only, so every later summary used to count that
 * record as a live error though the line no longer existed. A record stands only while the open finds its lines; an
 * unreadable line still in the file is found (and counted) by every open.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { corruptLinesError, corruptLinesRepaired, STORE_LINES_TEXT } from "../../src/run/corrupt-lines.js";
import { clearJournalSkips } from "../../src/store/skipped-lines.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { CORPUS } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "corrupt-lines-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const SRC = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace");
beforeEach(() => clearJournalSkips());

const records = (dir: string) =>
  fs
    .readFileSync(path.join(dir, "errors.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.kind === "store_corrupt_lines");

describe("store_corrupt_lines", () => {
  it("a partial last line cut off (a full disk) is counted once, then superseded; nothing judged twice", async () => {
    const labelsDir = path.join(tmp, "torn");
    const run = () => labelRun({ inputs: [SRC], run: "r", labelsDir, judges: [createSignatureJudge()] });
    const first = await run();
    const dir = path.join(labelsDir, "r");
    const file = path.join(dir, "verdicts.jsonl");
    const text = fs.readFileSync(file, "utf8");
    const n = text.split("\n").filter(Boolean).length;
    fs.writeFileSync(file, text.slice(0, text.length - 40)); // the last write stopped mid-line (ENOSPC)
    const repaired = await run();
    // no input error: apart from `errors`, whose total is the input items in error (session 51 counted it there)
    expect(repaired.summary.errors).toEqual({ total: 0, by_kind: {} });
    expect(repaired.summary.store_corrupt_lines).toEqual({ records: 1, message: STORE_LINES_TEXT });
    expect(records(dir)).toHaveLength(1);
    expect(records(dir)[0].message).toBe(
      `1 unreadable line(s) in the run's journals were skipped (verdicts.jsonl line ${n}; line ${n} a partial last line, cut off before appending); what they held is judged again if missing`,
    );
    expect(repaired.progress.judged).toBe(1); // the verdict the torn line held
    // said as what it is, apart from the input errors (hostile 51, finding 3: "errors: 1 (store_corrupt_lines 1)")
    expect(formatSummary(repaired.summary)).toContain("errors: none\nrun store: unreadable lines in the run's own journals (a torn line from an interrupted write");
    expect(formatSummary(repaired.summary)).not.toMatch(/errors: 1/);
    expect(repaired.summary.verdicts).toBe(first.summary.verdicts);

    clearJournalSkips(); // a new process
    const later = await run();
    expect(later.progress.judged).toBe(0);
    expect(later.summary.errors).toEqual({ total: 0, by_kind: {} });
    expect(later.summary.errors_superseded).toMatchObject({ total: 1, by_kind: { store_corrupt_lines: 1 }, repaired: 1 });
    expect(later.summary.errors_superseded!.message).toMatch(/did not find its lines again \(a partial last line cut off/);
    expect(formatSummary(later.summary)).not.toMatch(/errors: [1-9]/);
    expect(later.summary.errors_superseded!.message).toMatch(/^run store: 1 earlier record of torn verdict lines \(an interrupted write: a kill or a full disk; dropped, and the verdicts judged again\) no longer applies, not an input error/);
    expect(records(dir)).toHaveLength(1); // the old line stays (append-only), superseded
  });

  it("an unreadable line still in the file is reported by every summary; once repaired by hand, superseded", async () => {
    const labelsDir = path.join(tmp, "mid");
    const run = () => labelRun({ inputs: [SRC], run: "r", labelsDir, judges: [createSignatureJudge()] });
    await run();
    const dir = path.join(labelsDir, "r");
    const file = path.join(dir, "verdicts.jsonl");
    const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
    const kept = lines[2];
    lines[2] = kept.slice(0, 25) + "#garbage"; // a line broken in place (a hand edit, a bad copy)
    fs.writeFileSync(file, lines.join("\n") + "\n");
    for (let i = 0; i < 2; i++) {
      clearJournalSkips();
      const r = await run();
      expect(r.summary.errors).toEqual({ total: 0, by_kind: {} });
      expect(r.summary.store_corrupt_lines?.records).toBe(1);
      expect(r.summary.errors_superseded).toBeUndefined();
    }
    expect(records(dir)).toHaveLength(1); // the same lines: one record, counted by every open
    expect(records(dir)[0].message).toMatch(/\(verdicts\.jsonl line 3\)/);
    // and a second broken line: the record of the first is restated, the old one superseded, both lines named
    const now = fs.readFileSync(file, "utf8").split("\n");
    now[5] = "{not json";
    fs.writeFileSync(file, now.join("\n"));
    clearJournalSkips();
    const two = await run();
    expect(two.summary.errors.by_kind).toEqual({});
    expect(two.summary.store_corrupt_lines?.records).toBe(1);
    expect(two.summary.errors_superseded).toMatchObject({ repaired: 1 });
    expect(records(dir).at(-1).message).toMatch(/^2 unreadable line\(s\) .*\(verdicts\.jsonl lines 3, 6\)/);
    // repaired by hand: nothing stands
    const fixed = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.startsWith('{"') && !l.includes("#garbage"));
    fs.writeFileSync(file, fixed.join("\n") + "\n");
    clearJournalSkips();
    const clean = await run();
    expect(clean.summary.errors).toEqual({ total: 0, by_kind: {} });
    expect(clean.summary.errors_superseded).toMatchObject({ repaired: 2 });
  });

  it("a record of another folder, or of another kind, is never taken as repaired", () => {
    const store = { dir: "/x/run", resumed: { bad_lines: 0 } };
    expect(corruptLinesError(store)).toBeUndefined();
    expect(corruptLinesRepaired({ path: "/x/run", kind: "store_corrupt_lines", message: "old" }, store)).toBe(true);
    expect(corruptLinesRepaired({ path: "/x/other", kind: "store_corrupt_lines", message: "old" }, store)).toBe(false);
    expect(corruptLinesRepaired({ path: "/x/run", kind: "unknown_format", message: "old" }, store)).toBe(false);
  });
});
