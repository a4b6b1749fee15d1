/**
 * `--limit` marks a run as covering part of its inputs ("limited": every command then says "figures cover those
 * only") only when the limit stopped the reading; a limit above the input's size leaves the run complete
 * (new-user review: 351 VIGIL runs under `--limit 800` were said to be "the first 800").
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { labelRun } from "../../src/run/label.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { readRunState } from "../../src/store/run-state.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-limit-state-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("label --limit and the run's state", () => {
  it("limited when the limit stopped the reading, complete when the inputs held fewer trajectories", async () => {
    const judges = () => [createSignatureJudge({ workers: 0 })];
    await labelRun({ inputs: [SAMPLES], run: "cut", labelsDir: tmp, judges: judges(), limit: 5 });
    const cut = readRunState(path.join(tmp, "cut"));
    expect(cut).toMatchObject({ status: "limited", complete: true });
    expect(cut.message).toMatch(/first 5 trajectories/);
    await labelRun({ inputs: [SAMPLES], run: "all", labelsDir: tmp, judges: judges(), limit: 800 });
    expect(readRunState(path.join(tmp, "all"))).toMatchObject({ status: "complete", complete: true, message: null });
  });
});
