/**
 * `--limit` and `--where` and the run's state (break 51 #2). A run every pass of which had `--limit` (that stopped the
 * reading) or `--where` (that left trajectories out) is `partial` (not complete: every command warns, naming the
 * passes) until a pass without them completes; a limit above the input's size limits nothing (new-user review: 351
 * VIGIL runs under `--limit 800` were said to be "the first 800"). A run once covered stays covered through a later
 * limited pass (`limited`, a note, after a --limit one). Per input (session 52): a full pass over one input does not
 * cover another that a limited pass read; a run an older build labelled in several invocations says its pass history
 * is unknown instead of complete.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { labelRun } from "../../src/run/label.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { readRunState } from "../../src/store/run-state.js";
import { partialRunLine } from "../../src/run/limit-warning.js";
import { parseWhere } from "../../src/store/where.js";
import { CORPUS, SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-limit-state-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const judges = () => [createSignatureJudge({ workers: 0 })];
const label = (run: string, o: { limit?: number; where?: string } = {}) =>
  labelRun({ inputs: [SAMPLES], run, labelsDir: tmp, judges: judges(), ...(o.limit ? { limit: o.limit } : {}), ...(o.where ? { where: parseWhere(o.where) } : {}) });
const state = (run: string) => readRunState(path.join(tmp, run));

describe("label --limit / --where and the run's state", () => {
  it("partial when the limit stopped the reading, complete when the inputs held fewer trajectories", async () => {
    const res = await label("cut", { limit: 5 });
    const cut = state("cut");
    // label's own summary says it too (break55 #3b): its first warning, in summary.json as in --json
    expect(res.summary.warnings[0]).toBe(`run incomplete: ${cut.message}`);
    expect(JSON.parse(fs.readFileSync(path.join(tmp, "cut", "summary.json"), "utf8")).warnings[0]).toBe(`run incomplete: ${cut.message}`);
    expect(partialRunLine(res.summary.warnings, 5)).toMatch(/^PARTIAL RUN: --limit 5 stopped the reading before the inputs ended/);
    expect(partialRunLine(res.summary.warnings, undefined)).toBe("");
    expect(cut).toMatchObject({ status: "partial", complete: false });
    expect(cut.message).toContain(`--limit 5 of ${SAMPLES} (started `);
    expect(cut.message).toMatch(/the 5 trajectories the runs stored/);
    const all = await label("all", { limit: 800 });
    expect(state("all")).toMatchObject({ status: "complete", complete: true, message: null });
    expect(all.summary.warnings.some((w) => w.startsWith("run incomplete: "))).toBe(false);
    expect(partialRunLine(all.summary.warnings, 800)).toBe("");
  });

  it("--limit then --where: partial, naming both passes; a resume of the --where pass keeps it; a pass without them clears it", async () => {
    await label("two", { limit: 5 });
    await label("two", { where: "model=gpt-4o-2024-05-13" });
    const s = state("two");
    expect(s).toMatchObject({ status: "partial", complete: false });
    expect(s.message).toMatch(/--limit 5 of \S+ \(started [^)]+\); --where model=gpt-4o-2024-05-13 \(62 read trajectories left out\) of \S+ \(started/);
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

  it("per input: --limit over one AgentDojo model folder, then another folder in full: still partial, naming the first", async () => {
    const gpt = path.join(CORPUS, "runs", "gpt-4o-2024-05-13");
    const claude = path.join(CORPUS, "runs", "claude-3-5-sonnet-20240620");
    const run = (inputs: string[], limit?: number) => labelRun({ inputs, run: "models", labelsDir: tmp, judges: judges(), ...(limit ? { limit } : {}) });
    await run([gpt], 20);
    await run([claude]);
    const s = state("models");
    expect(s).toMatchObject({ status: "partial", complete: false });
    expect(s.message).toContain(`--limit 20 of ${gpt} (started `);
    expect(s.message).not.toContain(claude);
    expect(s.message).toMatch(/the 111 trajectories the runs stored/); // 20 + the folder's 91
    await run([claude], 5); // a limited pass over a covered input adds nothing
    expect(state("models").status).toBe("partial");
    await run([gpt]);
    expect(state("models")).toMatchObject({ status: "complete", complete: true, message: null });
    await run([path.join(CORPUS, "runs")], 3); // the folder holding both was never read whole
    expect(state("models").message).toContain(`--limit 3 of ${path.join(CORPUS, "runs")} (started `);
  });

  it("a run an older build labelled in two invocations (no pass record): pass history unknown, not complete", async () => {
    const gpt = path.join(CORPUS, "runs", "gpt-4o-2024-05-13");
    const claude = path.join(CORPUS, "runs", "claude-3-5-sonnet-20240620");
    await labelRun({ inputs: [gpt], run: "older", labelsDir: tmp, judges: judges(), limit: 20 });
    await labelRun({ inputs: [claude], run: "older", labelsDir: tmp, judges: judges() });
    // as an older build leaves store.json: no pass record
    const file = path.join(tmp, "older", "store.json");
    const d = JSON.parse(fs.readFileSync(file, "utf8"));
    delete d.label_state.partial_passes;
    delete d.label_state.covered_inputs;
    fs.writeFileSync(file, JSON.stringify(d));
    const s = state("older");
    expect(s).toMatchObject({ status: "history_unknown", complete: null });
    expect(s.message).toContain(`pass history unknown (labelled by an older build) of ${gpt}`);
    // one invocation only, or the last one over every input: complete as before
    d.inputs = [claude];
    fs.writeFileSync(file, JSON.stringify(d));
    expect(state("older")).toMatchObject({ status: "complete", complete: true });
  });
});
