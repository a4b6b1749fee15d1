/**
 * The width text tables are fitted to (src/cli/terminal-width.ts), and `estimate --table` fitted to it (session 40:
 * the paper table ran to 267 columns on AgentDojo + defenses, each row broken across three terminal lines): a terminal's columns, else
 * `COLUMNS`, else none (a file or a pipe: one line per row); `--json` the same whatever the width.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { terminalWidth } from "../../src/cli/terminal-width.js";
import { printedLines } from "../helpers/printed-lines.js";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";

describe("terminalWidth", () => {
  it("a terminal's columns; else a positive COLUMNS; else none", () => {
    expect(terminalWidth({ isTTY: true, columns: 132 }, { COLUMNS: "80" })).toBe(132);
    expect(terminalWidth({ isTTY: false }, { COLUMNS: "80" })).toBe(80);
    expect(terminalWidth({ isTTY: false }, { COLUMNS: " 100 " })).toBe(100);
    for (const c of [undefined, "", "0", "-5", "wide", "80.5"]) expect(terminalWidth({ isTTY: false }, { COLUMNS: c }), String(c)).toBeUndefined();
    expect(terminalWidth({ isTTY: true, columns: 0 }, {})).toBeUndefined();
  });
});

describe("estimate --table fitted to the width", () => {
  let dir: string;
  const L = () => ["estimate", "--run", "lfl", "--labels-dir", path.join(dir, "labels"), "--table"];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-width-"));
    const r = await runCli(["label", path.join(DATA, "like-for-like", "runs"), "--judge", "signature", "--run", "lfl", "--labels-dir", path.join(dir, "labels")]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("wider than COLUMNS: blocks of columns that fit, each line naming its row, said above; none given: one line per row; --json unchanged", async () => {
    const wide = await runCli(L());
    expect(wide.code, wide.stderr).toBe(0);
    const head = wide.stdout.split("\n").find((l) => l.startsWith("model "))!;
    expect(head.length).toBeGreaterThan(100); // the slice's table is wider than 100 columns: the case to fit
    expect(wide.stdout).not.toContain("wider than the terminal");
    const fit = await runCli(L(), { env: { COLUMNS: "100" } });
    expect(fit.code, fit.stderr).toBe(0);
    const lines = printedLines(fit.stdout); // the hint as printed before the 120-column wrap, the rows whole
    const hint = lines.findIndex((l) => /^\(the table is wider than the terminal's 100 columns: printed in \d+ blocks of columns, each line named by its model, condition and n; --csv and --json give one line per row\)$/.test(l));
    expect(hint).toBeGreaterThanOrEqual(0);
    // the table's lines: from the hint to the first empty line after the last block
    const blocks = Number(/in (\d+) blocks/.exec(lines[hint])![1]);
    expect(blocks).toBeGreaterThan(1);
    const table: string[] = [];
    let seen = 0;
    for (const l of lines.slice(hint + 1)) {
      if (l.startsWith("model ")) seen++;
      if (l === "" && seen === blocks) break;
      table.push(l);
    }
    expect(table.filter((l) => l.startsWith("model ")).length).toBe(blocks);
    // every header of the wide table is in some block, and each block's lines fit (a lone column wider than the rest may not)
    const titles = head.split(/ {2,}/);
    for (const t of titles) expect(table.some((l) => l.startsWith("model ") && l.includes(t)), t).toBe(true);
    // the rows: as many per block as in the wide table, each line naming its model and condition
    const wideRows = wide.stdout.split("\n").filter((l) => /^gpt-4o/.test(l));
    expect(table.filter((l) => /^gpt-4o/.test(l)).length).toBe(wideRows.length * blocks);
    const j1 = await runCli([...L(), "--json"]);
    const j2 = await runCli([...L(), "--json"], { env: { COLUMNS: "60" } });
    expect(j2.stdout).toBe(j1.stdout);
  }, 60_000);
});
