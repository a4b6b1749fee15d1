/**
 * `sample` re-reads DRIFT runs as `label` judged them (inputs14): a DRIFT log records no injected text, `label`
 * recovers it from the clean run (`src/run/clean-diff.ts`) and the row's content hash covers it, so re-reading the
 * bare file gave another hash and every such run failed as "changed since labelled". Real DRIFT logs:
 * test/data/drift-clean (NOTICE).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { loadSampledTrajectories } from "../../src/sample/source.js";
import { readTrajectoryIndex } from "../../src/store/records.js";
import { DATA } from "../helpers/paths.js";

const RUNS = path.join(DATA, "drift-clean", "runs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "source-drift-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("loadSampledTrajectories on DRIFT runs labelled with recovered injections", () => {
  it("recovers the injected text over the run's inputs and matches the stored content hash", async () => {
    await labelRun({ inputs: [RUNS], run: "drift", labelsDir: tmp, judges: [createSignatureJudge()] });
    const index = await readTrajectoryIndex(path.join(tmp, "drift"));
    const rows = [...index.values()].filter((r) => r.attacked);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => Object.keys(r.surfaces ?? {}).some((k) => k.startsWith("clean_diff:")))).toBe(true);
    // without the run's inputs the bare file is read: the hash differs, said as before
    await expect(loadSampledTrajectories(rows)).rejects.toThrow(/has changed since the run was labelled/);
    const got = await loadSampledTrajectories(rows, { inputs: [RUNS] });
    expect([...got.keys()].sort()).toEqual(rows.map((r) => r.id).sort());
    for (const r of rows) {
      const recovered = Object.keys(r.surfaces ?? {}).some((k) => k.startsWith("clean_diff:"));
      expect(got.get(r.id)!.injection_source?.kind).toBe(recovered ? "clean_run_diff" : undefined);
    }
  });
});
