/**
 * Reports say what they cover (issue 12 point 7), end to end on the committee fixture (three judges over the
 * bundled AgentDojo samples): committee.jsonl records its judge set and `compare` never silently reads a
 * committee of another judge set or of older verdicts; `agree --reference` reports the committee beside each
 * judge; a killed or partial run is flagged by agree, committee and report; unattacked runs never show a
 * benchmark security value in the report.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeRemovedIds } from "../../src/store/removed-ids.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { buildCommitteeFixture, type CommitteeFixture } from "../report/fixture.js";
import { checkCommitteeFile, readCommitteeFile, writeCommitteeFile } from "../../src/committee/file.js";
import { readRunState } from "../../src/store/run-state.js";
import { readTrajectoryIndex, readVerdicts } from "../../src/store/run-store.js";
import { benchmarkSecurity } from "../../src/report/data.js";
import { buildReportModel } from "../../src/report/index.js";
import { committeeReport } from "../../src/committee/report.js";
import { createSample } from "../../src/sample/index.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let tmp: string;
let fx: CommitteeFixture;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cover-"));
  fx = await buildCommitteeFixture(path.join(tmp, "fx"), { hostile: false });
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const cli = (args: string[]) => runCli([...args, "--labels-dir", fx.labelsDir]);
const cfPath = () => path.join(fx.runDir, "committee.jsonl");

describe("committee.jsonl records its judge set; compare checks it", () => {
  it("the committee command writes the judge set on every line and compare reads it", async () => {
    const r = await cli(["committee", "--run", fx.run, "--bootstrap", "0", "--json"]);
    expect(r.code).toBe(0);
    const lines = fs.readFileSync(cfPath(), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    for (const l of lines) expect(l).toMatchObject({ committee_judges: ["lenient-a", "signature", "strict-b"], excluded_judges: [], quorum: 2 });
    const c = await cli(["compare", "--run", fx.run, "--by", "attack", "--bootstrap", "0", "--committee", "--json"]);
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout).source).toEqual({ kind: "committee", members: ["lenient-a", "signature", "strict-b"], quorum: 2 });
  });
  it("a committee of another judge set is refused by name (older file without a record) or warned about (judges left out on purpose)", async () => {
    const [verdicts, index] = await Promise.all([readVerdicts(fx.runDir), readTrajectoryIndex(fx.runDir)]);
    const two = verdicts.filter((v) => v.judge_id !== "strict-b");
    const { verdicts: cv } = committeeReport(two, index, { run: fx.run, bootstrap: { B: 0, seed: 1 } });
    // an older file: no record of the judge set, and a judge of the run missing from its votes
    fs.writeFileSync(cfPath(), cv.map((c) => JSON.stringify(c)).join("\n") + "\n");
    let c = await cli(["compare", "--run", fx.run, "--by", "attack", "--bootstrap", "0", "--committee"]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/strict-b that committee\.jsonl \(the committee of lenient-a, signature\) does not include/);
    expect(c.stderr).toMatch(/run ipi-judge committee --run committee again/);
    // the same committee written with the judge left out on record: read, with a warning naming it
    writeCommitteeFile(cfPath(), cv, { judges: ["lenient-a", "signature"], runJudges: ["lenient-a", "signature", "strict-b"], quorum: 2 });
    c = await cli(["compare", "--run", fx.run, "--by", "attack", "--bootstrap", "0", "--committee", "--json"]);
    expect(c.code).toBe(0);
    expect(c.stderr).toMatch(/judge\(s\) strict-b of the run were left out when it was built/);
    // --judge never reads the committee file
    c = await cli(["compare", "--run", fx.run, "--by", "attack", "--bootstrap", "0", "--judge", "strict-b", "--json"]);
    expect(c.code).toBe(0);
  });
  it("votes that changed since the file was written make it stale (compare refuses; report computes the committee instead)", async () => {
    const [verdicts, index] = await Promise.all([readVerdicts(fx.runDir), readTrajectoryIndex(fx.runDir)]);
    const { verdicts: cv } = committeeReport(verdicts, index, { run: fx.run, bootstrap: { B: 0, seed: 1 } });
    const flipped = cv.map((c, i) => (i < 3 ? { ...c, votes: { ...c.votes, signature: c.votes.signature === "full_compliance" ? "unaffected" : "full_compliance" } } : c));
    writeCommitteeFile(cfPath(), flipped as typeof cv, { judges: ["lenient-a", "signature", "strict-b"], runJudges: ["lenient-a", "signature", "strict-b"], quorum: 2 });
    const cf = (await readCommitteeFile(fx.runDir))!;
    expect(checkCommitteeFile(cf, verdicts).stale).toEqual(["judge signature's votes changed on 3 trajectories since committee.jsonl was written (relabelled or resumed)"]);
    const c = await cli(["compare", "--run", fx.run, "--by", "attack", "--bootstrap", "0", "--committee"]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/votes changed on 3 trajectories/);
    // sample draws its disagreement pool from committee.jsonl: a stale file is said so
    const smp = await createSample({ runDir: fx.runDir, run: fx.run, random: 5, disagreement: 3, seed: 1, outDir: path.join(tmp, "st") });
    expect(smp.warnings.join("\n")).toMatch(/committee\.jsonl is stale \(judge signature's votes changed on 3 trajectories/);
    const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 0, seed: 1 } });
    expect(m.committee?.source).toBe("computed");
    expect(m.warnings.join("\n")).toMatch(/committee\.jsonl is not used: judge signature's votes changed/);
  });
  it("trajectories the file counts that have left the run's figures (input_removed) are said as such, not as changed votes (red team 15 F6)", async () => {
    const [verdicts, index] = await Promise.all([readVerdicts(fx.runDir), readTrajectoryIndex(fx.runDir)]);
    const { verdicts: cv } = committeeReport(verdicts, index, { run: fx.run, bootstrap: { B: 0, seed: 1 } });
    writeCommitteeFile(cfPath(), cv, { judges: ["lenient-a", "signature", "strict-b"], runJudges: ["lenient-a", "signature", "strict-b"], quorum: 2 });
    writeRemovedIds(fx.runDir, { ids: cv.slice(0, 2).map((c) => c.trajectory_id), files: [] });
    try {
      const cf = (await readCommitteeFile(fx.runDir))!;
      const stale = checkCommitteeFile(cf, await readVerdicts(fx.runDir)).stale.join("\n");
      expect(stale).toMatch(/judge signature has no verdict now on 2 trajectories committee\.jsonl counts \(not in the run's figures: their input is gone, input_removed/);
      expect(stale).not.toMatch(/votes changed/);
    } finally {
      writeRemovedIds(fx.runDir, undefined);
    }
  });
});

describe("agree --reference reports the committee beside each judge", () => {
  it("one row per judge and one for the committee, in text and JSON", async () => {
    await cli(["committee", "--run", fx.run, "--bootstrap", "0", "--json"]);
    const t = await cli(["agree", "--run", fx.run, "--reference", "security"]);
    expect(t.code).toBe(0);
    // the rater table's header on two lines (min40: 112 -> 69 columns): names, then what each kappa compares
    expect(t.stdout).toMatch(/^rater\s+n\s+kappa asr_goal\s+kappa asr_behaviour\s+asr_goal vs\n\s+\(full_compliance\)\s+\(compromised\)\s+security rate$/m);
    // the committee row named with its members (new user 30)
    for (const j of ["lenient-a", "signature", "strict-b", "committee \\(lenient-a, signature, strict-b; quorum 2\\)"]) expect(unwrapText(t.stdout)).toMatch(new RegExp(`^${j}\\s+\\d+\\s`, "m"));
    expect(unwrapText(t.stdout)).toContain("== judge committee (lenient-a, signature, strict-b; quorum 2) vs the benchmark's security verdict ==");
    const j = JSON.parse((await cli(["agree", "--run", fx.run, "--reference", "security", "--json"])).stdout);
    expect(j.committee.judge_id).toBe("committee");
    expect(j.committee.members).toEqual(["lenient-a", "signature", "strict-b"]);
    expect(j.committee.n_used).toBeGreaterThan(0);
    expect(j.per_judge).toHaveLength(3);
    expect(j.run_state.status).toBe("complete");
    // each comparison under the name of the rate it stands for, with the benchmark's own rate beside
    expect(j.rate).toBe("asr_goal");
    expect(j.binary.rate).toBe("asr_behaviour");
    expect(j.rates.asr_goal.n).toBe(j.n_used);
    expect(j.rates.reference.n).toBe(j.n_used);
    expect(unwrapText(t.stdout)).toContain("asr_goal: full_compliance vs security");
    expect(unwrapText(t.stdout)).toContain("asr_behaviour: binary collapse (full or partial compliance) vs security");
    expect(unwrapText(t.stdout)).toMatch(/rates over these \d+: asr_goal [\d.]+% .* vs the benchmark's security rate [\d.]+%/);
  });

  it("a reference that is not an attack verdict is refused, unless --reference-kind attack insists", async () => {
    const u = await cli(["agree", "--run", fx.run, "--reference", "utility"]);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/--reference utility is not an attack verdict: utility is the benchmark's check of the user's task/);
    expect(unwrapText(u.stdout)).not.toMatch(/kappa/);
    const bad = await cli(["agree", "--run", fx.run, "--reference", "stealth"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/must be an attack verdict of the benchmark \(security\)/);
    const insisted = await cli(["agree", "--run", fx.run, "--reference", "utility", "--reference-kind", "attack", "--json"]);
    expect(insisted.code).toBe(0);
    expect(JSON.parse(insisted.stdout).reference).toBe("utility");
  });
});

describe("a killed or partial run is flagged", () => {
  it("label records its outcome; a run left 'running' by a dead process reads as killed in agree, committee and report", async () => {
    expect(readRunState(fx.runDir)).toMatchObject({ status: "complete", complete: true, message: null });
    const store = path.join(fx.runDir, "store.json");
    const saved = fs.readFileSync(store, "utf8");
    try {
      const s = JSON.parse(saved);
      s.label_state = { state: "running", started_at: "2026-01-01T00:00:00.000Z", pid: 2 ** 22 + 99, host: os.hostname() };
      fs.writeFileSync(store, JSON.stringify(s));
      expect(readRunState(fx.runDir).status).toBe("killed");
      const a = await cli(["agree", "--run", fx.run, "--reference", "security"]);
      expect(unwrapText(a.stdout)).toMatch(/^WARNING: run incomplete: the last label run \(started 2026-01-01T00:00:00.000Z, process \d+\) ended without finishing \(killed or crashed\)/);
      // committee's text: the warning once, on stderr (its report says how many are there)
      const c = await cli(["committee", "--run", fx.run, "--bootstrap", "0"]);
      expect(c.stderr).toMatch(/^ipi-judge: warning: run incomplete: the last label run/m);
      expect(unwrapText(c.stdout)).not.toMatch(/run incomplete/);
      expect(unwrapText(c.stdout)).toMatch(/^\d+ warning\(s\) on stderr \(ipi-judge: warning: \.\.\.\)$/m);
      const cj = await cli(["committee", "--run", fx.run, "--bootstrap", "0", "--json"]);
      expect(cj.stderr).toMatch(/warning: run incomplete/);
      expect(JSON.parse(cj.stdout).run_state.status).toBe("killed");
      const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 0, seed: 1 } });
      expect(m.warnings[0]).toMatch(/^run incomplete: the last label run/);
      for (const [state, re] of [
        ["interrupted", /interrupted/],
        ["stopped_judges", /judge\(s\) x were stopped/],
        ["failed", /failed/],
      ] as const) {
        s.label_state = { state, started_at: "t", finished_at: "u", pid: 1, host: os.hostname(), stopped_judges: ["x"] };
        fs.writeFileSync(store, JSON.stringify(s));
        expect(readRunState(fx.runDir)).toMatchObject({ status: state, complete: false });
        expect(readRunState(fx.runDir).message).toMatch(re);
      }
      s.label_state = { state: "complete", started_at: "t", finished_at: "u", pid: 1, host: os.hostname(), limit: 10 };
      fs.writeFileSync(store, JSON.stringify(s));
      expect(readRunState(fx.runDir)).toMatchObject({ status: "limited", complete: true });
      // a lock left by a process on another host: labelling may still go on there
      fs.writeFileSync(path.join(fx.runDir, ".lock"), JSON.stringify({ pid: 1, since: "t", host: "elsewhere" }));
      expect(readRunState(fx.runDir)).toMatchObject({ status: "running", complete: false });
    } finally {
      fs.writeFileSync(store, saved);
      fs.rmSync(path.join(fx.runDir, ".lock"), { force: true });
    }
  });
});

describe("unattacked runs never show a benchmark security value", () => {
  it("the report's items carry security only for attacked runs without a run error", async () => {
    const index = await readTrajectoryIndex(fx.runDir);
    const unattacked = [...index.values()].filter((t) => !t.attacked);
    expect(unattacked.length).toBeGreaterThan(0);
    expect(unattacked.some((t) => typeof t.reference?.security === "boolean")).toBe(true); // AgentDojo writes one
    for (const t of unattacked) expect(benchmarkSecurity(t)).toBeUndefined();
    const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 0, seed: 1 }, maxItems: 1000 });
    for (const it of m.items) if (!it.row?.attacked) expect(it.reference).toBeUndefined();
  });
});
