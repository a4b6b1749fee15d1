import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COMMITTEE_RATER, committeeReferenceAgreement } from "../../src/agree/reference.js";
import { REFERENCE_ROW_FIELDS, referenceAgreementColumns } from "../../src/agree/reference-columns.js";
import { checkCommitteeColumns, committeeAsColumnRun, readCommitteeColumns } from "../../src/committee/file-columns.js";
import { checkCommitteeFile, readCommitteeFile } from "../../src/committee/file.js";
import { buildCommittee } from "../../src/verdict/vote.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cfcol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

/** A run of 2,000 trajectories, judges j1..j3 (repeat 0 and 1, errors, superseded lines, a verdict without a row). */
function writeRun(dir: string): void {
  let seed = 5;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
  const rows: string[] = [];
  const verdicts: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const id = `m/${["banking", "slack"][i % 2]}/t${i}${i % 89 === 0 ? "/é🦀" : ""}`;
    rows.push(JSON.stringify({ id, suite: "s", attacked: rnd(8) !== 0, reference: rnd(15) === 0 ? {} : { security: rnd(3) === 0 }, ...(rnd(60) === 0 ? { run_error: "x" } : {}), n_messages: i, content_sha256: "c", metadata: {} }));
    for (const judge of ["j1", "j2", "j3"])
      for (const repeat of [0, 1]) {
        if (rnd(12) === 0) continue;
        const status = ["ok", "ok", "ok", "ok", "ok", "judge_error", "unverified"][rnd(7)];
        const v = { trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "f", repeat, prompt_sha256: "p", status, label: status === "ok" ? LABELS[rnd(6)] : null, downgraded: false, findings: [] };
        verdicts.push(JSON.stringify(v));
        if (rnd(9) === 0) verdicts.push(JSON.stringify({ ...v, label: LABELS[rnd(6)], status: "ok" }));
      }
  }
  verdicts.push(JSON.stringify({ trajectory_id: "orphan", judge_id: "j1", judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status: "ok", label: "unaffected", downgraded: false, findings: [] }));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
}

describe("the committee file as columns (issue 26): the same check and committee agreement as on objects", () => {
  it("fresh, stale (changed votes, missing and duplicate lines, unknown ids, a bad line), older files, one judge", async () => {
    const dir = path.join(tmp, "run");
    writeRun(dir);
    const { index, verdicts } = await readLeanRun(dir);
    const committee = buildCommittee(verdicts, [...index.keys(), "orphan"], { judgeIds: ["j1", "j2", "j3"] });
    const line = (c: object, meta: object) => JSON.stringify({ ...c, ...meta });
    const meta = { committee_judges: ["j1", "j2", "j3"], excluded_judges: [], quorum: 2 };
    const files: Record<string, string[]> = {
      fresh: committee.map((c) => line(c, meta)),
      stale: [
        ...committee.slice(5).map((c, i) => line(i % 50 === 0 ? { ...c, votes: { ...c.votes, j2: "full_compliance" } } : c, meta)),
        "{not json",
        line(committee[9], meta),
        line({ ...committee[0], trajectory_id: "nowhere" }, meta),
      ],
      older: committee.map((c) => JSON.stringify(c)),
      partial: committee.map((c) => line({ ...c, votes: { j1: c.votes.j1, j2: c.votes.j2 } }, { committee_judges: ["j1", "j2"], excluded_judges: ["j3"], quorum: 2 })),
      one: committee.map((c) => line({ ...c, votes: { j1: c.votes.j1 } }, { committee_judges: ["j1"], excluded_judges: [], quorum: 1 })),
      // as `ipi-judge committee` writes it: one line per index row, none for "orphan", whose verdict has no row
      // (break42: the check called such a file stale right after it was written, and compare --committee refused it)
      rows_only: committee.filter((c) => c.trajectory_id !== "orphan").map((c) => line(c, meta)),
    };
    const run = await readColumnRun(dir, { rowFields: REFERENCE_ROW_FIELDS });
    for (const [name, lines] of Object.entries(files)) {
      fs.writeFileSync(path.join(dir, "committee.jsonl"), lines.join("\n") + "\n");
      const cf = (await readCommitteeFile(dir, { index }))!;
      const cc = (await readCommitteeColumns(dir, run))!;
      expect({ judges: cc.judges, excluded: cc.excluded_judges, quorum: cc.quorum, bad: cc.bad_lines }, name).toEqual({ judges: cf.judges, excluded: cf.excluded_judges, quorum: cf.quorum, bad: cf.bad_lines });
      const want = checkCommitteeFile(cf, verdicts, index);
      expect(checkCommitteeColumns(cc, run), name).toEqual(want);
      expect(cc.n, name).toBe(cf.verdicts.length);
      if (name === "fresh" || name === "older" || name === "rows_only") expect(want.stale, name).toEqual([]);
      // votes changed (j2 edited), the unknown id without a verdict (per judge), lines missing
      if (name === "stale") expect(want.stale.length).toBe(5);
      const viaColumns = referenceAgreementColumns(COMMITTEE_RATER, committeeAsColumnRun(cc, run, COMMITTEE_RATER));
      if (name === "fresh") expect(viaColumns.n_used).toBeGreaterThan(500);
      expect(JSON.stringify(viaColumns), name).toBe(JSON.stringify(committeeReferenceAgreement(cf.verdicts, index)));
    }
  });
});

describe("the committee file's read says its progress (m1m48: view --other sat silent ~2 min on a 1M run's 310 MB file)", () => {
  it("reports bytes read against the file's size, ending at the whole file; the columns are those read without it", async () => {
    const dir = path.join(tmp, "progress");
    writeRun(dir);
    const { index, verdicts } = await readLeanRun(dir);
    const committee = buildCommittee(verdicts, [...index.keys()], { judgeIds: ["j1", "j2", "j3"] });
    const lines = Array.from({ length: 5 }, () => committee.map((c) => JSON.stringify({ ...c, committee_judges: ["j1", "j2", "j3"], excluded_judges: [], quorum: 2 }))).flat();
    const file = path.join(dir, "committee.jsonl");
    fs.writeFileSync(file, lines.join("\n") + "\n");
    const run = await readColumnRun(dir, { rowFields: REFERENCE_ROW_FIELDS });
    const calls: Array<[number, number, string]> = [];
    const cc = (await readCommitteeColumns(dir, run, (done, total, f) => calls.push([done, total, f])))!;
    const size = fs.statSync(file).size;
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.every(([d, t, f]) => t === size && d <= t && f === file)).toBe(true);
    expect(calls.map(([d]) => d)).toEqual([...calls.map(([d]) => d)].sort((a, b) => a - b));
    expect(calls.at(-1)![0]).toBe(size);
    expect(calls[0][0]).toBeGreaterThan(0.5 * (4096 / lines.length) * size);
    expect(JSON.stringify(cc)).toBe(JSON.stringify(await readCommitteeColumns(dir, run)));
  });
});
