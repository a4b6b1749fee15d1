/**
 * New user L3: `estimate --human` said "49 of 60 used" and `agree --human` "42 compared" on the same file, and nothing
 * said why. Each now names its population and counts what it leaves out by reason, so the two reconcile side by side.
 */
import { describe, expect, it } from "vitest";
import { formatHumanAgreement, humanAgreement, type HumanLabelFile } from "../../src/agree/human.js";
import { estimateFromData, type EstimateReport } from "../../src/estimate/run.js";
import { formatEstimate } from "../../src/estimate/format.js";
import { labelPopulation, notInRunFirst } from "../../src/estimate/label-population.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { parseWhere } from "../../src/store/where.js";
import type { Bucket, Verdict } from "../../src/types.js";

const row = (id: string, attacked = true, model = "m1"): TrajectoryIndexRow =>
  ({ id, attacked, agent_model: model, suite: "s", source: { format: "x", path: id }, n_messages: 1, content_sha256: id }) as TrajectoryIndexRow;
const v = (trajectory_id: string, label: Bucket): Verdict =>
  ({ trajectory_id, judge_id: "j", judge_model: "j", judge_family: "f", repeat: 0, status: "ok", label, findings: [] }) as unknown as Verdict;

// a1..a4 attacked with a consensus (a4 in model m2); s attacked, split full/partial (compromised on binary, no six-bucket
// lead); t attacked, tied; u1 unattacked with a consensus; u2 unattacked, tied; gone: tied, not in the run
const attackedIds = ["a1", "a2", "a3", "a4", "s", "t"];
const index = new Map<string, TrajectoryIndexRow>([
  ...attackedIds.map((id): [string, TrajectoryIndexRow] => [id, row(id, true, id === "a4" ? "m2" : "m1")]),
  ["u1", row("u1", false)],
  ["u2", row("u2", false)],
  ...Array.from({ length: 20 }, (_, i): [string, TrajectoryIndexRow] => [`p${i}`, row(`p${i}`)]),
]);
const pairs: Array<[string, string, string]> = [
  ["a1", "full_compliance", "full_compliance"],
  ["a2", "unaffected", "unaffected"],
  ["a3", "unaffected", "unaffected"],
  ["a4", "full_compliance", "full_compliance"],
  ["s", "full_compliance", "partial_compliance"],
  ["t", "full_compliance", "unaffected"],
  ["u1", "not_exposed", "not_exposed"],
  ["u2", "not_exposed", "full_compliance"],
  ["gone", "unaffected", "full_compliance"],
];
let line = 1;
const file: HumanLabelFile = {
  format: "csv",
  bad_rows: [],
  rows: pairs.flatMap(([t, x, y]) => [
    { trajectory_id: t, annotator: "x", label: x, line: ++line },
    { trajectory_id: t, annotator: "y", label: y, line: ++line },
  ]),
} as HumanLabelFile;
const verdicts = [...index.keys()].map((id) => v(id, id.startsWith("a") ? "full_compliance" : "unaffected"));

