/**
 * `agree --reference` beside a committee file of one judge (`ipi-judge committee --quorum 1` on a single-judge run
 * writes one, with a warning): one judge is no committee, so agree names why and prints no committee row of undefined figures,
 * and compare takes the judge's labels with a note (or refuses `--committee`), as report does.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let labels: string;
beforeAll(async () => {
  labels = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-agree-one-"));
  expect((await runCli(["label", SAMPLES, "--run", "s", "--labels-dir", labels, "--json"])).code).toBe(0);
  expect((await runCli(["committee", "--run", "s", "--labels-dir", labels, "--quorum", "1", "--json"])).code).toBe(0);
  expect(fs.existsSync(path.join(labels, "s", "committee.jsonl"))).toBe(true);
}, 180_000);
afterAll(() => fs.rmSync(labels, { recursive: true, force: true }));

describe("agree --reference with a one-judge committee.jsonl", () => {
  it("says the committee needs two judges, in text and JSON, and reports the judge alone", async () => {
    const text = await runCli(["agree", "--run", "s", "--labels-dir", labels, "--reference", "security"]);
    expect(text.code).toBe(0);
    expect(unwrapText(text.stdout)).toMatch(/committee\.jsonl holds 1 judge \(signature\): a committee needs at least two/);
    expect(unwrapText(text.stdout)).not.toMatch(/^committee\s/m);
    expect(unwrapText(text.stdout)).not.toMatch(/== judge committee vs/);
    const json = await runCli(["agree", "--run", "s", "--labels-dir", labels, "--reference", "security", "--json"]);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out.committee).toBeNull();
    expect(out.committee_reason).toMatch(/needs at least two/);
    expect(out.judge_id ?? out.per_judge?.[0]?.judge_id).toBe("signature");
  });
});

describe("agree --reference security and committee say what their figures pool (review, session 15)", () => {
  it("one line naming how many agent models and conditions, in text and JSON", async () => {
    const line = /^the figures pool the (\d+) trajectories \(attacked, with a benchmark security verdict, no agent error; each rater.s n below is those of them it labelled\) of (\d+) agent models? \([^)]*\) and (no recorded condition|\d+ conditions? \(.*\))/m;
    const text = await runCli(["agree", "--run", "s", "--labels-dir", labels, "--reference", "security"]);
    expect(unwrapText(text.stdout)).toMatch(line);
    const json = JSON.parse((await runCli(["agree", "--run", "s", "--labels-dir", labels, "--reference", "security", "--json"])).stdout);
    expect(json.pooling.text).toMatch(line);
    expect(json.pooling.agent_models.length).toBe(Number(line.exec(unwrapText(text.stdout))![2]));
    const c = await runCli(["committee", "--run", "s", "--labels-dir", labels, "--quorum", "1"]);
    expect(c.code).toBe(0);
    expect(c.stdout.split("\n")[1]).toMatch(/^the committee's rates and agreement figures pool the \d+ attacked trajectories of \d+ agent models? /);
    const cj = JSON.parse((await runCli(["committee", "--run", "s", "--labels-dir", labels, "--quorum", "1", "--json"])).stdout);
    expect(cj.pooling.agent_models.length).toBeGreaterThan(0);
  });
});

describe("agree --reference utility: the pooling line counts what the figure is computed over (review 16)", () => {
  it("the attacked trajectories with a utility verdict and no agent error, not every trajectory", async () => {
    const json = JSON.parse((await runCli(["agree", "--run", "s", "--labels-dir", labels, "--reference", "utility", "--reference-kind", "attack", "--json"])).stdout);
    const n = Number(/pool the (\d+) /.exec(json.pooling.text)![1]);
    // the same rows as the benchmark's rate over every usable trajectory (rates.reference_all.n), fewer than the run holds
    expect(n).toBe(json.rates.reference_all.n);
    expect(n).toBeLessThan(json.n_total);
    expect(json.pooling.text).toContain("trajectories (attacked, with a benchmark utility verdict, no agent error; each rater's n below is those of them it labelled) of");
  });
});

describe("agree --help describes the human consensus as the code forms it (review, session 15)", () => {
  it("binary majority first, then refined; not 'the unique most frequent label'", async () => {
    const h = await runCli(["agree", "--help"]);
    const text = h.stdout.replace(/\s+/g, " ");
    expect(text).toContain("the annotators' majority on compromised vs not, then the label most of that side's annotators gave on the three-way scale, then on the six buckets");
    expect(text).not.toContain("unique most frequent label");
  });
});

describe("compare with a one-judge committee.jsonl", () => {
  it("uses the one judge's labels and says so; --committee is refused with the reason", async () => {
    const r = await runCli(["compare", "--run", "s", "--labels-dir", labels, "--by", "attack", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.warnings.join("\n")).toMatch(/holds 1 judge: a committee needs at least two, so the labels are judge signature's/);
    expect(JSON.stringify(out)).not.toMatch(/"kind":"committee"/);
    const c = await runCli(["compare", "--run", "s", "--labels-dir", labels, "--by", "attack", "--committee"]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/holds 1 judge \(signature\): a committee needs at least two; give --judge ID/);
  });
});
