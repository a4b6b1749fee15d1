/**
 * `label` on an input with no trajectory (src/cli/empty-input.ts): exit 2, and no run folder left behind when this
 * invocation created it (new user 44: exit 0 and an empty run folder); an existing run is left as it was.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { allInputBad, nothingFound, removeEmptyNewRun, removeNewRunFiles } from "../../src/cli/empty-input.js";

const SAMPLES = path.resolve("samples/agentdojo/runs/gpt-4o-2024-05-13");

describe("label on an empty input", () => {
  it("exits 2 and writes no run folder (nor the labels folder it would have created)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-empty-"));
    fs.mkdirSync(path.join(dir, "empty"));
    const labels = path.join(dir, "labels");
    const r = await runCli(["label", path.join(dir, "empty"), "--run", "e", "--labels-dir", labels]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no trajectory was found in .*empty: nothing was labelled \(check the path and --format\); no run folder was written/);
    expect(fs.existsSync(labels)).toBe(false);
    // --json: the same, nothing on stdout
    const j = await runCli(["label", path.join(dir, "empty"), "--run", "e", "--labels-dir", labels, "--json"]);
    expect([j.code, j.stdout]).toEqual([2, ""]);
  }, 60_000);

  it("an existing run given an empty input: exit 2, the run and its verdicts kept", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-empty-"));
    fs.mkdirSync(path.join(dir, "empty"));
    const labels = path.join(dir, "labels");
    const first = await runCli(["label", SAMPLES, "--run", "r", "--labels-dir", labels]);
    expect(first.code, first.stderr).toBe(0);
    const before = fs.readFileSync(path.join(labels, "r", "verdicts.jsonl"), "utf8");
    const r = await runCli(["label", path.join(dir, "empty"), "--run", "r", "--labels-dir", labels]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/no run folder was written/);
    expect(fs.readFileSync(path.join(labels, "r", "verdicts.jsonl"), "utf8")).toBe(before);
  }, 60_000);
});

describe("label on an empty input, --run naming a folder of the user's (break45)", () => {
  it("exits 2, removes the empty run files it wrote there, leaves the folder and the user's files", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-empty-"));
    fs.mkdirSync(path.join(dir, "empty"));
    const run = path.join(dir, "labels", "mine");
    fs.mkdirSync(run, { recursive: true });
    fs.writeFileSync(path.join(run, "notes.txt"), "mine");
    const r = await runCli(["label", path.join(dir, "empty"), "--run", "mine", "--labels-dir", path.join(dir, "labels")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the run files it wrote into .*mine \(a folder that was there before, holding no run\) were removed, the folder and its other files left/);
    expect(fs.readdirSync(run)).toEqual(["notes.txt"]);
  }, 60_000);
});

describe("nothingFound / removeEmptyNewRun", () => {
  const res = (read: number, errors = 0, empty = 0, interrupted = false) => ({ thisRun: { read, errors, empty_placeholders: empty }, interrupted });
  it("every item an input error (new user 48): none read, an error, not stopped; placeholders and inputs given twice are no errors", () => {
    expect(allInputBad(res(0, 4))).toBe(true);
    expect(allInputBad(res(1, 4))).toBe(false);
    expect(allInputBad(res(0, 0, 3))).toBe(false);
    expect(allInputBad(res(0, 4, 0, true))).toBe(false);
    expect(nothingFound({ thisRun: { read: 0, errors: 0, duplicate_inputs: 2 }, interrupted: false }, undefined)).toBe(false);
  });
  it("nothing read, no error, no placeholder, not stopped, no --limit 0", () => {
    expect(nothingFound(res(0), undefined)).toBe(true);
    expect(nothingFound(res(0), 0)).toBe(false);
    expect(nothingFound(res(1), undefined)).toBe(false);
    expect(nothingFound(res(0, 1), undefined)).toBe(false);
    expect(nothingFound(res(0, 0, 1), undefined)).toBe(false);
    expect(nothingFound(res(0, 0, 0, true), undefined)).toBe(false);
  });
  it("removes only a folder of the new run's empty files", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-empty-"));
    const run = path.join(dir, "labels", "r");
    fs.mkdirSync(run, { recursive: true });
    for (const f of ["store.json", "summary.json", "trajectories.jsonl", "verdicts.jsonl", "errors.jsonl"]) fs.writeFileSync(path.join(run, f), f.endsWith(".jsonl") ? "" : "{}");
    fs.writeFileSync(path.join(run, "verdicts.jsonl"), "{}\n");
    expect(removeEmptyNewRun(run, true)).toBe(false);
    fs.writeFileSync(path.join(run, "verdicts.jsonl"), "");
    fs.writeFileSync(path.join(run, "notes.txt"), "mine");
    expect(removeEmptyNewRun(run, true)).toBe(false);
    fs.rmSync(path.join(run, "notes.txt"));
    expect(removeEmptyNewRun(run, false)).toBe(true);
    expect(fs.existsSync(run)).toBe(false);
    expect(fs.existsSync(path.join(dir, "labels"))).toBe(true);
    expect(removeEmptyNewRun(run, true)).toBe(false);
  });
});

describe("removeNewRunFiles", () => {
  it("removes the new run files it is given when store.json is among them and the journals are empty; else nothing", () => {
    const run = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-empty-"));
    const all = ["store.json", "summary.json", "trajectories.jsonl", "verdicts.jsonl", "errors.jsonl"];
    const write = () => all.forEach((f) => fs.writeFileSync(path.join(run, f), f.endsWith(".jsonl") ? "" : "{}"));
    write();
    fs.writeFileSync(path.join(run, "notes.txt"), "mine");
    expect(removeNewRunFiles(run, all.filter((f) => f !== "store.json"))).toBe(false); // a run was there: left
    fs.writeFileSync(path.join(run, "verdicts.jsonl"), "{}\n");
    expect(removeNewRunFiles(run, all)).toBe(false); // a verdict stored: left
    write();
    expect(removeNewRunFiles(run, all)).toBe(true);
    expect(fs.readdirSync(run)).toEqual(["notes.txt"]);
  });
});
