/**
 * review s29: a label run that fails writes no summary.json, so the file keeps an earlier run's
 * `mixed_configurations`. After a run under a new configuration (`--on-config-change keep`) that fails part way (a full
 * disk), the verdicts mix two models while that list says none did: every later command reads the run's state, which now says the
 * check is not known, and the next finished run's summary (stamped with its start) gives the list again.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { JudgeConfig } from "../../src/config/judges.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { StoreWriteError } from "../../src/store/journal.js";
import { readVerdicts, RunStore } from "../../src/store/run-store.js";
import { readRunState, runStateLine } from "../../src/store/run-state.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing happened" });
let fake: FakeOpenAI;
let dir: string;
beforeAll(async () => {
  fake = await startFakeOpenAI(() => completion(REPLY));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-s29-failed-"));
});
afterAll(async () => {
  await fake?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const judge = (over: Partial<JudgeConfig> = {}) =>
  createOpenAIJudge({ id: "j", model: "model-A", family: "openai", base_url: fake.url, ...over }, { retries: 0, minQuoteChars: 12, transport: { sleep: async () => undefined, random: () => 0.5 } });

describe("review s29: a failed label run leaves no stale mixed_configurations", () => {
  it("a run that fails part way: the earlier summary's 'no mix' is not shown; the run that finishes it checks again", async () => {
    const runDir = path.join(dir, "r");
    const first = await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge()], limit: 40 });
    const summary0 = JSON.parse(fs.readFileSync(path.join(runDir, "summary.json"), "utf8"));
    expect(summary0.mixed_configurations).toBeUndefined(); // one model, one configuration
    expect(summary0.label_started_at).toBe(JSON.parse(fs.readFileSync(path.join(runDir, "store.json"), "utf8")).label_state.started_at);
    expect(readRunState(runDir).mixed_configurations).toEqual([]);

    // model-B kept beside model-A's verdicts for the rest of the samples, until the disk fills up: the 6th verdict
    // cannot be written (StoreWriteError, as a full disk gives it), and the run fails with 5 model-B verdicts stored
    let stored = 0;
    const add = RunStore.prototype.addVerdict;
    const spy = vi.spyOn(RunStore.prototype, "addVerdict").mockImplementation(function (this: RunStore, v) {
      if (++stored > 5) throw new StoreWriteError(path.join(runDir, "verdicts.jsonl"), Object.assign(new Error("no space"), { code: "ENOSPC" }));
      add.call(this, v);
    });
    const err = await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge({ model: "model-B" })], onConfigChange: "keep", concurrency: 1 })
      .catch((e) => e)
      .finally(() => spy.mockRestore());
    expect(err).toBeInstanceOf(StoreWriteError);
    const models = ((await readVerdicts(runDir)) as Array<{ judge_model: string }>).map((v) => v.judge_model);
    expect(models.filter((m) => m === "model-B")).toHaveLength(5); // the run now mixes, and the earlier summary says it does not
    // summary.json is still the first run's, saying nothing mixed: never read as this run's
    expect(JSON.parse(fs.readFileSync(path.join(runDir, "summary.json"), "utf8")).label_started_at).toBe(summary0.label_started_at);
    const st = readRunState(runDir);
    expect(st.status).toBe("failed");
    expect(st.mixed_configurations).toEqual([expect.stringMatching(/^mixed configurations not known: the last label run failed .*\(no judge mixed then\)/)]);
    expect(runStateLine(st)).toMatch(/\nWARNING: mixed configurations not known: /);

    // the same command, with room on the disk again, finishes: its summary (stamped with its start) names the mix
    const kept = await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge({ model: "model-B" })], onConfigChange: "keep" });
    expect(kept.summary.mixed_configurations?.join("\n")).toMatch(/judge "j": its verdicts name 2 models \(model-A, model-B\)/);
    expect(readRunState(runDir)).toMatchObject({ status: "complete", mixed_configurations: kept.summary.mixed_configurations });
    // a rejudge that finishes leaves one model: the list is empty again
    const done = await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge({ model: "model-B" })], onConfigChange: "rejudge" });
    expect(done.summary.mixed_configurations).toBeUndefined();
    expect(readRunState(runDir)).toMatchObject({ status: "complete", mixed_configurations: [] });
    expect(done.summary.verdicts).toBeGreaterThan(first.summary.verdicts);
  });
});
