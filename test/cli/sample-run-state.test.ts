/**
 * `sample` on a run whose labelling is not complete (break52 #6; src/cli/sample-run-state.ts): refused (exit 2) naming
 * the state and what would happen to the annotators' labels; `--allow-partial` draws with a WARNING on stdout and in
 * `--json`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { sampleRunState } from "../../src/cli/sample-run-state.js";
import type { RunState } from "../../src/store/run-state.js";

const SAMPLES = path.resolve("samples/agentdojo/runs/gpt-4o-2024-05-13");

describe("sample on a partial run", () => {
  it("refused after label --limit; drawn with --allow-partial, said on stdout and in --json", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-spart-"));
    const labels = path.join(dir, "labels");
    const l = await runCli(["label", SAMPLES, "--run", "p", "--labels-dir", labels, "--limit", "10"]);
    expect(l.code, l.stderr).toBe(0);
    const args = ["sample", "--run", "p", "--labels-dir", labels, "--random", "5", "--seed", "1", "--out", path.join(dir, "s")];
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/run p is not completely labelled \(state partial: partial run: .*--limit 10/);
    expect(r.stderr).toMatch(/population changed since sample.*pass --allow-partial/);
    expect(fs.existsSync(path.join(dir, "s"))).toBe(false);
    const a = await runCli([...args, "--allow-partial"]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout.split("\n")[0]).toMatch(/^WARNING: run incomplete: run p is not completely labelled \(state partial: .*drawn anyway \(--allow-partial\)/);
    const j = await runCli([...args, "--allow-partial", "--json"]);
    expect(j.code, j.stderr).toBe(0);
    const o = JSON.parse(j.stdout);
    expect(o.run_state).toMatchObject({ status: "partial", complete: false });
    expect(o.warnings[0]).toMatch(/^run incomplete: /);
  }, 120_000);

  it("a complete run: no state said", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-spart-"));
    const labels = path.join(dir, "labels");
    expect((await runCli(["label", SAMPLES, "--run", "c", "--labels-dir", labels])).code).toBe(0);
    const j = await runCli(["sample", "--run", "c", "--labels-dir", labels, "--random", "5", "--seed", "1", "--out", path.join(dir, "s"), "--json"]);
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout).run_state).toBeUndefined();
  }, 120_000);

  it("sampleRunState: null for complete or unknown; refused, or a warning with allowPartial", () => {
    const st = (status: RunState["status"], complete: boolean | null): RunState => ({ status, complete, message: complete === false ? "m" : null, label_state: null, lock: null, mixed_configurations: [] });
    expect(sampleRunState(st("complete", true), "r", false)).toBeNull();
    expect(sampleRunState(st("unknown", null), "r", false)).toBeNull();
    expect(() => sampleRunState(st("killed", false), "r", false)).toThrow(/state killed: m/);
    expect(sampleRunState(st("interrupted", false), "r", true)?.run_state).toEqual({ status: "interrupted", complete: false, message: "m" });
  });
});

describe("sample says unread inputs and moved inputs as the figure commands do (session 54 gap 4)", () => {
  it("input_errors a warning (stderr and --json); inputs that moved a note: on stdout and --json notes, not a warning", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ssaid-"));
    const labels = path.join(dir, "labels");
    const inp = path.join(dir, "in");
    fs.cpSync(SAMPLES, inp, { recursive: true });
    fs.writeFileSync(path.join(inp, "banking", "trunc.json"), '{"suite_name": "banking", "messages": [');
    expect((await runCli(["label", inp, "--judge", "signature", "--run", "m", "--labels-dir", labels])).code).toBe(0);
    const args = ["sample", "--run", "m", "--labels-dir", labels, "--random", "5", "--seed", "1", "--force"];
    const a = await runCli([...args, "--out", path.join(dir, "s1")]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/warning: input_errors: 1 input item of this run could not be read \(invalid_json 1\), as errors.jsonl stood/);
    const aj = JSON.parse((await runCli([...args, "--out", path.join(dir, "s1"), "--json"])).stdout);
    expect(aj.warnings.some((w: string) => w.startsWith("input_errors: 1 input item"))).toBe(true);
    expect(aj.notes).toBeUndefined();
    // the inputs moved: label again from the new folder
    fs.renameSync(inp, path.join(dir, "in2"));
    fs.rmSync(path.join(dir, "in2", "banking", "trunc.json"));
    expect((await runCli(["label", path.join(dir, "in2"), "--judge", "signature", "--run", "m", "--labels-dir", labels])).code).toBe(0);
    const b = await runCli([...args, "--out", path.join(dir, "s2")]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout.split("\n")[0]).toMatch(/^note: input_removed: the \d+ old ids of trajectories whose input moved .*no trajectory was lost$/);
    expect(b.stderr).not.toContain("input_removed");
    const bj = JSON.parse((await runCli([...args, "--out", path.join(dir, "s2"), "--json"])).stdout);
    expect(bj.notes).toEqual([expect.stringMatching(/^input_removed: .*no trajectory was lost$/)]);
    expect(bj.warnings.some((w: string) => w.includes("input_removed"))).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
