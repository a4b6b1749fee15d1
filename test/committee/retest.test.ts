/**
 * Test-retest pairs repeats of one judge on one trajectory: a repeat judged on another text than repeat 0 (the
 * trajectory changed between repeats: its verdicts' content_sha256 differ) measures a change of input, not the
 * judge's stability. Such pairs are left out and counted with a warning (session 14 red team), on objects
 * (`testRetest`) and on columns (`testRetestColumns`, what `ipi-judge committee` runs) alike.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ALL_CODE_SET, testRetest } from "../../src/committee/retest.js";
import { retestLines } from "../../src/committee/retest-text.js";
import { testRetestColumns } from "../../src/committee/retest-columns.js";
import { COMMITTEE_ROW_FIELDS, committeeReportColumns } from "../../src/committee/report-columns.js";
import { formatCommitteeReport } from "../../src/committee/report.js";
import { readColumnRun } from "../../src/store/columns.js";
import type { Bucket, Verdict } from "../../src/types.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-retest-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sha = (c: string) => c.repeat(64);
const verdict = (t: string, repeat: number, label: Bucket, content?: string): Verdict =>
  ({
    trajectory_id: t,
    judge_id: "j",
    judge_model: "m",
    judge_family: "openai",
    repeat,
    prompt_sha256: "p",
    status: "ok",
    label,
    downgraded: false,
    findings: [],
    attacked: true,
    ...(content ? { content_sha256: sha(content) } : {}),
  }) as Verdict;

// t1: both repeats on text a; t2: repeat 1 on another text (b vs c) and another label; t3: no hash (older versions)
const VERDICTS = [
  verdict("t1", 0, "full_compliance", "a"),
  verdict("t1", 1, "full_compliance", "a"),
  verdict("t2", 0, "unaffected", "b"),
  verdict("t2", 1, "full_compliance", "c"),
  verdict("t3", 0, "unaffected"),
  verdict("t3", 1, "unaffected", "d"),
];

describe("test-retest leaves out repeats judged on different texts", () => {
  it("on objects: the pair is left out of repeat 0 vs 1 and of Fleiss, counted and said", () => {
    const [rt] = testRetest(VERDICTS, ["t1", "t2", "t3"], { bootstrap: { B: 0, seed: 1 } });
    expect(rt.n_items).toBe(3);
    expect(rt.pairs[0].six.n_used).toBe(2);
    expect(rt.pairs[0].six.percent_agreement.value).toBe(1);
    expect(rt.across_six.n_complete).toBe(2);
    expect(rt.content_mismatch).toMatchObject({ pairs: { "1": 1 }, items: 1 });
    expect(rt.content_mismatch!.message).toMatch(/^judge j: 1 trajectory was judged on different texts in different repeats .*\(repeat 0 vs 1: 1; and of Fleiss' kappa\)/);
    // the same texts throughout (or no hash): nothing left out, no field
    const [same] = testRetest(VERDICTS.filter((v) => v.trajectory_id !== "t2"), ["t1", "t3"], { bootstrap: { B: 0, seed: 1 } });
    expect(same.content_mismatch).toBeUndefined();
  });

  it("on columns (committee): the same figures, the warning in the report and its text", async () => {
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir, { recursive: true });
    const rows = ["t1", "t2", "t3"].map((id) => JSON.stringify({ id, agent_model: "a", attacked: true, n_messages: 2, content_sha256: sha("x") }));
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    // a superseded line first: the hash of the verdict in use counts
    const lines = [JSON.stringify(verdict("t1", 1, "full_compliance", "z")), ...VERDICTS.map((v) => JSON.stringify(v))];
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), lines.join("\n") + "\n");
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    const [rt] = testRetestColumns(run, () => true, { bootstrap: { B: 0, seed: 1 } });
    const [obj] = testRetest(VERDICTS, ["t1", "t2", "t3"], { bootstrap: { B: 0, seed: 1 } });
    expect(rt.content_mismatch).toEqual(obj.content_mismatch);
    expect(rt.pairs[0].six.n_used).toBe(2);
    expect(rt.across_six.n_complete).toBe(2);
    const { report } = committeeReportColumns(run, { run: "r", bootstrap: { B: 0, seed: 1 } });
    expect(report.warnings).toContain(obj.content_mismatch!.message);
    expect(formatCommitteeReport(report)).toContain("left out: 1 trajectory judged on different texts in different repeats");
  });
});

describe("test-retest says where the judge's own claims differed (new user 28)", () => {
  // t1: claims full vs partial, both downgraded to unaffected by the evidence checks; t2: claims agree; t3: claims and labels differ
  const claimed = (t: string, repeat: number, label: Bucket, claim: Bucket): Verdict => ({ ...verdict(t, repeat, label, "a"), label_claimed: claim }) as Verdict;
  const V = [
    claimed("t1", 0, "unaffected", "full_compliance"),
    claimed("t1", 1, "unaffected", "partial_compliance"),
    claimed("t2", 0, "unaffected", "unaffected"),
    claimed("t2", 1, "unaffected", "unaffected"),
    claimed("t3", 0, "unaffected", "unaffected"),
    claimed("t3", 1, "full_compliance", "full_compliance"),
  ];
  it("on objects and on columns alike, and in the committee's text", async () => {
    const [obj] = testRetest(V, ["t1", "t2", "t3"], { bootstrap: { B: 0, seed: 1 } });
    expect(obj.pairs[0].claimed).toEqual({ n: 3, differ: 2, differ_same_label: 1 });
    const dir = path.join(tmp, "claimed");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), ["t1", "t2", "t3"].map((id) => JSON.stringify({ id, agent_model: "a", attacked: true, n_messages: 2, content_sha256: sha("a") })).join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), V.map((v) => JSON.stringify(v)).join("\n") + "\n");
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    const [col] = testRetestColumns(run, () => true, { bootstrap: { B: 0, seed: 1 } });
    expect(col.pairs[0].claimed).toEqual(obj.pairs[0].claimed);
    const { report } = committeeReportColumns(run, { run: "r", bootstrap: { B: 0, seed: 1 } });
    expect(formatCommitteeReport(report)).toContain("the judge's claimed labels (before the evidence checks) differ on 2 of 3 trajectories; on 1 of them the evidence checks gave both repeats the same label");
  });
});

describe("test-retest leaves out repeats made under different configurations (break51 finding 4)", () => {
  const cfg = (v: Verdict, c: string): Verdict => ({ ...v, judge_config_sha256: sha(c) }) as Verdict;
  // t1: both repeats under config a; t2: repeat 1 re-judged under b (same text); t3: repeat 0 with no recorded config
  const V = [
    cfg(verdict("t1", 0, "full_compliance", "a"), "a"),
    cfg(verdict("t1", 1, "full_compliance", "a"), "a"),
    cfg(verdict("t2", 0, "unaffected", "b"), "a"),
    cfg(verdict("t2", 1, "full_compliance", "b"), "b"),
    verdict("t3", 0, "unaffected", "c"),
    cfg(verdict("t3", 1, "unaffected", "c"), "b"),
  ];

  it("on objects: the pair is left out of the pair and of Fleiss, counted as mixed_configuration and said", () => {
    const [rt] = testRetest(V, ["t1", "t2", "t3"], { bootstrap: { B: 0, seed: 1 } });
    expect(rt.pairs[0].six.n_used).toBe(2);
    expect(rt.pairs[0].six.percent_agreement.value).toBe(1);
    expect(rt.across_six.n_complete).toBe(2);
    expect(rt.content_mismatch).toBeUndefined();
    expect(rt.config_mismatch).toMatchObject({ reason: "mixed_configuration", pairs: { "1": 1 }, items: 1 });
    expect(rt.config_mismatch!.message).toMatch(/^judge j: 1 trajectory was judged under different configurations in different repeats .*\(repeat 0 vs 1: 1; and of Fleiss' kappa\)/);
  });

  it("a pair whose text differs too is counted once, for its text", () => {
    const W = [cfg(verdict("t1", 0, "unaffected", "a"), "a"), cfg(verdict("t1", 1, "full_compliance", "z"), "b")];
    const [rt] = testRetest(W, ["t1"], { bootstrap: { B: 0, seed: 1 } });
    expect(rt.content_mismatch).toMatchObject({ items: 1 });
    expect(rt.config_mismatch).toBeUndefined();
  });

  it("on columns (committee): the same figures, the warning in the report and a left-out line", async () => {
    const dir = path.join(tmp, "run-cfg");
    fs.mkdirSync(dir, { recursive: true });
    const rows = ["t1", "t2", "t3"].map((id) => JSON.stringify({ id, agent_model: "a", attacked: true, n_messages: 2, content_sha256: sha("x") }));
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), V.map((v) => JSON.stringify(v)).join("\n") + "\n");
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    const [rt] = testRetestColumns(run, () => true, { bootstrap: { B: 0, seed: 1 } });
    const [obj] = testRetest(V, ["t1", "t2", "t3"], { bootstrap: { B: 0, seed: 1 } });
    expect(rt.config_mismatch).toEqual(obj.config_mismatch);
    expect(rt.pairs[0].six.n_used).toBe(2);
    expect(rt.across_six.n_complete).toBe(2);
    const { report } = committeeReportColumns(run, { run: "r", bootstrap: { B: 0, seed: 1 } });
    expect(report.warnings).toContain(obj.config_mismatch!.message);
    expect(formatCommitteeReport(report)).toContain("left out: 1 trajectory judged under different configurations in different repeats (mixed_configuration");
  });
});

// break53 #9: kappa 1.000 over labels that code set (no finding held): counted, and the figure over the judge-made ones
describe("test-retest counts the pairs whose labels code set, on objects and columns alike (break53 #9)", () => {
  const coded = (t: string, repeat: number, label: Bucket, basis?: string): Verdict => ({ ...verdict(t, repeat, label), ...(basis ? { label_basis: basis } : { label_basis: "finding" }) }) as Verdict;
  // c1-c3: both repeats unaffected by code; f1: both full_compliance by finding; f2: full vs unaffected (by code)
  const VS = [
    ...["c1", "c2", "c3"].flatMap((t) => [coded(t, 0, "unaffected", "exposure_found"), coded(t, 1, "unaffected", "exposure_found")]),
    coded("f1", 0, "full_compliance"),
    coded("f1", 1, "full_compliance"),
    coded("f2", 0, "full_compliance"),
    coded("f2", 1, "unaffected", "exposure_found"),
  ];
  const ids = ["c1", "c2", "c3", "f1", "f2"];

  it("on objects: 3 of 5 pairs both set by code, 1 on one repeat (code made it meet or part), the figures over the 1 pair both judge-made, and the text warns", () => {
    const [rt] = testRetest(VS, ids, { bootstrap: { B: 0, seed: 1 } });
    const c = rt.pairs[0].code_set!;
    expect(c).toMatchObject({ labelled: 5, both_code: 3, one_code: 1 });
    expect(c.judge_made!.six.n_used).toBe(1);
    expect(c.judge_made!.six.percent_agreement.value).toBe(1);
    const text = retestLines([rt], 0).join("\n");
    expect(text).toContain("WARNING: labels set by code (no finding held): on both repeats 3 (agreeing by construction), on one repeat 1, of 5 labelled pairs: the figures above mostly measure the code, not the judge; over the other 1 pairs (both labels the judge made): six buckets agreement 100.0%");
    expect(text).toMatch(/Fleiss' kappa across repeats: .*\(5 trajectories with every repeat labelled; most of their labels set by code, as the WARNING above says: not the judge's stability\)/);
  });

  it("every pair set by code: the judge-made figure withheld with its reason; none set by code: no field", async () => {
    const only = VS.filter((v) => v.trajectory_id.startsWith("c"));
    const [rt] = testRetest(only, ["c1", "c2", "c3"], { bootstrap: { B: 0, seed: 1 } });
    expect(rt.pairs[0].code_set).toEqual({ labelled: 3, both_code: 3, one_code: 0, judge_made: null, reason: ALL_CODE_SET });
    const [none] = testRetest(VERDICTS, ["t1", "t2", "t3"], { bootstrap: { B: 0, seed: 1 } });
    expect(none.pairs[0].code_set).toBeUndefined();
    // columns: the same counts and figures
    const dir = path.join(tmp, "coded");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), ids.map((id) => JSON.stringify({ id, agent_model: "a", attacked: true, n_messages: 2, content_sha256: sha("x") })).join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), VS.map((v) => JSON.stringify(v)).join("\n") + "\n");
    const run = await readColumnRun(dir, { rowFields: COMMITTEE_ROW_FIELDS, verdictOmit: [] });
    const [col] = testRetestColumns(run, () => true, { bootstrap: { B: 0, seed: 1 } });
    const [obj] = testRetest(VS, ids, { bootstrap: { B: 0, seed: 1 } });
    expect(col.pairs[0].code_set!.both_code).toBe(3);
    expect(col.pairs[0].code_set!.one_code).toBe(1);
    expect(col.pairs[0].code_set!.judge_made!.six.kappa.value).toEqual(obj.pairs[0].code_set!.judge_made!.six.kappa.value);
    expect(col.pairs[0].code_set!.judge_made!.binary.percent_agreement.value).toBe(1);
  });
});
