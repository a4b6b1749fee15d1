import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { paperTable, tableCsv } from "../../src/estimate/table.js";
import { paperTableColumns, TABLE_ROW_FIELDS } from "../../src/estimate/table-columns.js";
import { rowLikeForLike } from "../../src/estimate/table-like-for-like.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { parseCsv } from "../../src/io/csv.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tablelfl-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// new user 45, finding 4: Llama's no_defense row over 4 suites beside its repeat_user_prompt row over 3 was warned in
// the text and LaTeX, but the CSV rows said nothing. Here: L under no_defense on suites s1 and s2, under repeat on s1
// only (its per-condition rates are not like for like); G under no_defense on s1 and s2, as L (like for like).
function writeRun(): string {
  const rows: string[] = [];
  const verdicts: string[] = [];
  const add = (model: string, condition: string, suite: string, k: number) => {
    const id = `${model}/${condition}/${suite}/${k}`;
    rows.push(JSON.stringify({ id, agent_model: model, condition, suite, user_task_id: `user_task_${k}`, injection_task_id: "injection_task_0", attacked: true, attack: "important_instructions", content_sha256: "c" }));
    verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "gpt", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: k % 2 ? "full_compliance" : "unaffected", attacked: true, findings: [] }));
  };
  for (const k of [0, 1, 2]) {
    for (const s of ["s1", "s2"]) add("L", "no_defense", s, k);
    add("L", "repeat", "s1", k);
    for (const s of ["s1", "s2"]) add("G", "no_defense", s, k);
  }
  const dir = path.join(tmp, "run");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
  return dir;
}

describe("estimate --table: each row says whether it is like for like, in the rows and the CSV (new user 45)", () => {
  it("--own-mix, object and column paths: L's two rows flagged with the reason, G's not; the CSV carries like_for_like and like_for_like_note", async () => {
    const dir = writeRun();
    const { index, verdicts } = await readLeanRun(dir);
    const src = { kind: "judge" as const, judge_id: "gpt" };
    const t = paperTable("r", index, verdicts, src, { ownMix: true });
    const cols = paperTableColumns("r", await readColumnRun(dir, { rowFields: TABLE_ROW_FIELDS }), src, { ownMix: true });
    expect(JSON.stringify(cols)).toBe(JSON.stringify(t));
    const note = `"L"'s conditions ran different suites: its per-condition rates are not like for like (see the table's WARNING notes)`;
    expect(t.rows.map((r) => [r.agent_model, r.condition, r.like_for_like, r.like_for_like_note])).toEqual([
      ["G", "no_defense", true, undefined],
      ["L", "no_defense", false, note],
      ["L", "repeat", false, note],
    ]);
    // the text's warning is the one the flag reads
    expect(t.notes.some((n) => n.startsWith("WARNING: \"L\": its conditions ran different suites"))).toBe(true);
    const csv = parseCsv(tableCsv(t, { where: "attack=important_instructions" })).map((r) => r.fields);
    const at = (h: string) => csv[0].indexOf(h);
    expect(at("like_for_like")).toBeGreaterThan(0);
    expect(csv.slice(1).map((r) => [r[0], r[1], r[at("like_for_like")], r[at("like_for_like_note")]])).toEqual([
      ["G", "no_defense", "true", ""],
      ["L", "no_defense", "false", note],
      ["L", "repeat", "false", note],
    ]);
    // the filter, then the always-present caveat and notes columns (break51 finding 5), the notes with the warning
    expect(csv[0].slice(-3)).toEqual(["where", "judge_caveat", "notes"]);
    expect(csv[1][at("notes")]).toContain("WARNING: \"L\": its conditions ran different suites");
    // by default (like for like) L's rows are over the cells both its conditions ran: not flagged for its conditions;
    // under no_defense G's suites beside L's still are
    const lfl = paperTable("r", index, verdicts, src);
    const under = `the agent models under "no_defense" ran different suites: per-model rates are not like for like (see the table's WARNING notes)`;
    expect(lfl.rows.map((r) => [r.agent_model, r.condition, r.like_for_like, r.like_for_like_note])).toEqual([
      ["G", "no_defense", false, under],
      ["L", "no_defense", false, under],
      ["L", "repeat", true, undefined],
    ]);
  });

  it("the models under one condition, a run without conditions, and spellings", () => {
    const unlike = { models: new Map(), conditions: new Map([["(none)", "different attacks"], ["d", "different suites"]]), spellings: new Set(["Gpt"]) };
    expect(rowLikeForLike("a", null, unlike)).toEqual({ like_for_like: false, like_for_like_note: "the agent models ran different attacks: per-model rates are not like for like (see the table's WARNING notes)" });
    expect(rowLikeForLike("a", "d", unlike).like_for_like_note).toBe(`the agent models under "d" ran different suites: per-model rates are not like for like (see the table's WARNING notes)`);
    expect(rowLikeForLike("Gpt", "e", unlike)).toEqual({ like_for_like: false, like_for_like_note: "another row's model name differs from this one only in spelling (kept apart; they may be one model) (see the table's WARNING notes)" });
    expect(rowLikeForLike("b", "e", unlike)).toEqual({ like_for_like: true });
  });
});
