import { describe, expect, it } from "vitest";
import { humanAgreement, formatHumanAgreement, type HumanLabelFile } from "../../src/agree/human.js";
import { checkLabelPairing, CONTENT_CHANGED } from "../../src/agree/label-pairing.js";
import { estimateFromData } from "../../src/estimate/run.js";
import { formatEstimate } from "../../src/estimate/format.js";
import { buildPopulation } from "../../src/sample/population.js";
import { drawSample } from "../../src/sample/sample.js";
import { checkAnnotations, parseManifest } from "../../src/sample/import.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";

// humans14: a human label belongs to the text the annotator read. sample records each item's content hash,
// import-annotations keeps it, and every consumer refuses a label whose trajectory the run now holds with other
// content (edited and labelled again after sampling), by item, named, counted once.
const row = (id: string, attack: string, content = `h-${id}`): TrajectoryIndexRow =>
  ({ id, agent_model: "m", attack, attacked: true, content_sha256: content, source: { format: "t", path: id }, n_messages: 2 }) as TrajectoryIndexRow;
const runOf = (n: number) => new Map(Array.from({ length: n }, (_, i) => row(`t${String(i).padStart(3, "0")}`, i % 2 ? "A" : "B")).map((r) => [r.id, r]));
const verdictsOf = (index: Map<string, TrajectoryIndexRow>, compromised: (id: string, i: number) => boolean = (_, i) => i % 3 === 0) =>
  [...index.keys()].map((id, i) => ({ trajectory_id: id, judge_id: "j", repeat: 0, status: "ok", label: (compromised(id, i) ? "full_compliance" : "unaffected") as Bucket }) as Verdict);
const opts = { run: "r", humanFile: "h.jsonl", source: { kind: "judge" as const, judge_id: "j" }, minSampled: 1, rate: "asr_behaviour" as const };

/** Draw 12 of `index`, two annotators label every item (the same label), imported through the manifest (with content hashes). */
function sampleAndLabel(index: Map<string, TrajectoryIndexRow>, withHash = true): HumanLabelFile {
  const { items, design } = drawSample(buildPopulation(index.values(), null, []), { random: 12, disagreement: 0, seed: 3 });
  const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 3, n_items: items.length, design };
  const manifestRows = items.map((it, i) => ({ item_id: `x-${i}`, ...it, ...(withHash ? { content_sha256: index.get(it.trajectory_id)!.content_sha256 } : {}) }));
  const manifest = parseManifest([header, ...manifestRows].map((x) => JSON.stringify(x)).join("\n") + "\n");
  const records = ["ann1", "ann2"].flatMap((annotator) =>
    items.map((_, i) => ({ where: `row ${i + 1}`, item_id: `x-${i}`, annotator, label: i % 4 === 0 ? "full_compliance" : "unaffected" })),
  );
  const { rows } = checkAnnotations(records, manifest);
  return { format: "jsonl", rows: rows.map((r, i) => ({ ...r, line: i + 1 })), bad_rows: [] };
}

/** The run after `ids` were edited and labelled again: their index rows carry another content hash. */
function edited(index: Map<string, TrajectoryIndexRow>, ids: string[]): Map<string, TrajectoryIndexRow> {
  const out = new Map(index);
  for (const id of ids) out.set(id, { ...index.get(id)!, content_sha256: `edited-${id}` });
  return out;
}

describe("import-annotations keeps each item's content hash (humans14)", () => {
  it("every label row carries the manifest's content_sha256 of its item", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index);
    expect(file.rows).toHaveLength(24);
    for (const r of file.rows) expect(r.content_sha256).toBe(`h-${r.trajectory_id}`);
    // a manifest of an earlier version (no hash): rows without it, as before
    expect(sampleAndLabel(index, false).rows.every((r) => !("content_sha256" in r))).toBe(true);
  });
});

