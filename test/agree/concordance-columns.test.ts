import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { judgeConcordance, labelledByBoth } from "../../src/agree/pairwise.js";
import { judgeConcordanceColumns } from "../../src/agree/concordance-columns.js";
import { REFERENCE_ROW_FIELDS } from "../../src/agree/reference-columns.js";
import { eachVerdictRecord, readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { codeEstablishedByJudge } from "../../src/verdict/code-established.js";
import { judgeHealth } from "../../src/verdict/health.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-conccol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const STATUS = ["ok", "ok", "ok", "ok", "ok", "judge_error", "judge_refused", "unjudgeable", "unverified"];

describe("agree --judges on columns (issue 26): the same figures as on objects", () => {
  it("random runs: repeats, superseded verdicts, re-stored rows, verdicts without a row, unicode ids, code-established labels", async () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    for (let t = 0; t < 12; t++) {
      const rows: string[] = [];
      const verdicts: string[] = [];
      const n = 50 + rnd(1500);
      for (let i = 0; i < n; i++) {
        const id = `m${i % 3}/t${i}${i % 41 === 0 ? "/é🦀" : ""}`;
        const row = (attacked: boolean) => JSON.stringify({ id, attacked, reference: { security: rnd(2) === 0 }, ...(rnd(30) === 0 ? { run_error: "x" } : {}), content_sha256: "c" });
        rows.push(row(rnd(6) !== 0));
        if (rnd(40) === 0) rows.push(row(rnd(2) === 0)); // stored again: the last row wins
        for (const judge of ["a", "b", "c"]) {
          for (const repeat of [0, 1]) {
            if (rnd(12) === 0) continue; // no verdict
            const status = STATUS[rnd(STATUS.length)];
            const basis = rnd(5) === 0 ? { label_basis: "code" } : {};
            const v = { trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "f", repeat, prompt_sha256: "p", status, label: status === "ok" ? LABELS[rnd(6)] : null, ...basis, findings: [] };
            verdicts.push(JSON.stringify(v));
            if (rnd(8) === 0) verdicts.push(JSON.stringify({ ...v, label: LABELS[rnd(6)], status: "ok" })); // superseded by a later one
          }
        }
      }
      for (let k = 0; k < 5; k++) verdicts.push(JSON.stringify({ trajectory_id: `gone${k}`, judge_id: "a", judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status: "ok", label: "full_compliance", findings: [] }));
      const dir = path.join(tmp, `run${t}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
      fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
      const { index, verdicts: vs } = await readLeanRun(dir);
      const run = await readColumnRun(dir, { rowFields: REFERENCE_ROW_FIELDS });
      const attacked = [...index.values()].filter((r) => r.attacked).map((r) => r.id);
      const pair: [string, string] = rnd(2) ? ["a", "b"] : ["c", "a"];
      const bootstrap = { B: rnd(2) * 40, seed: 3 };
      const want = judgeConcordance(vs, attacked, pair, { bootstrap });
      const got = judgeConcordanceColumns(run, pair, { bootstrap });
      expect(JSON.stringify(got.concordance)).toBe(JSON.stringify(want));
      expect(want.first_only + want.second_only).toBeGreaterThan(0);
      const both = labelledByBoth(vs, attacked, pair);
      const bothSlots = [...got.both.keys()].filter((s) => got.both[s]).map((s) => run.ids.id(s));
      expect(bothSlots).toEqual([...both]);
      const wantCode = codeEstablishedByJudge(vs.filter((v) => v.repeat === 0 && both.has(v.trajectory_id)), pair);
      const gotCode = codeEstablishedByJudge(eachVerdictRecord(run, (i, v) => v.repeat === 0 && run.vSlot[i] < run.nRows && got.both[run.vSlot[i]] === 1), pair);
      expect(JSON.stringify(gotCode)).toBe(JSON.stringify(wantCode));
      const wantHealth = judgeHealth(vs, { rowOf: (v) => index.get(v.trajectory_id) });
      const gotHealth = judgeHealth(eachVerdictRecord(run), {
        rowOf: (_v, k) => (run.vSlot[k] < run.nRows ? run.rows[run.rowCode[run.vSlot[k]]] : undefined),
        idOf: (_v, k) => run.ids.id(run.vSlot[k]),
      });
      expect(JSON.stringify(gotHealth)).toBe(JSON.stringify(wantHealth));
    }
  });
});
