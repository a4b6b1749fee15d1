/**
 * `estimate --table` (text) says that the run is incomplete in stdout with the table's other warnings, as estimate,
 * compare and agree do (break52 #10: on stderr only, so a table saved with `> table.txt` lost that it is a slice).
 * Real vendored slice: test/data/like-for-like (14 AgentDojo runs), labelled with --limit.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { DATA } from "../helpers/paths.js";

const SLICE = path.join(DATA, "like-for-like", "runs");

describe("estimate --table on a partial run", () => {
  let dir: string;
  const L = () => ["--labels-dir", path.join(dir, "labels")];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-table-state-"));
    const r = await runCli(["label", SLICE, "--run", "p", "--limit", "6", ...L()]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("the run-incomplete WARNING is in stdout, once, and not on stderr; the CSV, LaTeX and JSON keep it among the notes", async () => {
    const csv = path.join(dir, "t.csv");
    const tex = path.join(dir, "t.tex");
    const r = await runCli(["estimate", "--table", "--run", "p", ...L(), "--csv", csv, "--latex", tex]);
    expect(r.code, r.stderr).toBe(0);
    const out = unwrapText(r.stdout);
    expect(out.match(/^WARNING: run incomplete: partial run: /gm)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/run incomplete/);
    expect(fs.readFileSync(tex, "utf8")).toMatch(/^% WARNING: run incomplete: partial run: /m);
    expect(fs.readFileSync(csv, "utf8")).toContain("WARNING: run incomplete: partial run: ");
    const j = await runCli(["estimate", "--table", "--run", "p", ...L(), "--json"]);
    expect((JSON.parse(j.stdout) as { notes: string[] }).notes.filter((n) => n.startsWith("WARNING: run incomplete: partial run: "))).toHaveLength(1);
  }, 120_000);
});
