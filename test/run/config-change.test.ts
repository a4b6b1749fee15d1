/**
 * Issue 12 point 5: a changed judge is judged again (or the run refuses, naming what changed). The resume key
 * holds `judge_config_sha256` over everything that can change a verdict; fields that cannot (concurrency, rpm,
 * timeouts) do not change it; runs stored before the field existed resume only on an explicit choice.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { JudgeConfig } from "../../src/config/judges.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { JudgeConfigChangedError, labelRun, type LabelOptions } from "../../src/run/label.js";
import { dryRun } from "../../src/run/dry-run.js";
import { readVerdicts } from "../../src/store/run-store.js";
import { readRunState, runStateLine } from "../../src/store/run-state.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { runCli } from "../helpers/cli.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing happened" });

let fake: FakeOpenAI;
let dir: string;
beforeAll(async () => {
  fake = await startFakeOpenAI(() => completion(REPLY));
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cfg-"));
  return () => fs.rmSync(dir, { recursive: true, force: true });
});

const judge = (over: Partial<JudgeConfig> = {}) =>
  createOpenAIJudge(
    { id: "j", model: "model-A", family: "openai", base_url: fake.url, ...over },
    { retries: 0, minQuoteChars: 12, transport: { sleep: async () => undefined, random: () => 0.5 } },
  );
const run = (j: ReturnType<typeof judge>, extra: Partial<LabelOptions> = {}) =>
  labelRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [j], limit: 3, ...extra });
const storeJudges = () => JSON.parse(fs.readFileSync(path.join(dir, "r", "store.json"), "utf8")).judges as Array<{ id: string; model: string; judge_config_sha256?: string }>;

describe("issue 12.5: the resume key covers the judge's configuration", () => {
  it("relabelling with another model under the same id refuses, naming the change; nothing is judged or rewritten", async () => {
    await run(judge());
    const sent = fake.requests.length;
    const err = await run(judge({ model: "model-B" })).catch((e) => e);
    expect(err).toBeInstanceOf(JudgeConfigChangedError);
    expect(err.message).toMatch(/judge "j": 3 verdict\(s\).*another configuration/);
    expect(err.message).toMatch(/model: "model-A" -> "model-B"/);
    expect(err.message).toMatch(/--on-config-change rejudge/);
    expect(fake.requests.length).toBe(sent);
    expect(storeJudges()).toEqual([expect.objectContaining({ id: "j", model: "model-A" })]);
    // the refused invocation leaves the run as it was (a fresh user saw a complete run turn "failed")
    const st = JSON.parse(fs.readFileSync(path.join(dir, "r", "store.json"), "utf8")).label_state;
    expect(["complete", "limited"]).toContain(st.state);
    expect(readRunState(path.join(dir, "r")).status).not.toBe("failed");
  });

  it("--on-config-change rejudge judges every item again; verdicts and store.json agree on the model", async () => {
    await run(judge());
    const sent = fake.requests.length;
    const warnings: string[] = [];
    const res = await run(judge({ model: "model-B" }), { onConfigChange: "rejudge", onWarning: (w) => warnings.push(w) });
    expect(res.progress.judged).toBe(3);
    expect(fake.requests.length).toBe(sent + 3);
    expect(warnings.join("\n")).toMatch(/judged again under the new configuration/);
    const vs = await readVerdicts(res.runDir);
    expect(vs.map((v) => v.judge_model)).toEqual(["model-B", "model-B", "model-B"]);
    expect(storeJudges()).toEqual([expect.objectContaining({ model: "model-B", judge_config_sha256: vs[0].judge_config_sha256 })]);
    // resuming again with model-B judges nothing
    const again = await run(judge({ model: "model-B" }));
    expect(again.progress).toMatchObject({ judged: 0, skipped: 3 });
  });

  it("sampling, output mode, endpoint and extra_body count; concurrency, rpm and timeout do not", async () => {
    await run(judge());
    for (const [over, field] of [
      [{ temperature: 0.5 }, "temperature: 0 -> 0.5"],
      [{ output_mode: "text" }, "output_mode"],
      [{ max_tokens: 100 }, "max_tokens"],
      [{ extra_body: { seed: 3 } }, "extra_body"],
      [{ base_url: fake.url.replace("127.0.0.1", "localhost") }, "base_url"],
    ] as const) {
      const err = await run(judge(over as Partial<JudgeConfig>)).catch((e) => e);
      expect(err, field).toBeInstanceOf(JudgeConfigChangedError);
      expect(err.message).toContain(field);
    }
    const res = await run(judge({ concurrency: 9, rpm: 600, timeout_s: 5, api_key_env: undefined }));
    expect(res.progress).toMatchObject({ judged: 0, skipped: 3 });
  });

  it("headers, headers_env and query_env that can route a request are part of the key, never an environment value (red team 31 L4b)", async () => {
    const env = { ROUTE_VAR: "secret-route-value", OTHER_VAR: "x" };
    process.env.ROUTE_VAR = env.ROUTE_VAR;
    process.env.OTHER_VAR = env.OTHER_VAR;
    try {
      await run(judge({ headers: { "X-Deployment": "gpt-a" }, query_env: { "api-version": "ROUTE_VAR" } }));
      for (const [over, field] of [
        [{ headers: { "X-Deployment": "gpt-b" }, query_env: { "api-version": "ROUTE_VAR" } }, 'transport: {"headers":{"x-deployment":"gpt-a"},"query_env":{"api-version":"ROUTE_VAR"}} -> {"headers":{"x-deployment":"gpt-b"}'],
        [{ headers: { "X-Deployment": "gpt-a" }, query_env: { "api-version": "OTHER_VAR" } }, '"query_env":{"api-version":"OTHER_VAR"}'],
        [{ headers: { "X-Deployment": "gpt-a" } }, "transport:"],
      ] as const) {
        const err = await run(judge(over as Partial<JudgeConfig>)).catch((e) => e);
        expect(err, field).toBeInstanceOf(JudgeConfigChangedError);
        expect(err.message).toContain(field);
        expect(err.message).not.toContain("secret-route-value");
      }
      // unchanged: resumes; the stored config never holds an environment value
      const res = await run(judge({ headers: { "x-deployment": "gpt-a" }, query_env: { "api-version": "ROUTE_VAR" } }));
      expect(res.progress).toMatchObject({ judged: 0, skipped: 3 });
      expect(fs.readFileSync(path.join(dir, "r", "store.json"), "utf8")).not.toContain("secret-route-value");
    } finally {
      delete process.env.ROUTE_VAR;
      delete process.env.OTHER_VAR;
    }
  });

  it("a run stored before headers entered the key resumes with a warning, not a refusal (its verdicts keep their key)", async () => {
    await run(judge()); // stored as a build before transport was in the key stored a judge with headers:
    // store.json without config_key_version, as such a build wrote it
    const storeFile = path.join(dir, "r", "store.json");
    const snap = JSON.parse(fs.readFileSync(storeFile, "utf8"));
    for (const j of snap.judges) delete j.config_key_version;
    fs.writeFileSync(storeFile, JSON.stringify(snap));
    const warnings: string[] = [];
    const res = await run(judge({ headers: { "HTTP-Referer": "https://example.org" } }), { onWarning: (w) => warnings.push(w) });
    expect(res.progress).toMatchObject({ judged: 0, skipped: 3 });
    expect(warnings.join("\n")).toMatch(/judge "j": its verdicts in this run were stored before headers and query parameters entered the configuration key/);
    // the legacy key stays with the run (written back as version 1): a second resume is the same
    expect((await run(judge({ headers: { "HTTP-Referer": "https://example.org" } }))).progress).toMatchObject({ judged: 0, skipped: 3 });
    // a new run of the same judge gets today's key, and a later change of its headers is refused
    await run(judge({ headers: { "HTTP-Referer": "https://example.org" } }), { run: "fresh" });
    expect(await run(judge({ headers: { "HTTP-Referer": "https://other.org" } }), { run: "fresh" }).catch((e) => e)).toBeInstanceOf(JudgeConfigChangedError);
  });

  it("a run written by this build with no headers: adding headers or an api-version query is a change (red team 32 A)", async () => {
    await run(judge());
    // the dry run says what label would do: refuse
    const dry = await dryRun({ inputs: [SAMPLES], run: "r", labelsDir: dir, judges: [judge({ headers: { "X-Deployment": "other-model" } })], limit: 3 });
    expect(JSON.stringify(dry)).toMatch(/label would REFUSE/);
    expect(await run(judge({ headers: { "X-Deployment": "other-model" } })).catch((e) => e)).toBeInstanceOf(JudgeConfigChangedError);
    expect(await run(judge({ base_url: `${fake.url}?api-version=2099-01-01` })).catch((e) => e)).toBeInstanceOf(JudgeConfigChangedError);
  });

  it("retries and the minimum quote length are part of the key", async () => {
    await run(judge());
    const j2 = createOpenAIJudge({ id: "j", model: "model-A", family: "openai", base_url: fake.url }, { retries: 3, minQuoteChars: 12 });
    expect((await run(j2).catch((e) => e)).message).toMatch(/retries: 0 -> 3/);
    expect(await run(judge(), { minQuoteChars: 30 }).catch((e) => e)).toBeInstanceOf(JudgeConfigChangedError);
  });

  it("a run stored before judge_config_sha256 existed: refused with a clear message; keep or rejudge proceed", async () => {
    await run(judge());
    const file = path.join(dir, "r", "verdicts.jsonl");
    const old = fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => {
      const v = JSON.parse(l);
      delete v.judge_config_sha256;
      return JSON.stringify(v);
    });
    fs.writeFileSync(file, old.join("\n") + "\n");
    const storeFile = path.join(dir, "r", "store.json");
    const st = JSON.parse(fs.readFileSync(storeFile, "utf8"));
    for (const j of st.judges) delete j.judge_config_sha256, delete j.config;
    fs.writeFileSync(storeFile, JSON.stringify(st));

    const err = await run(judge()).catch((e) => e);
    expect(err).toBeInstanceOf(JudgeConfigChangedError);
    expect(err.message).toMatch(/3 of them stored without a configuration hash/);
    const sent = fake.requests.length;
    const kept = await run(judge(), { onConfigChange: "keep" });
    expect(kept.progress).toMatchObject({ judged: 0, skipped: 3 });
    expect(fake.requests.length).toBe(sent);
    const re = await run(judge(), { onConfigChange: "rejudge" });
    expect(re.progress).toMatchObject({ judged: 3 });
    // now every current verdict has the hash: a plain resume judges nothing
    expect((await run(judge())).progress).toMatchObject({ judged: 0, skipped: 3 });
  });

  it("--on-config-change keep: the summary warns that the judge's verdicts name several models", async () => {
    await run(judge());
    const res = await run(judge({ model: "model-B" }), { onConfigChange: "keep", limit: 5 });
    expect(res.progress).toMatchObject({ judged: 2, skipped: 3 });
    expect(res.summary.warnings.join("\n")).toMatch(/judge "j": its verdicts name 2 models \(model-A, model-B\)/);
    // every later command says it too, from the run's state (red team 28: agree, estimate and report did not)
    const state = readRunState(path.join(dir, "r"));
    expect(state.mixed_configurations.join("\n")).toMatch(/judge "j": its verdicts name 2 models \(model-A, model-B\).*\n.*judge "j": its verdicts in use were made under 2 different configurations/);
    expect(runStateLine(state)).toMatch(/^WARNING: judge "j": its verdicts name 2 models/m);
    for (const cmd of [["agree", "--reference", "security"], ["compare"], ["estimate", "--table"]]) {
      const r = await runCli([...cmd, "--run", "r", "--labels-dir", dir]);
      expect(r.stdout + r.stderr, cmd.join(" ")).toMatch(/its verdicts name 2 models \(model-A, model-B\)/);
    }
    const out = path.join(dir, "rep.html");
    const rep = await runCli(["report", "--run", "r", "--labels-dir", dir, "--out", out]);
    expect(rep.stderr).toMatch(/its verdicts name 2 models/);
    expect(fs.readFileSync(out, "utf8")).toMatch(/its verdicts name 2 models/);
  });

  it("the CLI refuses a changed judge with exit 2 and the message; --on-config-change rejudge proceeds", async () => {
    const cfg = (model: string) => {
      const f = path.join(dir, `${model}.json`);
      fs.writeFileSync(f, JSON.stringify({ retries: 0, judges: [{ id: "j", model, family: "openai", base_url: fake.url }] }));
      return f;
    };
    const args = (model: string) => ["label", SAMPLES, "--judges", cfg(model), "--run", "c", "--labels-dir", dir, "--limit", "2"];
    expect((await runCli(args("model-A"))).code).toBe(0);
    const r = await runCli(args("model-B"));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/judge "j": 2 verdict\(s\).*model: "model-A" -> "model-B".*--on-config-change rejudge/s);
    const ok = await runCli([...args("model-B"), "--on-config-change", "rejudge"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/judged again under the new configuration/);
  });
});
