import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { committeeReport, committeeSummary } from "../../src/committee/report.js";
import { COMMITTEE_ROW_FIELDS, committeeReportColumns, committeeSummaryOfSlots } from "../../src/committee/report-columns.js";
import { writeCommitteeColumns, writeCommitteeFile } from "../../src/committee/file.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-repcol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const JUDGES = [
  { id: "j1", family: "openai", model: "gpt-x", repeats: 3 },
  { id: "j2", family: "anthropic", model: "claude-x", repeats: 1 },
  { id: "j3", family: "rule", model: "sig", repeats: 2 },
  { id: "j4", family: "google", model: "gem", repeats: 1 },
];
const AGENTS = ["gpt-4o-2024-05-13", "claude-3-5-sonnet-20240620", "gemini-1.5-pro-001", "zz-local", "mystery"];

/**
 * A run of 3,000 trajectories: four judges of four families (repeats 0-2, judge errors, refusals, unverified and
 * unjudgeable verdicts, missing verdicts, code-established labels, blocked attempts, superseded lines, usage and
 * cost per verdict), agents of several makers (one unknown, one only in the configured families), surfaces, and a
 * verdict whose trajectory has no row.
 */
function writeRun(dir: string): void {
  let seed = 11;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
  const rows: string[] = [];
  const verdicts: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const id = `a/${["banking", "slack", "travel"][i % 3]}/t${i}${i % 97 === 0 ? "/é🦀" : ""}`;
    const agent = AGENTS[rnd(AGENTS.length)];
    const attacked = rnd(7) !== 0;
    const row: Record<string, unknown> = { id, agent_model: agent, suite: "s", condition: ["no_defense", "spotlight"][rnd(2)], attacked, attack: attacked ? ["important", "tool_knowledge"][rnd(2)] : undefined, n_messages: i, content_sha256: `c${i}` };
    if (agent === "mystery" && rnd(2) === 0) row.agent_family = "mystery-labs";
    if (rnd(3) === 0) row.surface = ["tool_output", "tool_description"][rnd(2)];
    if (rnd(50) === 0) row.run_error = "boom";
    rows.push(JSON.stringify(row));
    for (const j of JUDGES)
      for (let repeat = 0; repeat < j.repeats; repeat++) {
        if (rnd(10) === 0) continue; // a missing verdict
        const status = ["ok", "ok", "ok", "ok", "ok", "ok", "judge_error", "judge_refused", "unverified", "unjudgeable"][rnd(10)];
        // correlated labels, so the agreement is not all chance
        const label = status === "ok" ? LABELS[rnd(3) === 0 ? rnd(6) : (i * 7) % 6] : null;
        const v: Record<string, unknown> = {
          trajectory_id: id,
          judge_id: j.id,
          judge_model: j.model,
          judge_family: j.family,
          repeat,
          prompt_sha256: "p",
          status,
          label,
          downgraded: rnd(9) === 0,
          findings: rnd(4) === 0 ? [{ bucket: label, holds: true, evidence: [{ quote: "q", verified: rnd(3) !== 0 }] }] : [],
          attacked,
          label_basis: attacked ? ["findings", "exposure_found", "injection_absent"][rnd(3)] : "unattacked",
          agent_model: agent,
          usage: { prompt_tokens: rnd(1000), completion_tokens: rnd(100) },
          cost_usd: rnd(5) / 1000,
        };
        if (status !== "ok" && status !== "unverified") v.error = { kind: ["timeout", "parse"][rnd(2)], message: "x" };
        if (status === "unverified") v.error = { kind: "injection_text_unknown", message: "x" };
        if (label === "partial_compliance" && rnd(3) !== 0) v.blocked_attempt = rnd(2) === 0;
        // the blocked attempt's kind, sometimes not recorded (a verdict stored before it was); from i, repeat and the
        // judge, so the random stream (and the cases it makes) stays as it was
        const kind = [undefined, "refused", "unavailable", "failed", "failed"][(i * 3 + repeat + j.id.length) % 5];
        if (v.blocked_attempt) v.blocked_call = { message_index: 1, tool_call_index: 0, result_message_index: 2, reason: "error_result", ...(kind ? { kind } : {}) };
        verdicts.push(JSON.stringify(v));
        if (rnd(15) === 0) verdicts.push(JSON.stringify({ ...v, status: "ok", label: LABELS[rnd(6)], error: undefined })); // superseded
      }
  }
  verdicts.push(JSON.stringify({ trajectory_id: "orphan", judge_id: "j1", judge_model: "gpt-x", judge_family: "openai", repeat: 0, prompt_sha256: "p", status: "ok", label: "full_compliance", downgraded: false, findings: [], attacked: true }));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
}

