/**
 * The view reads a run's journals with the store's record checks and names skipped lines by file and line, as every
 * other command does (red-team re-check: a wrong-shape verdict line was shown as a trajectory, and no line was named).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadViewRun } from "../../src/view/run-data.js";
import { labelRun } from "../../src/run/label.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { clearJournalSkips } from "../../src/store/skipped-lines.js";
import { SAMPLES } from "../helpers/paths.js";

let labels: string;
let runDir: string;
beforeAll(async () => {
  labels = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-skips-"));
  await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: labels, judges: [createSignatureJudge({ workers: 0 })], limit: 6 });
  runDir = path.join(labels, "r");
  const vf = path.join(runDir, "verdicts.jsonl");
  const v = fs.readFileSync(vf, "utf8").split("\n").filter(Boolean);
  // line 2: a record of the wrong shape (no status, no prompt hash...); line 4: not JSON
  v.splice(1, 0, JSON.stringify({ trajectory_id: "fake/forged", judge_id: "signature", repeat: 0, label: "full_compliance" }));
  v.splice(3, 0, "{garbage");
  fs.writeFileSync(vf, v.join("\n") + "\n");
  const tf = path.join(runDir, "trajectories.jsonl");
  fs.appendFileSync(tf, '{"id": 5}\n');
  clearJournalSkips();
});
afterAll(() => fs.rmSync(labels, { recursive: true, force: true }));

describe("view: broken journal lines", () => {
  it("skips what the store skips and names file and lines in the run's warnings", async () => {
    const run = await loadViewRun(runDir);
    expect([...run.rows].map((r) => r.id)).not.toContain("fake/forged");
    expect(run.rows).toHaveLength(6);
    const w = run.warnings.join("\n");
    expect(w).toContain(`${path.join(runDir, "verdicts.jsonl")}: 2 lines skipped (not a verdict record): lines 2, 4`);
    expect(w).toMatch(/trajectories\.jsonl: 1 line skipped \(not a trajectory index row\): line 7/);
  });
});
