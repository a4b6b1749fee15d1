/**
 * A condition literally named `(all)` (out50 finding 1): the paper table used `(all)` as its "the run records no
 * condition" marker, so a run whose only condition was `(all)` lost its condition column and a run mixing `(all)` with
 * another condition read its `(all)` rows as a run without conditions (the like-for-like flags and marks of
 * `../../src/estimate/table-like-for-like.ts` and `table-marks.ts`). The marker is now null; estimate's `--by`
 * groups keep a value `(all)` apart from the pooled group (`groupDomains`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatTable, paperTable, tableCsv } from "../../src/estimate/table.js";
import { paperTableColumns, TABLE_ROW_FIELDS } from "../../src/estimate/table-columns.js";
import { groupDomains } from "../../src/estimate/groups.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { parseCsv } from "../../src/io/csv.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tablecondall-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Model A under `(all)` on suites s1 and s2, and under no_defense on s1 only; or (no `condition`) A and B plain. */
function writeRun(name: string, withConditions: boolean): string {
  const rows: string[] = [];
  const verdicts: string[] = [];
  const add = (model: string, condition: string | undefined, suite: string, k: number) => {
    const id = `${model}/${condition}/${suite}/${k}`;
    rows.push(JSON.stringify({ id, agent_model: model, ...(condition === undefined ? {} : { condition }), suite, user_task_id: `user_task_${k}`, injection_task_id: "injection_task_0", attacked: true, attack: "important_instructions", content_sha256: "c" }));
    verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "gpt", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: k % 2 ? "full_compliance" : "unaffected", attacked: true, findings: [] }));
  };
  for (const k of [0, 1, 2]) {
    if (withConditions) {
      for (const s of ["s1", "s2"]) add("A", "(all)", s, k);
      add("A", "no_defense", "s1", k);
    } else for (const m of ["A", "B"]) add(m, undefined, "s1", k);
  }
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
  return dir;
}

const src = { kind: "judge" as const, judge_id: "gpt" };

describe("a condition named (all) is a condition (out50 finding 1)", () => {
  it("its rows keep their condition in the text, the CSV and the like-for-like flags; object and column paths agree", async () => {
    const dir = writeRun("named", true);
    const { index, verdicts } = await readLeanRun(dir);
    // --own-mix: each row over its own runs, so A's rows are flagged and marked (like for like they would not be)
    const t = paperTable("r", index, verdicts, src, { ownMix: true });
    const cols = paperTableColumns("r", await readColumnRun(dir, { rowFields: TABLE_ROW_FIELDS }), src, { ownMix: true });
    expect(JSON.stringify(cols)).toBe(JSON.stringify(t));
    expect(t.rows.map((r) => [r.agent_model, r.condition, r.n_attacked])).toEqual([["A", "(all)", 6], ["A", "no_defense", 3]]);
    // A's two conditions ran different suites: both rows flagged, the condition named
    const note = `"A"'s conditions ran different suites: its per-condition rates are not like for like (see the table's WARNING notes)`;
    expect(t.rows.map((r) => r.like_for_like_note)).toEqual([note, note]);
    const text = formatTable(t).split("\n");
    const head = text.find((l) => l.startsWith("model"))!;
    expect(head).toMatch(/^model\s+condition\s+n\s/); // the condition column is there
    expect(text.some((l) => /^A\s+\(all\) \[a\]\s+6\s+all runs\s/.test(l))).toBe(true);
    expect(text.some((l) => l.startsWith('[a] "A": its conditions ran different suites ("(all)" n 6'))).toBe(true);
    const csv = parseCsv(tableCsv(t)).map((r) => r.fields);
    expect(csv.slice(1).map((r) => r[1])).toEqual(["(all)", "no_defense"]);
  });

  it("a run without conditions: condition null, no condition column, an empty CSV cell", async () => {
    const { index, verdicts } = await readLeanRun(writeRun("none", false));
    const t = paperTable("r", index, verdicts, src);
    expect(t.rows.map((r) => [r.agent_model, r.condition])).toEqual([["A", null], ["B", null]]);
    expect(formatTable(t).split("\n").find((l) => l.startsWith("model"))).toMatch(/^model\s+n\s/);
    expect(parseCsv(tableCsv(t)).map((r) => r.fields).slice(1).map((r) => r[1])).toEqual(["", ""]);
  });

  it("estimate --by condition: a value (all) is its own group, named condition=(all), and the pooled (all) group stays whole", () => {
    const rows = [{ condition: "(all)" }, { condition: "(all)" }, { condition: "no_defense" }] as unknown as TrajectoryIndexRow[];
    const g = groupDomains(Uint32Array.from([0, 1, 2]), ["condition"], (u) => rows[u]);
    expect([...g].map(([name, x]) => [name, x.fields, [...x.units]])).toEqual([
      ["(all)", {}, [0, 1, 2]],
      ["condition=(all)", { condition: "(all)" }, [0, 1]],
      ["no_defense", { condition: "no_defense" }, [2]],
    ]);
  });
});
