/**
 * Broken journal lines are named, never skipped without a word (house rule): every reader of a run's journals
 * (records.ts, lean-read.ts, RunStore.open) counts the lines it skips by file and line number, one warning per file
 * however many readers read it; a partial last line (a killed writer) is named, and named as cut when the store cuts
 * it; verdicts whose trajectory has no index row are counted once per run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readErrors, readTrajectoryIndex, readVerdicts } from "../../src/store/records.js";
import { readFullVerdicts, readIndexRows, readLeanRun } from "../../src/store/lean-read.js";
import { RunStore } from "../../src/store/run-store.js";
import { VERIFY_RULES_VERSION } from "../../src/rubric/verify-rules.js";
import { clearJournalSkips, formatSkipped, journalWarningsNow, noteRunLevel, skippedLines, takeJournalWarnings } from "../../src/store/skipped-lines.js";

const verdict = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ trajectory_id: id, judge_id: "j", repeat: 0, prompt_sha256: "p", status: "ok", label: "unaffected", attacked: true, verify_rules: VERIFY_RULES_VERSION, ...extra });
const row = (id: string) => JSON.stringify({ id, content_sha256: `sha-${id}`, attacked: true, agent_model: "m", n_messages: 2 });

let dir: string;
beforeEach(() => {
  clearJournalSkips();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-skipped-"));
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), [row("a"), row("b"), row("c")].join("\n") + "\n");
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** verdicts.jsonl with a garbage line (2), a line cut mid-file (4) and a non-verdict record (5). */
function writeBroken(tail = ""): string {
  const cut = verdict("b").slice(0, 30);
  const file = path.join(dir, "verdicts.jsonl");
  fs.writeFileSync(file, [verdict("a"), "{garbage", "", cut, '{"trajectory_id":5}', verdict("c")].join("\n") + "\n" + tail);
  return file;
}

describe("skipped journal lines", () => {
  it("readVerdicts names the lines it skips, by file and line number (blank lines are not skipped lines)", async () => {
    const file = writeBroken();
    expect((await readVerdicts(dir)).map((v) => v.trajectory_id)).toEqual(["a", "c"]);
    expect(skippedLines()).toEqual([{ file, what: "not a verdict record", lines: [2, 4, 5] }]);
    const w = takeJournalWarnings();
    expect(w).toEqual([`${file}: 3 lines skipped (not a verdict record): lines 2, 4, 5; label judges again what a skipped verdict held`]);
    expect(takeJournalWarnings()).toEqual([]); // said once
  });

  it("one warning per file however many readers read it (records, lean, full, RunStore)", async () => {
    const file = writeBroken();
    await readVerdicts(dir, { slim: true });
    await readLeanRun(dir);
    await readFullVerdicts(dir, new Set(["a"]));
    const store = await RunStore.open(path.dirname(dir), path.basename(dir));
    try {
      expect(store.resumed.bad_lines).toBe(3);
    } finally {
      await store.close();
    }
    const w = takeJournalWarnings().filter((x) => x.startsWith(file));
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/3 lines skipped \(not a verdict record\): lines 2, 4, 5/);
  });

  it("a partial last line is named as such, and as cut once the store cuts it", async () => {
    const file = writeBroken('{"trajectory_id":"c","judge');
    await readVerdicts(dir);
    expect(skippedLines()[0]).toMatchObject({ lines: [2, 4, 5, 7], torn: { line: 7, cut: false } });
    expect(takeJournalWarnings()[0]).toMatch(/4 lines skipped .*lines 2, 4, 5, 7; line 7 is a partial last line \(a killed writer\); label cuts it when it resumes/);
    const store = await RunStore.open(path.dirname(dir), path.basename(dir));
    await store.close();
    expect(fs.readFileSync(file, "utf8").endsWith("\n")).toBe(true);
    expect(takeJournalWarnings()[0]).toMatch(/line 7 is a partial last line \(a killed writer\), cut off before appending/);
  });

  it("the index and error readers name their lines too", async () => {
    fs.appendFileSync(path.join(dir, "trajectories.jsonl"), '{"id":7}\n');
    fs.writeFileSync(path.join(dir, "errors.jsonl"), "not json\n");
    await readTrajectoryIndex(dir);
    await readIndexRows(dir, new Set(["a"]));
    await readErrors(dir);
    const w = takeJournalWarnings();
    expect(w).toContain(`${path.join(dir, "trajectories.jsonl")}: 1 line skipped (not a trajectory index row): line 4`);
    expect(w).toContain(`${path.join(dir, "errors.jsonl")}: 1 line skipped (not an ingest error record): line 1`);
  });

  it("lists the first five line numbers and the count", () => {
    expect(formatSkipped({ file: "/x/verdicts.jsonl", what: "not a verdict record", lines: [1, 2, 3, 4, 5, 6, 9] })).toBe(
      "/x/verdicts.jsonl: 7 lines skipped (not a verdict record): lines 1, 2, 3, 4, 5, ... (7 in all); label judges again what a skipped verdict held",
    );
  });

  it("a clean run says nothing", async () => {
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), [verdict("a"), verdict("b")].join("\n") + "\n");
    await readLeanRun(dir);
    const store = await RunStore.open(path.dirname(dir), path.basename(dir));
    await store.close();
    expect(takeJournalWarnings()).toEqual([]);
  });
});

describe("verdicts without an index row", () => {
  it("are counted as before and named once per run (lean reader and RunStore agree)", async () => {
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), [verdict("a"), verdict("ghost"), verdict("ghost", { repeat: 1 })].join("\n") + "\n");
    const { verdicts } = await readLeanRun(dir);
    expect(verdicts).toHaveLength(3); // today's counting rule kept
    const store = await RunStore.open(path.dirname(dir), path.basename(dir));
    await store.close();
    const w = takeJournalWarnings();
    expect(w).toEqual([
      `${path.join(dir, "verdicts.jsonl")}: 2 verdicts for a trajectory not in trajectories.jsonl ("ghost"); counted, with the verdict's own attacked/model/condition standing in for the missing row`,
    ]);
  });

  it("journalWarningsNow: one run folder's warnings, said or not, without taking them; other runs' and excepted kinds left out", () => {
    clearJournalSkips();
    const other = path.join(dir, "..", "other-run");
    noteRunLevel(`stale-content\u0000${path.resolve(dir)}`, "mine");
    noteRunLevel(`removed\u0000${path.resolve(dir)}`, "mine, removed");
    noteRunLevel(`stale-content\u0000${path.resolve(other)}`, "theirs");
    expect(journalWarningsNow(dir, ["removed"])).toEqual(["mine"]);
    expect(journalWarningsNow(dir).sort()).toEqual(["mine", "mine, removed"]);
    expect(takeJournalWarnings().sort()).toEqual(["mine", "mine, removed", "theirs"]); // nothing was taken before
    expect(journalWarningsNow(dir, ["removed"])).toEqual(["mine"]); // said already: still this run's
  });
});
