import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { estimateFromData } from "../../src/estimate/run.js";
import { formatEstimate } from "../../src/estimate/format.js";
import { readHumanLabels, type HumanLabelFile } from "../../src/agree/human.js";
import { checkAnnotations, parseManifest } from "../../src/sample/import.js";
import { readSampleWhere } from "../../src/store/sample-where.js";
import { parseWhere } from "../../src/store/where.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

// Run: model "a" with 4 attacked (a1-a4) and 2 unattacked (u1, u2); model "b" with 2 attacked (b1, b2).
const row = (id: string, model: string, attacked: boolean): TrajectoryIndexRow =>
  ({ id, agent_model: model, attacked, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2 }) as TrajectoryIndexRow;
const index = new Map<string, TrajectoryIndexRow>(
  [row("a1", "a", true), row("a2", "a", true), row("a3", "a", true), row("a4", "a", true), row("u1", "a", false), row("u2", "a", false), row("b1", "b", true), row("b2", "b", true)].map((r) => [r.id, r]),
);
const verdict = (id: string, label: Bucket): Verdict => ({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label }) as Verdict;
const verdicts = [...index.keys()].map((id) => verdict(id, id === "a1" || id === "b1" ? "full_compliance" : "unaffected"));
const opts = { run: "r", humanFile: "h", source: { kind: "judge" as const, judge_id: "j" }, minSampled: 1 };
const lab = (rows: Array<Record<string, unknown>>): HumanLabelFile => ({ format: "jsonl", rows: rows.map((r, i) => ({ line: i + 1, ...r }) as never), bad_rows: [] });

/** A sample of model "a" (sample --where model=a: N 6, its 4 attacked runs labelled). */
const sw = { filter: "model=a", clauses: { model: ["a"] }, N: 6 };
const labelled = (where: unknown, ids = ["a1", "a2", "a3", "a4"], size = 6) =>
  lab(ids.map((id) => ({ trajectory_id: id, annotator: "h", label: id === "a1" ? "full_compliance" : "unaffected", stratum: "S", stratum_size: size, content_sha256: `h-${id}`, ...(where ? { sample_where: where } : {}) })));

