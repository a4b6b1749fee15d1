import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { estimateFromData, estimateOver, type EstimateOptions } from "../../src/estimate/run.js";
import { objectEstimateData } from "../../src/estimate/estimate-data.js";
import { columnEstimateData, readEstimateColumns, storedCommitteeColumns } from "../../src/estimate/estimate-columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { readStoredCommittee } from "../../src/committee/members.js";
import { labelledIds, readHumanLabels } from "../../src/agree/human-file.js";
import { parseWhere } from "../../src/store/where.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-estcol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

/**
 * A run of `n` trajectories (ids written out of order, a repeated row with a later text, unattacked ones, two
 * judges with every status, superseded verdicts, a verdict without a row) and its committee file, and two human
 * label files over it: one without design fields, one with strata (`suite=...`) and their sizes. Both hold hostile
 * rows: a trajectory not in the run, a repeated (annotator, trajectory) with another label, an unknown label, a
 * content hash other than the run's.
 */
function writeRun(name: string, n: number): { dir: string; plain: string; design: string; part: string } {
  let seed = 7;
  const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
  const rows: Array<Record<string, unknown>> = [];
  const verdicts: string[] = [];
  const committee: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `m${i % 4}/s${i % 3}/user_task_${i % 9}/t${(i * 7919) % n}`;
    const attacked = rnd(6) !== 0;
    const row = {
      id,
      agent_model: rnd(30) ? `model-${i % 4}` : undefined,
      suite: `s${i % 3}`,
      user_task_id: `user_task_${i % 9}`,
      injection_task_id: attacked ? `injection_task_${i % 2}` : undefined,
      ...(rnd(5) ? { condition: ["no_defense", "spotlight"][rnd(2)] } : {}),
      attacked,
      ...(attacked ? { attack: ["important_instructions", "tool_knowledge"][rnd(2)] } : {}),
      ...(rnd(3) ? { surfaces: { a: ["email", "file"][rnd(2)] } } : {}),
      metadata: { lane: `l${rnd(3)}`, duration: i / 7 },
      // the benchmark's verdict: judge health's denies_reference_goal reads it (a broken judge's caveat)
      ...(rnd(4) ? { reference: { security: rnd(3) === 0, utility: rnd(2) === 0 } } : {}),
      content_sha256: `c${i}`,
    };
    rows.push(row);
    const votes: Record<string, string | null> = {};
    for (const judge of ["gpt", "signature"])
      for (const repeat of [0, 1]) {
        if (rnd(12) === 0) continue;
        const status = ["ok", "ok", "ok", "ok", "ok", "judge_error", "unverified"][rnd(7)];
        const v = {
          trajectory_id: id,
          judge_id: judge,
          judge_model: "m",
          repeat,
          prompt_sha256: "p",
          status,
          label: status === "ok" ? LABELS[rnd(6)] : null,
          ...(status !== "ok" && rnd(2) ? { error: { kind: ["http", "injection_text_unknown"][rnd(2)], message: "x" } } : {}),
          attacked,
          findings: [],
          content_sha256: `c${i}`,
        };
        verdicts.push(JSON.stringify(v));
        if (rnd(9) === 0) verdicts.push(JSON.stringify({ ...v, status: "ok", label: LABELS[rnd(6)], error: undefined }));
        if (repeat === 0) votes[judge] = v.status === "ok" ? v.label : null;
      }
    const vs = Object.values(votes).filter((x) => x !== null);
    committee.push(JSON.stringify({ trajectory_id: id, label: vs[0] ?? null, unanimous: new Set(vs).size <= 1, status: vs.length >= 2 ? "ok" : "no_quorum", votes, quorum: 2, judges: ["gpt", "signature"] }));
  }
  // the same id again with another text (the latest row wins), and a verdict whose trajectory has no row
  rows.push({ ...rows[5], content_sha256: "c5-new" });
  verdicts.push(JSON.stringify({ trajectory_id: "orphan/t", judge_id: "gpt", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: "unaffected", attacked: true, findings: [] }));
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "committee.jsonl"), committee.join("\n") + "\n");
  const suiteN = new Map<string, number>();
  for (const r of rows.slice(0, n)) suiteN.set(r.suite as string, (suiteN.get(r.suite as string) ?? 0) + 1);
  const plain: string[] = [];
  const design: string[] = [];
  const given = new Map<string, string>(); // (trajectory, annotator) -> label: the repeated row below repeats it
  for (let k = 0; k < Math.min(n, 260); k++) {
    const r = rows[(k * 37) % n];
    for (const annotator of k % 3 ? ["a1"] : ["a1", "a2"]) {
      const label = LABELS[rnd(6)];
      given.set(`${r.id} ${annotator}`, label);
      const line = { trajectory_id: r.id, annotator, label, ...(k < 3 ? { content_sha256: "other" } : k < 20 ? { content_sha256: r.content_sha256 } : {}) };
      plain.push(JSON.stringify(line));
      design.push(JSON.stringify({ ...line, stratum: `suite=${r.suite}`, stratum_size: suiteN.get(r.suite as string) }));
    }
  }
  for (const hostile of [
    { trajectory_id: "no/such/trajectory", annotator: "a1", label: "unaffected", stratum: "suite=s0", stratum_size: suiteN.get("s0") },
    { trajectory_id: rows[37].id, annotator: "a1", label: given.get(`${rows[37].id} a1`)!, stratum: `suite=${rows[37].suite}`, stratum_size: suiteN.get(rows[37].suite as string) },
    { trajectory_id: rows[74].id, annotator: "a3", label: "bogus", stratum: `suite=${rows[74].suite}`, stratum_size: suiteN.get(rows[74].suite as string) },
  ]) {
    const { stratum: _s, stratum_size: _n, ...bare } = hostile;
    plain.push(JSON.stringify(bare));
    design.push(JSON.stringify(hostile));
  }
  const plainFile = path.join(tmp, `${name}-plain.jsonl`);
  const designFile = path.join(tmp, `${name}-design.jsonl`);
  fs.writeFileSync(plainFile, plain.join("\n") + "\n");
  fs.writeFileSync(designFile, design.join("\n") + "\n");
  // strata that cover part of the run only (suite s2 has none): the strata-total check refuses the design
  const partFile = path.join(tmp, `${name}-part.jsonl`);
  fs.writeFileSync(partFile, design.filter((l) => !l.includes('"suite=s2"')).join("\n") + "\n");
  return { dir, plain: plainFile, design: designFile, part: partFile };
}

