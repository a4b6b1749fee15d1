/**
 * AgentDojo-based benchmarks (AgentDyn, AgentDojo's defense runs, VIGIL): real files vendored under test/data
 * (see test/data/NOTICE), and, when ../shared is present, every run of the three archives against their manifests.
 */
import { withInstructingDescriptions } from "../../src/serialize/instructing.js";
import { decideSurfaces } from "../../src/serialize/surface.js";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attributeRun } from "../../src/ingest/attribution.js";
import { readTrajectories, type IngestItem, type IngestWarning } from "../../src/ingest/index.js";
import type { IngestError, Trajectory } from "../../src/types.js";
import { DATA, sharedCorpus } from "../helpers/paths.js";

async function readAll(paths: string[], opts: Parameters<typeof readTrajectories>[1] = {}) {
  const trajectories: Trajectory[] = [];
  const errors: IngestError[] = [];
  const warnings: IngestWarning[] = [];
  for await (const it of readTrajectories(paths, { ...opts, onWarning: (w) => warnings.push(w) }) as AsyncIterable<IngestItem>) {
    if (it.kind === "trajectory") trajectories.push(it.trajectory);
    else errors.push(it.error);
  }
  return { trajectories, errors, warnings };
}
const byId = (ts: Trajectory[], id: string) => {
  const t = ts.find((x) => x.id === id);
  if (!t) throw new Error(`no trajectory ${id} among ${ts.map((x) => x.id).join(", ")}`);
  return t;
};

describe("attributeRun: model and defense from folder and pipeline_name together", () => {
  it("AgentDojo convention: folder = pipeline = <model>-<known defense>", () => {
    expect(attributeRun("gpt-4o-2024-05-13-tool_filter", "gpt-4o-2024-05-13-tool_filter")).toMatchObject({ model: "gpt-4o-2024-05-13", defense: "tool_filter" });
    expect(attributeRun("gpt-4o-2024-05-13", "gpt-4o-2024-05-13")).toEqual({ model: "gpt-4o-2024-05-13", rule: "folder=pipeline" });
  });
  it("Llama: pipeline local or local-<defense>, the folder gives the model", () => {
    expect(attributeRun("meta-llama_Llama-3.3-70B-Instruct", "local")).toEqual({ model: "meta-llama_Llama-3.3-70B-Instruct", rule: "folder" });
    const r = attributeRun("meta-llama_Llama-3.3-70B-Instruct-repeat_user_prompt", "local-repeat_user_prompt");
    expect(r).toMatchObject({ model: "meta-llama_Llama-3.3-70B-Instruct", defense: "repeat_user_prompt" });
    expect(r.warning).toBeUndefined();
    // a defense no list knows, named by the pipeline
    expect(attributeRun("meta-llama_Llama-3.3-70B-Instruct-my_guard", "local-my_guard")).toMatchObject({ model: "meta-llama_Llama-3.3-70B-Instruct", defense: "my_guard" });
    expect(attributeRun("meta-llama_Llama-3.3-70B-Instruct", "local-my_guard").warning).toMatch(/does not end with the defense "my_guard"/);
  });
  it("AgentDyn DRIFT/Progent: pipeline is the bare model, the folder adds the defense (any name)", () => {
    expect(attributeRun("gpt-4o-2024-08-06-drift", "gpt-4o-2024-08-06")).toMatchObject({ model: "gpt-4o-2024-08-06", defense: "drift" });
    expect(attributeRun("gpt-4o-2024-08-06-brand-new", "gpt-4o-2024-08-06")).toMatchObject({ model: "gpt-4o-2024-08-06", defense: "brand-new" });
  });
  it("an unknown defense folder = pipeline is split at a sibling model folder, without a warning", () => {
    const r = attributeRun("gpt-4o-2024-08-06-newdetector", "gpt-4o-2024-08-06-newdetector", ["gpt-4o-2024-08-06", "gpt-4o-2024-08-06-newdetector", "gpt-4o"]);
    expect(r).toMatchObject({ model: "gpt-4o-2024-08-06", defense: "newdetector", rule: "sibling" });
    expect(r.warning).toBeUndefined();
  });
  it("an unknown snake_case suffix with no sibling is a guess with a warning naming the folder and the override", () => {
    const r = attributeRun("gpt-4o-2024-08-06-my_new_filter", "gpt-4o-2024-08-06-my_new_filter", []);
    expect(r).toMatchObject({ model: "gpt-4o-2024-08-06", defense: "my_new_filter", rule: "inferred" });
    expect(r.warning).toMatch(/gpt-4o-2024-08-06-my_new_filter.*--model.*--condition/);
    // model names are not cut
    expect(attributeRun("qwen_qwen3-235b-a22b-2507", "qwen_qwen3-235b-a22b-2507")).toEqual({ model: "qwen_qwen3-235b-a22b-2507", rule: "folder=pipeline" });
  });
  it("folder and pipeline that disagree: the pipeline names the model, with a warning", () => {
    const r = attributeRun("some-folder", "claude-3-5-sonnet-20240620");
    expect(r.model).toBe("claude-3-5-sonnet-20240620");
    expect(r.warning).toMatch(/disagree/);
  });
});