describe("estimate: the population a sample --where drew from, recorded in the label file (review: the warning read as if the sample were of the whole run)", () => {
  it("strata covering the recorded population: no 'strata hold ... the run' warning; the report names the population and the attacked trajectories outside it", () => {
    const r = estimateFromData(index, verdicts, labelled(sw), opts);
    expect(r.sample_population).toEqual({ filter: "model=a", N_recorded: 6, N_run: 6, attacked_outside: 2 });
    const w = r.warnings.join("\n");
    expect(w).not.toMatch(/label file's strata .* cover|strata of the label file hold/);
    expect(w).toMatch(/^2 of the 6 attacked trajectories the groups below are over are outside the population the sample was drawn from \(--where model=a, recorded with the sample\)/m);
    expect(w).toMatch(/estimate --where model=a gives the groups over the sample's population/);
    // new user 12: the (all) group reaches outside the sample's population: no human or calibrated figure for it
    const all = r.groups[0];
    expect(all.human.asr).toBeNull();
    expect(all.calibrated.asr).toBeNull();
    expect(all.calibrated.reason).toMatch(/^outside_sample_population \(2 of the group's 6 attacked trajectories/);
    expect(all.judge.asr).toBeCloseTo(2 / 6);
    const text = formatEstimate(r);
    expect(text).toContain("population of the sample: the 6 trajectories of the run that sample --where model=a keeps (recorded with the sample, N 6 when drawn): the human and calibrated estimates are over the attacked ones among them\n");
    // the same file without the record: which 6 trajectories the strata are is unknown: refused (frames13)
    const old = estimateFromData(index, verdicts, labelled(undefined), opts);
    expect(old.sample_population).toBeUndefined();
    expect(old.warnings.join("\n")).toMatch(/label file h does not record the population its sample was drawn from .* its strata hold 6 trajectories, the run 8 \(as many as its attacked ones/);
    expect(old.groups[0].calibrated.reason).toMatch(/^sample_frame_unknown/);
  });
  it("--by a field: a group inside the sample's population is estimated; one reaching outside it is undefined, never a mix of the two populations (new user 12)", () => {
    const r = estimateFromData(index, verdicts, labelled(sw), { ...opts, by: ["agent_model"] });
    const a = r.groups.find((g) => g.group === "a")!;
    const b = r.groups.find((g) => g.group === "b")!;
    expect(a.human.asr).toBeCloseTo(1 / 4);
    expect(a.calibrated.asr).not.toBeNull();
    expect(b.calibrated.asr).toBeNull();
    expect(b.human.reason).toMatch(/^outside_sample_population \(2 of the group's 2/);
    expect(formatEstimate(r)).toMatch(/outside_sample_population/);
  });
  it("estimate --where the sample's filter: every attacked trajectory of the groups is in the population, said so, no warning", () => {
    const r = estimateFromData(index, verdicts, labelled(sw), { ...opts, where: parseWhere("model=a") });
    expect(r.sample_population).toMatchObject({ N_run: 6, attacked_outside: 0 });
    // the rows record the filter and N, not the exact frame (a file of the previous version): assumed, said once
    expect(r.warnings).toEqual(["label file h records the sample's --where model=a and its N (6) but not its exact frame (an earlier import-annotations): assumed to be the 6 trajectories the filter keeps now"]);
    const text = formatEstimate(r);
    expect(text).toContain("(design of the sample's population, below)");
    expect(text).toContain("are over the attacked ones among them, which hold every attacked trajectory of the groups below");
  });
  it("the run changed since the sample (strata hold more than the filter keeps now), rows of two samples, a malformed record", () => {
    // N recorded 6, the filter keeps 8 now: the population changed: refused, with both counts (frames13)
    const grown = estimateFromData(index, verdicts, labelled({ ...sw, N: 8 }), opts);
    expect(grown.warnings.join("\n")).toMatch(/the trajectories --where model=a keeps changed since the sample was drawn: N 8 when the sample was drawn, 6 now \(2 fewer\)/);
    expect(grown.groups[0].human.reason).toMatch(/^population_changed_since_sample \(N 8 when the sample was drawn, 6 now/);
    // the recorded N is the run's, but the strata hold more than it (a hand-edited stratum_size): undefined too (break50 3)
    const inflated = estimateFromData(index, verdicts, labelled(sw, ["a1", "a2", "a3", "a4"], 60), opts);
    expect(inflated.groups[0].human.asr).toBeNull();
    expect(inflated.groups[0].human.reason).toBe("strata_exceed_population (the label file's strata hold 60 trajectories, the population 6)");
    expect(inflated.groups[0].calibrated.reason).toMatch(/^strata_exceed_population/);
    // rows with and without the record: two samples in one file, refused once
    const mixed = labelled(sw);
    delete (mixed.rows[3] as { sample_where?: unknown }).sample_where;
    const m = estimateFromData(index, verdicts, mixed, opts);
    expect(m.sample_population).toBeUndefined();
    expect(m.warnings.join("\n")).toMatch(/label file h holds rows of 2 samples: a sample of --where model=a \(no design id recorded\) \(--where model=a, N 6; 3 rows from line 1\); rows recording no sample \(population unknown; 1 row from line 4\)/);
    expect(m.groups[0].calibrated.reason).toMatch(/^several_sample_designs/);
    expect(readSampleWhere({ filter: "x" })).toMatch(/^sample_where.N must be a number > 0, got undefined/);
    expect(readSampleWhere(JSON.stringify(sw))).toEqual(sw);
    expect(readSampleWhere("")).toBeUndefined();
  });
  it("import-annotations records design.json's where on every row, and the human-label reader reads it back", () => {
    const where = { filter: "model=a", clauses: { model: ["a"] }, kept: 6, of: 8, unmatched: [] };
    const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: 1, design: { where } };
    const item = { item_id: "x-001", trajectory_id: "a1", stratum: "S", sampling_stratum: "all", committee_stratum: null, stratum_size: 6, phase: 1, inclusion_probability: 0.5, weight: 2 };
    const manifest = parseManifest([header, item].map((x) => JSON.stringify(x)).join("\n") + "\n");
    const { rows } = checkAnnotations([{ where: "f", item_id: "x-001", annotator: "h", label: "unaffected" }], manifest);
    expect(rows[0].sample_where).toEqual({ filter: "model=a", clauses: { model: ["a"] }, N: 6 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-sample-where-"));
    try {
      const f = path.join(dir, "human.jsonl");
      fs.writeFileSync(f, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      expect(readHumanLabels(f).rows[0].sample_where).toEqual({ filter: "model=a", clauses: { model: ["a"] }, N: 6 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // a manifest without where: no field (the rows as before)
    const plain = parseManifest([{ ...header, design: {} }, item].map((x) => JSON.stringify(x)).join("\n") + "\n");
    expect(checkAnnotations([{ where: "f", item_id: "x-001", annotator: "h", label: "unaffected" }], plain).rows[0]).not.toHaveProperty("sample_where");
    // a design of an earlier version (no frame) still loads: the rows carry no sample_frame (frames13)
    expect(rows[0]).not.toHaveProperty("sample_frame");
  });
});
