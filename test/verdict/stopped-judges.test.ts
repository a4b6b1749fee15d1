/**
 * Why a run's judges may have stored no verdict (src/verdict/stopped-judges.ts): a fatal error (store.json's
 * `stopped_judges`), the last label run cut short (interrupted, cost cap, failed, killed), crashes on most items; and
 * the refusal (exit 3's `StoppedJudgesError`) only for judges asked for that have no verdict there.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { refuseStoppedJudges, stoppedWithoutVerdicts, whyJudgesStopped } from "../../src/verdict/stopped-judges.js";
import { StoppedJudgesError } from "../../src/errors.js";
import { readRunState, runStateLine } from "../../src/store/run-state.js";
import { summarizeRun } from "../../src/run/summary.js";
import { formatSummary } from "../../src/run/summary-text.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-stopped-judges-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const run = (name: string, state: Record<string, unknown>, stopped: Record<string, string> = {}, summary?: unknown) => {
  const d = path.join(tmp, name);
  fs.mkdirSync(d);
  const label_state = { started_at: "2026-01-01T00:00:00Z", finished_at: "2026-01-01T00:01:00Z", pid: 1, host: os.hostname(), ...state };
  fs.writeFileSync(path.join(d, "store.json"), JSON.stringify({ judges: [{ id: "a" }, { id: "b" }, { id: "old" }], last_invocation: { judges: ["a", "b"] }, stopped_judges: stopped, label_state }));
  if (summary) fs.writeFileSync(path.join(d, "summary.json"), JSON.stringify(summary));
  return d;
};

describe("whyJudgesStopped", () => {
  it("a fatal error: the judge's message; the others of a run that ended so: nothing", () => {
    const d = run("fatal", { state: "stopped_judges", stopped_judges: ["a"] }, { a: "HTTP 401" });
    expect([...whyJudgesStopped(d)]).toEqual([["a", "it was stopped by a fatal error in the last label run (HTTP 401)"]]);
  });
  it("a run cut short: every judge of its last invocation, saying how", () => {
    expect(whyJudgesStopped(run("int", { state: "interrupted" })).get("b")).toBe("the last label run was interrupted (Ctrl-C / SIGTERM) (2026-01-01T00:01:00Z) before it stored a verdict of this judge here");
    expect(whyJudgesStopped(run("cap", { state: "cost_cap", cost_cap: { cap_usd: 2, spent_usd: 0 } })).get("a")).toMatch(/^the last label run was stopped by its cost cap \(--max-cost \$2\)/);
    expect(whyJudgesStopped(run("failed", { state: "failed" })).get("a")).toMatch(/^the last label run failed/);
    expect(whyJudgesStopped(run("killed", { state: "running", finished_at: undefined })).get("a")).toMatch(/^the last label run ended without finishing \(killed or crashed\)/);
    expect(whyJudgesStopped(run("int2", { state: "interrupted" })).has("old")).toBe(false); // not of the last invocation
  });
  it("a complete run: nothing, unless a judge crashed on most items", () => {
    expect(whyJudgesStopped(run("done", { state: "complete" })).size).toBe(0);
    const d = run("crashed", { state: "complete" }, {}, { judges: [{ judge_id: "b", judge_crashes: 5, health: { verdicts: 0 } }] });
    expect(whyJudgesStopped(d).get("b")).toMatch(/^it crashed on 5 trajectories against 0 verdicts/);
  });
});

describe("stoppedWithoutVerdicts and refuseStoppedJudges", () => {
  const d = run("pair", { state: "stopped_judges", stopped_judges: ["a"] }, { a: "no quota" });
  it("only judges asked for with no verdict there", () => {
    expect(stoppedWithoutVerdicts(d, ["a", "b"], []).map((j) => j.judge_id)).toEqual(["a"]); // b: no reason
    expect(stoppedWithoutVerdicts(d, ["a"], ["a"])).toEqual([]); // it has verdicts there
    expect(stoppedWithoutVerdicts(d, null, []).map((j) => j.judge_id)).toEqual(["a"]); // none named: the run's judges
  });
  it("throws exit 3's error naming the judge; none named and another judge has verdicts: no refusal", () => {
    expect(() => refuseStoppedJudges("agree", d, "pair", ["a"], ["b"])).toThrow(StoppedJudgesError);
    expect(() => refuseStoppedJudges("agree", d, "pair", ["a"], ["b"])).toThrow(/^agree has no figures: the judge it was asked for stored no verdict in run pair and was stopped \(a: it was stopped by a fatal error in the last label run \(no quota\)\)/);
    expect(() => refuseStoppedJudges("agree", d, "pair", null, ["b"])).not.toThrow();
    expect(() => refuseStoppedJudges("agree", d, "pair", null, [], "among the rows --where selects")).toThrow(/the judge of the run stored no verdict in run pair among the rows --where selects and was stopped/);
  });
  it("a crash count (summary.json's, the whole run's) beside rows narrowed by --where says what it counts over (task s41 #2)", () => {
    const c = run("crashed-w", { state: "complete" }, {}, { judges: [{ judge_id: "b", judge_crashes: 5, health: { verdicts: 0 } }] });
    expect(() => refuseStoppedJudges("agree", c, "w", ["b"], [], "among the rows --where selects")).toThrow(/\(b: it crashed on 5 trajectories against 0 verdicts \(100\.0%: errors\.jsonl kind judge_crash\), over the whole run\)/);
    expect(() => refuseStoppedJudges("agree", c, "w", ["b"], [])).toThrow(/judge_crash\)\); fix the cause/);
  });
});

describe("the stopped judges in order by name wherever they are printed (break42: listed as store.json held them)", () => {
  const unsorted = () => {
    const d = path.join(tmp, "order");
    fs.mkdirSync(d, { recursive: true });
    const label_state = { state: "stopped_judges", stopped_judges: ["zed", "b", "alpha"], started_at: "2026-01-01T00:00:00Z", finished_at: "2026-01-01T00:01:00Z", pid: 1, host: os.hostname() };
    const stopped = { zed: "HTTP 401 (zed)", b: "HTTP 402 (b)", alpha: "HTTP 401 (alpha)" };
    fs.writeFileSync(path.join(d, "store.json"), JSON.stringify({ judges: [{ id: "zed" }, { id: "b" }, { id: "ok" }, { id: "alpha" }], last_invocation: { judges: ["zed", "b", "ok", "alpha"] }, stopped_judges: stopped, label_state }));
    return d;
  };
  it("stoppedWithoutVerdicts and the exit-3 message (its --exclude-judge way out too) list them by judge id", () => {
    const d = unsorted();
    expect(stoppedWithoutVerdicts(d, null, ["ok"]).map((j) => j.judge_id)).toEqual(["alpha", "b", "zed"]);
    expect(stoppedWithoutVerdicts(d, ["zed", "ok", "alpha", "b"], ["ok"]).map((j) => j.judge_id)).toEqual(["alpha", "b", "zed"]);
    let err: unknown;
    try {
      refuseStoppedJudges("committee", d, "order", ["zed", "b", "ok", "alpha"], ["ok"], undefined, { also: (ids) => ids.map((id) => `--exclude-judge ${id}`).join(" ") });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoppedJudgesError);
    const m = (err as Error).message;
    expect(m.indexOf("alpha: ")).toBeLessThan(m.indexOf("b: "));
    expect(m.indexOf("b: ")).toBeLessThan(m.indexOf("zed: "));
    expect(m).toContain("or --exclude-judge alpha --exclude-judge b --exclude-judge zed: exit code 3");
  });
  it("the run state's warning (label_state and an older summary.json) lists them by judge id", () => {
    const d = unsorted();
    expect(runStateLine(readRunState(d))).toContain("judge(s) alpha, b, zed were stopped by a fatal error");
    fs.writeFileSync(path.join(d, "store.json"), JSON.stringify({ judges: [], stopped_judges: {} })); // an older run: summary.json only
    fs.writeFileSync(path.join(d, "summary.json"), JSON.stringify({ stopped_judges: { zed: "x", alpha: "y" } }));
    expect(runStateLine(readRunState(d))).toContain("judge(s) alpha, zed were stopped by a fatal error in the last label run");
  });
  it("the label summary's text lists them by judge id", () => {
    const s = summarizeRun("r", [], new Map(), [], { zed: "HTTP 401 (zed)", alpha: "HTTP 401 (alpha)" });
    const text = formatSummary(s);
    expect(text.indexOf('judge "alpha" was stopped')).toBeGreaterThan(-1);
    expect(text.indexOf('judge "alpha" was stopped')).toBeLessThan(text.indexOf('judge "zed" was stopped'));
  });
});