describe("AgentDyn runs (vendored)", () => {
  const root = path.join(DATA, "agentdyn");
  let res: Awaited<ReturnType<typeof readAll>>;
  beforeAll(async () => {
    res = await readAll([root]);
  });
  it("every file is read; no errors", () => {
    expect(res.errors).toEqual([]);
    expect(res.trajectories).toHaveLength(9);
  });
  it("defense folders with any name are conditions of the one model, not models", () => {
    const models = new Set(res.trajectories.map((t) => t.agent_model));
    expect([...models].sort()).toEqual(["gpt-4o-2024-08-06", "gpt-5-mini-2025-08-07", "meta-llama_llama-3.3-70b-instruct"]);
    const cond = (id: string) => byId(res.trajectories, id).condition;
    expect(cond("gpt-4o-2024-08-06-drift/github/user_task_16/important_instructions/injection_task_6")).toBe("drift");
    expect(cond("gpt-4o-2024-08-06-progent/github/user_task_0/important_instructions/injection_task_0")).toBe("progent");
    expect(cond("gpt-4o-2024-08-06-piguard_detector/shopping/user_task_6/important_instructions/injection_task_2")).toBe("piguard_detector");
    expect(cond("gpt-4o-2024-08-06-prompt_guard_2_detector/github/injection_task_4/none/none")).toBe("prompt_guard_2_detector");
    expect(cond("gpt-4o-2024-08-06/shopping/user_task_0/important_instructions/injection_task_5")).toBe("no_defense");
    expect(cond("meta-llama_llama-3.3-70b-instruct-tool_filter/shopping/user_task_6/important_instructions/injection_task_6")).toBe("tool_filter");
  });
  it("DRIFT: no system message, no injections, tagged text kept verbatim, unexecuted calls counted", () => {
    const t = byId(res.trajectories, "gpt-4o-2024-08-06-drift/github/user_task_16/important_instructions/injection_task_6");
    expect(t.messages[0].role).toBe("user");
    expect(t.injections).toEqual({});
    expect(t.attack).toBe("important_instructions");
    expect(t.metadata).toMatchObject({ log_schema: "drift", pipeline_name: "gpt-4o-2024-08-06", attribution: "pipeline+folder" });
    expect(t.messages.some((m) => m.role === "assistant" && m.text.includes("<function_call>"))).toBe(true);
    expect(t.metadata?.unparsed_tool_calls).toBeGreaterThan(0);
    // ingest borrows nothing (one file at a time): `label` takes the text from sibling runs (run/siblings.ts), and says so
    expect(res.warnings.filter((w) => w.kind === "no_injections").map((w) => path.basename(w.path))).toEqual(["gpt-4o-2024-08-06-drift"]);
  });
  it("Progent: a blocked call is a tool message with empty text and the error, counted", () => {
    const t = byId(res.trajectories, "gpt-4o-2024-08-06-progent/github/user_task_0/important_instructions/injection_task_0");
    const blocked = t.messages.filter((m) => m.role === "tool" && m.text === "" && /not allowed/.test(m.error ?? ""));
    expect(blocked.length).toBeGreaterThan(0);
    expect(t.metadata?.blocked_calls).toBe(blocked.length);
  });
  it("detectors: the placeholder is kept as the tool's text and counted", () => {
    const t = byId(res.trajectories, "gpt-4o-2024-08-06-piguard_detector/shopping/user_task_6/important_instructions/injection_task_2");
    expect(t.messages.some((m) => m.text === "<Data omitted because a prompt injection was detected>")).toBe(true);
    expect(t.metadata?.detector_omitted_outputs).toBeGreaterThan(0);
    expect(Object.values(decideSurfaces(t).surfaces)).toContain("tool_output");
  });
  it("injection_task_N/none/none.json runs are unattacked; a run without a verdict is named in one warning per folder", () => {
    const t = byId(res.trajectories, "gpt-4o-2024-08-06/github/injection_task_1/none/none");
    expect(t.attack).toBeUndefined();
    expect(t.injections).toEqual({});
    const nv = byId(res.trajectories, "gpt-5-mini-2025-08-07-tool_filter/shopping/user_task_0/none/none");
    expect(nv.reference).toBeUndefined();
    expect(nv.condition).toBe("tool_filter");
    const w = res.warnings.filter((x) => x.kind === "no_verdict");
    expect(w).toHaveLength(1);
    expect(w[0].path).toMatch(/gpt-5-mini-2025-08-07-tool_filter$/);
    expect(w[0].count).toBe(1);
  });
  it("content blocks become text; attacked runs have tool_output surfaces for their placeholders", () => {
    const t = byId(res.trajectories, "gpt-4o-2024-08-06/shopping/user_task_0/important_instructions/injection_task_5");
    expect(t.messages.every((m) => typeof m.text === "string")).toBe(true);
    expect(t.surfaces).toBeUndefined(); // the format does not record it: code decides it
    expect(Object.keys(decideSurfaces(t).surfaces)).toEqual(Object.keys(t.injections));
    expect(Object.values(decideSurfaces(t).surfaces)).toEqual(Object.keys(t.injections).map(() => "tool_output"));
  });
  it("--model / --condition overrides replace what the folders say and keep the original in metadata", async () => {
    const r = await readAll([path.join(root, "runs", "gpt-4o-2024-08-06-drift")], { overrides: { agent_model: "my-model", condition: "my_defense" } });
    expect(r.trajectories[0]).toMatchObject({ agent_model: "my-model", condition: "my_defense" });
    expect(r.trajectories[0].agent_family).toBeUndefined();
    expect(r.trajectories[0].metadata).toMatchObject({ original_agent_model: "gpt-4o-2024-08-06", original_condition: "drift" });
  });
});

