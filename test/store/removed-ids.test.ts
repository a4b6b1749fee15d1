/**
 * The trajectories of a run whose input is gone leave every figure through one place (`src/store/removed-ids.ts`,
 * removed15): each reader of stored verdicts and index rows (object, lean, column, view) leaves the ids of
 * `inputs-removed.json` out, the command says it once, the verdicts stay on disk, and an unreadable record is said.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { readTrajectoryIndex, readVerdicts } from "../../src/store/records.js";
import { readFullVerdicts, readIndexRows, readLeanRun } from "../../src/store/lean-read.js";
import { readColumnIndex, readColumnRun } from "../../src/store/columns.js";
import { REMOVED_FILE, removedIds, writeRemovedIds } from "../../src/store/removed-ids.js";
import { readRunState } from "../../src/store/run-state.js";
import { clearJournalSkips, takeJournalWarnings } from "../../src/store/skipped-lines.js";
import { loadViewRun } from "../../src/view/run-data.js";
import { CORPUS } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "removed-ids-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const labelsDir = path.join(tmp, "labels");
const runDir = path.join(labelsDir, "r");
let all: string[] = [];
let goneId = "";

beforeAll(async () => {
  const corpus = path.join(tmp, "corpus");
  fs.cpSync(path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace"), path.join(corpus, "workspace"), { recursive: true });
  const run = () => labelRun({ inputs: [corpus], run: "r", labelsDir, judges: [createSignatureJudge()] });
  const first = await run();
  all = [...(await readTrajectoryIndex(runDir)).keys()];
  expect(all.length).toBe(first.summary.trajectories);
  const files = fs.readdirSync(corpus, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json")).sort();
  fs.rmSync(path.join(corpus, files[0]));
  await run();
  expect(removedIds(runDir).size).toBe(1);
  goneId = [...removedIds(runDir)][0];
});
beforeEach(() => clearJournalSkips());

const noteCount = (ws: string[]) => ws.filter((w) => w.includes("input_removed: 1 trajectory whose input is gone")).length;

describe("every reader of a run leaves out the trajectories whose input is gone", () => {
  it("object readers: readVerdicts, readTrajectoryIndex (and keepRemoved for label's own bookkeeping)", async () => {
    const vs = await readVerdicts(runDir);
    expect(vs.length).toBe(all.length - 1);
    expect(vs.some((v) => v.trajectory_id === goneId)).toBe(false);
    expect((await readTrajectoryIndex(runDir)).has(goneId)).toBe(false);
    expect((await readTrajectoryIndex(runDir, { keepRemoved: true })).has(goneId)).toBe(true);
    // the verdict stays on disk
    expect(fs.readFileSync(path.join(runDir, "verdicts.jsonl"), "utf8")).toContain(JSON.stringify(goneId));
  });

  it("lean readers: readLeanRun, readFullVerdicts, readIndexRows", async () => {
    const lean = await readLeanRun(runDir);
    expect(lean.index.size).toBe(all.length - 1);
    expect(lean.verdicts.length).toBe(all.length - 1);
    expect(lean.index.has(goneId)).toBe(false);
    const ids = new Set(all);
    expect((await readFullVerdicts(runDir, ids)).some((v) => v.trajectory_id === goneId)).toBe(false);
    expect((await readIndexRows(runDir, ids)).has(goneId)).toBe(false);
  });

  it("column readers: readColumnRun, readColumnIndex (no orphan verdict left behind)", async () => {
    const cr = await readColumnRun(runDir, { rowFields: ["attacked"] });
    expect(cr.nRows).toBe(all.length - 1);
    expect(cr.nVerdicts).toBe(all.length - 1);
    expect(cr.ids.slotOf(goneId)).toBe(-1);
    expect((await readColumnIndex(runDir, { rowFields: [] })).nRows).toBe(all.length - 1);
    expect(takeJournalWarnings().some((w) => w.includes("not in trajectories.jsonl"))).toBe(false);
  });

  it("the view", async () => {
    const v = await loadViewRun(runDir);
    expect(v.byId.has(goneId)).toBe(false);
    expect(v.rows.length).toBe(all.length - 1);
    expect(noteCount(v.warnings)).toBe(1);
  });

  it("a command says it once: several reads and the run state", async () => {
    await readVerdicts(runDir);
    await readLeanRun(runDir);
    await readColumnRun(runDir, { rowFields: [] });
    const ws = takeJournalWarnings();
    expect(noteCount(ws)).toBe(1);
    expect(ws.find((w) => w.includes("input_removed"))).toContain(JSON.stringify(goneId));
    expect(noteCount(takeJournalWarnings())).toBe(0);
    // the run state says the same statement: the readers' note is then not said again
    clearJournalSkips();
    await readVerdicts(runDir);
    const st = readRunState(runDir);
    expect(st.status).toBe("inputs_removed");
    expect(st.message).toContain("is left out of the figures");
    expect(noteCount(takeJournalWarnings())).toBe(0);
  });

  it("an unreadable record is said, and nothing is left out (the figures hold them: said, not silent)", async () => {
    const dir = path.join(tmp, "bad");
    fs.cpSync(runDir, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, REMOVED_FILE), "{not json");
    expect((await readVerdicts(dir)).length).toBe(all.length);
    expect(takeJournalWarnings().some((w) => w.includes(REMOVED_FILE) && w.includes("cannot be read"))).toBe(true);
    writeRemovedIds(dir, undefined);
    expect(fs.existsSync(path.join(dir, REMOVED_FILE))).toBe(false);
  });

  it("a run recorded before inputs-removed.json existed (store.json only) still says its figures hold them", async () => {
    const dir = path.join(tmp, "old");
    fs.cpSync(runDir, dir, { recursive: true });
    fs.rmSync(path.join(dir, REMOVED_FILE));
    expect((await readVerdicts(dir)).length).toBe(all.length);
    const st = readRunState(dir);
    expect(st.status).toBe("inputs_removed");
    expect(st.message).toMatch(/still counts? in the run's figures.*run the same label command again: it now leaves them out/);
  });
});
