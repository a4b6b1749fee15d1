import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildObservations, type LabelSource, type Observations } from "../../src/compare/data.js";
import { compareConditions } from "../../src/compare/index.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { COMPARE_ROW_FIELDS } from "../../src/compare/data-columns.js";
import { committeeObservationsColumns } from "../../src/cli/compare-committee.js";
import { committeeSlotsOfFile } from "../../src/report/slots.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { readCommitteeFile } from "../../src/committee/file.js";
import { readCommitteeColumns, restrictCommitteeColumns } from "../../src/committee/file-columns.js";
import { buildCommittee } from "../../src/verdict/vote.js";
import { parseWhere, restrictRun, type WhereFilter } from "../../src/store/where.js";
import { restrictColumns, whereRowFields } from "../../src/store/where-columns.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cmpcomm-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

describe("compare --committee on columns (issue 26): the same observations and figures as on objects", () => {
  it("a random run of three judges and its committee file, each --by field, with and without --where", async () => {
    let seed = 5;
    const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (let i = 0; i < 1500; i++) {
      const id = `m/${i}${i % 40 === 0 ? "/ü🦀" : ""}`;
      // every other row repeats the fields of the one before (another id): rows sharing a record merge by label
      if (i % 2 === 1) rows.push(JSON.stringify({ ...JSON.parse(rows[rows.length - 1]), id }));
      else {
        const r: Record<string, unknown> = { id, content_sha256: "c", attacked: rnd(8) !== 0, reference: { security: rnd(2) === 0, utility: rnd(2) === 0 } };
        if (rnd(40)) r.agent_model = `model-${rnd(3)}`;
        if (rnd(10)) r.suite = `s${rnd(3)}`;
        if (rnd(6)) r.condition = ["no_defense", "spotlight", "lonely"][rnd(3)];
        if (rnd(4)) r.attack = ["important_instructions", "tool_knowledge"][rnd(2)];
        if (rnd(3)) r.surface = ["tool_output", "tool_description"][rnd(2)];
        if (rnd(12)) r.user_task_id = `user_task_${rnd(5)}`;
        if (rnd(12)) r.injection_task_id = `injection_task_${rnd(4)}`;
        rows.push(JSON.stringify(r));
      }
      for (const judge of ["a", "b", "c"]) {
        if (rnd(12) === 0) continue;
        const status = ["ok", "ok", "ok", "ok", "ok", "judge_error", "unverified"][rnd(7)];
        // labels drawn from a few so the votes agree often (unanimous, majority, disputed, no quorum all occur)
        const label = status === "ok" ? LABELS[rnd(3) ? i % 6 : rnd(6)] : null;
        const blocked = label === "partial_compliance" && rnd(2) ? { blocked_attempt: rnd(3) !== 0, blocked_call: { message_index: 1, tool_call_index: 0, result_message_index: 2, reason: "error_result", kind: [undefined, "refused", "unavailable", "failed"][rnd(4)] } } : {};
        verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: judge, repeat: 0, prompt_sha256: "p", status, label, findings: [], ...blocked }));
      }
    }
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    const committee = buildCommittee(vs, [...index.keys()], { judgeIds: ["a", "b", "c"] });
    expect(new Set(committee.map((c) => c.status))).toEqual(new Set(["ok", "disputed", "no_quorum"]));
    const meta = { committee_judges: ["a", "b", "c"], excluded_judges: [], quorum: 2 };
    fs.writeFileSync(path.join(dir, "committee.jsonl"), committee.map((c) => JSON.stringify({ ...c, ...meta })).join("\n") + "\n");
    const cf = (await readCommitteeFile(dir, { index }))!;
    const source: Extract<LabelSource, { kind: "committee" }> = { kind: "committee", members: ["a", "b", "c"], quorum: 2 };
    let analysed = 0;
    for (const spec of [null, ["suite=s1,s2"], ["attack=important_instructions", "model=model-1"]]) {
      const f = spec ? (parseWhere(spec) as WhereFilter) : null;
      for (const field of ["condition", "attack", "surface"]) {
        const want = objectObservations(index, vs, cf.verdicts, f, source, field);
        const read = await readColumnRun(dir, { rowFields: whereRowFields([...COMPARE_ROW_FIELDS, field], f) });
        const cc = (await readCommitteeColumns(dir, read))!;
        const kept = f ? restrictColumns(read, f) : null;
        const run = kept ? kept.run : read;
        const got = committeeObservationsColumns(run, kept ? restrictCommitteeColumns(cc, kept.slotMap) : cc, source, field)!;
        const { observations: go, unlabelled: gu, ...gotRest } = got;
        const { observations: wo, unlabelled: wu, ...wantRest } = want.obs;
        expect(JSON.stringify(gotRest), `${spec} ${field}`).toBe(JSON.stringify(wantRest));
        expect(expand(go)).toEqual(expand(wo));
        expect(expand(gu!)).toEqual(expand(wu!));
        expect(wo.length).toBeGreaterThan(50);
        expect(go.length).toBeLessThan(wo.length); // merged
        expect(wo.some((o) => o.blocked_kind !== undefined) && wu!.some((u) => u.votes_for !== undefined)).toBe(true);
        const rowsOf = { *values() { for (let s = 0; s < run.nRows; s++) yield run.rows[run.rowCode[s]] as TrajectoryIndexRow; } };
        for (const opts of [{}, { commonTasks: true }, { cells: "all" as const }]) {
          const a = analyse(got, { ...opts, bootstrap: { B: 30, seed: 7 }, index: rowsOf });
          const b = analyse(want.obs, { ...opts, bootstrap: { B: 30, seed: 7 }, index: want.index });
          expect(JSON.stringify(a)).toBe(JSON.stringify(b));
          if (!("error" in (a as object))) analysed++;
        }
      }
    }
    expect(analysed).toBeGreaterThan(10);
  });

  it("a committee file that is not one line per trajectory of the run is left to the object path", async () => {
    const dir = path.join(tmp, "dup");
    fs.mkdirSync(dir);
    const row = (id: string) => JSON.stringify({ id, content_sha256: "c", attacked: true, agent_model: "m", suite: "s", condition: "no_defense" });
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), [row("t1"), row("t2")].join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), "");
    const line = (id: string) => JSON.stringify({ trajectory_id: id, votes: {}, label: "unaffected", compromised: false, unanimous: true, status: "ok", committee_judges: ["a", "b"], excluded_judges: [], quorum: 2 });
    for (const [lines, ok] of [
      [["t1", "t2"], true],
      [["t1", "t2", "t1"], false],
      [["t1", "elsewhere"], false],
    ] as const) {
      fs.writeFileSync(path.join(dir, "committee.jsonl"), lines.map(line).join("\n") + "\n");
      const run = await readColumnRun(dir, { rowFields: COMPARE_ROW_FIELDS });
      expect(committeeSlotsOfFile((await readCommitteeColumns(dir, run))!, run) !== undefined, lines.join(",")).toBe(ok);
    }
  });
});

/** The object path of `compare --committee` (src/cli/compare.ts `objectObservations`): `restrictRun`, `buildObservations`. */
function objectObservations(
  index: Map<string, TrajectoryIndexRow>,
  verdicts: Parameters<typeof buildObservations>[1]["verdicts"],
  committee: Parameters<typeof buildObservations>[1]["committee"],
  f: WhereFilter | null,
  source: LabelSource,
  field: string,
) {
  const run = restrictRun({ index, verdicts, committee }, f);
  return { obs: buildObservations(run.index, { verdicts: run.verdicts, committee: run.committee }, source, field), index: run.index };
}

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