describe("an unknown defense name in a corpus (copied real files)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "ipi-defense-"));
    const src = path.join(DATA, "agentdyn", "runs", "gpt-4o-2024-08-06-piguard_detector", "shopping", "user_task_6", "important_instructions", "injection_task_2.json");
    const base = path.join(DATA, "agentdyn", "runs", "gpt-4o-2024-08-06", "shopping", "user_task_0", "important_instructions", "injection_task_5.json");
    for (const [folder, file, pipeline] of [
      ["gpt-4o-2024-08-06-shieldx", src, "gpt-4o-2024-08-06-shieldx"],
      ["gpt-4o-2024-08-06", base, "gpt-4o-2024-08-06"],
      ["claude-x-1-secret_sauce", src, "claude-x-1-secret_sauce"],
    ] as const) {
      const data = JSON.parse(readFileSync(file, "utf8"));
      data.pipeline_name = pipeline;
      const rel = path.relative(path.join(DATA, "agentdyn", "runs"), file).split(path.sep).slice(1);
      const out = path.join(dir, "runs", folder, ...rel);
      await mkdir(path.dirname(out), { recursive: true });
      await writeFile(out, JSON.stringify(data));
    }
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  it("splits at the sibling model folder silently, and warns once per folder when it must guess", async () => {
    const r = await readAll([dir]);
    expect(r.errors).toEqual([]);
    const m = Object.fromEntries(r.trajectories.map((t) => [t.metadata?.model_dir, [t.agent_model, t.condition]]));
    expect(m["gpt-4o-2024-08-06-shieldx"]).toEqual(["gpt-4o-2024-08-06", "shieldx"]);
    expect(m["claude-x-1-secret_sauce"]).toEqual(["claude-x-1", "secret_sauce"]);
    const att = r.warnings.filter((w) => w.kind === "attribution");
    expect(att).toHaveLength(1);
    expect(att[0].message).toMatch(/claude-x-1-secret_sauce/);
  });
});

describe("AgentDojo defense runs (vendored)", () => {
  it("Llama's local-<defense> pipeline: model from the folder, defense from both; raw <function=...> text kept and counted", async () => {
    const r = await readAll([path.join(DATA, "agentdojo-defenses")]);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    const llama = r.trajectories.find((t) => t.metadata?.pipeline_name === "local-repeat_user_prompt")!;
    expect(llama).toMatchObject({ agent_model: "meta-llama_Llama-3.3-70B-Instruct", agent_family: "meta", condition: "repeat_user_prompt" });
    expect(llama.metadata?.unparsed_tool_calls).toBeGreaterThan(0);
    const det = r.trajectories.find((t) => t.condition === "transformers_pi_detector")!;
    expect(det.agent_model).toBe("gpt-4o-2024-05-13");
    expect(det.metadata?.detector_omitted_outputs).toBeGreaterThan(0);
  });
});

