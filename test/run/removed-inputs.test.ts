/**
 * A deleted input file's trajectories (inputs14): label a folder, delete a file, label again. They used to count in
 * the run's figures unsaid. Now the resume says `input_removed` (the run's figures still hold them, the verdicts are
 * kept), `store.json` records it, and every command reading the run says it as a warning (`readRunState`); a
 * restored file clears it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { formatSummary } from "../../src/run/summary.js";
import { readRunState, runStateLine } from "../../src/store/run-state.js";
import { CORPUS } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "removed-inputs-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const SRC = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace");

describe("input_removed: a run's trajectories whose input file is gone", () => {
  it("a resume says them, store.json records them for every command, a restored file clears them", async () => {
    const corpus = path.join(tmp, "corpus");
    fs.cpSync(SRC, path.join(corpus, "workspace"), { recursive: true });
    const files = fs.readdirSync(corpus, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json")).sort();
    expect(files.length).toBeGreaterThan(1);
    const labelsDir = path.join(tmp, "labels");
    const run = () => labelRun({ inputs: [corpus], run: "r", labelsDir, judges: [createSignatureJudge()] });
    const first = await run();
    expect(first.summary.inputs_removed).toBeUndefined();
    expect(readRunState(path.join(labelsDir, "r")).status).toBe("complete");

    const gone = path.join(corpus, files[0]);
    const bytes = fs.readFileSync(gone);
    fs.rmSync(gone);
    const again = await run();
    expect(again.summary.inputs_removed).toMatchObject({ count: 1, files: [gone] });
    expect(again.summary.trajectories).toBe(first.summary.trajectories); // still held (the verdicts are kept), and said
    expect(formatSummary(again.summary)).toContain("WARNING: input_removed: 1 trajectory of this run was read from input files that no longer exist");
    const state = readRunState(path.join(labelsDir, "r"));
    expect(state).toMatchObject({ status: "inputs_removed", complete: true });
    expect(runStateLine(state)).toMatch(/^WARNING: input_removed: 1 trajectory/);

    fs.writeFileSync(gone, bytes);
    const restored = await run();
    expect(restored.summary.inputs_removed).toBeUndefined();
    expect(readRunState(path.join(labelsDir, "r")).status).toBe("complete");
  });

  it("a read cut short (--limit) cannot tell, and says nothing", async () => {
    const corpus = path.join(tmp, "corpus2");
    fs.cpSync(SRC, path.join(corpus, "workspace"), { recursive: true });
    const labelsDir = path.join(tmp, "labels2");
    await labelRun({ inputs: [corpus], run: "r", labelsDir, judges: [createSignatureJudge()] });
    const files = fs.readdirSync(corpus, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json")).sort();
    fs.rmSync(path.join(corpus, files[files.length - 1]));
    const limited = await labelRun({ inputs: [corpus], run: "r", labelsDir, judges: [createSignatureJudge()], limit: 1 });
    expect(limited.summary.inputs_removed).toBeUndefined();
  });

  it("what a complete read found stands through a later --limit resume (red team 14: the record was dropped)", async () => {
    const corpus = path.join(tmp, "corpus3");
    fs.cpSync(SRC, path.join(corpus, "workspace"), { recursive: true });
    const labelsDir = path.join(tmp, "labels3");
    const run = (limit?: number) => labelRun({ inputs: [corpus], run: "r", labelsDir, judges: [createSignatureJudge()], ...(limit ? { limit } : {}) });
    await run();
    const files = fs.readdirSync(corpus, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json")).sort();
    fs.rmSync(path.join(corpus, files[files.length - 1]));
    expect((await run()).summary.inputs_removed).toMatchObject({ count: 1 });
    await run(1);
    const state = readRunState(path.join(labelsDir, "r"));
    expect(state.status).toBe("inputs_removed");
    expect(runStateLine(state)).toMatch(/^WARNING: .*input_removed: 1 trajectory/);
  });
});
