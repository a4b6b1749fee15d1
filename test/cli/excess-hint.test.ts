import { describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { Command } from "commander";
import { runCli } from "../helpers/cli.js";
import { excessArgumentHint } from "../../src/cli/excess-hint.js";

function program(): Command {
  const p = new Command();
  p.command("estimate").option("--run <name>").option("--table").option("-j, --json").option("--csv <file>");
  return p;
}

describe("a value given to an option that takes none is named after commander's 'too many arguments' (new user 40)", () => {
  it("names the word and the flag before it, long or short", () => {
    expect(excessArgumentHint(program(), ["estimate", "--run", "r", "--table", "t.csv"])).toBe(
      '"t.csv" follows --table, which takes no value: give it to the option that takes it (`ipi-judge estimate --help`)',
    );
    expect(excessArgumentHint(program(), ["estimate", "-j", "out.json"])).toMatch(/^"out\.json" follows -j, which takes no value/);
  });
  it("says nothing when no word follows a flag, after --, or for another command", () => {
    expect(excessArgumentHint(program(), ["estimate", "--run", "r", "extra"])).toBeNull();
    expect(excessArgumentHint(program(), ["estimate", "--run", "r", "--csv", "t.csv"])).toBeNull();
    expect(excessArgumentHint(program(), ["estimate", "--", "--table", "x"])).toBeNull();
    expect(excessArgumentHint(program(), ["nope", "--table", "x"])).toBeNull();
  });
  it("the CLI prints it on stderr after commander's error, and in --json's message", async () => {
    const labels = path.join(os.tmpdir(), "ipi-excess-hint-none");
    const r = await runCli(["estimate", "--run", "x", "--labels-dir", labels, "--table", "t.csv"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("too many arguments for 'estimate'");
    expect(r.stderr).toContain('ipi-judge: "t.csv" follows --table, which takes no value');
    const j = await runCli(["estimate", "--run", "x", "--labels-dir", labels, "--table", "t.csv", "--json"]);
    expect(JSON.parse(j.stdout).error).toEqual({ exit_code: 2, kind: "usage", message: expect.stringContaining('; "t.csv" follows --table, which takes no value') });
  });
});
