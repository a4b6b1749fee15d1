import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReportModelObjects, type ReportModel, type ReportOptions } from "../../src/report/data.js";
import { buildReportModelColumns } from "../../src/report/model-columns.js";
import { buildReportModel } from "../../src/report/index.js";
import { committeeReportColumns, COMMITTEE_ROW_FIELDS } from "../../src/committee/report-columns.js";
import { writeCommitteeColumns } from "../../src/committee/file.js";
import { readColumnRun } from "../../src/store/columns.js";
import { parseWhere } from "../../src/store/where.js";
import { Rand } from "../helpers/rand.js";
import { buildCommitteeFixture, type CommitteeFixture } from "./fixture.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-repcolumns-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const JUDGES = [
  { id: "j1", family: "openai", model: "gpt-x", repeats: 2 },
  { id: "j2", family: "anthropic", model: "claude-x", repeats: 1 },
  { id: "signature", family: "rule", model: "sig", repeats: 1 },
];

/**
 * A seeded run of `n` trajectories: `judges` judges (repeats, errors with kinds, refusals, unverified and
 * unjudgeable verdicts, missing and superseded verdicts, blocked attempts, costs), agents, conditions, attacks,
 * surfaces, benchmark security and utility verdicts, task ids (some missing), injection-task runs, run errors,
 * repeated index rows, odd ids, with `orphan` a verdict whose trajectory has no row; and a human file over some of
 * them.
 */
function writeRun(dir: string, seed: number, n: number, judges: typeof JUDGES, orphan: boolean): { humanFile: string } {
  const r = new Rand(seed);
  const rows: string[] = [];
  const verdicts: string[] = [];
  const human: string[] = [];
  for (let i = 0; i < n; i++) {
    const suite = r.pick(["banking", "slack", "travel"]);
    const id = `${r.pick(["a", "B", "é"])}/${suite}/t${i}${i % 97 === 0 ? "/🦀" : ""}`;
    const agent = r.pick(["gpt-4o", "claude-3", "gemini-1.5", "mystery"]);
    const injRun = r.int(0, 20) === 0;
    const attacked = !injRun && r.int(0, 6) !== 0;
    const row: Record<string, unknown> = {
      id,
      source: { format: "agentdojo", path: path.join(dir, "missing", `${i}.json`) },
      agent_model: r.int(0, 40) === 0 ? undefined : agent,
      suite,
      condition: r.pick(["no_defense", "spotlight", "pi_detector"]),
      attacked,
      attack: attacked ? r.pick(["important", "tool_knowledge"]) : undefined,
      user_task_id: injRun ? `injection_task_${r.int(0, 3)}` : r.int(0, 30) === 0 ? undefined : `user_task_${r.int(0, 5)}`,
      injection_task_id: attacked ? `injection_task_${r.int(0, 3)}` : undefined,
      reference: r.int(0, 10) === 0 ? {} : { security: r.int(0, 2) === 0, utility: r.int(0, 1) === 0 },
      content_sha256: `c${i}`,
    };
    if (r.int(0, 2) === 0) row.surface = r.pick(["tool_output", "tool_description"]);
    if (r.int(0, 50) === 0) row.run_error = "boom";
    rows.push(JSON.stringify(row));
    if (r.int(0, 40) === 0) rows.push(JSON.stringify({ ...row, condition: "no_defense" })); // a later row of the same id
    for (const j of judges)
      for (let repeat = 0; repeat < j.repeats; repeat++) {
        if (r.int(0, 12) === 0) continue;
        const status = r.pick(["ok", "ok", "ok", "ok", "ok", "ok", "judge_error", "judge_refused", "unverified", "unjudgeable"]);
        // the heuristic finds the mystery agent under pi_detector (almost) never exposed: its own EXPOSURE LOW group
        const heurLow = j.id === "signature" && agent === "mystery" && row.condition === "pi_detector" && row.agent_model !== undefined;
        const label = status === "ok" ? (heurLow ? "not_exposed" : LABELS[r.int(0, 2) === 0 ? r.int(0, 5) : (i * 7) % 6]) : null;
        const v: Record<string, unknown> = {
          trajectory_id: id,
          judge_id: j.id,
          judge_model: j.model,
          judge_family: j.family,
          repeat,
          prompt_sha256: "p",
          status,
          label,
          downgraded: r.int(0, 8) === 0,
          findings: [],
          attacked,
          label_basis: attacked ? r.pick(["findings", "exposure_found", "injection_absent"]) : "unattacked",
          agent_model: agent,
          usage: { prompt_tokens: r.int(0, 999), completion_tokens: r.int(0, 99) },
          ...(r.int(0, 20) === 0 ? {} : { cost_usd: r.int(0, 4) / 1000 }),
        };
        if (status !== "ok" && status !== "unverified") v.error = { kind: r.pick(["timeout", "parse"]), message: "x" };
        if (status === "unverified") v.error = { kind: "injection_text_unknown", message: "x" };
        if (label === "partial_compliance" && r.int(0, 2) !== 0) v.blocked_attempt = r.int(0, 1) === 0;
        // the blocked attempt's kind, sometimes not recorded (a verdict stored before it was); from i and repeat, so
        // the random stream (and the cases it makes) stays as it was
        const kind = [undefined, "refused", "unavailable", "failed", "failed"][(i * 3 + repeat) % 5];
        if (v.blocked_attempt) v.blocked_call = { message_index: 1, tool_call_index: 0, result_message_index: 2, reason: "error_result", ...(kind ? { kind } : {}) };
        verdicts.push(JSON.stringify(v));
        if (r.int(0, 15) === 0) verdicts.push(JSON.stringify({ ...v, status: "ok", label: r.pick(LABELS), error: undefined }));
      }
    if (r.int(0, 9) === 0)
      for (const a of ["ann1", "ann2", "ann3"].slice(0, r.int(1, 3))) human.push(JSON.stringify({ trajectory_id: id, annotator: a, label: r.pick(LABELS) }));
  }
  human.push(JSON.stringify({ trajectory_id: "not/in/run", annotator: "ann1", label: "unaffected" }));
  if (orphan) verdicts.push(JSON.stringify({ trajectory_id: "orphan", judge_id: "j1", judge_model: "gpt-x", judge_family: "openai", repeat: 0, prompt_sha256: "p", status: "ok", label: "full_compliance", downgraded: false, findings: [], attacked: true }));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
  const humanFile = path.join(dir, "..", `${path.basename(dir)}-human.jsonl`);
  fs.writeFileSync(humanFile, human.join("\n") + "\n");
  return { humanFile };
}

