/**
 * A command's output files are written whole or not at all (src/io/write-atomic.ts; hostile53 finding 4): a failed
 * write of `estimate --table --csv --latex` leaves the good table in place, byte for byte, and names the file.
 * Real vendored slice: test/data/like-for-like (14 AgentDojo runs).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";

const SLICE = path.join(DATA, "like-for-like", "runs");

describe("estimate --table's CSV and LaTeX on a failed write", () => {
  let dir: string;
  let csv: string;
  let tex: string;
  const L = () => ["--labels-dir", path.join(dir, "labels")];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-output-write-"));
    csv = path.join(dir, "t.csv");
    tex = path.join(dir, "t.tex");
    const r = await runCli(["label", SLICE, "--run", "p", ...L()]);
    expect(r.code, r.stderr).toBe(0);
    const w = await runCli(["estimate", "--table", "--run", "p", ...L(), "--csv", csv, "--latex", tex]);
    expect(w.code, w.stderr).toBe(0);
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a --latex path that cannot be written: exit 1, the error names it, the CSV beside it is not replaced", async () => {
    const before = fs.readFileSync(csv);
    fs.writeFileSync(csv, "the CSV of an earlier table\n");
    fs.writeFileSync(path.join(dir, "plain"), "");
    const bad = path.join(dir, "plain", "t.tex");
    const r = await runCli(["estimate", "--table", "--run", "p", ...L(), "--csv", csv, "--latex", bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot write ${bad}: `);
    expect(r.stderr).toContain("none of the files was replaced");
    expect(fs.readFileSync(csv, "utf8")).toBe("the CSV of an earlier table\n");
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    fs.writeFileSync(csv, before);
  }, 120_000);

  it.skipIf(process.platform !== "linux")("a file-size limit hit mid-table (ulimit -f): the good CSV and .tex stay byte-identical", () => {
    const goodCsv = fs.readFileSync(csv);
    const goodTex = fs.readFileSync(tex);
    expect(goodCsv.length).toBeGreaterThan(2048); // so the limit below cuts it
    const args = ["estimate", "--table", "--run", "p", ...L(), "--csv", csv, "--latex", tex].map((a) => `'${a}'`).join(" ");
    const r = spawnSync("bash", ["-c", `ulimit -f 2; exec '${process.execPath}' '${CLI}' ${args}`], { encoding: "utf8", timeout: 120_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot write ${csv}: file too large (a file-size limit); none of the files was replaced`);
    expect(fs.readFileSync(csv).equals(goodCsv)).toBe(true);
    expect(fs.readFileSync(tex).equals(goodTex)).toBe(true);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  }, 120_000);
});
