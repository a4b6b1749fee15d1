/**
 * Each row of `compare` says what share of its model's attacked runs under its condition it is over, and the rows
 * below half are named in one warning (session 39: Llama-3.3 by attack over 3 of its 30 and 3 of its 67 runs beside
 * rows over all of theirs, said only in the header). Pure, then end to end on the vendored like-for-like slice.
 */
import { parseCsv } from "../../src/io/csv.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printedLines } from "../helpers/printed-lines.js";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";
import { ROW_COVERAGE_LOW_BELOW, ROW_COVERAGE_POPULATION, rowCoverageWarning, setRowCoverage } from "../../src/compare/row-coverage.js";
import type { AsrCell } from "../../src/compare/analysis.js";
import { unwrapText } from "../../src/format/wrap-text.js";

/** What used and available count, on every row (new user 44 item 9). */
const P = ROW_COVERAGE_POPULATION;

const SLICE = path.join(DATA, "like-for-like", "runs");

describe("setRowCoverage / rowCoverageWarning (pure)", () => {
  const cell = (model: string, condition: string, suite: string | null = null) => ({ model, condition, suite }) as AsrCell;
  const runs = (model: string, condition: string, suite: string, n: number, weight?: number) =>
    Array.from({ length: n }, () => ({ model, condition, suite, ...(weight !== undefined ? { weight } : {}) }));
  it("counts used of available per (model, condition, suite) and pooled, weights included; low below half", () => {
    const all = [...runs("llama", "a", "s1", 20), ...runs("llama", "a", "s2", 10), ...runs("llama", "b", "s1", 67), ...runs("gpt", "a", "s1", 5, 2)];
    const used = [...runs("llama", "a", "s1", 3), ...runs("llama", "b", "s1", 3), ...runs("gpt", "a", "s1", 5, 2)];
    const cells = [cell("llama", "a"), cell("llama", "a", "s1"), cell("llama", "a", "s2"), cell("llama", "b"), cell("gpt", "a")];
    setRowCoverage(cells, all, used);
    expect(cells.map((c) => c.like_for_like)).toEqual([
      { used: 3, available: 30, share: 0.1, low: true, population: P },
      { used: 3, available: 20, share: 0.15, low: true, population: P },
      { used: 0, available: 10, share: 0, low: true, population: P },
      { used: 3, available: 67, share: 3 / 67, low: true, population: P },
      { used: 10, available: 10, share: 1, low: false, population: P },
    ]);
    const w = rowCoverageWarning(cells, "attack")!;
    // one warning for every low row (the pooled ones, per suite rows are not printed), grouped by model, with the count
    expect(w).toContain("2 rows of 1 agent model rest on fewer than 50% of the model's attacked runs under that attack");
    expect(w).toContain("llama: a 3 of 30 (10.0%), b 3 of 67 (4.5%);");
    expect(w).not.toContain("gpt");
    expect(rowCoverageWarning([cells[4]], "attack")).toBeNull();
  });
  it("a share of exactly half is not low; a row with nothing available has no share", () => {
    expect(ROW_COVERAGE_LOW_BELOW).toBe(0.5);
    const cells = [cell("m", "a"), cell("m", "z")];
    setRowCoverage(cells, runs("m", "a", "s", 4), runs("m", "a", "s", 2));
    expect(cells[0].like_for_like).toEqual({ used: 2, available: 4, share: 0.5, low: false, population: P });
    expect(cells[1].like_for_like).toEqual({ used: 0, available: 0, share: null, low: false, population: P });
    expect(rowCoverageWarning(cells, "condition")).toBeNull();
  });
});

describe("compare's rows carry their share of the model's runs (real slice)", () => {
  let dir: string;
  const labels = () => path.join(dir, "labels");
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-rowcov-"));
    const r = await runCli(["label", SLICE, "--run", "lfl", "--labels-dir", labels()]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("--json: like_for_like {used, available} per row equals the attacked runs of the raw files kept and present; text says it on every row", async () => {
    // the raw files: attacked runs per condition (folder), and the cells common to the model's conditions
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    const per = new Map<string, string[]>();
    for (const f of walk(SLICE)) {
      const j = JSON.parse(fs.readFileSync(f, "utf8"));
      if (!j.attack_type) continue;
      const folder = path.relative(SLICE, f).split(path.sep)[0];
      const condition = folder.startsWith("gpt-4o-2024-05-13-") ? folder.slice("gpt-4o-2024-05-13-".length) : "no_defense";
      (per.get(condition) ?? per.set(condition, []).get(condition)!).push(`${j.suite_name}/${j.user_task_id}/${j.injection_task_id}/${j.attack_type}`);
    }
    const sets = [...per.values()].map((xs) => new Set(xs));
    const common = new Set([...sets[0]].filter((k) => sets.every((s) => s.has(k))));
    const r = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--by", "condition", "--baseline", "no_defense", "--bootstrap", "0", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    for (const [condition, cells] of per) {
      const row = j.asr.find((c: AsrCell) => c.suite === null && c.condition === condition);
      const used = cells.filter((k) => common.has(k)).length;
      expect(row.like_for_like, condition).toEqual({ used, available: cells.length, share: used / cells.length, low: used / cells.length < 0.5, population: P });
      expect(row.attacked).toBe(used);
    }
    const text = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--by", "condition", "--baseline", "no_defense", "--bootstrap", "0"]);
    const rows = printedLines(text.stdout).filter((l) => / asr_goal .* exposure /.test(l) && !l.includes("none of its"));
    expect(rows.length).toBeGreaterThan(0);
    for (const l of rows) expect(l).toMatch(/; attacked runs in the compared cells \d+ of \d+ \(\d+\.\d%, labelled or not\)/);
    // the slice's no_defense row is over 2 of its 4 attacked runs: half, so not LOW, and no warning
    expect(unwrapText(text.stdout)).toContain("attacked runs in the compared cells 2 of 4 (50.0%, labelled or not) (like for like; the cells left out: header)");
    expect(unwrapText(text.stdout)).not.toContain("rest on fewer than 50%");
    // --csv: the same rows, each with its runs used of available (parsed back, compared with --json)
    const csv = path.join(dir, "rows.csv");
    const c = await runCli(["compare", "--run", "lfl", "--labels-dir", labels(), "--by", "condition", "--baseline", "no_defense", "--bootstrap", "0", "--csv", csv]);
    expect(c.code, c.stderr).toBe(0);
    // parsed as CSV: the notes cell holds the warnings' commas (quoted)
    const [head, ...lines] = parseCsv(fs.readFileSync(csv, "utf8").trim()).map((r) => r.fields);
    expect(head.slice(0, 3)).toEqual(["agent_model", "condition", "asr_goal"]);
    expect(head.slice(-7)).toEqual(["attacked_available", "attacked_used_share", "attacked_used_low", "n_run_error_attacked", "n_run_error_unattacked", "judge_caveat", "notes"]);
    const at = (l: string[], k: string) => l[head.indexOf(k)];
    const pooled = j.asr.filter((x: AsrCell) => x.suite === null);
    expect(lines.length).toBe(pooled.length);
    for (const l of lines) {
      const row = pooled.find((x: AsrCell) => x.model === at(l, "agent_model") && x.condition === at(l, "condition"));
      expect([Number(at(l, "attacked_used")), Number(at(l, "attacked_available")), at(l, "attacked_used_low")]).toEqual([row.like_for_like.used, row.like_for_like.available, String(row.like_for_like.low)]);
      expect(Number(at(l, "asr_goal_count"))).toBe(row.asr_goal.count);
    }
  }, 120_000);
});
