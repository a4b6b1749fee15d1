import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { paperTable } from "../../src/estimate/table.js";
import { paperTableColumns, TABLE_ROW_FIELDS } from "../../src/estimate/table-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tablecol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

/** A run of `n` trajectories with two judges, every status, error kinds, blocked attempts, repeats and supersedes. */
function writeRun(name: string, n: number, withConditions: boolean): string {
  let seed = 5;
  const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
  const rows: string[] = [];
  const verdicts: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `m${i % 4}/s${i % 3}/user_task_${i % 9}/t${i}`;
    const attacked = rnd(6) !== 0;
    rows.push(
      JSON.stringify({
        id,
        agent_model: rnd(30) ? `model-${i % 4}` : undefined,
        suite: `s${i % 3}`,
        user_task_id: rnd(5) ? `user_task_${i % 9}` : `injection_task_${i % 3}`,
        ...(withConditions && rnd(5) ? { condition: ["no_defense", "spotlight"][rnd(2)] } : {}),
        attacked,
        ...(attacked ? { attack: ["important_instructions", "tool_knowledge"][rnd(2)] } : {}),
        reference: rnd(10) ? { security: rnd(2) === 0, utility: rnd(3) === 0 } : {},
        content_sha256: "c",
      }),
    );
    for (const judge of ["gpt", "signature"])
      for (const repeat of [0, 1]) {
        if (rnd(12) === 0) continue;
        const status = ["ok", "ok", "ok", "ok", "ok", "judge_error", "unverified"][rnd(7)];
        const v = {
          trajectory_id: id,
          judge_id: judge,
          judge_model: "m",
          repeat,
          prompt_sha256: "p",
          status,
          label: status === "ok" ? LABELS[rnd(6)] : null,
          ...(status !== "ok" && rnd(2) ? { error: { kind: ["http", "injection_text_unknown"][rnd(2)], message: "x" } } : {}),
          ...(rnd(3) ? { blocked_attempt: rnd(2) === 0 } : {}),
          // most labels set by code (newuser52 5): the ESTABLISHED BY CODE note must read the same on both paths
          ...(status === "ok" ? { label_basis: rnd(5) ? ["injection_absent", "exposure_found"][rnd(2)] : "finding" } : {}),
          attacked,
          usage: { prompt_tokens: i },
          findings: [],
        };
        verdicts.push(JSON.stringify(v));
        if (rnd(9) === 0) verdicts.push(JSON.stringify({ ...v, status: "ok", label: LABELS[rnd(6)], error: undefined }));
      }
  }
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
  return dir;
}

describe("estimate --table on columns (issue 26): the same table as on objects", () => {
  for (const withConditions of [true, false])
    it(`judge and heuristic, every unusable reason, blocked attempts, utility (conditions: ${withConditions})`, async () => {
      const dir = writeRun(`run-${withConditions}`, 1500, withConditions);
      const { index, verdicts } = await readLeanRun(dir);
      const run = await readColumnRun(dir, { rowFields: TABLE_ROW_FIELDS });
      for (const judge of ["gpt", "signature"])
        for (const heuristic of ["signature", "gpt", "absent"])
          for (const allowLowCoverage of [false, true]) {
            const src = { kind: "judge" as const, judge_id: judge };
            const want = paperTable("r", index, verdicts, src, { heuristic, allowLowCoverage });
            const got = paperTableColumns("r", run, src, { heuristic, allowLowCoverage });
            expect(JSON.stringify(got)).toBe(JSON.stringify(want));
            expect(want.notes.some((n) => n.startsWith("note: ESTABLISHED BY CODE"))).toBe(true);
          }
    });
});
