import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printedLines } from "../helpers/printed-lines.js";
import { runCli } from "../helpers/cli.js";
import { DATA, SAMPLES } from "../helpers/paths.js";
import { labelRun } from "../../src/run/label.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { readVerdicts, readTrajectoryIndex } from "../../src/store/run-store.js";
import { buildCommitteeFixture } from "../report/fixture.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let tmp: string;
let labels: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-compare-"));
  labels = path.join(tmp, "labels");
  await labelRun({ inputs: [SAMPLES], run: "s", labelsDir: labels, judges: [createSignatureJudge()] });
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("ipi-judge compare on the real AgentDojo samples", () => {
  it("--by attack: ASR cells match the stored verdicts, every part is there, and the output is reproducible", async () => {
    const args = ["compare", "--run", "s", "--labels-dir", labels, "--by", "attack", "--bootstrap", "300", "--seed", "5", "--json"];
    const r = await runCli(args);
    // the samples are a selection: each model was run on other tasks, and compare says so
    expect(r.stderr).toMatch(/^ipi-judge: warning: the agent models were run on different task sets/);
    expect(r.code).toBe(0);
    expect(unwrapText(r.stdout)).not.toMatch(/NaN|Infinity/);
    const out = JSON.parse(r.stdout);
    expect(out.source).toEqual({ kind: "judge", judge_id: "signature" });
    expect(out.condition_field).toBe("attack");
    expect(out.excluded.unattacked).toBe(16);
    expect(out.conditions).toEqual(["ignore_previous", "important_instructions", "tool_knowledge"]);
    expect(out.models).toHaveLength(4);
    // and the attacks share no (suite, user task, injection task) cell: every cell is kept, said so (like-for-like)
    expect(out.warnings).toHaveLength(2);
    expect(out.warnings[1]).toMatch(/the conditions share no \(suite, user_task_id, injection_task_id\) cell .*nothing is like for like/);
    expect(out.cells).toMatchObject({ mode: "common", applied: false, common_cells: 0 });
    expect(out.common_tasks.applied).toBe(false);
    // every pooled cell equals a direct count over the stored verdicts
    const [verdicts, index] = [await readVerdicts(path.join(labels, "s")), await readTrajectoryIndex(path.join(labels, "s"))];
    for (const c of out.asr.filter((x: { suite: string | null }) => x.suite === null)) {
      const mine = verdicts.filter((v) => index.get(v.trajectory_id)?.attacked && v.agent_model === c.model && v.attack === c.condition);
      const labelled = mine.filter((v) => v.status === "ok" && v.label);
      expect(c.asr_behaviour.n).toBe(labelled.length);
      expect(c.asr_behaviour.count).toBe(labelled.filter((v) => v.compromised).length);
      expect(c.asr_goal.count).toBe(labelled.filter((v) => v.label === "full_compliance").length);
      expect(c.partial_compliance).toBe(labelled.filter((v) => v.label === "partial_compliance").length);
      expect(c.blocked_attempts).toBe(labelled.filter((v) => v.blocked_attempt).length);
      expect(c.coverage).toBe(labelled.length / mine.length);
    }
    for (const k of ["reversals", "worst_condition", "leave_one_suite_out", "interaction", "bootstrap"]) expect(out).toHaveProperty(k);
    expect(out.bootstrap).toEqual({ B: 300, seed: 5 });
    expect(out.interaction.asr_behaviour.levels.model).toBe(4);
    expect(Object.keys(out.worst_condition)).toEqual(["asr_goal", "asr_behaviour"]);
    const again = await runCli(args);
    expect(again.stdout).toBe(r.stdout);
    const text = await runCli(args.filter((a) => a !== "--json"));
    expect(text.code).toBe(0);
    // the headings name the compared field (new user 26: "worst condition" of attacks)
    for (const h of ["attack success per model and attack", "reversals between attacks by asr_goal", "reversals between attacks by asr_behaviour", "worst attack by asr_goal", "worst attack by asr_behaviour", "leave-one-suite-out attack selection", "model x attack interaction"]) {
      expect(unwrapText(text.stdout)).toContain(h);
    }
    expect(unwrapText(text.stdout)).not.toMatch(/\bASR\b(?!-L)/);
    // every interval named once, in a footnote worded as the other commands' (issue 26: the reversal intervals of
    // a pair of conditions did not say what they were): method, level, B, seed, what is resampled
    const foot = printedLines(text.stdout.trimEnd()).at(-1)!;
    expect(foot).toMatch(/^bootstrap: B 300, seed 5 \(percentile, pure-rand xoroshiro128\+\): the 95% CIs of the reversal shares resample the pairing units \(a task, /);
    // a reversal share whose interval ends at the share itself is explained in the footnote, only then (new user 24b):
    // read from the printed lines, `k/n pairs reverse (S%) [L%, U%]` or `k/n (S%) [L%, U%]`, away from 0% and 100%
    const atPoint = printedLines(text.stdout).some((l) => {
      const m = /\((\d+\.\d)%\) \[(\d+\.\d)%, (\d+\.\d)%\]/.exec(l);
      return !!m && /\d+\/\d+/.test(l) && ((m[2] === m[1] && m[1] !== "0.0") || (m[3] === m[1] && m[1] !== "100.0"));
    });
    expect(foot.includes("can end exactly at the share itself")).toBe(atPoint);
    expect(foot).toContain("that of the mean underestimate resamples the models");
    expect(foot).toContain("the rates and utility carry 95% Wilson score intervals");
    expect(text.stdout.match(/^bootstrap: /gm)).toHaveLength(1);
    const none = await runCli(["compare", "--run", "s", "--labels-dir", labels, "--by", "attack", "--bootstrap", "0"]);
    expect(printedLines(none.stdout.trimEnd()).at(-1)).toBe(
      "bootstrap: none (--bootstrap 0): the reversal shares and the mean underestimate have no interval; the rates and utility carry 95% Wilson score intervals, their differences from the baseline 95% Newcombe hybrid score intervals (paired by cell, or unpaired where said)",
    );
  });

  it("--by surface: every attacked sample has surface tool_output in the index and the verdicts; the baseline is tool_output", async () => {
    const index = await readTrajectoryIndex(path.join(labels, "s"));
    const rows = [...index.values()];
    expect(rows.filter((r) => r.attacked).every((r) => r.surface === "tool_output")).toBe(true);
    expect(rows.filter((r) => !r.attacked).every((r) => r.surface === undefined)).toBe(true);
    const verdicts = await readVerdicts(path.join(labels, "s"));
    expect(verdicts.filter((v) => v.attacked).every((v) => v.surface === "tool_output")).toBe(true);
    const r = await runCli(["compare", "--run", "s", "--labels-dir", labels, "--by", "surface", "--bootstrap", "0"]);
    expect(r.code).toBe(0);
    expect(unwrapText(r.stdout)).toContain("by surface");
    expect(unwrapText(r.stdout)).toContain("baseline tool_output (default: tool_output)");
    const summary = JSON.parse(fs.readFileSync(path.join(labels, "s", "summary.json"), "utf8"));
    const j = summary.judges[0];
    expect(Object.keys(j.by_surface)).toEqual(["tool_output"]);
    expect(j.by_surface.tool_output.labelled).toBe(j.attacked_ok);
    expect(j.by_surface.tool_output.asr_goal).toEqual(j.rates.asr_goal);
    expect(j.by_surface.tool_output.asr_behaviour).toEqual(j.rates.asr_behaviour);
  });

  it("--by condition with a single condition (no defenses in the samples) still reports, with the untestable parts said so", async () => {
    const r = await runCli(["compare", "--run", "s", "--labels-dir", labels, "--bootstrap", "0"]);
    expect(r.code).toBe(0);
    expect(unwrapText(r.stdout)).toContain("baseline no_defense (default: no_defense)");
    expect(unwrapText(r.stdout)).toContain("no pair of conditions is observed for two models or more");
    expect(unwrapText(r.stdout)).toContain("not testable (no_interaction_df)");
  });

  it("usage errors exit 2 with a message", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["compare", "--run", "nope", "--labels-dir", labels], /no run "nope"/],
      [["compare", "--run", "s", "--labels-dir", labels, "--judge", "x"], /judge "x" has no verdicts/],
      [["compare", "--run", "s", "--labels-dir", labels, "--committee"], /has no committee.jsonl/],
      [["compare", "--run", "s", "--labels-dir", labels, "--by", "metadata.surface"], /no labelled attacked trajectory has a "metadata.surface" value in run s \(excluded: .*no metadata.surface value \d+/],
      [["compare", "--run", "s", "--labels-dir", labels, "--by", "attack", "--baseline", "zzz"], /baseline "zzz" is not an observed attack \(attacks: /],
      [["compare", "--run", "s", "--labels-dir", labels, "--bootstrap", "-1"], /--bootstrap must be an integer/],
      [["compare", "--run", "s", "--labels-dir", labels, "--by", "a b"], /--by must be a field name/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(msg);
    }
  });

  it("several judges and no --judge/--committee: refused, each choice named with its coverage; --committee reads committee.jsonl", async () => {
    const fx = await buildCommitteeFixture(path.join(tmp, "fx"));
    // new user 37: the committee was the silent default (10.6% coverage, a model and three suites left out)
    const refused = await runCli(["compare", "--run", fx.run, "--labels-dir", fx.labelsDir, "--by", "attack", "--bootstrap", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^ipi-judge: run \S+ has 3 judges: choose whose labels compare reads \(.*compare does not choose for you, as estimate does not\):\n/);
    const listed = new Map([...refused.stderr.matchAll(/^ {2}(--judge \S+|--committee) +.*: usable labels on (\d+) of (\d+) attacked trajectories \(/gm)].map((m) => [m[1].trim(), [Number(m[2]), Number(m[3])]]));
    expect([...listed.keys()]).toEqual(["--judge lenient-a", "--judge signature", "--judge strict-b", "--committee"]);
    // new user 48: estimate's refusal named --committee beside compare's; both list it, by the same line builder
    const est = await runCli(["estimate", "--run", fx.run, "--labels-dir", fx.labelsDir, "--table"]);
    expect(est.code).toBe(2);
    const committeeLine = (s: string) => s.split("\n").find((l) => /^ {2}--committee +committee \(/.test(l));
    expect(committeeLine(est.stderr)).toBeDefined();
    expect(committeeLine(est.stderr)).toBe(committeeLine(refused.stderr));
    // each listed coverage is the one that choice's own run prints (label_coverage)
    for (const [opt, [labelled, attacked]] of listed) {
      const got = await runCli(["compare", "--run", fx.run, "--labels-dir", fx.labelsDir, "--by", "attack", "--bootstrap", "0", "--json", ...opt.split(" ")]);
      expect(got.code, opt).toBe(0);
      expect(JSON.parse(got.stdout).label_coverage, opt).toEqual({ labelled, attacked });
    }
    const r = await runCli(["compare", "--run", fx.run, "--labels-dir", fx.labelsDir, "--by", "attack", "--bootstrap", "50", "--json", "--committee"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    // the committee of committee.jsonl, named (new user 30: one committee per run)
    expect(out.source).toEqual({ kind: "committee", members: ["lenient-a", "signature", "strict-b"], quorum: 2 });
    expect(out.excluded.committee_disputed).toBeGreaterThan(0);
    const j = await runCli(["compare", "--run", fx.run, "--labels-dir", fx.labelsDir, "--by", "attack", "--judge", "strict-b", "--bootstrap", "0", "--json"]);
    expect(JSON.parse(j.stdout).source).toEqual({ kind: "judge", judge_id: "strict-b" });
  }, 120_000);
});

describe("ipi-judge compare names what it leaves out (AgentDyn slice, test/data/agentdyn)", () => {
  let dynLabels: string;
  beforeAll(async () => {
    dynLabels = path.join(tmp, "labels-dyn");
    await labelRun({ inputs: [path.join(DATA, "agentdyn", "runs")], run: "dyn", labelsDir: dynLabels, judges: [createSignatureJudge()] });
  }, 120_000);

  it("a condition with items but no usable label is named in text and JSON, not silently absent", async () => {
    const base = ["compare", "--run", "dyn", "--labels-dir", dynLabels, "--by", "condition", "--bootstrap", "0"];
    const j = await runCli([...base, "--json"]);
    expect(j.code).toBe(0);
    const out = JSON.parse(j.stdout);
    // the drift run's only attacked trajectory is unverified by the signature judge
    expect(out.excluded).toMatchObject({ unverified: 1 });
    expect(out.conditions).not.toContain("drift");
    expect(out.excluded_groups).toEqual([{ field: "condition", group: "drift", items: 1, reason: "no_usable_label", excluded: { unverified: 1 } }]);
    const t = await runCli(base);
    expect(t.code).toBe(0);
    expect(unwrapText(t.stdout)).toContain("condition drift: 0 usable labels of 1 attacked trajectories (unverified 1), left out");
  });

  it("one condition: the underestimate is undefined (null + reason), never 0.0% [0.0%, 0.0%]", async () => {
    const base = ["compare", "--run", "dyn", "--labels-dir", dynLabels, "--by", "attack", "--bootstrap", "50"];
    const j = await runCli([...base, "--json"]);
    expect(j.code).toBe(0);
    for (const w of Object.values(JSON.parse(j.stdout).worst_condition) as Array<{ per_model: unknown[] }>) {
      expect(w).toMatchObject({ mean: null, median: null, max: null, mean_ci95: null, n_models: 0, reason: "fewer_than_2_conditions" });
      for (const m of w.per_model) expect(m).toMatchObject({ conditions: 1, underestimate: null, reason: "fewer_than_2_conditions" });
    }
    const t = await runCli(base);
    expect(unwrapText(t.stdout)).not.toMatch(/underestimate 0\.0%/);
    expect(printedLines(t.stdout).join("\n")).toContain("  underestimate undefined (fewer than 2 attacks observed, so no attack can be worse than the baseline)"); // its own line, indented
  });
});