describe("committee on columns (issue 26): the same report and committee file as on objects", () => {
  it("repeats, excluded judges, missing votes, agent families, quorums, bootstrap", async () => {
    const dir = path.join(tmp, "run");
    writeRun(dir);
    const { index, verdicts } = await readLeanRun(dir);
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    const cases = [
      { quorum: 2, excludeJudges: [] as string[], B: 0 },
      { quorum: 2, excludeJudges: ["j4"], B: 15 },
      { quorum: 1, excludeJudges: ["j2", "j4"], B: 0 },
      { quorum: 3, excludeJudges: [], B: 10 },
      { quorum: 2, excludeJudges: ["j1", "j2", "j3"], B: 0 },
    ];
    for (const c of cases) {
      const name = JSON.stringify(c);
      const opts = { run: "r", quorum: c.quorum, excludeJudges: c.excludeJudges, families: { "^zz-": "zeta" }, bootstrap: { B: c.B, seed: 7 } };
      const want = committeeReport(verdicts, index, opts);
      const got = committeeReportColumns(run, opts);
      expect(JSON.stringify(got.report, null, 1), name).toBe(JSON.stringify(want.report, null, 1));
      const runJudges = [...new Set(verdicts.map((v) => v.judge_id))];
      const judges = want.report.judges.map((j) => j.id);
      writeCommitteeFile(path.join(tmp, "objects.jsonl"), want.verdicts, { judges, runJudges, quorum: c.quorum });
      writeCommitteeColumns(path.join(tmp, "columns.jsonl"), got.committee, (s) => run.ids.id(s), { judges, runJudges, quorum: c.quorum });
      expect(fs.readFileSync(path.join(tmp, "columns.jsonl"), "utf8"), name).toBe(fs.readFileSync(path.join(tmp, "objects.jsonl"), "utf8"));
      // the case exercises what it says
      if (c.excludeJudges.length === 0) {
        expect(want.report.retest.map((t) => t.judge_id)).toEqual(["j1", "j3"]);
        expect(want.report.retest.find((t) => t.judge_id === "j3")!.deterministic).toBeDefined();
        expect(want.report.leniency.every((l) => l.own_family.n + l.other_families.n > 100 && l.excluded.unknown_agent_family > 0)).toBe(true);
        // both paths put trajectories in the same strata of the others' majority label (new user 33, M)
        expect(want.report.leniency.some((l) => l.adjusted.strata.length >= 3)).toBe(true);
        expect(want.report.committee.by_status.no_quorum + want.report.committee.by_status.disputed).toBeGreaterThan(0);
        expect(want.report.agreement.pairwise[0].six.excluded).toHaveProperty("judge_error");
      }
    }
  });

  it("everyJudge: every judge's figures beside the committee's, from one report, on both paths (new-user pass: the HTML report built two)", async () => {
    const dir = path.join(tmp, "run-every");
    writeRun(dir);
    const { index, verdicts } = await readLeanRun(dir);
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    for (const excludeJudges of [["j1", "j3"], []]) {
      const opts = { run: "r", quorum: 2, excludeJudges, bootstrap: { B: 0, seed: 7 } };
      const all = committeeReport(verdicts, index, { ...opts, excludeJudges: [] }).report;
      const plain = committeeReport(verdicts, index, opts).report;
      const every = committeeReport(verdicts, index, { ...opts, everyJudge: true }).report;
      // the committee's figures are the same; every_judge is what the all-judge report gives per judge
      const { every_judge, ...rest } = every;
      expect(JSON.stringify(rest), String(excludeJudges)).toBe(JSON.stringify(plain));
      expect(every_judge!.judges).toEqual(all.judges);
      expect(JSON.stringify(every_judge!.per_judge)).toBe(JSON.stringify(all.per_judge));
      expect(every.per_judge.map((j) => j.judge_id).sort()).toEqual(all.judges.map((j) => j.id).filter((j) => !excludeJudges.includes(j)));
      const cols = committeeReportColumns(run, { ...opts, everyJudge: true }).report;
      expect(JSON.stringify(cols, null, 1)).toBe(JSON.stringify(every, null, 1));
    }
    // without the option: no every_judge (the committee command's JSON is unchanged)
    expect(committeeReport(verdicts, index, { run: "r", excludeJudges: ["j4"], bootstrap: { B: 0, seed: 7 } }).report).not.toHaveProperty("every_judge");
  });

  it("an unknown judge to exclude throws the same RangeError", async () => {
    const dir = path.join(tmp, "run2");
    writeRun(dir);
    const { index, verdicts } = await readLeanRun(dir);
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    const opts = { run: "r", excludeJudges: ["nobody"] };
    expect(() => committeeReport(verdicts, index, opts)).toThrow(RangeError);
    expect(() => committeeReportColumns(run, opts)).toThrow(/^no judge "nobody" in run r \(its judges: j1, j2, j3, j4\)$/);
  });
});

