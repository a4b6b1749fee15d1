/**
 * Review 16 item 5: the summary's empty-placeholder count is over the placeholder files that exist; the gone ones
 * (deleted with their suite, whose runs left the figures as input_removed) are said apart, and one file recorded under
 * two spellings (labelled from two directories) is counted once.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitGonePlaceholders, withGonePlaceholders } from "../../src/run/gone-placeholders.js";
import type { IngestError } from "../../src/types.js";

let dir: string;
let cwd: string;
beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ipi-gone-ph-")));
  fs.mkdirSync(path.join(dir, "runs", "a"), { recursive: true });
  fs.writeFileSync(path.join(dir, "runs", "a", "p1.json"), '{"messages": []}');
  cwd = process.cwd();
  process.chdir(dir);
});
afterAll(() => {
  process.chdir(cwd);
  fs.rmSync(dir, { recursive: true, force: true });
});

const ph = (p: string): IngestError => ({ path: p, kind: "empty_placeholder", message: "empty" });

describe("splitGonePlaceholders", () => {
  it("counts present files, takes out gone ones (absolute, or relative under the inputs), keeps other errors", () => {
    const errors = [ph("runs/a/p1.json"), ph("runs/a/gone.json"), ph(path.join(dir, "runs", "b", "gone.json")), { path: "runs/a/x.json", kind: "invalid_json", message: "bad" }];
    const g = splitGonePlaceholders(errors, ["runs"]);
    expect(g.kept.map((e) => e.path)).toEqual(["runs/a/p1.json", "runs/a/x.json"]);
    expect(g.gone).toEqual(["runs/a/gone.json", path.join(dir, "runs", "b", "gone.json")]);
    expect(g.unchecked).toBe(0);
    const s = withGonePlaceholders({ empty_placeholders: 1, examples: ["runs/a/p1.json"], message: "skipped: empty placeholders 1 (...)" }, g);
    expect(s?.gone).toBe(2);
    expect(s?.message).toContain("2 more recorded by an earlier invocation are not counted: their files no longer exist");
  });

  it("a relative path outside the inputs, not found from here, stays counted and is said unchecked", () => {
    const g = splitGonePlaceholders([ph("elsewhere/q.json")], ["runs"]);
    expect(g.kept).toHaveLength(1);
    expect(g.unchecked).toBe(1);
    expect(withGonePlaceholders(undefined, g)?.message).toContain("could not be checked");
  });

  it("one file recorded from two directories (relative from one, absolute from another) is counted once", () => {
    const g = splitGonePlaceholders([ph("a/p1.json"), ph(path.join(dir, "runs", "a", "p1.json"))], [path.join(dir, "runs")]);
    expect(g.kept.map((e) => e.path)).toEqual([path.join(dir, "runs", "a", "p1.json")]);
    expect(g.same).toBe(1);
  });

  it("every placeholder gone: a statement of 0 that says so", () => {
    const s = withGonePlaceholders(undefined, splitGonePlaceholders([ph("runs/a/gone.json")], ["runs"]));
    expect(s?.empty_placeholders).toBe(0);
    expect(s?.message).toMatch(/^skipped: empty placeholders 0 \(1 more recorded/);
  });
});

describe("label: placeholders deleted since are not counted (the CLI, review 16 item 5)", () => {
  it("label, delete two placeholder files, label again: the count is the present ones', the gone said", async () => {
    const { runCli } = await import("../helpers/cli.js");
    const { SAMPLES } = await import("../helpers/paths.js");
    const copy = path.join(dir, "copy");
    fs.cpSync(SAMPLES, copy, { recursive: true });
    const at = path.join(copy, "runs", "m-ph", "workspace", "user_task_0", "important_instructions");
    fs.mkdirSync(at, { recursive: true });
    for (const i of [1, 2, 3]) fs.writeFileSync(path.join(at, `injection_task_${i}.json`), JSON.stringify({ messages: [], injections: {} }));
    const labels = path.join(dir, "labels");
    const first = JSON.parse((await runCli(["label", copy, "--run", "p", "--labels-dir", labels, "--json"])).stdout);
    expect(first.summary?.skipped?.empty_placeholders ?? first.skipped?.empty_placeholders).toBe(3);
    fs.rmSync(path.join(at, "injection_task_1.json"));
    fs.rmSync(path.join(at, "injection_task_2.json"));
    const again = JSON.parse((await runCli(["label", copy, "--run", "p", "--labels-dir", labels, "--json"])).stdout);
    const skipped = again.summary?.skipped ?? again.skipped;
    expect(skipped.empty_placeholders).toBe(1);
    expect(skipped.gone).toBe(2);
  }, 120_000);
});
