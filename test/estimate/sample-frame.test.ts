import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { estimateFromData } from "../../src/estimate/run.js";
import { formatEstimate } from "../../src/estimate/format.js";
import { readHumanLabels, type HumanLabelFile } from "../../src/agree/human.js";
import { buildPopulation } from "../../src/sample/population.js";
import { drawSample } from "../../src/sample/sample.js";
import { checkAnnotations, parseManifest } from "../../src/sample/import.js";
import { frameDigest } from "../../src/store/sample-frame.js";
import { restrictRun, parseWhere } from "../../src/store/where.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

// frames13: a sample's frame is recorded exactly (count + digest of its ids) and estimate refuses, by a named
// status, any human or calibrated figure when the run is not that frame.
const row = (id: string, attack: string): TrajectoryIndexRow =>
  ({ id, agent_model: "m", attack, attacked: true, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2 }) as TrajectoryIndexRow;
const runOf = (n: number) => new Map(Array.from({ length: n }, (_, i) => row(`t${String(i).padStart(3, "0")}`, i % 2 ? "A" : "B")).map((r) => [r.id, r]));
const verdictsOf = (index: Map<string, TrajectoryIndexRow>) =>
  [...index.keys()].map((id, i) => ({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: (i % 3 ? "unaffected" : "full_compliance") as Bucket }) as Verdict);
const opts = { run: "r", humanFile: "h.jsonl", source: { kind: "judge" as const, judge_id: "j" }, minSampled: 1, rate: "asr_behaviour" as const };

/** Draw a sample of `index` (optionally `--where`), import one label per item: the label file's rows. */
function sampleAndLabel(index: Map<string, TrajectoryIndexRow>, seed: number, where?: string): HumanLabelFile {
  const restricted = where ? restrictRun({ index }, parseWhere(where)!, "r") : { index, statement: null };
  const { items, design } = drawSample(buildPopulation(restricted.index.values(), null, []), { random: 8, disagreement: 0, seed });
  if (restricted.statement) design.where = restricted.statement;
  const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed, n_items: items.length, design };
  // the manifest records each item's content hash, as sample's export does (humans14: the label pairing check)
  const lines = [header, ...items.map((it, i) => ({ item_id: `x-${seed}-${i}`, ...it, content_sha256: index.get(it.trajectory_id)!.content_sha256 }))].map((x) => JSON.stringify(x));
  const { rows } = checkAnnotations(
    items.map((it, i) => ({ where: `row ${i + 1}`, item_id: `x-${seed}-${i}`, annotator: "h", label: i % 4 ? "unaffected" : "full_compliance" })),
    parseManifest(lines.join("\n") + "\n"),
  );
  return { format: "jsonl", rows: rows.map((r, i) => ({ ...r, line: i + 1 })), bad_rows: [] };
}

/** {@link sampleAndLabel} stratified by attack. */
function sampleAndLabelStrata(index: Map<string, TrajectoryIndexRow>, seed: number): HumanLabelFile {
  const { items, design } = drawSample(buildPopulation(index.values(), null, ["attack"]), { random: 8, disagreement: 0, seed });
  const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed, n_items: items.length, design };
  const lines = [header, ...items.map((it, i) => ({ item_id: `x-${i}`, ...it, content_sha256: index.get(it.trajectory_id)!.content_sha256 }))].map((x) => JSON.stringify(x));
  const { rows } = checkAnnotations(
    items.map((_, i) => ({ where: `row ${i + 1}`, item_id: `x-${i}`, annotator: "h", label: i % 4 ? "unaffected" : "full_compliance" })),
    parseManifest(lines.join("\n") + "\n"),
  );
  return { format: "jsonl", rows: rows.map((r, i) => ({ ...r, line: i + 1 })), bad_rows: [] };
}

