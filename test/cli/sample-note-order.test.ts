/**
 * out51 #6: `sample` printed its spreadsheet note (tasks longer than a spreadsheet cell) before its result; on a
 * terminal, where stdout and stderr are one stream, the result (what was drawn, where it was written) now comes first
 * and the note after it. Checked on the 516 real AgentDojo runs, whose draw below holds two such tasks.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { corpusRun } from "./corpus-run.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-sample-order-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("sample: the result first, then the note on it", () => {
  it("one stream (stdout and stderr on one pipe): 'written to' before the spreadsheet note", async () => {
    await corpusRun(tmp);
    // both streams on one pipe, in write order, as a terminal shows them
    const r = spawnSync("sh", ["-c", `"${process.execPath}" "${CLI}" sample --run r --random 60 --seed 3 --out study 2>&1`], { cwd: tmp, encoding: "utf8", env: { ...process.env, COLUMNS: "" } });
    expect(r.status, r.stdout).toBe(0);
    const lines = r.stdout.split("\n");
    const long = fs
      .readFileSync(path.join(tmp, "study", "tasks.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .filter((l) => (JSON.parse(l).trajectory as string).length > 32_767).length;
    expect(long).toBeGreaterThan(0);
    const note = lines.findIndex((l) => l.startsWith(`note: ${long} task(s) are longer than 32767 characters`));
    expect(lines.findIndex((l) => l.startsWith("sampled 60 of 516 trajectories of run r"))).toBe(0);
    expect(note).toBeGreaterThan(lines.findIndex((l) => l.startsWith("written to ")));
    expect(note).toBeGreaterThan(lines.findIndex((l) => l.startsWith("  keep private:")));
  }, 180_000);
});
