/**
 * `label --where` that keeps none of the trajectories read (break52 #8; src/cli/empty-input.ts `whereKeptNone`): exit 2,
 * "matches none of N", and no empty run left that reads as a labelled one; an existing run keeps its verdicts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { whereKeptNone } from "../../src/cli/empty-input.js";

const SAMPLES = path.resolve("samples/agentdojo/runs/gpt-4o-2024-05-13");

describe("label --where matching nothing", () => {
  it("a new run: exit 2, matches none of the trajectories read, no run folder written", async () => {
    const labels = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ipi-wnone-")), "labels");
    const r = await runCli(["label", SAMPLES, "--run", "n", "--labels-dir", labels, "--where", "suite=Banking"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--where suite=Banking matches none of the \d+ trajectories read: nothing was labelled \(check the field and its value\); no run folder was written/);
    expect(r.stderr).toMatch(/suite values: /);
    expect(fs.existsSync(path.join(labels, "n"))).toBe(false);
  }, 60_000);

  it("an existing run: exit 2, its verdicts kept, said so", async () => {
    const labels = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ipi-wnone-")), "labels");
    const first = await runCli(["label", SAMPLES, "--run", "r", "--labels-dir", labels, "--where", "suite=banking"]);
    expect(first.code, first.stderr).toBe(0);
    const before = fs.readFileSync(path.join(labels, "r", "verdicts.jsonl"), "utf8");
    const r = await runCli(["label", SAMPLES, "--run", "r", "--labels-dir", labels, "--where", "suite=Banking"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/matches none of the \d+ trajectories read: nothing was labelled .*; run r keeps the verdicts it held, nothing was added/);
    expect(fs.readFileSync(path.join(labels, "r", "verdicts.jsonl"), "utf8")).toBe(before);
    // --json: the error object every usage error gives, not a summary of 0 trajectories and no judges (break53 #7)
    const j = await runCli(["label", SAMPLES, "--run", "r", "--labels-dir", labels, "--where", "suite=Banking", "--json"]);
    expect(j.code).toBe(2);
    const out = JSON.parse(j.stdout);
    expect(out.trajectories).toBeUndefined();
    expect(out.error).toMatchObject({ exit_code: 2, kind: "usage" });
    expect(out.error.message).toMatch(/^--where suite=Banking matches none of the \d+ trajectories read: nothing was labelled .*; run r keeps the verdicts it held/);
  }, 90_000);

  it("whereKeptNone: only with --where, something read, none kept, not stopped", () => {
    const res = (read: number, kept: number, where: boolean, interrupted = false) => ({ thisRun: { read, kept, errors: 0, ...(where ? { where: {} } : {}) }, interrupted });
    expect(whereKeptNone(res(10, 0, true))).toBe(true);
    expect(whereKeptNone(res(10, 1, true))).toBe(false);
    expect(whereKeptNone(res(0, 0, true))).toBe(false);
    expect(whereKeptNone(res(10, 0, false))).toBe(false);
    expect(whereKeptNone(res(10, 0, true, true))).toBe(false);
  });
});