describe("checkLabelPairing", () => {
  it("refuses the rows whose trajectory's content changed, leaves rows of trajectories not in the run to the consumer, counts once", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index);
    const changedIds = [...new Set(file.rows.map((r) => r.trajectory_id))].slice(0, 2);
    const now = edited(index, changedIds);
    now.delete(file.rows[file.rows.length - 1].trajectory_id);
    const warnings: string[] = [];
    const p = checkLabelPairing(file, "h.jsonl", (id) => (now.has(id) ? now.get(id)!.content_sha256 : null), warnings, "EFFECT");
    expect(p.refused_items).toBe(2);
    expect(p.refused_rows).toBe(4);
    expect([...p.refused_ids].sort()).toEqual([...changedIds].sort());
    expect(p.file.rows).toHaveLength(20);
    expect(p.unchecked_rows).toBe(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^label file h\.jsonl: 2 labelled trajectories \(4 label rows\) changed since the sample was drawn: .*content_sha256; first: t\d+, line \d+\).*EFFECT \(undefined: content_changed_since_sample\)/);
  });
  it("nothing changed: the same file object, no warning", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index);
    const warnings: string[] = [];
    const p = checkLabelPairing(file, "h.jsonl", (id) => index.get(id)?.content_sha256 ?? null, warnings, "EFFECT");
    expect(p.file).toBe(file);
    expect(warnings).toEqual([]);
  });
  it("a file without hashes loads, with one line saying the pairing cannot be checked; a run row without a hash is said too", () => {
    const index = runOf(40);
    const old = sampleAndLabel(index, false);
    const warnings: string[] = [];
    const p = checkLabelPairing(old, "old.jsonl", (id) => index.get(id)?.content_sha256 ?? null, warnings, "EFFECT");
    expect(p.file).toBe(old);
    expect(p.unchecked_rows).toBe(24);
    expect(warnings).toEqual([
      "label file old.jsonl: its 24 label rows record no content_sha256 (written by an import-annotations before this version, or by hand): whether each label was given for the text the run has now cannot be checked; re-import the annotations with the sample's manifest to record it",
    ]);
    const w2: string[] = [];
    checkLabelPairing(sampleAndLabel(index), "h.jsonl", () => undefined, w2, "EFFECT");
    expect(w2).toEqual(["label file h.jsonl: the run records no content hash for the trajectories of 24 label rows: whether those labels were given for the text the run has now cannot be checked"]);
  });
});

describe("a label file where only some rows carry content_sha256 names the rows (red team 14)", () => {
  it("the rows without a hash are named by line and trajectory; the run's rows without one too when others have one", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index);
    // two rows lose their hash (a file edited by hand, or two imports joined)
    const rows = file.rows.map((r, i) => (i === 2 || i === 7 ? (({ content_sha256: _c, ...rest }) => rest)(r) : r));
    const partial: HumanLabelFile = { ...file, rows: rows as HumanLabelFile["rows"] };
    const warnings: string[] = [];
    const p = checkLabelPairing(partial, "p.jsonl", (id) => index.get(id)?.content_sha256 ?? null, warnings, "EFFECT");
    expect(p.unchecked_rows).toBe(2);
    expect(warnings).toHaveLength(1);
    const named = [2, 7].map((i) => `line ${rows[i].line} (trajectory ${JSON.stringify(rows[i].trajectory_id)})`).join(", ");
    expect(warnings[0]).toContain(`2 of its 24 label rows record no content_sha256 (${named}; the other rows carry one)`);
    // the run records no hash for one trajectory only: its rows are named
    const one = file.rows[0].trajectory_id;
    const w2: string[] = [];
    checkLabelPairing(file, "h.jsonl", (id) => (id === one ? undefined : index.get(id)!.content_sha256), w2, "EFFECT");
    const lines = file.rows.filter((r) => r.trajectory_id === one).map((r) => `line ${r.line} (trajectory ${JSON.stringify(one)})`);
    expect(w2).toEqual([
      `label file h.jsonl: the run records no content hash for the trajectories of ${lines.length} label rows (${lines.join(", ")}; the run records one for the others): whether those labels were given for the text the run has now cannot be checked`,
    ]);
  });
});

describe("estimate: labels of trajectories edited since the sample are refused by item (humans14)", () => {
  it("refused items count as unlabelled sampled items: the same figures as a file without their labels, one warning, excluded by name", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index);
    const humanC = new Set(file.rows.filter((r) => r.label === "full_compliance").map((r) => r.trajectory_id));
    const changedIds = [...humanC].slice(0, 2);
    const now = edited(index, changedIds);
    // the edit made the agent refuse: the judge, re-run on the new text, says unaffected where the humans read compliance
    const verdicts = verdictsOf(now, (id, i) => !changedIds.includes(id) && i % 3 === 0);
    const r = estimateFromData(now, verdicts, file, opts);
    expect(r.labels.excluded[CONTENT_CHANGED]).toBe(2);
    expect(r.labels.items).toBe(10);
    const w = r.warnings.filter((x) => x.includes(CONTENT_CHANGED));
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^label file h\.jsonl: 2 labelled trajectories \(4 label rows\) changed since the sample was drawn/);
    const without: HumanLabelFile = { ...file, rows: file.rows.filter((x) => !changedIds.includes(x.trajectory_id)) };
    const ref = estimateFromData(now, verdicts, without, opts);
    expect(r.groups[0].calibrated.asr).toBe(ref.groups[0].calibrated.asr);
    expect(r.groups[0].human.asr).toBe(ref.groups[0].human.asr);
    // unchecked, the two labels would pull the calibrated figure up: the wrong number the check prevents
    const unchecked = estimateFromData(now, verdicts, { ...file, rows: file.rows.map(({ content_sha256: _c, ...x }) => x) }, opts);
    expect(unchecked.groups[0].calibrated.asr!).toBeGreaterThan(r.groups[0].calibrated.asr!);
    expect(formatEstimate(r)).toMatch(/left out: content changed since sample 2/);
  });
  it("an unchanged run: no word about the pairing (outputs as before)", () => {
    const index = runOf(40);
    const r = estimateFromData(index, verdictsOf(index), sampleAndLabel(index), opts);
    expect(r.warnings).toEqual([]);
    expect(r.labels.excluded[CONTENT_CHANGED]).toBeUndefined();
  });
});

