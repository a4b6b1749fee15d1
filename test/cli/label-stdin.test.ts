/**
 * `label -` (runs53): `-` reads as standard input to many tools, but label reads files and folders only, and keeps its
 * run's coverage by path, so two `label -` passes of other content would have read as one input. Refused, saying so;
 * a file named `-` is read when given as `./-`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "label-stdin-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("label -", () => {
  it("is refused with what to do, whether or not a file named - is there; ./- is read", async () => {
    const r = await runCli(["label", "-", "--run", "r", "--labels-dir", "L", "--judge", "signature"], { cwd: tmp });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("label does not read standard input (`-`): write the trajectories to a file and give its path (a file named - itself: give it as ./-)");
    expect(fs.existsSync(path.join(tmp, "L", "r"))).toBe(false);
    const one = fs.readdirSync(path.join(SAMPLES, "runs"), { recursive: true, encoding: "utf8" }).find((f) => f.endsWith(".json"))!;
    fs.copyFileSync(path.join(SAMPLES, "runs", one), path.join(tmp, "-"));
    expect((await runCli(["label", "-", "--run", "r", "--labels-dir", "L", "--judge", "signature"], { cwd: tmp })).code).toBe(2);
    // read as the file it is (a lone AgentDojo file outside its folder layout reads as an input error: not the point here)
    const ok = await runCli(["label", "./-", "--run", "r", "--labels-dir", "L", "--judge", "signature"], { cwd: tmp });
    expect(ok.stderr).not.toContain("standard input");
    expect(fs.readFileSync(path.join(tmp, "L", "r", "store.json"), "utf8")).toContain('"./-"');
  }, 60_000);
});