describe("committeeSummaryOfSlots (duplicates D4: the committee report's column path and the HTML report's share it)", () => {
  it("the same figures as committeeSummary on objects; a slot without a committee verdict counts in no status, and as no_committee_verdict when attacked", () => {
    const cv = [
      { trajectory_id: "a", status: "ok", label: "full_compliance", unanimous: true, votes: {} },
      { trajectory_id: "b", status: "disputed", label: null, unanimous: false, votes: {} },
      { trajectory_id: "c", status: "ok", label: "task_refusal", unanimous: false, votes: {} },
      { trajectory_id: "e", status: "no_quorum", label: null, unanimous: false, votes: {} },
    ] as unknown as Parameters<typeof committeeSummary>[0];
    const ids = ["a", "b", "c", "d", "e"];
    const attacked = [true, true, false, true, true];
    const index = new Map(ids.map((id, i) => [id, { attacked: attacked[i] }]));
    const run = { nRows: 5, rows: attacked.map((a) => ({ attacked: a })), rowCode: Uint32Array.from([0, 1, 2, 3, 4]) } as unknown as Parameters<typeof committeeSummaryOfSlots>[0];
    const code = Int32Array.from([0, 1, 2, -1, 3]);
    const items = (slot: number) => {
      const c = code[slot] < 0 ? undefined : cv[code[slot]];
      return c === undefined ? { label: null, reason: "no_committee_verdict" } : c.status === "ok" && c.label ? { label: c.label, blocked: false } : { label: null, reason: c.status };
    };
    expect(committeeSummaryOfSlots(run, { code, verdicts: cv }, items)).toEqual(committeeSummary(cv, index));
  });
});

describe("committee: the EXPOSURE LOW groups its pooled rates hold are named (red team 25 M2)", () => {
  it("both read paths give the same warning, naming the unexposed (model, condition) group with its counts", async () => {
    const dir = path.join(tmp, "pooled-exposure");
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (const agent of ["aa", "zz | x"])
      for (const condition of ["no_defense", "spotlight"])
        for (let i = 0; i < 20; i++) {
          const id = `${agent}/${condition}/t${i}`;
          rows.push(JSON.stringify({ id, agent_model: agent, condition, attacked: true, attack: "important", content_sha256: `c-${id}` }));
          const label = agent === "zz | x" && condition === "spotlight" ? (i === 0 ? "unaffected" : "not_exposed") : "unaffected";
          for (const [judge, family] of [["j1", "openai"], ["j2", "anthropic"]])
            verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: judge, judge_model: judge, judge_family: family, repeat: 0, prompt_sha256: "p", status: "ok", label, downgraded: false, findings: [], attacked: true, label_basis: "findings", agent_model: agent }));
        }
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    const opts = { run: "r", quorum: 2, bootstrap: { B: 0, seed: 1 } };
    const want = committeeReport(vs, index, opts).report.warnings.filter((w) => w.includes("EXPOSURE LOW"));
    const got = committeeReportColumns(run, opts).report.warnings.filter((w) => w.includes("EXPOSURE LOW"));
    expect(got).toEqual(want);
    expect(want).toEqual([expect.stringMatching(/^the committee's rates pool 4 \(agent model, condition\) groups, 1 of them EXPOSURE LOW .*: zz \| x \| spotlight 1\/20 exposed;/)]);
  });
});
