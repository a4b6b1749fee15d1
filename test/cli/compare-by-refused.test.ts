/**
 * `compare --by suite` and `--by model` are refused with what to do instead (new user 24): suites hold different tasks
 * under the same ids, so "every suite covers the same 180 cells" was a false like-for-like claim, and the models are
 * already what compare sets side by side. Real runs: test/data/agentdyn-unexposed (NOTICE).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";

let tmp: string;
let labels: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-compare-by-"));
  labels = path.join(tmp, "labels");
  const r = await runCli(["label", path.join(DATA, "agentdyn-unexposed", "runs"), "--judge", "signature", "--run", "u", "--labels-dir", labels]);
  expect(r.code).toBe(0);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("compare --by a field that is not a condition", () => {
  it("suite: exit 2, said why and what to use", async () => {
    const r = await runCli(["compare", "--run", "u", "--labels-dir", labels, "--by", "suite"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--by suite: suites hold different tasks .*--where suite=<name>/);
  });
  it("model and agent_model: exit 2, said why", async () => {
    for (const f of ["model", "agent_model", "agent_family"]) {
      const r = await runCli(["compare", "--run", "u", "--labels-dir", labels, "--by", f, "--judge", "signature"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--by ${f}: the agent models are what compare sets side by side`);
    }
  });
  it("condition still works", async () => {
    expect((await runCli(["compare", "--run", "u", "--labels-dir", labels, "--bootstrap", "0"])).code).toBe(0);
  });
});