describe("estimate: the sample's frame must be the run's population now (frames13)", () => {
  it("sample records the frame; an unchanged run is estimated with no word about it", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index, 1);
    expect(file.rows[0].sample_frame).toMatchObject(frameDigest(index.keys()));
    const r = estimateFromData(index, verdictsOf(index), file, opts);
    expect(r.warnings).toEqual([]);
    expect(r.groups[0].calibrated.asr).not.toBeNull();
  });
  it("a run that grew after sampling (resume with a larger input): refused, population_changed_since_sample with N then and now", () => {
    const small = runOf(40);
    const file = sampleAndLabel(small, 1);
    const grown = runOf(60);
    const r = estimateFromData(grown, verdictsOf(grown), file, { ...opts, by: ["attack"] });
    const w = r.warnings.filter((x) => /changed since the sample/.test(x));
    expect(w).toEqual([expect.stringMatching(/^the run's trajectories changed since the sample was drawn: N 40 when the sample was drawn, 60 now \(20 more\)/)]);
    for (const g of r.groups) {
      expect(g.human.asr).toBeNull();
      expect(g.calibrated.reason).toBe("population_changed_since_sample (N 40 when the sample was drawn, 60 now (20 more))");
      expect(g.judge.asr).not.toBeNull();
    }
    expect(r.warnings.join("\n")).not.toMatch(/cells with no labelled item/);
    // as many trajectories, other ones: the digest tells
    const swapped = new Map(small);
    swapped.delete("t000");
    swapped.set("t999", row("t999", "B"));
    const s = estimateFromData(swapped, verdictsOf(swapped), file, opts);
    expect(s.groups[0].calibrated.reason).toMatch(/^population_changed_since_sample \(N 40 when the sample was drawn, 40 now \(the same number, other trajectories/);
  });
  it("a sample of ANOTHER run (no labelled trajectory is in this one): said plainly, the run named from the sample's files beside the label file (new-user report 17)", () => {
    const file = sampleAndLabel(runOf(40), 1);
    const other = new Map([...runOf(60).values()].map((r) => [`o-${r.id}`, { ...r, id: `o-${r.id}` }]));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-other-run-"));
    try {
      for (const [humanFile, named] of [["h.jsonl", false], [path.join(dir, "human.jsonl"), true]] as const) {
        if (named) fs.writeFileSync(path.join(dir, "design.json"), JSON.stringify({ ipi_judge_sample: 1, run: "defenses" }));
        const r = estimateFromData(other, verdictsOf(other), file, { ...opts, humanFile });
        const w = r.warnings.filter((x) => /none of the/.test(x));
        expect(w).toHaveLength(1);
        expect(w[0]).toMatch(named ? /^none of the \d+ labelled trajectories of .* is in this run: the sample was drawn from run defenses \(as .*design\.json records\), not from this one, so no group gets a human or calibrated estimate \(undefined: sample_of_another_run\); estimate the labels with the run they were sampled from \(--run defenses\)$/ : /the sample was drawn from another run, not from this one/);
        expect(r.warnings.join("\n")).not.toMatch(/changed since the sample/);
        expect(r.groups[0].calibrated.reason).toMatch(/^sample_of_another_run/);
        expect(r.groups[0].judge.asr).not.toBeNull();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("a sample drawn from another run holding the same trajectories (the frame's digest matches): used, and the run it came from named (new user 43)", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index, 1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-same-frame-"));
    try {
      const humanFile = path.join(dir, "human.jsonl");
      fs.writeFileSync(path.join(dir, "design.json"), JSON.stringify({ ipi_judge_sample: 1, run: "ad" }));
      const r = estimateFromData(index, verdictsOf(index), file, { ...opts, run: "llm516", humanFile });
      expect(r.warnings.filter((x) => /was drawn from run/.test(x))).toEqual([
        `the sample of ${humanFile} was drawn from run ad (as ${path.join(dir, "design.json")} records), not from run llm516; this run holds the same 40 trajectories (the frame's digest of their ids matches), so its weights apply here`,
      ]);
      expect(r.groups[0].calibrated.asr).not.toBeNull();
      // the run the sample names: nothing said
      const same = estimateFromData(index, verdictsOf(index), file, { ...opts, run: "ad", humanFile });
      expect(same.warnings.filter((x) => /was drawn from run/.test(x))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("a --where sample of a run that grew: the filter keeps the new trajectories too, so refused, also under estimate --where", () => {
    const file = sampleAndLabel(runOf(40), 2, "attack=A");
    expect(file.rows[0].sample_frame?.N).toBe(20);
    const grown = runOf(60);
    for (const where of [undefined, parseWhere("attack=A")]) {
      const r = estimateFromData(grown, verdictsOf(grown), file, { ...opts, where });
      expect(r.groups[0].calibrated.reason).toMatch(/^population_changed_since_sample \(N 20 when the sample was drawn, 30 now \(10 more\)\)/);
      expect(r.warnings.join("\n")).not.toMatch(/outside the population the sample was drawn from/);
      expect(formatEstimate(r)).toContain("population of the sample: --where attack=A (recorded with the sample, N 20 when drawn), which keeps 30 trajectories of the run now: not the sample's population (below)");
    }
    // unchanged: the --where estimate is given
    const same = runOf(40);
    expect(estimateFromData(same, verdictsOf(same), file, { ...opts, where: parseWhere("attack=A") }).groups[0].calibrated.asr).not.toBeNull();
  });
  it("two --where samples concatenated: one warning naming both designs, every group refused (several_sample_designs), no per-row stratum_size warning", () => {
    const index = runOf(40);
    const a = sampleAndLabel(index, 3, "attack=A");
    const b = sampleAndLabel(index, 4, "attack=B");
    b.rows.forEach((r) => (r.stratum_size = 19)); // strata of the same key, other sizes
    const both: HumanLabelFile = { format: "jsonl", rows: [...a.rows, ...b.rows.map((r, i) => ({ ...r, line: a.rows.length + i + 1 }))], bad_rows: [] };
    const r = estimateFromData(index, verdictsOf(index), both, { ...opts, by: ["attack"] });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(
      new RegExp(`^label file h.jsonl holds rows of 2 samples: design ${a.rows[0].sample_frame!.design} \\(--where attack=A, N 20; 8 rows from line 1\\); design ${b.rows[0].sample_frame!.design} \\(--where attack=B, N 20; 8 rows from line 9\\)`),
    );
    for (const g of r.groups) expect(g.calibrated.reason).toBe("several_sample_designs (2 samples in the label file)");
  });
  it("a malformed sample_where: the row's label is kept; one warning names the file, line and field; figures refused", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index, 5, "attack=A");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-frames-"));
    try {
      const f = path.join(dir, "human.jsonl");
      const lines = file.rows.map(({ line: _line, ...r }, i) => JSON.stringify(i === 2 ? { ...r, sample_where: { ...r.sample_where, clauses: [["attack", "A"]] } } : r));
      fs.writeFileSync(f, lines.join("\n") + "\n");
      const read = readHumanLabels(f);
      expect(read.bad_rows).toEqual([]);
      expect(read.rows).toHaveLength(8);
      const r = estimateFromData(index, verdictsOf(index), read, { ...opts, humanFile: f });
      expect(r.warnings).toEqual([
        `label file ${f} line 3: sample_where.clauses must be an object {field: [values]}, got an array: the population the sample was drawn from cannot be read, so no group gets a human or calibrated estimate (undefined: sample_frame_malformed); re-import the annotations with import-annotations`,
      ]);
      expect(r.groups[0].calibrated.reason).toBe("sample_frame_malformed (label file line 3: sample_where.clauses must be an object {field: [values]}, got an array)");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("a label row whose stratum is not the one the run gives its trajectory (a manifest edited by hand): refused, item_stratum_mismatch, the line named (break48)", () => {
    const index = runOf(40);
    const { items, design } = drawSample(buildPopulation(index.values(), null, ["attack"]), { random: 8, disagreement: 0, seed: 9 });
    // the hand edit: an attack-A item's trajectory replaced by an undrawn attack-B one (sizes and probabilities kept)
    const drawn = new Set(items.map((it) => it.trajectory_id));
    const k = items.findIndex((it) => it.stratum === "attack=A");
    const other = [...index.values()].find((r) => r.attack === "B" && !drawn.has(r.id))!;
    const edited = items.map((it, i) => (i === k ? { ...it, trajectory_id: other.id } : it));
    const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 9, n_items: items.length, design };
    const lines = [header, ...edited.map((it, i) => ({ item_id: `x-${i}`, ...it, content_sha256: index.get(it.trajectory_id)!.content_sha256 }))].map((x) => JSON.stringify(x));
    const { rows } = checkAnnotations(
      edited.map((_, i) => ({ where: `row ${i + 1}`, item_id: `x-${i}`, annotator: "h", label: i % 4 ? "unaffected" : "full_compliance" })),
      parseManifest(lines.join("\n") + "\n"),
    );
    const file: HumanLabelFile = { format: "jsonl", rows: rows.map((r, i) => ({ ...r, line: i + 1 })), bad_rows: [] };
    const r = estimateFromData(index, verdictsOf(index), file, { ...opts, by: ["attack"] });
    expect(r.warnings.filter((w) => /not in the stratum/.test(w))).toEqual([
      `label file h.jsonl: 1 labelled trajectory is not in the stratum its rows name (line ${k + 1}: trajectory ${other.id}: attack=A, the run says attack=B): ` +
        "the label file or the manifest it was imported with was changed after the draw (or the run's fields changed since), so the design weights do not describe it and no group gets a human or calibrated estimate (undefined: item_stratum_mismatch); " +
        "re-import the annotations with the manifest sample wrote",
    ]);
    for (const g of r.groups) {
      expect(g.human.asr).toBeNull();
      expect(g.calibrated.reason).toBe(`item_stratum_mismatch (label file line ${k + 1}: trajectory ${other.id} is in attack=B, its row says attack=A)`);
      expect(g.judge.asr).not.toBeNull();
    }
    // the same draw unedited: no word, figures given
    const clean = estimateFromData(index, verdictsOf(index), sampleAndLabelStrata(index, 9), { ...opts, by: ["attack"] });
    expect(clean.warnings.filter((w) => /not in the stratum/.test(w))).toEqual([]);
    expect(clean.groups[0].calibrated.asr).not.toBeNull();
  });
});
