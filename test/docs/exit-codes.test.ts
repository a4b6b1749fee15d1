/**
 * Every command's docs page has an "Exit codes" section that lists the codes its `--help` lists, and the commands
 * that print judges' figures say there which judges are behind them, with the one rule (new user 49 #4: report's
 * page named exit codes 0 and 2 only, while `report --judge X` exits 3 for another judge of the run and `estimate
 * --judge X` exits 0 on the same run).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { ROOT } from "../helpers/paths.js";

/** The commands whose figures a broken judge makes exit 3 (src/cli/broken-exit.ts). */
const FIGURES = ["agree", "committee", "estimate", "compare", "report"];
const OTHERS = ["sample", "view", "import-annotations"];

/** The "## Exit codes" section of a docs page ("" when it has none). */
function section(command: string): string {
  const text = fs.readFileSync(path.join(ROOT, "docs", `${command}.md`), "utf8");
  const at = text.indexOf("\n## Exit codes\n");
  if (at < 0) return "";
  const next = text.indexOf("\n## ", at + 1);
  return text.slice(at, next < 0 ? undefined : next);
}

/** The codes a `--help` text's exit paragraph lists: `Exit: 0 written, 1 ..., 2 ...` or `Exit codes: 0 done; 1 ...`. */
function helpCodes(help: string): number[] {
  const at = help.search(/^Exit( codes)?: /m);
  expect(at, "an exit paragraph in --help").toBeGreaterThanOrEqual(0);
  const end = help.indexOf("\n\n", at);
  const para = help.slice(at, end < 0 ? undefined : end).replace(/^Exit( codes)?: /, ": ");
  return [...para.matchAll(/(?:[:;,] |\n)(\d{1,3}) (?=[a-z(])/g)].map((m) => Number(m[1])).filter((c, i, all) => all.indexOf(c) === i).sort((a, b) => a - b);
}

describe("every command's docs page lists its exit codes as its --help does (new user 49 #4)", () => {
  for (const command of [...FIGURES, ...OTHERS]) {
    it(command, async () => {
      const sec = section(command);
      expect(sec, `docs/${command}.md has no "## Exit codes" section`).not.toBe("");
      const help = await runCli([command, "--help"]);
      expect(help.code).toBe(0);
      const listed = [...sec.matchAll(/^- `(\d+)` /gm)].map((m) => Number(m[1])).sort((a, b) => a - b);
      expect(listed).toEqual(helpCodes(help.stdout));
      // the shared rule, linked from every page
      expect(sec).toContain("(label.md#exit-codes)");
      if (FIGURES.includes(command)) {
        expect(listed).toContain(3);
        expect(sec).toContain(`The judges behind \`${command}\`'s figures: `);
        expect(sec).toContain("a judge is behind a command's figures when its own figures, or those of a committee it is a member of, are in the output");
      } else expect(sec).toMatch(/^Never `3`: /m);
    }, 60_000);
  }

  it("label: its page's section names every code of its --help", async () => {
    const sec = section("label");
    const codes = helpCodes((await runCli(["label", "--help"])).stdout);
    expect(codes).toEqual([0, 1, 2, 3, 130]);
    for (const c of codes) expect(sec).toMatch(new RegExp(`\\b${c} (done|fatal|usage|finished|interrupted)`));
  }, 60_000);

  it("report's page says why report --judge X exits 3 for another judge while estimate --judge X does not", () => {
    const sec = section("report");
    expect(sec).toContain("So `report --judge X` exits 3 when another judge Y of the run looks broken, where `estimate --judge X` and `compare --judge X` exit 0");
    expect(section("estimate")).toContain("So `estimate --judge X` exits 0 beside a broken judge Y of the run");
  });
});
