import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JudgeConfig } from "../../src/config/judges.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { readVerdicts } from "../../src/store/run-store.js";
import { readRunState } from "../../src/store/run-state.js";
import { parseWhere } from "../../src/store/where.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { runCli } from "../helpers/cli.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing happened" });
let fake: FakeOpenAI;
let dir: string;
beforeAll(async () => {
  fake = await startFakeOpenAI(() => completion(REPLY));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-rv28-mixed-"));
});
afterAll(async () => {
  await fake?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const judge = (over: Partial<JudgeConfig> = {}) =>
  createOpenAIJudge({ id: "j", model: "model-A", family: "openai", base_url: fake.url, ...over }, { retries: 0, minQuoteChars: 12, transport: { sleep: async () => undefined, random: () => 0.5 } });

describe("review 28: mixed_configurations from summary.json", () => {
  it("a rejudge of a --where subset leaves the run mixed: summary.json says so for the whole run, not the subset", async () => {
    await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge()], limit: 6 });
    const vs0 = (await readVerdicts(path.join(dir, "r"))) as Array<{ trajectory_id: string }>;
    const idx = fs.readFileSync(path.join(dir, "r", "trajectories.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const ut = idx.find((r: { id: string }) => r.id === vs0[0].trajectory_id).user_task_id;
    await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge({ model: "model-B" })], limit: 6, onConfigChange: "rejudge", where: parseWhere(`user_task=${ut}`) });
    const models = new Set(((await readVerdicts(path.join(dir, "r"))) as Array<{ judge_model: string }>).map((v) => v.judge_model));
    expect(models).toEqual(new Set(["model-A", "model-B"])); // the run now mixes
    expect(readRunState(path.join(dir, "r")).mixed_configurations.length).toBeGreaterThan(0);
    const r = await runCli(["estimate", "--table", "--run", "r", "--labels-dir", dir]);
    expect(r.stdout + r.stderr).toMatch(/2 different configurations|name 2 models/);
  });
});