describe("VIGIL runs (vendored)", () => {
  const root = path.join(DATA, "vigil");
  let res: Awaited<ReturnType<typeof readAll>>;
  beforeAll(async () => {
    res = await readAll([root]);
  });
  it("empty placeholders are one error kind; every real run is read", () => {
    expect(res.errors.map((e) => e.kind)).toEqual(["empty_placeholder"]);
    expect(res.trajectories).toHaveLength(8);
    expect(res.trajectories.every((t) => t.agent_model === "qwen3-max" && t.condition === "no_defense")).toBe(true);
  });
  it("a trusted malicious_tool_docstring becomes the tool's description and a tool_description injection", () => {
    const t = byId(res.trajectories, "qwen3-max/slack/user_task_0/tool_attack/injection_task_2400");
    const raw = JSON.parse(readFileSync(path.join(root, "runs_base", t.id + ".json"), "utf8"));
    expect(t.tools).toEqual([{ name: raw.malicious_tool_name, description: raw.malicious_tool_docstring }]);
    const key = `tool_description:${raw.malicious_tool_name}`;
    expect(t.injections).toEqual({ [key]: raw.malicious_tool_docstring });
    expect(t.surfaces).toEqual({ [key]: "tool_description" });
    expect(t.attack).toBe("tool_attack");
    const po = byId(res.trajectories, "qwen3-max/travel/user_task_3/parameter_override/injection_task_3103");
    expect(po.tools).toHaveLength(1);
    expect(Object.values(po.surfaces ?? {})).toEqual(["tool_description"]);
  });
  it("a recorded tool the agent never called is stale: not in tools, warned once per folder", () => {
    const t = byId(res.trajectories, "qwen3-max/slack/user_task_7/prerequisite_dependency/injection_task_2207");
    expect(t.tools).toBeUndefined();
    expect(t.injections).toEqual({});
    expect(t.surfaces).toEqual({ "vigil:prerequisite_dependency": "tool_description" });
    expect(t.metadata?.malicious_tool_recorded).toMatchObject({ called: false });
    const stale = res.warnings.filter((w) => w.kind === "stale_tool_record");
    expect(stale.map((w) => [path.relative(root, w.path), w.count]).sort()).toEqual([
      ["debug_run/travel/type_ii_a/qwen3-max", 1],
      ["runs_base/qwen3-max", 1],
    ]);
  });
  it("sop_exfiltration is a tool_output attack; runs without a verdict have no reference", () => {
    const t = byId(res.trajectories, "qwen3-max/banking/user_task_3/sop_exfiltration/injection_task_1504");
    expect(Object.values(t.surfaces ?? {})).toEqual(["tool_output"]);
    const nv = byId(res.trajectories, "qwen3-max/banking/user_task_2/tool_attack/injection_task_1302");
    expect(nv.reference).toBeUndefined();
  });
  it("the debug_run pair with the same layout id: both read, the later one keeps its longer path as id", () => {
    const ids = res.trajectories.map((t) => t.id).filter((id) => id.includes("injection_task_233"));
    expect(ids.sort()).toEqual([
      "debug_run/travel/type_ii_a/qwen3-max/travel/user_task_13/tool_attack/injection_task_233",
      "qwen3-max/travel/user_task_13/tool_attack/injection_task_233",
    ]);
    expect(res.warnings.filter((w) => w.kind === "id_collision")).toHaveLength(1);
  });
  it("the same file given twice is still a duplicate, not a collision", async () => {
    const f = path.join(root, "runs_base", "qwen3-max", "slack", "user_task_0", "tool_attack", "injection_task_2400.json");
    const r = await readAll([f, f]);
    expect(r.errors.map((e) => e.kind)).toEqual(["duplicate_input"]);
  });
});

/** Unpack a shared archive once per test process under the OS temp folder. */
function unpack(archive: string, name: string): string {
  const dest = path.join(os.tmpdir(), `ipi-judge-test-${name}`);
  if (!existsSync(path.join(dest, name))) {
    mkdirSync(dest, { recursive: true });
    execFileSync("tar", ["-xzf", archive, "-C", dest]);
  }
  return path.join(dest, name);
}

