import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCommitteeStrata, sampleCommittee } from "../../src/sample/index.js";
import { parseWhere, restrictRun, type WhereFilter } from "../../src/store/where.js";
import { buildPopulation, STRATUM_FIELDS, type StratumField } from "../../src/sample/population.js";
import { readColumnPopulation, HashColumn } from "../../src/sample/population-columns.js";
import { drawSample, drawSampleColumns } from "../../src/sample/sample.js";
import { compareCodeUnits } from "../../src/sample/draw.js";
import { IdTable } from "../../src/store/id-table.js";
import { readLeanIndex, readLeanRun } from "../../src/store/lean-read.js";
import { buildCommittee } from "../../src/verdict/vote.js";
import { objectDrawSample } from "./object-draw.js";
import { row } from "./fixtures.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-popcol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "unaffected", "not_exposed"];
const hex = (i: number) => (i.toString(16).padStart(8, "0") + "ab").repeat(7).slice(0, 64);

/** The object path of `createSample` without `--where` (main at 27b1fa5): lean index, committee strata, population, draw. */
async function objectPath(dir: string, fields: StratumField[], req: Parameters<typeof drawSample>[1]) {
  const index = await readLeanIndex(dir, { content: true, only: STRATUM_FIELDS });
  const cr = await readCommitteeStrata(dir, index);
  const committee = cr ? cr.rows.filter((r) => index.has(r.trajectory_id)) : null;
  const pop = buildPopulation(index.values(), committee, fields);
  return { ...objectDrawSample(pop, req), stale: cr?.stale ?? [], notes: cr?.notes ?? [] };
}

/**
 * The object path of `createSample --where` (lead43 at de29537c): the whole lean index with content hashes,
 * `restrictRun`, the committee strata of the kept rows, the population, the draw; the design's `where` and committee.
 */
async function objectWherePath(dir: string, f: WhereFilter, fields: StratumField[], req: Parameters<typeof drawSample>[1]) {
  const fullIndex = await readLeanIndex(dir, { content: true });
  const restricted = restrictRun({ index: fullIndex }, f, "r");
  const index = restricted.index;
  const cr = await readCommitteeStrata(dir, index);
  const committee = cr ? cr.rows.filter((r) => index.has(r.trajectory_id)) : null;
  const pop = buildPopulation(index.values(), committee, fields);
  const { items, design } = objectDrawSample(pop, req);
  if (restricted.statement) design.where = restricted.statement;
  if (cr) design.committee = sampleCommittee(cr.committee);
  const warnings = [...(cr?.stale ?? []), ...(cr?.notes ?? []), ...restricted.warnings, ...design.warnings];
  return { items, design, warnings };
}

/** The column path of `createSample --where`, as src/sample/index.ts assembles it. */
async function columnWherePath(dir: string, f: WhereFilter, fields: StratumField[], req: Parameters<typeof drawSample>[1]) {
  const got = await readColumnPopulation(dir, fields, undefined, undefined, { filter: f, run: "r" });
  const { items, design } = drawSampleColumns(got.pop, req);
  if (got.where) design.where = got.where.statement;
  if (got.committee) design.committee = sampleCommittee(got.committee);
  const warnings = [...got.stale, ...got.notes, ...(got.where?.warnings ?? []), ...design.warnings];
  return { items, design, warnings };
}