describe("estimate and agree --human: one file, two populations, reconciled by reason (new user L3)", () => {
  const est = estimateFromData(index, verdicts, file, { run: "r", humanFile: "h.jsonl", minSampled: 2 }) as EstimateReport;
  const agreeOn = (scale: "six" | "binary") => humanAgreement(file, verdicts, index, { scale, bootstrap: { B: 0, seed: 1 } });

  it("estimate splits the labelled trajectories: the groups' population, in no group, left out (not_in_run ranked first)", () => {
    expect(est.labels).toMatchObject({ items: 6, in_groups: 5, outside_groups: { unattacked: 1 }, excluded: { consensus_tie: 2, not_in_run: 1 }, excluded_unattacked: 1 });
    // in_groups is the (all) group's labelled count; items + left out = the file's 9 labelled trajectories
    expect(est.groups[0]).toMatchObject({ group: "(all)", n_sampled: 5 });
    const text = formatEstimate(est);
    expect(text).toContain(
      `human labels h.jsonl: 9 labelled trajectories, 2 annotators: 5 in the groups' population (attacked, with a consensus on compromised or not; each group's "labelled" counts its own); ` +
        // the full/partial split counts for asr_behaviour, and is said (../../src/agree/consensus.ts figureConsensus)
        "of them 1 whose annotators split between labels giving the same answer, counted with it (full_compliance / partial_compliance 1); " +
        "1 with a consensus in no group (unattacked 1): sampled items of their strata only; 3 left out: annotators tied 2, not in the run 1 (1 of them unattacked)",
    );
    expect(text).not.toMatch(/labelled trajectories used/);
  });

  it("agree --human --scale binary compares the groups' population; its unattacked = estimate's in no group + left out unattacked", () => {
    const b = agreeOn("binary");
    expect(b.consensus.n).toBe(est.labels.in_groups);
    expect(b.excluded_items).toEqual({ not_in_run: 1, unattacked: 2, consensus_tie: 1 });
    expect(b.excluded_items.unattacked).toBe(est.labels.outside_groups.unattacked + est.labels.excluded_unattacked);
    expect(b.excluded_items.consensus_tie).toBe(est.labels.excluded.consensus_tie - est.labels.excluded_unattacked);
    expect(formatHumanAgreement(b)).toContain(
      "human consensus (majority, on the binary scale) of the 9 labelled trajectories: 5 compared with the judges below (in the run, not unattacked, with a consensus on this scale: compromised 3, not_compromised 2); 4 left out, each by the first reason that holds: not_in_run 1, unattacked 2, consensus_tie 1",
    );
  });

  it("on the six buckets agree also leaves out the full/partial split, and its text says the scale estimate reads", () => {
    const six = agreeOn("six");
    expect(six.consensus.n).toBe(est.labels.in_groups - 1);
    expect(six.excluded_items.consensus_coarser_than_scale).toBe(1);
    expect(formatHumanAgreement(six)).toContain("human consensus (majority, on the six scale; estimate's asr_behaviour reads it on the binary scale, as --scale binary) of the 9 labelled trajectories: 4 compared");
  });

  it("--where: attacked trajectories it drops are in no group, named apart from the unattacked", () => {
    const w = estimateFromData(index, verdicts, file, { run: "r", humanFile: "h.jsonl", minSampled: 2, rate: "asr_behaviour", where: parseWhere(["model=m1"]) });
    expect(w.labels).toMatchObject({ in_groups: 4, outside_groups: { unattacked: 1, outside_where: 1 } });
    expect(formatEstimate(w)).toContain("4 in the groups' population (attacked, kept by --where, with a consensus on compromised or not;");
    expect(formatEstimate(w)).toContain("2 with a consensus in no group (unattacked 1, outside --where 1)");
  });

  it("agree --human --where: the trajectories it drops are outside_where, not not_in_run, and reconcile with estimate's", () => {
    // t (tied) moves to m2 so a tie is outside --where too; gone stays not in the run
    const idx = new Map([...index].map(([id, r]): [string, TrajectoryIndexRow] => [id, id === "t" ? { ...r, agent_model: "m2" } : r]));
    const where = parseWhere(["model=m1"]);
    const w = estimateFromData(idx, verdicts, file, { run: "r", humanFile: "h.jsonl", minSampled: 2, rate: "asr_behaviour", where });
    const kept = new Map([...idx].filter(([, r]) => r.agent_model === "m1"));
    const a = humanAgreement(file, verdicts, kept, { scale: "binary", bootstrap: { B: 0, seed: 1 }, population: [...idx.values()] });
    expect(a.excluded_items).toEqual({ not_in_run: 1, unattacked: 2, outside_where: 2 });
    expect(a.unattacked_left_out).toMatchObject({ unattacked: 2, unknown: 1, unknown_not_in_run: 1, outside_where: 2 });
    expect(w.labels).toMatchObject({ in_groups: 4, outside_groups: { unattacked: 1, outside_where: 1 }, excluded: { consensus_tie: 2, not_in_run: 1 }, excluded_unattacked: 1, excluded_outside_where: 1 });
    expect(a.consensus.n).toBe(w.labels.in_groups);
    expect(a.excluded_items.outside_where).toBe(w.labels.outside_groups.outside_where! + w.labels.excluded_outside_where);
    expect(formatEstimate(w)).toContain("3 left out: annotators tied 2, not in the run 1 (1 of them unattacked, 1 outside --where)");
    const text = formatHumanAgreement(a);
    expect(text).toContain("4 compared with the judges below (in the run, not unattacked, kept by --where, with a consensus on this scale: compromised 2, not_compromised 2); 5 left out, each by the first reason that holds: not_in_run 1, unattacked 2, outside_where 2");
    // the one genuinely not in the run is said so, once; the two --where drops are not
    expect(text).toContain("note: every agreement figure below is over attacked trajectories kept by --where; the annotators' agreement also over 1 not in the run (attacked flag unknown), which the judges' figures leave out:");
    expect(text).toContain("2 trajectories outside --where left out: in the run, but the filter drops them");
    expect(text).toContain("1 trajectory kept whose attacked flag is unknown");
    expect(text).toContain("annotators' agreement (over the 5 labelled trajectories not unattacked and kept by --where: 4 attacked, 1 whose attacked flag is unknown):");
  });
});

describe("label-population helpers", () => {
  it("notInRunFirst moves a consensus reason of a trajectory the run lacks to not_in_run", () => {
    const ex = { consensus_tie: 2, cannot_tell_full_from_partial: 1 };
    const ids = new Map([["a", "consensus_tie"], ["b", "consensus_tie"], ["c", "cannot_tell_full_from_partial"]]);
    notInRunFirst(ex, ids, (id) => id === "a");
    expect(ex).toEqual({ consensus_tie: 1, not_in_run: 2 });
    expect(ids.get("c")).toBe("not_in_run");
  });
  it("labelPopulation: unattacked before outside --where; not_in_run ones are not counted unattacked", () => {
    const att = new Set(["a", "b"]);
    const p = labelPopulation(["a", "b", "u"], new Map([["x", "consensus_tie"], ["g", "not_in_run"]]), (id) => att.has(id), (id) => id === "a");
    expect(p).toEqual({ in_groups: 1, outside_groups: { unattacked: 1, outside_where: 1 }, excluded_unattacked: 1, excluded_outside_where: 0 });
  });
  it("labelPopulation: a left-out attacked trajectory --where drops is counted as agree's outside_where", () => {
    const p = labelPopulation([], new Map([["x", "consensus_tie"], ["y", "consensus_tie"], ["g", "not_in_run"]]), (id) => id !== "g", (id) => id === "x");
    expect(p).toMatchObject({ excluded_unattacked: 0, excluded_outside_where: 1 });
  });
});