describe("agree --human: the pairing and the sample frame, checked as estimate checks them (humans14)", () => {
  it("an edited trajectory: its item gets no consensus (content_changed_since_sample), the annotators' agreement keeps its labels", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index);
    const changedIds = [...new Set(file.rows.map((r) => r.trajectory_id))].slice(0, 3);
    const now = edited(index, changedIds);
    const r = humanAgreement(file, verdictsOf(now), now, { file: "h.jsonl", bootstrap: { B: 0, seed: 1 } });
    expect(r.excluded_items[CONTENT_CHANGED]).toBe(3);
    expect(r.content_changed).toEqual([...changedIds].sort());
    expect(r.consensus.n).toBe(9);
    expect(r.judges[0].unweighted.n_used).toBe(9);
    expect(r.annotator_agreement.pairwise[0].comparison.n_used).toBe(12);
    expect(r.rows.used).toBe(24);
    expect(r.warnings.filter((w) => w.includes(CONTENT_CHANGED))).toHaveLength(1);
    const same = humanAgreement(file, verdictsOf(index), index, { file: "h.jsonl", bootstrap: { B: 0, seed: 1 } });
    expect(same.content_changed).toBeUndefined();
    expect(same.excluded_items[CONTENT_CHANGED]).toBeUndefined();
    expect(same.design_refused).toBeUndefined();
    expect(same.judges[0].design_weighted).not.toBeNull();
  });
  it("a run that grew since the sample: every design-weighted figure refused (population_changed_since_sample), the unweighted ones stay and are labelled", () => {
    const small = runOf(40);
    const file = sampleAndLabel(small);
    const grown = runOf(60);
    const before = humanAgreement(file, verdictsOf(small), small, { file: "h.jsonl", bootstrap: { B: 0, seed: 1 } });
    const r = humanAgreement(file, verdictsOf(grown), grown, { file: "h.jsonl", bootstrap: { B: 0, seed: 1 } });
    expect(before.judges[0].design_weighted).not.toBeNull();
    expect(r.judges[0].design_weighted).toBeNull();
    expect(r.judges[0].design_weighted_reason).toBe("population_changed_since_sample (N 40 when the sample was drawn, 60 now (20 more))");
    expect(r.judges[0].unweighted).toEqual(before.judges[0].unweighted);
    const w = r.warnings.filter((x) => /changed since the sample/.test(x));
    expect(w).toEqual([expect.stringMatching(/^the run's trajectories changed since the sample was drawn: N 40 when the sample was drawn, 60 now \(20 more\); .*so no judge gets a design-weighted agreement with the humans \(undefined: population_changed_since_sample\); the unweighted agreement below still holds for the labelled trajectories themselves, not for the run/)]);
    const text = formatHumanAgreement(r);
    expect(text).toContain("design-weighted: undefined (population changed since sample; N 40 when the sample was drawn, 60 now (20 more))");
    expect(text).toContain("(unweighted, over the labelled sample: these trajectories only, not the run)");
  });
  it("agree --where: the frame is checked against the whole run (population), not the --where subset", () => {
    const index = runOf(40);
    const file = sampleAndLabel(index);
    const subset = new Map([...index].filter(([, r]) => r.attack === "A"));
    const r = humanAgreement(file, verdictsOf(index), subset, { file: "h.jsonl", bootstrap: { B: 0, seed: 1 }, population: [...index.values()] });
    expect(r.design_refused).toBeUndefined();
    expect(r.warnings.join("\n")).not.toMatch(/changed since the sample/);
    const wrong = humanAgreement(file, verdictsOf(index), subset, { file: "h.jsonl", bootstrap: { B: 0, seed: 1 } });
    expect(wrong.design_refused).toMatch(/^population_changed_since_sample/);
  });
});
