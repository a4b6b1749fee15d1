import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readColumnRun, eachVerdictRecord } from "../../src/store/columns.js";
import { columnVerdicts } from "../../src/store/column-index.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { parseWhere, restrictRun, type WhereFilter } from "../../src/store/where.js";
import { restrictColumns, whereRowFields } from "../../src/store/where-columns.js";
import { readRunWhere } from "../../src/cli/util.js";
import { judgeConcordance } from "../../src/agree/pairwise.js";
import { judgeConcordanceColumns } from "../../src/agree/concordance-columns.js";
import { referenceAgreement } from "../../src/agree/reference.js";
import { REFERENCE_ROW_FIELDS, referenceAgreementColumns } from "../../src/agree/reference-columns.js";
import { judgeHealth } from "../../src/verdict/health.js";
import { paperTable } from "../../src/estimate/table.js";
import { paperTableColumns, TABLE_ROW_FIELDS } from "../../src/estimate/table-columns.js";
import { resolveSource } from "../../src/estimate/source.js";
import { readStoredCommittee } from "../../src/committee/members.js";
import { checkCommitteeColumns, readCommitteeColumns, restrictCommitteeColumns } from "../../src/committee/file-columns.js";
import { checkCommitteeFile, COMMITTEE_FILE, writeCommitteeFile } from "../../src/committee/file.js";
import { buildCommittee } from "../../src/verdict/vote.js";
import { committeeSourceColumns, committeeTableColumns } from "../../src/report/committee-table.js";
import { buildObservations } from "../../src/compare/data.js";
import { compareConditions } from "../../src/compare/index.js";
import type { TrajectoryIndexRow } from "../../src/store/records.js";
import { buildObservationsColumns, COMPARE_ROW_FIELDS } from "../../src/compare/data-columns.js";
import { unattackedLeftOut, unattackedOutsideRow } from "../../src/agree/where-unattacked.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-where-columns-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const JUDGES = ["gpt", "claude", "signature"];
const WHERES = [
  ["suite=s1"],
  ["model=model-2"],
  ["attack=important_instructions"],
  ["attack=important_instructions,(none)"],
  ["suite=s0,nosuch", "model=model-1,(none)"],
  ["condition=spotlight", "surface=tool_output"],
  ["user_task=user_task_3,injection_task_1"],
];

/**
 * A random run: three judges, repeats, superseded verdicts, re-stored rows, verdicts without a row, unicode ids, every
 * `--where` field (some rows without the field), and a committee file (stale or not).
 */
async function writeRun(name: string, n: number, seed0: number, committee: "none" | "fresh" | "stale"): Promise<string> {
  let seed = seed0;
  const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
  const rows: string[] = [];
  const verdicts: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `m${i % 4}/s${i % 3}/user_task_${i % 9}/t${i}${i % 37 === 0 ? "/é🦀" : ""}`;
    const row = () => {
      const attacked = rnd(6) !== 0;
      return JSON.stringify({
        id,
        agent_model: rnd(30) ? `model-${i % 4}` : undefined,
        suite: `s${i % 3}`,
        user_task_id: rnd(5) ? `user_task_${i % 9}` : `injection_task_${i % 3}`,
        ...(rnd(5) ? { condition: ["no_defense", "spotlight"][rnd(2)] } : {}),
        ...(rnd(3) ? { surface: ["tool_output", "tool_description"][rnd(2)] } : {}),
        attacked,
        ...(attacked ? { attack: ["important_instructions", "tool_knowledge"][rnd(2)] } : {}),
        reference: rnd(10) ? { security: rnd(2) === 0, utility: rnd(3) === 0 } : {},
        ...(rnd(30) === 0 ? { run_error: "x" } : {}),
        content_sha256: "c",
      });
    };
    rows.push(row());
    if (rnd(40) === 0) rows.push(row()); // stored again: the last row wins
    for (const judge of JUDGES)
      for (const repeat of [0, 1]) {
        if (rnd(10) === 0) continue;
        const status = ["ok", "ok", "ok", "ok", "ok", "judge_error", "unverified"][rnd(7)];
        const label = status === "ok" ? LABELS[rnd(6)] : null;
        const v = {
          trajectory_id: id,
          judge_id: judge,
          judge_model: "m",
          judge_family: "f",
          repeat,
          prompt_sha256: "p",
          status,
          label,
          ...(status !== "ok" && rnd(2) ? { error: { kind: ["http", "injection_text_unknown"][rnd(2)], message: "x" } } : {}),
          ...(rnd(3) ? { blocked_attempt: rnd(2) === 0 } : {}),
          ...(rnd(5) === 0 ? { label_basis: "code" } : {}),
          findings: [],
        };
        verdicts.push(JSON.stringify(v));
        if (rnd(9) === 0) verdicts.push(JSON.stringify({ ...v, status: "ok", label: LABELS[rnd(6)], error: undefined }));
      }
  }
  for (let k = 0; k < 4; k++) verdicts.push(JSON.stringify({ trajectory_id: `gone${k}`, judge_id: "gpt", judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status: "ok", label: "full_compliance", findings: [] }));
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
  if (committee !== "none") {
    const { index, verdicts: vs } = await readLeanRun(dir);
    const c = buildCommittee(vs, [...index.keys()], { judgeIds: JUDGES, quorum: 2 });
    writeCommitteeFile(path.join(dir, COMMITTEE_FILE), c, { judges: JUDGES, runJudges: JUDGES, quorum: 2 });
    if (committee === "stale") fs.appendFileSync(path.join(dir, "verdicts.jsonl"), JSON.stringify({ trajectory_id: [...index.keys()][7], judge_id: "gpt", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: "full_compliance", attacked: true, findings: [] }) + "\n");
  }
  return dir;
}

