import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildObservations, type Observations } from "../../src/compare/data.js";
import { compareConditions } from "../../src/compare/index.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { buildObservationsColumns, COMPARE_ROW_FIELDS } from "../../src/compare/data-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cmpcol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

describe("compare --judge on columns (issue 26): the same observations as on objects", () => {
  it("every exclusion, missing task ids and fields, groups left without a label, each --by field", async () => {
    let seed = 3;
    const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const id = `m/${i}${i % 50 === 0 ? "/ü🦀" : ""}`;
      const attacked = rnd(8) !== 0;
      const r: Record<string, unknown> = { id, content_sha256: "c", attacked, reference: { security: rnd(2) === 0, utility: rnd(2) === 0 } };
      // every other row repeats the fields of the one before (another id): rows sharing a record merge by label
      if (i % 2 === 1) {
        rows.push(JSON.stringify({ ...JSON.parse(rows[rows.length - 1]), id }));
        pushVerdicts(id, i);
        continue;
      }
      if (rnd(40)) r.agent_model = `model-${rnd(3)}`;
      if (rnd(10)) r.suite = `s${rnd(3)}`;
      if (rnd(6)) r.condition = ["no_defense", "spotlight", "lonely"][rnd(3) === 2 && rnd(5) ? 0 : rnd(3)];
      if (rnd(4)) r.attack = ["important_instructions", "tool_knowledge"][rnd(2)];
      if (rnd(3)) r.surface = ["tool_output", "tool_description"][rnd(2)];
      if (rnd(12)) r.user_task_id = `user_task_${rnd(5)}`;
      if (rnd(12)) r.injection_task_id = `injection_task_${rnd(4)}`;
      rows.push(JSON.stringify(r));
      pushVerdicts(id, i);
    }
    function pushVerdicts(id: string, i: number) {
      for (const judge of ["a", "b"])
        for (const repeat of [0, 1]) {
          if (rnd(10) === 0) continue;
          const status = ["ok", "ok", "ok", "ok", "judge_error", "judge_refused", "unjudgeable", "unverified"][rnd(8)];
          verdicts.push(
            JSON.stringify({
              trajectory_id: id,
              judge_id: judge,
              judge_model: "m",
              repeat,
              prompt_sha256: "p",
              status,
              label: status === "ok" ? (rnd(20) ? LABELS[rnd(6)] : null) : null,
              ...(status !== "ok" && rnd(2) ? { error: { kind: ["http", "injection_text_unknown", ""][rnd(3)], message: "x" } } : {}),
              ...(rnd(2) ? { blocked_attempt: rnd(2) === 0 } : {}),
              // a blocked attempt's kind, or none recorded (a verdict stored before it was); from i, repeat and the
              // judge, so the random stream (and the cases it makes) stays as it was
              blocked_call: { message_index: 1, tool_call_index: 0, result_message_index: 2, reason: "error_result", kind: [undefined, "refused", "unavailable", "failed"][(i + repeat * 2 + judge.length) % 4] },
              usage: { prompt_tokens: i },
            }),
          );
        }
    }
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    for (const field of ["condition", "attack", "surface", "suite", "agent_model"]) {
      const run = await readColumnRun(dir, { rowFields: [...COMPARE_ROW_FIELDS, field] });
      for (const judge of ["a", "b", "absent"]) {
        const want = buildObservations(index, { verdicts: vs }, { kind: "judge", judge_id: judge }, field);
        const got = buildObservationsColumns(run, judge, field);
        const { observations: go, unlabelled: gu, ...gotRest } = got;
        const { observations: wo, unlabelled: wu, ...wantRest } = want;
        expect(JSON.stringify(gotRest)).toBe(JSON.stringify(wantRest));
        // one observation per distinct (row record, label): expanded by weight, the trajectories' own (ids aside)
        expect(expand(go)).toEqual(expand(wo));
        expect(expand(gu!)).toEqual(expand(wu!));
        if (judge !== "absent") {
          expect(want.observations.length).toBeGreaterThan(100);
          expect(go.length).toBeLessThan(wo.length); // merged
          expect(go.some((o) => (o.weight ?? 1) > 1)).toBe(true);
          expect(go.some((o) => o.unit === o.trajectory_id)).toBe(true); // rows without task ids stay their own
        }
        // every figure of the analysis, on both paths (two fields and judges: the fit is the slow part)
        if (judge === "b" || field === "suite" || field === "agent_model" || field === "surface") continue;
        const rows = { *values() { for (let s = 0; s < run.nRows; s++) yield run.rows[run.rowCode[s]] as TrajectoryIndexRow; } };
        for (const opts of [{}, { commonTasks: true }, { cells: "all" as const }, { baseline: "spotlight" }]) {
          const a = analyse(got, { ...opts, bootstrap: { B: 40, seed: 7 }, index: rows });
          const b = analyse(want, { ...opts, bootstrap: { B: 40, seed: 7 }, index });
          expect(JSON.stringify(a)).toBe(JSON.stringify(b));
          if (judge !== "absent" && "cells" in opts) expect(a).toHaveProperty("n_observations", wo.length);
        }
      }
    }
  });
});

/** Each item repeated `weight` times, without its id and weight, sorted by its JSON (a multiset). */
function expand(xs: readonly { weight?: number; trajectory_id?: string }[]): string[] {
  const out: string[] = [];
  for (const x of xs) {
    const { weight, trajectory_id, ...rest } = x;
    // a row without task ids pairs by its own id: keep the id where the observation carries it as a value
    const keep = trajectory_id !== undefined && Object.values(rest).includes(trajectory_id) ? { ...rest, trajectory_id } : rest;
    for (let i = 0; i < (weight ?? 1); i++) out.push(JSON.stringify(keep));
  }
  return out.sort();
}

/** `compareConditions`, or the message it throws (no observation, no shared task, an unknown baseline). */
function analyse(o: Observations, opts: Parameters<typeof compareConditions>[1]): unknown {
  try {
    return compareConditions(o, opts);
  } catch (e) {
    return { error: (e as Error).message };
  }
}
