/**
 * break54 #1: input files that could not be read are in no figure, and every command that prints figures says so
 * (`input_errors`, src/store/run-state.ts), not only `label` 57 lines down its summary. The bundled 82 AgentDojo runs
 * with two attacked files cut short (as a killed agent run or a full disk leaves them).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrapText } from "../../src/format/wrap-text.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-input-errors-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const SAID = /input_errors: 2 input items of this run could not be read \(invalid_json 2\), as errors.jsonl stood at the last label run .*?, and are in no figure/;

/** The AgentDojo attacked-run files under `dir`, in path order. */
function injectionFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)))
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (/^injection_task_\d+\.json$/.test(e.name)) files.push(path.join(d, e.name));
  };
  walk(dir);
  return files;
}

beforeAll(async () => {
  fs.cpSync(path.join(SAMPLES, "runs"), path.join(tmp, "runs"), { recursive: true });
  for (const f of injectionFiles(path.join(tmp, "runs")).slice(0, 2)) {
    const b = fs.readFileSync(f);
    fs.writeFileSync(f, b.subarray(0, Math.floor((b.length * 2) / 3)));
  }
  const r = await runCli(["label", "runs", "--run", "t"], { cwd: tmp });
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

describe("unread input files are said by every command that prints figures (break54 #1)", () => {
  it.each([
    ["estimate --table", ["estimate", "--run", "t", "--table"]],
    ["agree --reference", ["agree", "--run", "t", "--reference", "security"]],
    ["compare", ["compare", "--run", "t", "--by", "attack"]],
    ["report", ["report", "--run", "t", "--out", "r.html"]],
  ])("%s", async (_name, args) => {
    const r = await runCli(args, { cwd: tmp });
    expect(r.code, r.stderr).toBeLessThan(2);
    expect(unwrapText(r.stdout + r.stderr)).toMatch(SAID);
  });

  it("report --json carries it in its run state and its warnings; the HTML names it among the caveats", async () => {
    const r = await runCli(["report", "--run", "t", "--out", "r2.html", "--json"], { cwd: tmp });
    expect(r.code, r.stderr).toBeLessThan(2);
    const j = JSON.parse(r.stdout);
    expect(j.run_state.input_errors).toMatch(SAID);
    expect(fs.readFileSync(path.join(tmp, "r2.html"), "utf8")).toMatch(/Unread inputs/);
  });

  it("a run with no unreadable input says nothing of the kind", async () => {
    const r = await runCli(["label", path.join(SAMPLES, "runs"), "--run", "clean"], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    const e = await runCli(["estimate", "--run", "clean", "--table"], { cwd: tmp });
    expect(e.stdout + e.stderr).not.toMatch(/input_errors/);
  });
});

describe("a benchmark verdict changed in the input is no unread item (rev2b #5)", () => {
  it("agree after a flipped security verdict and a relabel says no input_errors", async () => {
    fs.cpSync(path.join(SAMPLES, "runs"), path.join(tmp, "ref"), { recursive: true });
    expect((await runCli(["label", "ref", "--run", "ref"], { cwd: tmp })).code).toBe(0);
    const f = injectionFiles(path.join(tmp, "ref"))[0];
    const j = JSON.parse(fs.readFileSync(f, "utf8"));
    j.security = !j.security;
    fs.writeFileSync(f, JSON.stringify(j, null, 2));
    const again = await runCli(["label", "ref", "--run", "ref"], { cwd: tmp });
    expect(again.code, again.stderr).toBe(0);
    expect(fs.readFileSync(path.join(tmp, "labels", "ref", "errors.jsonl"), "utf8")).toMatch(/reference_changed/);
    const a = await runCli(["agree", "--run", "ref", "--reference", "security"], { cwd: tmp });
    expect(a.code, a.stderr).toBeLessThan(2);
    expect(a.stdout + a.stderr).not.toMatch(/input_errors/);
  });
});

describe("a fixed file's error goes from every command (rev2a #3)", () => {
  it("an AgentDojo file with a bad UTF-8 byte (an error naming its line), restored and labelled again: no input_errors", async () => {
    fs.cpSync(path.join(SAMPLES, "runs"), path.join(tmp, "utf"), { recursive: true });
    const f = injectionFiles(path.join(tmp, "utf"))[0];
    const good = fs.readFileSync(f);
    const nl = good.indexOf(10, good.indexOf(10) + 1);
    fs.writeFileSync(f, Buffer.concat([good.subarray(0, nl + 1), Buffer.from([0xff, 0xfe]), good.subarray(nl + 1)]));
    expect((await runCli(["label", "utf", "--run", "utf"], { cwd: tmp })).code).toBe(0);
    const bad = await runCli(["estimate", "--run", "utf", "--table"], { cwd: tmp });
    expect(unwrapText(bad.stdout + bad.stderr)).toMatch(/input_errors: 1 input item of this run could not be read/);
    fs.writeFileSync(f, good);
    const again = await runCli(["label", "utf", "--run", "utf"], { cwd: tmp });
    expect(again.code, again.stderr).toBe(0);
    const e = await runCli(["estimate", "--run", "utf", "--table"], { cwd: tmp });
    expect(e.stdout + e.stderr).not.toMatch(/input_errors/);
  });
});