/** The outcome of `fn`: its value, or the thrown error's class and message. */
async function outcome<T>(fn: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await fn();
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

describe("IdTable.compare: UTF-16 code-unit order from the UTF-8 bytes", () => {
  it("agrees with string comparison on ids with ASCII, accents, U+E000-U+FFFF, astral characters and lone surrogates", () => {
    const parts = ["a", "b", "z", "é", "\u{e000}", "\u{ffee}", "\u{1f600}", "\u{10000}", "\ud800", "\udc00", "ab", ""];
    let seed = 9;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const ids = new IdTable();
    const strs: string[] = [];
    for (let i = 0; i < 300; i++) {
      const s = Array.from({ length: 1 + rnd(4) }, () => parts[rnd(parts.length)]).join("");
      if (ids.slotOf(s) >= 0) continue;
      ids.add(s);
      strs.push(s);
    }
    for (let a = 0; a < strs.length; a++) {
      for (let b = 0; b < strs.length; b++) expect(Math.sign(ids.compare(a, b)), `${JSON.stringify(strs[a])} ${JSON.stringify(strs[b])}`).toBe(compareCodeUnits(strs[a], strs[b]));
    }
  });
});

describe("HashColumn", () => {
  it("counts distinct hashes: hex sha256s as bytes, other strings as strings, a later set replacing", () => {
    const h = new HashColumn();
    const vals = [hex(1), hex(2), hex(1), "sha-x", "sha-x", hex(3).toUpperCase(), hex(2), "", hex(4)];
    vals.forEach((v, i) => h.set(i, v));
    h.set(8, "odd"); // replaces hex(4)
    h.set(3, hex(3)); // replaces sha-x
    const final = [...vals];
    final[8] = "odd";
    final[3] = hex(3);
    expect(h.distinct(final.length)).toBe(new Set(final).size);
  });
});

describe("sample's population as columns: the same sample, design and committee notes as the object path", () => {
  it("on a generated run (repeated index rows, content twins, odd hashes and ids, a stale committee file, no quorum)", async () => {
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    let seed = 4;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const rows: string[] = [];
    const verdicts: string[] = [];
    const idOf = (i: number) => `m/t${i}${i % 77 === 0 ? "/é" : i % 91 === 0 ? "/\u{1f600}" : i % 93 === 0 ? "/\u{e001}" : ""}`;
    for (let i = 0; i < 900; i++) {
      const id = idOf(i);
      const content = i % 5 === 0 ? hex(i % 40) : i % 7 === 0 ? `c${i % 3}` : hex(i);
      rows.push(JSON.stringify({ id, content_sha256: content, attacked: i % 6 !== 0, suite: ["banking", "slack", "travel"][i % 3], agent_model: i % 11 ? "gpt" : undefined, user_task_id: `u${i % 4}` }));
      for (const judge of ["j1", "j2", "j3"]) {
        if (rnd(10) === 0) continue;
        verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status: rnd(8) ? "ok" : "judge_error", label: LABELS[rnd(4)], findings: [] }));
      }
    }
    // an id repeated later in the index with another hash and suite (the latest row wins), one with a lone surrogate, a bad line
    rows.push(JSON.stringify({ id: idOf(10), content_sha256: hex(999), attacked: true, suite: "travel" }));
    rows.push(`{"id":"m/odd\\ud800","content_sha256":"${hex(5)}","attacked":true,"suite":"slack"}`);
    rows.push("{not json");
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    const committee = buildCommittee(vs, [...index.keys()], { judgeIds: ["j1", "j2", "j3"] });
    expect(committee.some((c) => c.status === "no_quorum")).toBe(true);
    const meta = { committee_judges: ["j1", "j2", "j3"], excluded_judges: [], quorum: 2 };
    const line = (c: object) => JSON.stringify({ ...c, ...meta });
    const files: Record<string, string[] | null> = {
      none: null,
      fresh: committee.map((c) => line(c)),
      stale: [
        ...committee.slice(5).map((c, i) => line(i % 40 === 0 ? { ...c, votes: { ...c.votes, j1: "unaffected" }, unanimous: !c.unanimous } : c)),
        line({ ...committee[0], trajectory_id: "elsewhere" }),
        line({ ...committee[9], unanimous: !committee[9].unanimous }), // a later line of the same trajectory wins
      ],
    };
    const requests = [
      { fields: [] as StratumField[], req: { random: 40, disagreement: 15, seed: 3 } },
      { fields: ["suite", "agent_model"] as StratumField[], req: { random: 25, disagreement: 30, seed: 8 } },
      { fields: ["attacked", "user_task_id"] as StratumField[], req: { random: 5, disagreement: 2000, seed: 1, allowShort: true } },
      { fields: ["suite"] as StratumField[], req: { random: 2000, disagreement: 0, seed: 2, allowShort: true } },
    ];
    for (const [name, lines] of Object.entries(files)) {
      const cfile = path.join(dir, "committee.jsonl");
      if (lines) fs.writeFileSync(cfile, lines.join("\n") + "\n");
      else fs.rmSync(cfile, { force: true });
      for (const { fields, req } of requests) {
        const r = lines ? req : { ...req, disagreement: 0 };
        const want = await objectPath(dir, fields, r);
        const got = await readColumnPopulation(dir, fields);
        const drawn = drawSampleColumns(got.pop, r);
        expect(drawn.items, `${name} ${fields}`).toEqual(want.items);
        expect(JSON.stringify(drawn.design), `${name} ${fields}`).toBe(JSON.stringify(want.design));
        expect({ stale: got.stale, notes: got.notes }).toEqual({ stale: want.stale, notes: want.notes });
        if (name === "stale") expect(got.stale.length).toBeGreaterThan(0);
      }
    }
    const d = drawSampleColumns((await readColumnPopulation(dir, [])).pop, { random: 10, disagreement: 0, seed: 1 }).design;
    expect(d.population.content_twins).toBeGreaterThan(0);
  });

  it("with --where: the same sample, design (its where statement), warnings and refusals as the object path", async () => {
    const dir = path.join(tmp, "where-run");
    fs.mkdirSync(dir);
    let seed = 11;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const rows: string[] = [];
    const verdicts: string[] = [];
    const attacks = ["important_instructions", "tool_knowledge", undefined];
    for (let i = 0; i < 700; i++) {
      const id = `m${i % 3}/t${i}${i % 61 === 0 ? "/é" : ""}`;
      const content = i % 4 === 0 ? hex(i % 50) : hex(i);
      const attack = attacks[rnd(3)];
      rows.push(JSON.stringify({ id, content_sha256: content, attacked: attack !== undefined, ...(attack ? { attack } : {}), suite: ["banking", "slack", "travel"][rnd(3)], agent_model: `model${rnd(3)}`, user_task_id: `u${rnd(4)}` }));
      for (const judge of ["j1", "j2", "j3"]) {
        if (rnd(12) === 0) continue;
        verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status: rnd(8) ? "ok" : "judge_error", label: LABELS[rnd(4)], findings: [] }));
      }
    }
    // a later row of an id moves it to another suite (the latest row wins, so --where sees that one)
    rows.push(JSON.stringify({ id: "m1/t1", content_sha256: hex(5), attacked: true, attack: "tool_knowledge", suite: "banking", agent_model: "model2", user_task_id: "u0" }));
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    const committee = buildCommittee(vs, [...index.keys()], { judgeIds: ["j1", "j2", "j3"] });
    const meta = { committee_judges: ["j1", "j2", "j3"], excluded_judges: [], quorum: 2 };
    const line = (c: object) => JSON.stringify({ ...c, ...meta });
    const files: Record<string, string[] | null> = {
      none: null,
      fresh: committee.map((c) => line(c)),
      stale: [...committee.slice(3).map((c, i) => line(i % 30 === 0 ? { ...c, unanimous: !c.unanimous } : c)), line({ ...committee[0], trajectory_id: "elsewhere" })],
    };
    const filters = [["suite=banking"], ["suite=banking,nosuch", "model=model1"], ["attack=important_instructions,(none)"], ["attack=tool_knowledge"], ["suite=nosuch"], ["model=model0", "suite=slack"]];
    const requests = [
      { fields: [] as StratumField[], req: { random: 30, disagreement: 10, seed: 3 } },
      { fields: ["suite", "agent_model", "attacked"] as StratumField[], req: { random: 20, disagreement: 500, seed: 8, allowShort: true } },
      { fields: ["attack"] as StratumField[], req: { random: 5000, disagreement: 0, seed: 1 } },
    ];
    let compared = 0;
    for (const [name, lines] of Object.entries(files)) {
      const cfile = path.join(dir, "committee.jsonl");
      if (lines) fs.writeFileSync(cfile, lines.join("\n") + "\n");
      else fs.rmSync(cfile, { force: true });
      for (const spec of filters) {
        const f = parseWhere(spec) as WhereFilter;
        for (const { fields, req } of requests) {
          const r = lines ? req : { ...req, disagreement: 0 };
          const want = await outcome(() => objectWherePath(dir, f, fields, r));
          const got = await outcome(() => columnWherePath(dir, f, fields, r));
          expect(JSON.stringify(got), `${name} ${spec} ${fields}`).toBe(JSON.stringify(want));
          if (!("error" in want)) compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(20);
  });

  it("drawSample (through the columns) gives what the object draw gave on populations of many shapes", () => {
    let seed = 17;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    for (let t = 0; t < 40; t++) {
      const n = 1 + rnd(300);
      const rows = Array.from({ length: n }, (_, i) => row(`x${rnd(1000)}-${i}`, { suite: `s${rnd(1 + (t % 6))}`, attack: rnd(3) ? `a${rnd(2)}` : undefined }));
      const withCommittee = t % 3 !== 0;
      const committee = withCommittee ? rows.filter(() => rnd(9)).map((r) => ({ trajectory_id: r.id, unanimous: rnd(3) !== 0, ...(rnd(10) ? {} : { status: "no_quorum" }) })) : null;
      const pop = buildPopulation(rows, committee, (t % 2 ? ["suite", "attack"] : ["suite"]) as StratumField[]);
      const req = { random: rnd(n + 5), disagreement: withCommittee ? rnd(40) : 0, seed: rnd(1000), allowShort: true };
      expect(JSON.stringify(drawSample(pop, req)), `case ${t}`).toBe(JSON.stringify(objectDrawSample(pop, req)));
    }
  });
});
