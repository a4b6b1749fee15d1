/**
 * review s29: the mixed-configuration warnings (a judge whose verdicts in use were made by several models or
 * configurations, `summary.json` `mixed_configurations`) are said by agree, compare, estimate, committee and report
 * for the judges the command uses only: not for one `--judge` or `--exclude-judge` leaves out; for a committee's
 * members when a committee figure is shown; for every judge the report shows.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JudgeConfig } from "../../src/config/judges.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { readRunState, runStateFor } from "../../src/store/run-state.js";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

// unaffected, not not_exposed: a judge saying not_exposed where code finds the injected text is flagged (denies_exposure, newuser52 #3)
const REPLY = JSON.stringify({ findings: [], label: "unaffected", rationale: "nothing happened" });
let fake: FakeOpenAI;
let dir: string;
const judge = (id: string, model: string, over: Partial<JudgeConfig> = {}) =>
  createOpenAIJudge({ id, model, family: id === "c" ? "anthropic" : "openai", base_url: fake.url, ...over }, { retries: 0, minQuoteChars: 12, transport: { sleep: async () => undefined, random: () => 0.5 } });
// judges j and k: their first 6 verdicts by model-A, the next 6 by model-B (--on-config-change keep); c: one model
beforeAll(async () => {
  fake = await startFakeOpenAI(() => completion(REPLY));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-s29-mixed-"));
  await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge("j", "model-A"), judge("k", "model-A"), judge("c", "model-C")], limit: 6 });
  await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge("j", "model-B"), judge("k", "model-B"), judge("c", "model-C")], limit: 12, onConfigChange: "keep" });
}, 120_000);
afterAll(async () => {
  await fake?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const J = /judge "j": its verdicts/;
const K = /judge "k": its verdicts/;
const cli = async (...args: string[]) => {
  const r = await runCli([...args, "--run", "r", "--labels-dir", dir]);
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r.stdout + r.stderr;
};

describe("review s29: mixed-configuration warnings for the judges a command uses", () => {
  it("the run holds both judges' warnings; runStateFor keeps those of the judges given, and a warning naming none", () => {
    const st = readRunState(path.join(dir, "r"));
    expect(st.mixed_configurations.filter((w) => J.test(w))).toHaveLength(2); // 2 models, 2 configurations
    expect(st.mixed_configurations.filter((w) => K.test(w))).toHaveLength(2);
    expect(st.mixed_configurations).toHaveLength(4);
    expect(runStateFor(st, ["k", "c"]).mixed_configurations).toEqual(st.mixed_configurations.filter((w) => K.test(w)));
    expect(runStateFor(st, ["c"]).mixed_configurations).toEqual([]);
    expect(runStateFor(st, ["j", "k"])).toBe(st);
    const unknown = { ...st, mixed_configurations: ["mixed configurations not known: the last label run failed ..."] };
    expect(runStateFor(unknown, ["c"])).toBe(unknown);
  });

  it("agree --reference: --judge's warnings only; every judge's without it; --judges A,B: the pair's", async () => {
    const [c, k, all, pair] = await Promise.all([
      cli("agree", "--reference", "security", "--judge", "c"),
      cli("agree", "--reference", "security", "--judge", "k"),
      cli("agree", "--reference", "security"),
      cli("agree", "--judges", "c,k", "--bootstrap", "0"),
    ]);
    expect(c).not.toMatch(J);
    expect(c).not.toMatch(K);
    expect(k).toMatch(K);
    expect(k).not.toMatch(J);
    expect(all).toMatch(J);
    expect(all).toMatch(K);
    expect(pair).toMatch(/^WARNING: judge "k": its verdicts name 2 models \(model-A, model-B\)/m);
    expect(pair).not.toMatch(J);
  });

  it("compare and estimate: the judge whose labels they read; the committee is every judge's", async () => {
    const [cmpC, cmpJ, estK, estCommittee] = await Promise.all([
      cli("compare", "--judge", "c"),
      cli("compare", "--judge", "j"),
      cli("estimate", "--table", "--judge", "k"),
      cli("estimate", "--table", "--committee"),
    ]);
    expect(cmpC).not.toMatch(J);
    expect(cmpC).not.toMatch(K);
    expect(cmpJ).toMatch(J);
    expect(cmpJ).not.toMatch(K);
    expect(estK).toMatch(K);
    expect(estK).not.toMatch(J);
    expect(estCommittee).toMatch(J);
    expect(estCommittee).toMatch(K);
  });

  it("committee --exclude-judge: not the judge left out; agree then says the members of the committee row it shows", async () => {
    const without = await cli("committee", "--exclude-judge", "j", "--bootstrap", "0");
    expect(without).toMatch(K);
    expect(without).not.toMatch(J);
    // committee.jsonl of k and c: agree --judge c shows the committee row beside c, so k's mix is said, j's is not
    const agreeC = await cli("agree", "--reference", "security", "--judge", "c");
    expect(agreeC).toMatch(/^committee /m);
    expect(agreeC).toMatch(K);
    expect(agreeC).not.toMatch(J);
    const every = await cli("committee", "--bootstrap", "0");
    expect(every).toMatch(J);
    expect(every).toMatch(K);
  });

  it("report: every judge it shows (its --judge chooses the paper table only)", async () => {
    const out = path.join(dir, "r.html");
    const r = await runCli(["report", "--run", "r", "--labels-dir", dir, "--judge", "c", "--out", out, "--bootstrap", "0", "--max-items", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(J);
    expect(r.stderr).toMatch(K);
  });
});
