/**
 * A group whose attacked runs never met the injected text (new user 23): gemini-2.5-flash under AgentDyn's tool_filter
 * stops before any tool call on every run, so every label is `not_exposed` and its asr_goal reads 0.0% (0/5) with
 * coverage 100%. That 0% measures that the attack did not arrive, not that the agent resisted it: `label`, `compare`,
 * `estimate --table` and `report` flag the group (EXPOSURE LOW) and give the rates over the exposed runs, while the
 * same tasks undefended (exposed) are not flagged. Real runs: test/data/agentdyn-unexposed (NOTICE).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { DATA } from "../helpers/paths.js";

const RUNS = path.join(DATA, "agentdyn-unexposed", "runs");
const TF = "google_gemini-2.5-flash | tool_filter";
let tmp: string;
let labels: string;
let label: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-unexposed-"));
  labels = path.join(tmp, "labels");
  label = await runCli(["label", RUNS, "--judge", "signature", "--run", "u", "--labels-dir", labels]);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The labels recomputed from the stored verdicts: per condition, [not_exposed, labelled attacked]. */
function fromFiles(): Record<string, [number, number]> {
  const rows = new Map(fs.readFileSync(path.join(labels, "u", "trajectories.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).map((r) => [r.id, r]));
  const out: Record<string, [number, number]> = {};
  for (const l of fs.readFileSync(path.join(labels, "u", "verdicts.jsonl"), "utf8").split("\n").filter(Boolean)) {
    const v = JSON.parse(l);
    const r = rows.get(v.trajectory_id);
    if (!r?.attacked || v.status !== "ok") continue;
    const c = (out[r.condition] ??= [0, 0]);
    c[1]++;
    if (v.label === "not_exposed") c[0]++;
  }
  return out;
}

describe("EXPOSURE LOW: a group whose attack never reached the agent (new user 23 M1)", () => {
  it("the stored labels: tool_filter all not_exposed, the undefended runs of the same tasks exposed", () => {
    expect(label.code).toBe(0);
    expect(fromFiles()).toEqual({ tool_filter: [5, 5], no_defense: [0, 5] });
  });

  it("label: the tool_filter row is flagged on stdout, the undefended row is not; --json carries not_exposed and exposure_low", async () => {
    const rows = label.stdout.split("\n");
    // the table row (src/format/rates-table.ts): asr_goal, ..., exposure flagged LOW; the note under the table
    const tf = rows.find((l) => l.includes("tool_filter  "))!;
    expect(tf).toContain("0.0% [0.0, 43.4] (0/5)");
    expect(tf).toContain("0.0% (0/5) LOW");
    expect(unwrapText(label.stdout)).toContain(`${TF}: 5 of 5 labelled attacked runs are not_exposed`);
    const flat = unwrapText(label.stdout);
    expect(flat).toContain("these rates say the attack did not arrive, not that the agent resisted it:");
    expect(flat).toContain(`${TF}: 5 of 5 labelled attacked runs are not_exposed; none is left to say`);
    const nd = rows.find((l) => /^ {6}no_defense /.test(l))!; // under its model's heading
    expect(nd).not.toContain("LOW");
    expect(nd).toContain("100.0% (5/5)");
    // the overall figures pool both groups: they name the unexposed one with its counts (new user 26)
    expect(flat).toContain("of the 2 (agent model, condition) groups it pools, EXPOSURE LOW: google_gemini-2.5-flash under tool_filter 0/5 exposed");
    // the per-model row pools both conditions: its note names the unexposed one (new user 25)
    expect(flat).toContain("pooled over 2 conditions: no_defense, tool_filter; EXPOSURE LOW under tool_filter: the attack did not arrive there, see above");
    const j = await runCli(["label", RUNS, "--judge", "signature", "--run", "u", "--labels-dir", labels, "--json"]);
    const s = JSON.parse(j.stdout);
    const cells = s.summary?.judges?.[0]?.by_model_condition ?? s.judges?.[0]?.by_model_condition;
    expect(cells.find((c: { condition: string }) => c.condition === "tool_filter")).toMatchObject({ not_exposed: 5, labelled: 5, exposure_low: true });
    expect(cells.find((c: { condition: string }) => c.condition === "no_defense")).toMatchObject({ not_exposed: 0, labelled: 5, exposure_low: false });
  });

  it("label of the unexposed runs alone: the overall line gives the exposure rate, then says EXPOSURE LOW", async () => {
    const one = await runCli(["label", path.join(RUNS, "google_gemini-2.5-flash-tool_filter"), "--judge", "signature", "--run", "one", "--labels-dir", labels]);
    expect(one.code).toBe(0);
    // the judge's headline (src/run/summary-text.ts): the exposure a line of its own beside the rates, then the
    // coverage, then EXPOSURE LOW (the block's lines joined back as one: src/format/wrap-text.ts)
    const block = unwrapText(one.stdout.slice(one.stdout.indexOf("attack success over the 5 attacked runs")));
    expect(block).toMatch(/^attack success over the 5 attacked runs \(repeat 0; not_exposed counts as not compromised\): asr_goal .* exposure +0\.0% \[0\.0, [0-9.]+\] \(0\/5\) +met the injected text: any label but not_exposed coverage: 100\.0% \(5 labelled of 5 attacked\) .*EXPOSURE LOW: 5 of 5 labelled attacked runs are not_exposed/);
  });

  it("compare: a warning naming the group, the exposure on every row, flagged on the group's; --json cells", async () => {
    const c = await runCli(["compare", "--run", "u", "--labels-dir", labels, "--bootstrap", "0"]);
    expect(c.code).toBe(0);
    expect(unwrapText(c.stdout)).toContain("WARNING: google_gemini-2.5-flash under tool_filter: exposure low: 5 of 5 labelled attacked runs are not_exposed");
    expect(unwrapText(c.stdout)).not.toContain("under no_defense: exposure low");
    expect(unwrapText(c.stdout)).toMatch(/tool_filter +asr_goal .*; exposure 0\.0% \(0\/5\) EXPOSURE LOW/);
    expect(unwrapText(c.stdout)).toMatch(/no_defense +asr_goal .*; exposure 100\.0% \(5\/5\);/);
    const j = JSON.parse((await runCli(["compare", "--run", "u", "--labels-dir", labels, "--bootstrap", "0", "--json"])).stdout);
    const all = j.asr.filter((x: { suite: string | null }) => x.suite === null);
    expect(all.map((x: { condition: string; exposure_low: boolean; not_exposed: number }) => [x.condition, x.exposure_low, x.not_exposed])).toEqual([
      ["no_defense", false, 0],
      ["tool_filter", true, 5],
    ]);
  });

  it("estimate --table: a note naming the row; --json judge_exposure", async () => {
    const t = await runCli(["estimate", "--run", "u", "--labels-dir", labels, "--table", "--judge", "signature"]);
    expect(t.code).toBe(0);
    expect(unwrapText(t.stdout)).toContain("EXPOSURE LOW (below 10% of the attacked runs with a usable verdict met the injected text");
    expect(unwrapText(t.stdout)).toContain("google_gemini-2.5-flash | tool_filter exposure 0.0% (0/5), asr_goal over the exposed undefined (none exposed)");
    expect(t.stdout.split("\n").find((l) => l.includes("tool_filter"))).toContain("EXPOSURE LOW");
    expect(unwrapText(t.stdout)).not.toContain("no_defense exposure");
    const j = JSON.parse((await runCli(["estimate", "--run", "u", "--labels-dir", labels, "--table", "--judge", "signature", "--json"])).stdout);
    const rows = (j.rows ?? j.table.rows) as Array<{ condition: string; judge_exposure: { x: number; n: number }; judge_exposure_low: boolean }>;
    expect(rows.map((r) => [r.condition, r.judge_exposure.x, r.judge_exposure.n, r.judge_exposure_low])).toEqual([
      ["no_defense", 5, 5, false],
      ["tool_filter", 0, 5, true],
    ]);
  });

  it("report: a warning above the table and the row's exposure cell marked", async () => {
    const out = path.join(tmp, "u.html");
    const r = await runCli(["report", "--run", "u", "--labels-dir", labels, "--out", out]);
    expect(r.code).toBe(0);
    const page = fs.readFileSync(out, "utf8");
    expect(page).toMatch(/<div class="warn">EXPOSURE LOW \(below 10% of the labelled attacked runs met the injected text[^<]*<bdi>signature<\/bdi> on <bdi>google_gemini-2\.5-flash<\/bdi> \| <bdi>tool_filter<\/bdi> exposure <bdi>0\.0%<\/bdi> \(0\/5\): these rates say the attack did not arrive/);
    // the attack-success table's exposure cell and the paper table's exposure cell
    expect(page.match(/<strong class="low">EXPOSURE LOW<\/strong>/g)).toHaveLength(2);
    expect(page).toContain("<th>refusal rate</th><th>exposure</th>");
    // the charts by condition: the cell marked, the section's warning names it
    expect(page).toMatch(/<div class="warn">EXPOSURE LOW \(cells marked † in the charts[^<]*<bdi>google_gemini-2\.5-flash<\/bdi> <bdi>condition<\/bdi>=<bdi>tool_filter<\/bdi>/);
    // the kappas against the benchmark carry agree's caveat, on both ways of building the page (new user 25)
    const bench = page.slice(page.indexOf("<h3>Against the benchmark's own verdict</h3>"));
    expect(bench).toMatch(/<div class="warn">(<bdi>)?judge signature: the figures pool 2 \(agent model, condition\) groups, 1 of them EXPOSURE LOW/);
    const out2 = path.join(tmp, "u-where.html");
    expect((await runCli(["report", "--run", "u", "--labels-dir", labels, "--out", out2, "--where", "attack=important_instructions,(none)"])).code).toBe(0);
    const page2 = fs.readFileSync(out2, "utf8");
    expect(page2.slice(page2.indexOf("<h3>Against the benchmark's own verdict</h3>"))).toMatch(/1 of them EXPOSURE LOW/);
  });

  it("agree --reference: the rates line of the unexposed runs says so", async () => {
    const a = await runCli(["agree", "--run", "u", "--labels-dir", labels, "--reference", "security", "--where", "condition=tool_filter"]);
    expect(a.code).toBe(0);
    expect(unwrapText(a.stdout)).toMatch(/rates over these 5: .*; exposure 0\.0% \(0\/5\) EXPOSURE LOW \(/);
    // pooled over both conditions: the unexposed group is named (quick check 24)
    const p = await runCli(["agree", "--run", "u", "--labels-dir", labels, "--reference", "security"]);
    expect(unwrapText(p.stdout)).toContain("WARNING: judge signature: the figures pool 2 (agent model, condition) groups, 1 of them EXPOSURE LOW (fewer than 10% of the compared runs met the injected text): google_gemini-2.5-flash | tool_filter 0/5 exposed;");
    const b = await runCli(["agree", "--run", "u", "--labels-dir", labels, "--reference", "security", "--where", "condition=no_defense"]);
    expect(unwrapText(b.stdout)).not.toContain("groups, 1 of them EXPOSURE LOW");
    expect(unwrapText(b.stdout)).toMatch(/rates over these 5: .*; exposure 100\.0% \(5\/5\)$/m);
  });
});
