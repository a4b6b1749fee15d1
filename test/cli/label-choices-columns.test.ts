import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { labelChoices } from "../../src/compare/label-choices.js";
import { labelChoicesColumns } from "../../src/cli/label-choices-columns.js";
import { COMPARE_ROW_FIELDS } from "../../src/compare/data-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { parseWhere, restrictRun } from "../../src/store/where.js";
import { restrictColumns, whereRowFields } from "../../src/store/where-columns.js";
import { buildCommittee } from "../../src/verdict/vote.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-choicecol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

describe("the refusal's label choices on columns (several judges, no --judge/--committee)", () => {
  it("each judge's and the committee's coverage as on objects: missing votes, repeats, errors, rows without a model, a member without verdicts, --where", async () => {
    let seed = 5;
    const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (let i = 0; i < 900; i++) {
      const id = `r/${i}${i % 77 === 0 ? "/ü" : ""}`;
      const r: Record<string, unknown> = { id, content_sha256: "c", attacked: rnd(7) !== 0, suite: `s${rnd(3)}`, attack: ["a1", "a2"][rnd(2)], user_task_id: `u${rnd(3)}`, injection_task_id: `i${rnd(2)}`, reference: { security: rnd(2) === 0, utility: true } };
      if (rnd(20)) r.agent_model = `m${rnd(3)}`;
      if (rnd(5)) r.condition = ["no_defense", "spotlight"][rnd(2)];
      rows.push(JSON.stringify(r));
      for (const judge of ["a", "b", "c"])
        for (const repeat of [0, 1]) {
          if (rnd(6) === 0 || (judge === "c" && i > 600)) continue;
          const status = ["ok", "ok", "ok", "judge_error", "judge_refused"][rnd(5)];
          verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: judge, judge_model: "m", repeat, prompt_sha256: "p", status, label: status === "ok" ? LABELS[rnd(6)] : null, ...(rnd(2) ? { blocked_attempt: rnd(2) === 0 } : {}) }));
        }
      // a later verdict superseding an earlier one (the last stored wins on both paths)
      if (i % 50 === 0) verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "a", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: "full_compliance" }));
    }
    verdicts.push(JSON.stringify({ trajectory_id: "no/row", judge_id: "a", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: "unaffected" }));
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const lean = await readLeanRun(dir);
    for (const where of [null, parseWhere("suite=s0,s1"), parseWhere(["attack=a2", "model=m1"])]) {
      const objRun = restrictRun({ index: lean.index, verdicts: lean.verdicts }, where);
      const read = await readColumnRun(dir, { rowFields: whereRowFields([...COMPARE_ROW_FIELDS, "condition"], where) });
      const colRun = where ? restrictColumns(read, where).run : read;
      const judges = [...new Set(objRun.verdicts.map((v) => v.judge_id))].sort();
      for (const field of ["agent_model", "condition", "attack"])
        for (const [members, quorum] of [[judges, 2], [["a", "b"], 2], [["a", "b", "c"], 3], [["a", "ghost"], 1]] as Array<[string[], number]>) {
          const committee = { members, quorum, from: "x" };
          const want = labelChoices(objRun.index, objRun.verdicts, judges, { ...committee, verdicts: buildCommittee(objRun.verdicts, [...objRun.index.keys()], { judgeIds: members, quorum }) }, field);
          const got = labelChoicesColumns(colRun, judges, committee, field);
          expect(got, `${JSON.stringify(where)} ${field} ${members} ${quorum}`).toEqual(want);
          expect(want[0].attacked).toBeGreaterThan(0);
        }
      expect(labelChoicesColumns(colRun, judges, null, "agent_model")).toEqual(labelChoices(objRun.index, objRun.verdicts, judges, null, "agent_model"));
    }
  });
});
