/**
 * A run folder with broken journal lines: agree and label (resume) each print one warning per file on stderr naming
 * the lines skipped (and `agree --json` lists it in `warnings`); the cut verdict is judged again and that is said.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

let labels: string;
let file: string;
beforeAll(async () => {
  labels = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-journal-warn-"));
  const first = await runCli(["label", SAMPLES, "--run", "r", "--labels-dir", labels, "--json"]);
  expect(first.code).toBe(0);
  expect(first.stderr).not.toMatch(/lines? skipped/);
  file = path.join(labels, "r", "verdicts.jsonl");
  const lines = fs.readFileSync(file, "utf8").split("\n");
  lines[4] = lines[4].slice(0, Math.floor(lines[4].length / 2)); // a verdict cut mid-file: line 5
  lines.splice(2, 0, "{garbage"); // line 3 (the cut one moves to line 6)
  lines.splice(10, 0, '{"trajectory_id":5}'); // line 11
  fs.writeFileSync(file, lines.join("\n"));
}, 180_000);
afterAll(() => fs.rmSync(labels, { recursive: true, force: true }));

const WARNING = /^ipi-judge: warning: .*verdicts\.jsonl: 3 lines skipped \(not a verdict record\): lines 3, 6, 11; label judges again what a skipped verdict held$/m;

describe("broken journal lines", () => {
  it("agree names them once on stderr, and in --json warnings", async () => {
    const text = await runCli(["agree", "--run", "r", "--labels-dir", labels, "--reference", "security"]);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(WARNING);
    expect(text.stderr.match(/lines skipped/g)).toHaveLength(1);
    const json = await runCli(["agree", "--run", "r", "--labels-dir", labels, "--reference", "security", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).warnings.join("\n")).toMatch(/verdicts\.jsonl: 3 lines skipped \(not a verdict record\): lines 3, 6, 11/);
    expect(json.stderr.match(/lines skipped/g)).toHaveLength(1);
  });

  it("label (resume) names them once and judges the cut verdict again", async () => {
    const before = fs.readFileSync(file, "utf8").split("\n").length;
    const r = await runCli(["label", SAMPLES, "--run", "r", "--labels-dir", labels]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(WARNING);
    expect(r.stderr.match(/lines skipped/g)).toHaveLength(1);
    expect(fs.readFileSync(file, "utf8").split("\n").length).toBe(before + 1); // the cut verdict, stored again
  }, 120_000);
});
