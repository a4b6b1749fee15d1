/**
 * The run's coverage (`src/store/partial-passes.ts`) after a moved input and across working directories (runs53),
 * through `labelRun`: a `--limit` pass over a folder given relative to one directory, then
 * - a full pass from another directory naming the same folder: covered (the pass is kept by its resolved path);
 * - a full pass from another directory naming another folder of the same relative name: still partial, the pass named
 *   with the path it resolved to;
 * - the folder moved, then a full pass over its new place: covered (before: partial for ever, the old path no pass
 *   could read), since the removal check told every stored trajectory (`RemovedInputs.settled`);
 * - the folder moved and a file deleted from it, then a full pass over another input only: still partial (what the
 *   old folder held cannot be told).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { labelRun } from "../../src/run/label.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { readRunState } from "../../src/store/run-state.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "removed-coverage-")));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const MODEL = "gemini-1.5-pro-001";
const labelsDir = path.join(tmp, "L");
/** label `input` from directory `cwd` into run `run` (its limit when given) */
async function label(cwd: string, input: string, run: string, limit?: number) {
  const was = process.cwd();
  try {
    process.chdir(cwd);
    return await labelRun({ inputs: [input], run, labelsDir, judges: [createSignatureJudge({ workers: 0 })], ...(limit ? { limit } : {}) });
  } finally {
    process.chdir(was);
  }
}
/** a folder `<dir>/runs` holding one model folder of the vendored sample */
function corpus(dir: string): void {
  fs.cpSync(path.join(SAMPLES, "runs", MODEL), path.join(dir, "runs", MODEL), { recursive: true });
}

describe("coverage across directories and after a move", () => {
  it("a relative input resumed from another directory: the same folder covers it, another folder of that name does not", async () => {
    const x = path.join(tmp, "a", "x");
    const y = path.join(tmp, "a", "y");
    corpus(x);
    fs.mkdirSync(y, { recursive: true });
    await label(x, "runs", "same", 5);
    expect(readRunState(path.join(labelsDir, "same")).status).toBe("partial");
    await label(y, path.join("..", "x", "runs"), "same");
    expect(readRunState(path.join(labelsDir, "same"))).toMatchObject({ status: "complete", complete: true });
    corpus(y);
    await label(x, "runs", "other", 5);
    await label(y, "runs", "other");
    const s = readRunState(path.join(labelsDir, "other"));
    expect(s).toMatchObject({ status: "partial", complete: false });
    expect(s.message).toContain(`--limit 5 of runs (${path.join(x, "runs")}) (started `);
  }, 120_000);

  it("the folder moved after a --limit pass: a full pass over its new place covers it", async () => {
    const w = path.join(tmp, "m");
    corpus(w);
    await label(w, "runs", "moved", 5);
    fs.renameSync(path.join(w, "runs"), path.join(w, "moved"));
    const r = await label(w, "moved", "moved");
    expect(r.summary.warnings.some((x) => x.startsWith("the input files of 5 stored trajectories moved"))).toBe(true);
    expect(readRunState(path.join(labelsDir, "moved"))).toMatchObject({ status: "complete", complete: true, message: null });
  }, 120_000);

  it("a --limit pass's folder moved, a file of it deleted, and a full pass over another input only: still partial", async () => {
    const w = path.join(tmp, "d");
    corpus(w);
    fs.cpSync(path.join(SAMPLES, "runs", "gpt-4o-2024-05-13"), path.join(w, "b", "gpt-4o-2024-05-13"), { recursive: true });
    await label(w, "runs", "del", 5);
    fs.renameSync(path.join(w, "runs"), path.join(w, "gone"));
    await label(w, "b", "del");
    expect(readRunState(path.join(labelsDir, "del"))).toMatchObject({ status: "partial", complete: false });
  }, 120_000);
});
