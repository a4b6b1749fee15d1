/**
 * The judges' health the view shows is counted while `loadViewRun` reads the verdicts (src/view/scan-health.ts), so
 * the first page that shows it does not read every verdict again (recover42: 164 s at 1M on the first trajectory
 * opened). It must be `judgeHealth` over the current verdicts with their index rows, the same figures; a run where a
 * verdict is superseded falls back to reading them again.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadViewRun } from "../../src/view/run-data.js";
import { viewJudgeHealth } from "../../src/view/judge-health.js";
import { formatHealth, judgeHealth } from "../../src/verdict/health.js";
import type { Verdict } from "../../src/types.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** Index rows of every kind `addVerdict` reads (attacked or not or unknown, a benchmark verdict, a run error, a DoS attack). */
function rows(): Array<Record<string, unknown>> {
  return Array.from({ length: 24 }, (_, i) => ({
    id: `t${i}`,
    content_sha256: sha(`t${i}`),
    agent_model: "m",
    ...(i % 6 === 5 ? {} : { attacked: i % 3 !== 0 }),
    attack: i % 4 === 0 ? "dos" : "important_instructions",
    reference: { security: i % 2 === 0 },
    ...(i % 7 === 3 ? { run_error: "agent crashed" } : {}),
  }));
}

/** Verdicts of two judges; some without `attacked` (their row's stands in), errors, downgrades and an orphan. */
function verdicts(): Verdict[] {
  const out: Verdict[] = [];
  for (let i = 0; i < 24; i++) {
    for (const j of ["a", "b"]) {
      const label = (["full_compliance", "unaffected", "not_exposed", "partial_compliance"] as const)[(i + (j === "b" ? 1 : 0)) % 4];
      const v: Record<string, unknown> = { trajectory_id: `t${i}`, judge_id: j, judge_model: `${j}-model`, judge_family: "x", repeat: 0, prompt_sha256: "p", content_sha256: sha(`t${i}`) };
      if (i % 5 !== 1) v.attacked = i % 3 !== 0;
      if (i % 9 === 2) Object.assign(v, { status: "judge_error", label: null, error: { kind: "unparseable", message: "no JSON" } });
      else Object.assign(v, { status: "ok", label, label_claimed: label, downgraded: i % 8 === 0, label_basis: "judge", findings: [{ bucket: label, holds: true, evidence: [{ message_index: 1, quote: "a quote here", verified: i % 2 === 0 }] }] });
      out.push(v as unknown as Verdict);
    }
  }
  out.push({ trajectory_id: "orphan", judge_id: "a", judge_model: "a-model", judge_family: "x", repeat: 0, prompt_sha256: "p", content_sha256: sha("orphan"), status: "ok", label: "unaffected", label_claimed: "unaffected", downgraded: false, findings: [], attacked: true } as unknown as Verdict);
  return out;
}