/** The model as plain data (the lazy committee verdicts read), for `toEqual`. */
function plain(m: ReportModel): unknown {
  return JSON.parse(JSON.stringify(m));
}

async function both(o: ReportOptions): Promise<{ cols: unknown; objs: unknown }> {
  const now = new Date("2026-01-01T00:00:00Z");
  const cols = await buildReportModelColumns({ ...o, now });
  expect(cols).not.toBeNull();
  const objs = await buildReportModelObjects({ ...o, now });
  return { cols: plain(cols!), objs: plain(objs) };
}

async function writeCommittee(runDir: string, quorum = 2): Promise<void> {
  const run = await readColumnRun(runDir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
  const { report, committee } = committeeReportColumns(run, { run: "x", quorum, bootstrap: { B: 0, seed: 1 } });
  const judges = new Set<string>();
  for (let i = 0; i < run.nVerdicts; i++) judges.add(run.verdicts[run.vCode[i]].judge_id);
  writeCommitteeColumns(path.join(runDir, "committee.jsonl"), committee, (s) => run.ids.id(s), { judges: report.judges.map((j) => j.id), runJudges: [...judges], quorum });
}

describe("report on columns (issue 26): the same model as on objects", () => {
  const multi = path.join(tmp, "multi");
  const single = path.join(tmp, "single");
  const withFile = path.join(tmp, "with-file");
  let humanMulti = "";
  let humanSingle = "";
  let humanFile = "";
  beforeAll(() => {
    humanMulti = writeRun(multi, 5, 1000, JUDGES, true).humanFile;
    humanSingle = writeRun(single, 9, 1000, JUDGES.slice(2), false).humanFile;
    humanFile = writeRun(withFile, 13, 800, JUDGES, false).humanFile;
  });

  it("three judges, the committee computed: every section, with and without human labels and a paper table", async () => {
    for (const o of [
      { bootstrap: { B: 0, seed: 1 } },
      { bootstrap: { B: 50, seed: 2 }, humanFile: humanMulti, maxItems: 30 },
      { bootstrap: { B: 0, seed: 1 }, source: { kind: "judge" as const, judge_id: "j2" }, maxItems: 0 },
      { bootstrap: { B: 0, seed: 1 }, source: { kind: "judge" as const, judge_id: "signature" } },
      { bootstrap: { B: 0, seed: 1 }, source: { kind: "committee" as const, quorum: 2 } },
      { bootstrap: { B: 0, seed: 1 }, source: { kind: "committee" as const, quorum: 3 }, maxItems: 5000 },
    ]) {
      const { cols, objs } = await both({ runDir: multi, run: "multi", ...o });
      expect(cols).toEqual(objs);
      // the benchmark caveats read each compared verdict's row from the column walk (the verdicts carry no condition):
      // the heuristic's EXPOSURE LOW group named with its row's model and condition, as on objects (issue 26 point 3)
      expect((cols as ReportModel).reference_warnings.find((w) => w.startsWith("judge signature: the figures pool")), JSON.stringify(o)).toMatch(/mystery \| pi_detector \d+\/\d+ exposed/);
      // the heuristic's own EXPOSURE LOW row is marked on both paths, under a judge and under a committee (review 26)
      // (not when the heuristic is the judge: its columns are the judge's)
      if (o.source && !(o.source.kind === "judge" && o.source.judge_id === "signature")) expect((cols as ReportModel).paper_table!.rows.some((x) => x.heuristic_exposure_low), JSON.stringify(o)).toBe(true);
    }
  });

  it("a committee file: fresh (with another quorum), stale", async () => {
    await writeCommittee(withFile, 1);
    let r = await both({ runDir: withFile, run: "with-file", bootstrap: { B: 0, seed: 1 }, maxItems: 400 });
    expect((r.cols as ReportModel).committee!.source).toBe("committee.jsonl");
    expect(r.cols).toEqual(r.objs);
    r = await both({ runDir: withFile, run: "with-file", bootstrap: { B: 0, seed: 1 }, humanFile });
    expect(r.cols).toEqual(r.objs);
    // stale: a vote changed, a line dropped
    const file = path.join(withFile, "committee.jsonl");
    const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
    const first = JSON.parse(lines[1]);
    first.votes.j1 = first.votes.j1 === "unaffected" ? "not_exposed" : "unaffected";
    fs.writeFileSync(file, [lines[0], JSON.stringify(first), ...lines.slice(3)].join("\n") + "\n");
    r = await both({ runDir: withFile, run: "with-file", bootstrap: { B: 0, seed: 1 } });
    expect((r.cols as ReportModel).committee!.source).toBe("computed");
    expect(r.cols).toEqual(r.objs);
    // a line twice: the object path (the caller falls back)
    fs.writeFileSync(file, [...lines, lines[5]].join("\n") + "\n");
    expect(await buildReportModelColumns({ runDir: withFile, bootstrap: { B: 0, seed: 1 } })).toBeNull();
    const now = new Date("2026-01-01T00:00:00Z");
    expect(plain(await buildReportModel({ runDir: withFile, bootstrap: { B: 0, seed: 1 }, now }))).toEqual(plain(await buildReportModelObjects({ runDir: withFile, bootstrap: { B: 0, seed: 1 }, now })));
    fs.rmSync(file);
  });

  it("--where on columns (issue 26 point 3): the kept rows, the committee file's lines of them, the statement, its warnings and notes", async () => {
    await writeCommittee(withFile, 2);
    const cases: Array<[string, string[], Partial<ReportOptions>]> = [
      [multi, ["suite=banking"], {}],
      [multi, ["attack=important"], { source: { kind: "judge", judge_id: "j2" } }], // the unattacked left out: utility cells and the note
      [multi, ["model=mystery", "condition=pi_detector,nosuch"], { source: { kind: "committee", quorum: 2 }, maxItems: 7 }], // a value that matches nothing
      [withFile, ["suite=slack"], { maxItems: 400 }],
      [withFile, ["attack=tool_knowledge", "surface=tool_output"], { source: { kind: "judge", judge_id: "signature" } }],
      [single, ["condition=spotlight"], { maxItems: 40 }],
      [multi, ["attacked=true"], { source: { kind: "judge", judge_id: "j2" } }], // the attacked runs without naming each attack (new user 44)
    ];
    for (const [runDir, spec, extra] of cases) {
      const o = { runDir, run: path.basename(runDir), bootstrap: { B: 0, seed: 1 }, where: parseWhere(spec), ...extra };
      const { cols, objs } = await both(o);
      expect(cols, spec.join(" ")).toEqual(objs);
      expect((cols as ReportModel).where, spec.join(" ")).toBeDefined();
    }
    const m = (await both({ runDir: multi, run: "multi", bootstrap: { B: 0, seed: 1 }, where: parseWhere(["attack=important"]), source: { kind: "judge", judge_id: "j2" } })).cols as ReportModel;
    expect(m.paper_table!.rows.some((r) => r.utility.reason === "unattacked_outside_where")).toBe(true);
    fs.rmSync(path.join(withFile, "committee.jsonl"));
  });

  it("--where with human labels on columns (issue 26 point 3): the frame and the calibrated estimate over the whole run", async () => {
    await writeCommittee(withFile, 2);
    const cases: Array<[string, string, string[], Partial<ReportOptions>]> = [
      [multi, humanMulti, ["suite=banking"], { bootstrap: { B: 30, seed: 4 } }],
      [multi, humanMulti, ["attacked=true"], { source: { kind: "judge", judge_id: "j2" } }], // the unattacked labelled items: left out
      [multi, humanMulti, ["model=mystery", "condition=pi_detector,nosuch"], { source: { kind: "committee", quorum: 2 }, maxItems: 7 }],
      [withFile, humanFile, ["suite=slack"], { maxItems: 400 }], // the committee file's lines of the kept rows
      [withFile, humanFile, ["attack=tool_knowledge"], { source: { kind: "judge", judge_id: "signature" } }], // utility cells: unattacked outside
      [single, humanSingle, ["condition=spotlight"], {}], // one judge: its calibrated estimate, the condition its domain
    ];
    for (const [runDir, human, spec, extra] of cases) {
      const { cols, objs } = await both({ runDir, run: path.basename(runDir), bootstrap: { B: 0, seed: 1 }, humanFile: human, where: parseWhere(spec), ...extra });
      expect(cols, spec.join(" ")).toEqual(objs);
      const m = cols as ReportModel;
      expect(m.where, spec.join(" ")).toBeDefined();
      // the labelled trajectories the filter drops are counted outside it, not as missing from the run (attacked=true:
      // the unattacked ones it drops counted as unattacked, as every attack clause does)
      const ex = m.human!.excluded_items;
      expect(spec[0] === "attacked=true" ? ex.unattacked : ex.outside_where, spec.join(" ")).toBeGreaterThan(0);
    }
    const single1 = (await both({ runDir: single, run: "single", bootstrap: { B: 0, seed: 1 }, humanFile: humanSingle, where: parseWhere(["condition=spotlight"]) })).cols as ReportModel;
    expect(single1.paper_table!.rows.some((r) => r.calibrated_asr_behaviour !== null)).toBe(true);
    // a filter that keeps nothing: the same refusal as on objects
    const none = { runDir: multi, humanFile: humanMulti, where: parseWhere(["suite=nosuch"]), bootstrap: { B: 0, seed: 1 } };
    const err = await buildReportModelObjects(none).catch((e: Error) => e.message);
    await expect(buildReportModelColumns(none)).rejects.toThrow(err as string);
    fs.rmSync(path.join(withFile, "committee.jsonl"));
  });

  it("one judge: its disagreements with the benchmark; human labels with the calibrated estimate on columns too", async () => {
    const { cols, objs } = await both({ runDir: single, run: "single", bootstrap: { B: 0, seed: 1 }, maxItems: 40 });
    expect(cols).toEqual(objs);
    expect((cols as ReportModel).items.length).toBe(40);
    // the paper table's calibrated estimate (issue 26 point 3: the report read the run again as objects for it)
    const h = await both({ runDir: single, run: "single", humanFile: humanSingle, bootstrap: { B: 0, seed: 1 } });
    expect(h.cols).toEqual(h.objs);
    expect((h.cols as ReportModel).paper_table!.rows.some((r) => r.calibrated_asr_behaviour !== null)).toBe(true);
  });

  it("human labels with a committee's paper table: its calibrated estimate on columns", async () => {
    for (const quorum of [2, 3]) {
      const { cols, objs } = await both({ runDir: multi, run: "multi", humanFile: humanMulti, bootstrap: { B: 0, seed: 1 }, source: { kind: "committee" as const, quorum } });
      expect(cols).toEqual(objs);
      expect((cols as ReportModel).paper_table!.rows.some((r) => r.calibrated_asr_behaviour !== null)).toBe(true);
    }
  });

  describe("on real AgentDojo runs (the report fixture: three judges, a committee file, two annotators)", () => {
    let fx: CommitteeFixture;
    beforeAll(async () => {
      fx = await buildCommitteeFixture(path.join(tmp, "fx"));
    }, 120_000);
    it("with and without the committee file and human labels", async () => {
      for (const humanFile of [undefined, fx.humanFile]) {
        const { cols, objs } = await both({ runDir: fx.runDir, run: fx.run, humanFile, bootstrap: { B: 100, seed: 3 } });
        expect(cols).toEqual(objs);
      }
      fs.rmSync(path.join(fx.runDir, "committee.jsonl"));
      const { cols, objs } = await both({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 0, seed: 3 } });
      expect(cols).toEqual(objs);
    });
  });
});