/** The report of the object path and of the column path, each as JSON text, or the error each threw. */
async function both(dir: string, humanFile: string, o: Partial<EstimateOptions>): Promise<[string, string]> {
  const file = readHumanLabels(humanFile);
  const base = { run: "r", humanFile, likeForLike: true, ...o };
  const { index, verdicts } = await readLeanRun(dir, { content: labelledIds(file) });
  const cols = await readEstimateColumns(dir, labelledIds(file), { by: o.by });
  const objSource = o.source?.kind === "committee" ? { ...o.source, stored: await readStoredCommittee(dir, verdicts, index) } : o.source;
  const colSource = o.source?.kind === "committee" ? { ...o.source, stored: await storedCommitteeColumns(dir, cols.run) } : o.source;
  const run = (f: () => unknown) => {
    try {
      return JSON.stringify(f());
    } catch (e) {
      return `threw ${(e as Error).name}: ${(e as Error).message}`;
    }
  };
  return [run(() => estimateFromData(index, verdicts, file, { ...base, source: objSource })), run(() => estimateOver(columnEstimateData(cols), file, { ...base, source: colSource }))];
}

describe("estimate --human on columns (issue 26 point 3): the same report as on objects", () => {
  const { dir, plain, design, part } = writeRun("run", 1200);
  const cases: Array<[string, Partial<EstimateOptions>]> = [
    ["one judge", { source: { kind: "judge", judge_id: "gpt" } }],
    ["the other judge, asr_goal only", { source: { kind: "judge", judge_id: "signature" }, rate: "asr_goal" }],
    ["--by model and condition", { source: { kind: "judge", judge_id: "gpt" }, by: ["model", "condition"] }],
    ["--by surface", { source: { kind: "judge", judge_id: "signature" }, by: ["surface"] }],
    ["--by a metadata key", { source: { kind: "judge", judge_id: "gpt" }, by: ["metadata.lane"] }],
    ["--where", { source: { kind: "judge", judge_id: "gpt" }, by: ["suite"], where: parseWhere(["attack=important_instructions", "suite=s0,s1"]) }],
    ["--where keeping none", { source: { kind: "judge", judge_id: "gpt" }, where: parseWhere(["suite=nowhere"]) }],
    ["the committee", { source: { kind: "committee" }, by: ["agent_model"] }],
    ["the committee with --where", { source: { kind: "committee" }, where: parseWhere(["suite=s2"]) }],
    ["several judges and no choice", {}],
    ["an unknown judge", { source: { kind: "judge", judge_id: "nobody" } }],
    ["--by a field no trajectory has", { source: { kind: "judge", judge_id: "gpt" }, by: ["metadata.nothing"] }],
  ];
  for (const [what, o] of cases)
    for (const [kind, file] of [["no design", plain], ["strata", design], ["strata of part of the run", part]] as const)
      it(`${what} (${kind})`, async () => {
        const [want, got] = await both(dir, file, o);
        expect(got).toBe(want);
        const refused = ["--where keeping none", "several judges and no choice", "an unknown judge", "--by a field no trajectory has"].includes(what);
        expect(want.startsWith("threw")).toBe(refused);
        if (!refused && kind !== "strata of part of the run") expect(want).toContain('"not_in_run":1');
        if (!refused && kind === "strata of part of the run") expect(want).toContain("its strata hold 800 trajectories, the run 1200");
        if (!refused) expect(want).toContain('"content_changed_since_sample":');
      });

  // the column path reads judge health as the verdicts come and keeps the last (source, kept) pair's figures for the
  // second rate: each answer must still be the objects' for the pair asked, and a copy the caller may change
  it("judge health: the objects' figures for each (source, kept) asked, in any order, each a fresh copy", async () => {
    const file = readHumanLabels(plain);
    const { index, verdicts } = await readLeanRun(dir, { content: labelledIds(file) });
    const col = columnEstimateData(await readEstimateColumns(dir, labelledIds(file)));
    const obj = objectEstimateData(index, verdicts);
    const kept = new Uint8Array(col.n);
    for (let u = 0; u < col.n; u += 3) kept[u] = 1;
    const other = kept.map((x) => 1 - x);
    const gpt = { kind: "judge", judge_id: "gpt" } as const;
    const sig = { kind: "judge", judge_id: "signature" } as const;
    const committee = { kind: "committee", quorum: 2, members: ["gpt", "signature"], left_out: [] } as const;
    const first = col.health(gpt, kept);
    expect(first).toEqual(obj.health(gpt, kept));
    expect(first.caveats.length + first.broken.used.length + first.broken.other.length).toBeGreaterThan(0);
    first.caveats.length = 0; // the caller's copy: the next answer is unchanged
    const again = col.health({ ...gpt }, kept.slice());
    expect(again).toEqual(obj.health(gpt, kept));
    expect(again).not.toBe(first);
    // the pairs below differ in their figures (so a memo keyed wrongly would show)
    expect(obj.health(gpt, other)).not.toEqual(obj.health(gpt, kept));
    expect(obj.health(sig, kept)).not.toEqual(obj.health(gpt, kept));
    for (const [s, k] of [[gpt, other], [gpt, null], [sig, kept], [committee, kept], [committee, null], [gpt, kept]] as const) expect(col.health(s, k)).toEqual(obj.health(s, k));
  });
});