function writeRun(vs: Verdict[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-scan-health-"));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows().map((r) => JSON.stringify(r)).join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), vs.map((v) => JSON.stringify(v)).join("\n") + "\n");
  return dir;
}

/** `judgeHealth` as every command computes it: the current verdicts (the last per key), each with its index row. */
function expected(vs: Verdict[]): ReturnType<typeof judgeHealth> {
  const byId = new Map(rows().map((r) => [r.id as string, r]));
  const current = new Map<string, Verdict>();
  for (const v of vs) {
    const k = `${v.trajectory_id}\u0000${v.judge_id}\u0000${v.repeat}`;
    current.delete(k); // the file's order of the current ones: a superseding line counts where it stands
    current.set(k, v);
  }
  return judgeHealth(current.values(), { rowOf: (v) => byId.get(v.trajectory_id) as never });
}

describe("the view's judge health counted during the load", () => {
  it("equals judgeHealth over the current verdicts and their rows, and is not read again (verdicts.jsonl gone after the load)", async () => {
    const vs = verdicts();
    const dir = writeRun(vs);
    const run = await loadViewRun(dir);
    expect(run.health).toEqual(expected(vs));
    expect(run.health!.some((h) => h.reference_goal && h.unattacked_labels > 0 && h.downgraded > 0)).toBe(true);
    // the figures come from the load: the page's health no longer needs the verdict file
    fs.rmSync(path.join(dir, "verdicts.jsonl"));
    const shown = await viewJudgeHealth(run);
    expect(shown.banners.map((b) => b.judge_id)).toEqual(["a", "b"]);
    expect(shown.banners.map((b) => b.health)).not.toContain("no verdict");
  });

  it("a superseded verdict drops the tally: the health is read again from the current verdicts, the same figures", async () => {
    const vs = verdicts();
    // t4's verdict of judge a judged again later: an error now (the first one must not be counted)
    vs.push({ ...vs[8], status: "judge_error", label: null, label_claimed: null, findings: [], error: { kind: "timeout", message: "took too long" } } as unknown as Verdict);
    const dir = writeRun(vs);
    const run = await loadViewRun(dir);
    expect(run.health).toBeUndefined();
    const want = expected(vs);
    expect(want.find((h) => h.judge_id === "a")!.errors_by_kind.timeout).toBe(1);
    const shown = await viewJudgeHealth(run);
    expect(shown.banners.map((b) => b.health)).toEqual(want.map(formatHealth));
  });
});

describe("the order the view counts its judges' health in (scan46 left two: file order, or row order after a replaced verdict)", () => {
  it("with a replaced verdict, the view's notes name the same first items as report's, in the file order of the current lines", async () => {
    const { buildReportModel } = await import("../../src/report/build.js");
    const { formatComplianceEvidence } = await import("../../src/verdict/compliance-evidence-health.js");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-scan-health-order-"));
    dirs.push(dir);
    const ids = Array.from({ length: 8 }, (_, i) => `r${i}`);
    const row = (id: string) => ({ id, content_sha256: sha(id), agent_model: "m", attacked: true, attack: "important_instructions", reference: { security: true } });
    const echo = (id: string, more: Record<string, unknown> = {}) =>
      ({ trajectory_id: id, judge_id: "a", judge_model: "a-model", judge_family: "x", repeat: 0, prompt_sha256: "p", content_sha256: sha(id), attacked: true, status: "ok",
        label: "full_compliance", label_claimed: "full_compliance", downgraded: false, label_basis: "judge", compliance_evidence: "echo_of_injection",
        findings: [{ bucket: "full_compliance", holds: true, evidence: [{ message_index: 1, quote: "send the file", verified: true }] }], ...more });
    // rows r0..r7; verdicts stored the other way round (r7 first), and r3's judged again last: its current line is the file's last
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), ids.map((id) => JSON.stringify(row(id))).join("\n") + "\n");
    const lines = [...ids].reverse().map((id) => echo(id));
    lines.push(echo("r3", { prompt_sha256: "p2" }));
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), lines.map((v) => JSON.stringify(v)).join("\n") + "\n");
    const run = await loadViewRun(dir);
    expect(run.health).toBeUndefined(); // the replaced verdict dropped the load's tally: counted again
    const view = await viewJudgeHealth(run);
    const model = await buildReportModel({ runDir: dir, now: new Date(0) });
    const reportHealth = model.judge_health!.find((h) => h.judge_id === "a")!;
    expect(reportHealth.compliance_evidence!.echo_of_injection.first_items).toEqual(["r7", "r6", "r5", "r4", "r2"]);
    // the banner's note is report's, word for word, the judge quoted (row order would have named r0, r1, r2, r3, r4)
    const note = `judge "a": ${formatComplianceEvidence(reportHealth.compliance_evidence).replace(/^; /, "")}`;
    expect(view.banners.find((b) => b.judge_id === "a")!.lines).toContain(note);
    expect(view.banners.find((b) => b.judge_id === "a")!.health).toBe(formatHealth(reportHealth));
  });
});
