/**
 * `--limit` and `--where` and the run's state (break 51 #2). A run every pass of which had `--limit` (that stopped the
 * reading) or `--where` (that left trajectories out) is `partial` (not complete: every command warns, naming the
 * passes) until a pass without them completes; a limit above the input's size limits nothing (new-user review: 351
 * VIGIL runs under `--limit 800` were said to be "the first 800"). A run once covered stays covered through a later
 * limited pass (`limited`, a note, after a --limit one).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { labelRun } from "../../src/run/label.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { readRunState } from "../../src/store/run-state.js";
import { parseWhere } from "../../src/store/where.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-limit-state-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const judges = () => [createSignatureJudge({ workers: 0 })];
const label = (run: string, o: { limit?: number; where?: string } = {}) =>
  labelRun({ inputs: [SAMPLES], run, labelsDir: tmp, judges: judges(), ...(o.limit ? { limit: o.limit } : {}), ...(o.where ? { where: parseWhere(o.where) } : {}) });
const state = (run: string) => readRunState(path.join(tmp, run));

describe("label --limit / --where and the run's state", () => {
  it("partial when the limit stopped the reading, complete when the inputs held fewer trajectories", async () => {
    await label("cut", { limit: 5 });
    const cut = state("cut");
    expect(cut).toMatchObject({ status: "partial", complete: false });
    expect(cut.message).toMatch(/--limit 5 \(started /);
    expect(cut.message).toMatch(/the 5 trajectories those runs stored/);
    await label("all", { limit: 800 });
    expect(state("all")).toMatchObject({ status: "complete", complete: true, message: null });
  });

  it("--limit then --where: partial, naming both passes; a resume of the --where pass keeps it; a pass without them clears it", async () => {
    await label("two", { limit: 5 });
    await label("two", { where: "model=gpt-4o-2024-05-13" });
    const s = state("two");
    expect(s).toMatchObject({ status: "partial", complete: false });
    expect(s.message).toMatch(/--limit 5 \(started [^)]+\); --where model=gpt-4o-2024-05-13 \(62 read trajectories left out\)/);
    await label("two", { where: "model=gpt-4o-2024-05-13" }); // the same command again
    expect(state("two").status).toBe("partial");
    await label("two"); // the inputs read whole
    expect(state("two")).toMatchObject({ status: "complete", complete: true, message: null });
    // covered: a later --where pass leaves its stored trajectories as they were
    await label("two", { where: "suite=banking" });
    expect(state("two")).toMatchObject({ status: "complete", complete: true });
  });

  it("a --where that leaves nothing out covers what it read", async () => {
    await label("keepall", { where: "attacked=true,false" });
    expect(state("keepall")).toMatchObject({ status: "complete", complete: true });
  });
});
