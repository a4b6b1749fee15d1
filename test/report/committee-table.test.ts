import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { paperTable } from "../../src/estimate/table.js";
import { TABLE_ROW_FIELDS } from "../../src/estimate/table-columns.js";
import { resolveSource } from "../../src/estimate/source.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { readStoredCommittee } from "../../src/committee/members.js";
import { readCommitteeColumns } from "../../src/committee/file-columns.js";
import { COMMITTEE_FILE, writeCommitteeFile } from "../../src/committee/file.js";
import { buildCommittee } from "../../src/verdict/vote.js";
import { committeeSourceColumns, committeeTableColumns, type CommitteeRequest } from "../../src/report/committee-table.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-committee-table-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const JUDGES = ["gpt", "claude", "signature"];

/** A random run of `n` trajectories with three judges: every status, error kinds, blocked attempts and kinds, repeats, supersedes, missing verdicts. */
function writeRun(name: string, n: number, seed0: number): string {
  let seed = seed0;
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
        ...(rnd(5) ? { condition: ["no_defense", "spotlight"][rnd(2)] } : {}),
        attacked,
        ...(attacked ? { attack: ["important_instructions", "tool_knowledge"][rnd(2)] } : {}),
        reference: rnd(10) ? { security: rnd(2) === 0, utility: rnd(3) === 0 } : {},
        content_sha256: "c",
      }),
    );
    for (const judge of JUDGES)
      for (const repeat of [0, 1]) {
        if (rnd(10) === 0) continue;
        const status = ["ok", "ok", "ok", "ok", "ok", "judge_error", "unverified"][rnd(7)];
        const label = status === "ok" ? LABELS[rnd(6)] : null;
        const v = {
          trajectory_id: id,
          judge_id: judge,
          judge_model: "m",
          repeat,
          prompt_sha256: "p",
          status,
          label,
          ...(status !== "ok" && rnd(2) ? { error: { kind: ["http", "injection_text_unknown"][rnd(2)], message: "x" } } : {}),
          ...(rnd(3) ? { blocked_attempt: rnd(2) === 0 } : {}),
          ...(label === "partial_compliance" && rnd(2) ? { blocked_kind: ["tool_error", "agent_stopped"][rnd(2)] } : {}),
          attacked,
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

type Opts = { heuristic: string; allowLowCoverage: boolean };

/** The table as `estimate --table --committee`'s object path builds it (../../src/cli/estimate.ts, writeTable); a refusal: its message. */
async function objectTables(dir: string): Promise<(req: CommitteeRequest, opts: Opts) => unknown> {
  const { index, verdicts } = await readLeanRun(dir);
  const stored = await readStoredCommittee(dir, verdicts);
  return (req, opts) => {
    const said: string[] = [];
    try {
      const source = resolveSource(verdicts, { ...req, stored }, "r", said);
      return { said, source, table: paperTable("r", index, verdicts, source, opts) };
    } catch (e) {
      return (e as Error).message;
    }
  };
}

/** The same from columns (`writeTableCommitteeColumns`). */
async function columnTables(dir: string): Promise<(req: CommitteeRequest, opts: Opts) => unknown> {
  const run = await readColumnRun(dir, { rowFields: TABLE_ROW_FIELDS });
  const cf = await readCommitteeColumns(dir, run);
  return (req, opts) => {
    const said: string[] = [];
    try {
      const source = committeeSourceColumns(run, cf, req, "r", said);
      return { said, source, table: committeeTableColumns("r", run, source, opts) };
    } catch (e) {
      return (e as Error).message;
    }
  };
}

describe("estimate --table --committee on columns (issue 26): the same committee, warnings and table as on objects", () => {
  const asks: CommitteeRequest[] = [{ kind: "committee" }, { kind: "committee", quorum: 1 }, { kind: "committee", quorum: 3 }, { kind: "committee", exclude: ["claude"] }, { kind: "committee", exclude: ["signature"], quorum: 1 }];
  // the committee file: none, one of every judge, one leaving out a judge (another selection than most asks), one stale
  for (const file of ["none", "all", "excluded", "stale"] as const)
    it(`random runs, committee.jsonl ${file}`, async () => {
      for (let k = 0; k < 3; k++) {
        const dir = writeRun(`run-${file}-${k}`, 400 + 150 * k, 7 + 31 * k + file.length);
        if (file !== "none") {
          const { index, verdicts } = await readLeanRun(dir);
          const judges = file === "excluded" ? ["gpt", "signature"] : JUDGES;
          const committee = buildCommittee(verdicts, [...index.keys()], { judgeIds: judges, quorum: 2 });
          writeCommitteeFile(path.join(dir, COMMITTEE_FILE), committee, { judges, runJudges: JUDGES, quorum: 2 });
          // a judge relabelled after the file was written: the file is stale, the committee computed in its place
          if (file === "stale") fs.appendFileSync(path.join(dir, "verdicts.jsonl"), JSON.stringify({ trajectory_id: index.keys().next().value, judge_id: "gpt", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: "full_compliance", attacked: true, findings: [] }) + "\n");
        }
        const [want, got] = [await objectTables(dir), await columnTables(dir)];
        // the committee's warnings are compared too: a stale file, a selection other than the stored one
        const said = JSON.stringify((got({ kind: "committee" }, { heuristic: "signature", allowLowCoverage: false }) as { said: string[] }).said);
        if (file === "stale") expect(said).toContain("stale");
        if (file === "excluded") expect(JSON.stringify((got({ kind: "committee", exclude: ["claude"], quorum: 1 }, { heuristic: "signature", allowLowCoverage: false }) as { said: string[] }).said)).not.toBe("[]");
        for (const req of asks)
          for (const heuristic of ["signature", "gpt", "absent"])
            for (const allowLowCoverage of [false, true]) expect(JSON.stringify(got(req, { heuristic, allowLowCoverage }))).toBe(JSON.stringify(want(req, { heuristic, allowLowCoverage })));
      }
    }, 120_000);

  it("refuses as the object path does (a committee of fewer than 2 judges, an unknown judge to leave out)", async () => {
    const dir = writeRun("refuse", 50, 3);
    const [want, got] = [await objectTables(dir), await columnTables(dir)];
    for (const req of [{ kind: "committee", exclude: ["gpt", "claude"] }, { kind: "committee", exclude: ["nobody"] }] as CommitteeRequest[]) {
      const opts = { heuristic: "signature", allowLowCoverage: false };
      expect(typeof want(req, opts)).toBe("string");
      expect(got(req, opts)).toBe(want(req, opts));
    }
  });
});