interface ManifestRow {
  path: string;
  defense?: string | null;
  attack_type?: string | null;
  security?: boolean | null;
}

/** Every trajectory of a read whose manifest row disagrees with it (condition, attack, security). */
function manifestMismatches(root: string, ts: Trajectory[]): { rows: number; bad: string[] } {
  const by = new Map(ts.map((t) => [path.resolve(t.source.path), t]));
  const rows = readFileSync(path.join(root, "manifest.jsonl"), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as ManifestRow);
  const bad: string[] = [];
  for (const m of rows) {
    const t = by.get(path.resolve(root, m.path));
    if (!t) {
      bad.push(`${m.path}: not read`);
      continue;
    }
    if ("defense" in m && (m.defense ?? "no_defense") !== t.condition) bad.push(`${m.path}: condition ${t.condition}, manifest ${m.defense}`);
    if ("attack_type" in m && (m.attack_type ?? undefined) !== t.attack) bad.push(`${m.path}: attack ${t.attack}, manifest ${m.attack_type}`);
    if ("security" in m && (m.security ?? undefined) !== t.reference?.security) bad.push(`${m.path}: security differs`);
  }
  return { rows: rows.length, bad };
}

const dyn = sharedCorpus("agentdyn.tgz");
describe.skipIf(dyn.skip)("the whole AgentDyn archive", () => {
  it("10,018 runs: 5 models, the 8 defenses of gpt-4o as conditions, no errors", async () => {
    const r = await readAll([unpack(dyn.path, "agentdyn")]);
    expect(r.errors).toEqual([]);
    expect(r.trajectories).toHaveLength(10018);
    const models = new Set(r.trajectories.map((t) => t.agent_model));
    expect(models.size).toBe(5);
    const gpt4o = new Set(r.trajectories.filter((t) => t.agent_model === "gpt-4o-2024-08-06").map((t) => t.condition));
    expect([...gpt4o].sort()).toEqual(["drift", "no_defense", "piguard_detector", "progent", "prompt_guard_2_detector", "repeat_user_prompt", "spotlighting_with_delimiting", "tool_filter", "transformers_pi_detector"]);
    expect(r.warnings.filter((w) => w.kind === "attribution")).toEqual([]);
    expect(r.warnings.filter((w) => w.kind === "no_verdict").reduce((a, w) => a + w.count, 0)).toBe(5);
  }, 300_000);
});

const def = sharedCorpus("agentdojo-defenses.tgz");
describe.skipIf(def.skip)("the whole AgentDojo defenses archive", () => {
  it("3,268 runs, condition/attack/security as the manifest says", async () => {
    const root = unpack(def.path, "agentdojo-defenses");
    const r = await readAll([path.join(root, "runs")]);
    expect(r.errors).toEqual([]);
    expect(r.trajectories).toHaveLength(3268);
    expect(manifestMismatches(root, r.trajectories)).toEqual({ rows: 3268, bad: [] });
  }, 300_000);
});

const vig = sharedCorpus("vigil.tgz");
describe.skipIf(vig.skip)("the whole VIGIL archive", () => {
  it("446 runs as the manifest says; the 8,023 placeholders are one error kind", async () => {
    const root = unpack(vig.path, "vigil");
    const r = await readAll([path.join(root, "runs_base"), path.join(root, "debug_run")]);
    expect(r.trajectories).toHaveLength(446);
    expect(r.errors).toHaveLength(8023);
    expect(new Set(r.errors.map((e) => e.kind))).toEqual(new Set(["empty_placeholder"]));
    expect(manifestMismatches(root, r.trajectories)).toEqual({ rows: 446, bad: [] });
    expect(r.trajectories.filter((t) => t.reference === undefined)).toHaveLength(31);
    expect(r.trajectories.filter((t) => t.tools?.length).length).toBe(88);
    // new user 26: the one sop_exfiltration run that records its tool's description (VIGIL records it only when the
    // attack succeeded) kept that description as its injection, so its surface followed its outcome
    const sop = r.trajectories.filter((t) => t.attack === "sop_exfiltration").map(withInstructingDescriptions);
    expect(sop).toHaveLength(66);
    expect(sop.filter((t) => t.tools?.length)).toHaveLength(2);
    expect(sop.every((t) => Object.values(t.surfaces ?? {}).every((s) => s === "tool_output") && Object.keys(t.injections).length === 0)).toBe(true);
  }, 300_000);
});