/** The outcome of `f`, or its error's message (a refusal compared as text). */
function outcome<T>(f: () => T): T | string {
  try {
    return f();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

describe("--where on a column run (issue 26): the same rows, verdicts and figures as restrictRun on objects", () => {
  for (const committee of ["none", "fresh", "stale"] as const)
    it(`random runs, committee.jsonl ${committee}`, async () => {
      for (let k = 0; k < 2; k++) {
        const dir = await writeRun(`run-${committee}-${k}`, 250 + 300 * k, 11 + 17 * k + committee.length, committee);
        const lean = await readLeanRun(dir);
        const fields = [...new Set([...TABLE_ROW_FIELDS, ...REFERENCE_ROW_FIELDS, ...COMPARE_ROW_FIELDS])];
        for (const spec of WHERES) {
          const f = parseWhere(spec) as WhereFilter;
          const read = await readColumnRun(dir, { rowFields: whereRowFields(fields, f) });
          const cc = await readCommitteeColumns(dir, read);
          const o = await readRunWhere(dir, { where: spec, run: "r" });
          const kept = restrictColumns(read, f, "r");
          const want = restrictRun({ index: lean.index, verdicts: lean.verdicts }, f, "r");
          // the statement, warnings, kept ids (in order) and verdicts (in order, every field)
          expect(kept.statement).toEqual(want.statement);
          expect(kept.warnings).toEqual(want.warnings);
          expect([...Array(kept.run.nRows).keys()].map((s) => kept.run.ids.id(s))).toEqual([...want.index.keys()]);
          const got = [...columnVerdicts(kept.run)].map((v) => JSON.stringify({ ...v, trajectory_id: v.trajectory_id }, Object.keys({ ...Object.getPrototypeOf(v), trajectory_id: 0 }).sort()));
          expect(got).toEqual(want.verdicts.map((v) => JSON.stringify({ ...v, usage: undefined, cost_usd: undefined }, Object.keys({ ...v, trajectory_id: 0 }).filter((x) => x !== "usage" && x !== "cost_usd").sort())));
          expect([...new Set(kept.run.verdicts.map((v) => v.judge_id))].sort()).toEqual([...new Set(want.verdicts.map((v) => v.judge_id))].sort());
          // agree --judges: concordance and health
          const attacked = [...want.index.values()].filter((r) => r.attacked).map((r) => r.id);
          const bootstrap = { B: 10, seed: 5 };
          expect(JSON.stringify(judgeConcordanceColumns(kept.run, ["gpt", "claude"], { bootstrap }).concordance)).toBe(JSON.stringify(judgeConcordance(want.verdicts, attacked, ["gpt", "claude"], { bootstrap })));
          const colHealth = judgeHealth(eachVerdictRecord(kept.run), { rowOf: (_v, i) => kept.run.rows[kept.run.rowCode[kept.run.vSlot[i]]], idOf: (_v, i) => kept.run.ids.id(kept.run.vSlot[i]) });
          expect(JSON.stringify(colHealth)).toBe(JSON.stringify(judgeHealth(want.verdicts, { rowOf: (v) => want.index.get(v.trajectory_id) })));
          // agree --reference: per judge, and the committee file's check over the kept rows
          for (const j of JUDGES) for (const field of ["security", "utility"] as const) expect(JSON.stringify(referenceAgreementColumns(j, kept.run, field))).toBe(JSON.stringify(referenceAgreement(j, want.verdicts, want.index, field)));
          if (cc) {
            const kc = restrictCommitteeColumns(cc, kept.slotMap);
            expect(kc.n).toBe(o.cf!.verdicts.length);
            expect(checkCommitteeColumns(kc, kept.run)).toEqual(checkCommitteeFile(o.cf!, o.verdicts, lean.index));
          } else expect(o.cf).toBeNull();
          // compare --judge: the observations per condition field
          const keptRows = { *values() { for (let s = 0; s < kept.run.nRows; s++) yield kept.run.rows[kept.run.rowCode[s]] as TrajectoryIndexRow; } };
          // (the analysis' fit is the slow part: one filter per run)
          for (const by of spec === WHERES[k] ? ["condition"] : []) {
            const a = outcome(() => compareConditions(buildObservationsColumns(kept.run, "gpt", by), { bootstrap: { B: 0, seed: 1 }, index: keptRows, where: kept.statement }));
            const b = outcome(() => compareConditions(buildObservations(want.index, { verdicts: want.verdicts }, { kind: "judge", judge_id: "gpt" }, by), { bootstrap: { B: 0, seed: 1 }, index: want.index, where: want.statement }));
            expect(JSON.stringify(a)).toBe(JSON.stringify(b));
          }
          // estimate --table (a judge; a committee resolved against the whole run's file), unattacked runs --where attack= leaves out
          const leftOut = unattackedLeftOut(lean.index.values(), f);
          const colLeft = unattackedLeftOut({ *[Symbol.iterator]() { for (let s = 0; s < read.nRows; s++) yield read.rows[read.rowCode[s]]; } }, f);
          expect(colLeft?.rows.length).toBe(leftOut?.rows.length);
          expect(colLeft?.values).toEqual(leftOut?.values);
          const opts = { heuristic: "signature", unattackedOutside: unattackedOutsideRow(leftOut) };
          const colOpts = { heuristic: "signature", unattackedOutside: unattackedOutsideRow(colLeft) };
          const judge = resolveSource(want.verdicts, { kind: "judge", judge_id: "claude" }, "r");
          if (judge.kind !== "judge") throw new Error("a judge");
          expect(JSON.stringify(paperTableColumns("r", kept.run, judge, colOpts))).toBe(JSON.stringify(paperTable("r", want.index, want.verdicts, judge, opts)));
          const stored = await readStoredCommittee(dir, lean.verdicts, lean.index);
          for (const req of [{ kind: "committee" as const }, { kind: "committee" as const, exclude: ["claude"] }, { kind: "committee" as const, quorum: 3 }]) {
            const saidO: string[] = [];
            const saidC: string[] = [];
            const wantT = outcome(() => {
              const s = resolveSource(want.verdicts, { ...req, stored }, "r", saidO);
              return { s, t: paperTable("r", want.index, want.verdicts, s, opts) };
            });
            const gotT = outcome(() => {
              const s = committeeSourceColumns(read, cc, req, "r", saidC, kept.run);
              return { s, t: committeeTableColumns("r", kept.run, s, colOpts) };
            });
            expect(JSON.stringify(gotT)).toBe(JSON.stringify(wantT));
            expect(saidC).toEqual(saidO);
          }
        }
        // a filter that keeps nothing: the same refusal
        const none = parseWhere(["suite=s1", "user_task=user_task_0"]) as WhereFilter;
        const read = await readColumnRun(dir, { rowFields: whereRowFields(REFERENCE_ROW_FIELDS, none) });
        expect(outcome(() => restrictColumns(read, none, "r"))).toBe(outcome(() => restrictRun({ index: lean.index }, none, "r")));
        const nowhere = parseWhere(["suite=nosuch"]) as WhereFilter;
        expect(outcome(() => restrictColumns(read, nowhere, "r"))).toBe(outcome(() => restrictRun({ index: lean.index }, nowhere, "r")));
      }
    });

  it("the kept ids as a view on the read's id table (report --where --human): the same run as the copy", async () => {
    const dir = await writeRun("run-view", 400, 5, "none");
    for (const spec of [...WHERES, ["attacked=true"]]) {
      const f = parseWhere(spec) as WhereFilter;
      const read = await readColumnRun(dir, { rowFields: whereRowFields([...TABLE_ROW_FIELDS], f) });
      const copy = restrictColumns(read, f, "r");
      const view = restrictColumns(read, f, "r", { view: true });
      expect(view.run.ids.size).toBe(copy.run.ids.size);
      const ids = [...Array(copy.run.ids.size).keys()].map((s) => copy.run.ids.id(s));
      expect(ids.map((_, s) => view.run.ids.id(s))).toEqual(ids);
      for (let s = 0; s < read.ids.size; s++) expect(view.run.ids.slotOf(read.ids.id(s))).toBe(copy.run.ids.slotOf(read.ids.id(s)));
      for (let s = 1; s < ids.length; s++) expect(Math.sign(view.run.ids.compare(s - 1, s))).toBe(Math.sign(copy.run.ids.compare(s - 1, s)));
      const { ids: _a, ...restView } = view.run;
      const { ids: _b, ...restCopy } = copy.run;
      expect(restView).toEqual(restCopy);
      expect([...view.slotMap]).toEqual([...copy.slotMap]);
      expect([view.statement, view.warnings]).toEqual([copy.statement, copy.warnings]);
    }
  });
});
