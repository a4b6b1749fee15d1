/**
 * The view's loader keeps each row's verdict lines in typed columns (RefStore) and shares the rows' label, status
 * and downgraded values: on a generated run with every awkward case (superseded index rows and verdicts, orphans,
 * repeats, three judges, bad lines, human labels) it must give the same rows, list pages, facets, index rows and
 * verdict lines as the object-built loader it replaced (test/view/object-run-data.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadViewRun, readLine, RefStore, refsOf, type ViewRun } from "../../src/view/run-data.js";
import { loadViewRun as loadObjectRun } from "./object-run-data.js";
import { facets, listPage, parseListQuery } from "../../src/view/query.js";
import { rowVerdicts } from "../../src/view/item.js";
import type { Verdict } from "../../src/types.js";
import { clearJournalSkips } from "../../src/store/skipped-lines.js";
import { Rand } from "../helpers/rand.js";

let dir: string;
let runDir: string;
let human: string;

/** A seeded generator (test/helpers/rand.ts), so a failure is reproducible: numbers in [0, 1). */
function rng(seed: number): () => number {
  const rand = new Rand(seed);
  return () => rand.unit();
}

const LABELS = ["not_exposed", "unaffected", "flagged_refusal", "partial_compliance", "full_compliance", "task_refusal"];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-rundata-"));
  runDir = path.join(dir, "r");
  fs.mkdirSync(runDir);
  const r = rng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const t: string[] = [];
  const v: string[] = [];
  const ids = Array.from({ length: 300 }, (_, i) => `m${i % 3}/s${i % 4}/user_task_${i}/${pick(["none", "important_instructions", "direct"])}/inj_${i % 7}~é${i}`);
  for (const id of ids) {
    const attacked = !id.includes("/none/");
    const row = { id, content_sha256: "h" + id.length, source: { format: "agentdojo", path: `/x/${id}.json` }, agent_model: id.split("/")[0], suite: id.split("/")[1], user_task_id: id.split("/")[2], condition: pick(["no_defense", "spotlight", ""]), attacked, ...(attacked ? { attack: id.split("/")[3], injection_task_id: "inj" } : {}), ...(r() < 0.8 ? { reference: { security: r() < 0.5 } } : {}), ...(r() < 0.1 ? { run_error: "boom" } : {}) };
    t.push(JSON.stringify(row));
    if (r() < 0.05) t.push("{not json");
  }
  // later index rows of some ids supersede the earlier ones in place
  for (const id of ids.slice(0, 20)) t.push(JSON.stringify({ id, content_sha256: "h2", suite: "moved", attacked: true, attack: "late" }));
  const verdict = (id: string, judge: string, repeat: number) => {
    // the rubric's words only: a line with another status or label, or a label on a status other than ok, is refused
    // by every reader (../../src/store/verdict-check.ts)
    const status = pick(["ok", "ok", "ok", "unverified", "judge_error"]);
    const picked = status === "judge_error" ? null : pick(LABELS);
    const label = status === "ok" ? picked : null;
    const findings = [{ bucket: label ?? "none", holds: true, evidence: Array.from({ length: Math.floor(r() * 3) }, () => ({ quote: "q", verified: r() < 0.6 })) }];
    return JSON.stringify({ trajectory_id: id, judge_id: judge, repeat, prompt_sha256: "p", status, label, downgraded: r() < 0.1, findings, ...(r() < 0.8 ? { rationale: `why ${pick(["transfer", "iban", "ok"])} ${"x".repeat(Math.floor(r() * 500))}` } : {}), attacked: r() < 0.5, agent_model: "orphan-model" });
  };
  const orphans = Array.from({ length: 12 }, (_, i) => `orphan/${i}`);
  for (const id of [...ids, ...orphans]) {
    for (const judge of ["b", "a", "c"]) {
      if (r() < 0.15) continue;
      const reps = 1 + Math.floor(r() * 3);
      for (let k = 0; k < reps; k++) v.push(verdict(id, judge, k));
    }
    if (r() < 0.03) v.push("garbage line");
  }
  // superseding verdicts (a re-judged repeat), stored later in the file, and shuffled order for some
  for (let k = 0; k < 80; k++) v.push(verdict(pick([...ids, ...orphans]), pick(["a", "b", "c"]), Math.floor(r() * 3)));
  for (let i = v.length - 1; i > v.length - 200; i--) {
    const j = Math.floor(r() * (i + 1));
    [v[i], v[j]] = [v[j], v[i]];
  }
  fs.writeFileSync(path.join(runDir, "trajectories.jsonl"), t.join("\n") + "\n");
  fs.writeFileSync(path.join(runDir, "verdicts.jsonl"), v.join("\n") + "\n");
  human = path.join(dir, "human.jsonl");
  const h = ids.filter(() => r() < 0.3).map((id) => JSON.stringify({ trajectory_id: id, annotator: pick(["ann1", "ann2"]), label: pick(LABELS) }));
  h.push(JSON.stringify({ trajectory_id: "nowhere", annotator: "ann1", label: "unaffected" }));
  fs.writeFileSync(human, h.join("\n") + "\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("view loader: typed verdict lines and shared row values", () => {
  it("gives the object-built loader's rows, pages, facets, index rows and verdict lines", async () => {
    // each load names the skipped lines once per process: cleared before each, so both name them
    clearJournalSkips();
    const neu = await loadViewRun(runDir, { humanFile: human });
    clearJournalSkips();
    const old = await loadObjectRun(runDir, { humanFile: human });
    expect(neu.warnings.join("\n")).toMatch(/verdicts\.jsonl: \d+ lines? skipped/);
    expect(neu.rows.length).toBe(old.rows.length);
    expect(neu.rows.length).toBe(312);
    expect(neu.judges).toEqual(old.judges);
    expect(neu.warnings).toEqual(old.warnings);
    expect(neu.committee).toEqual(old.committee);
    const vfile = path.join(runDir, "verdicts.jsonl");
    let superseded = 0;
    for (let i = 0; i < old.rows.length; i++) {
      const o = old.rows[i];
      const n = neu.rows.at(i)!;
      const { refs: oRefs, ...oPlain } = o;
      const { refs: _n, ...nPlain } = n;
      // same fields in the same key order (the JSON the page gets)
      expect(JSON.stringify(nPlain)).toBe(JSON.stringify(oPlain));
      const want = Object.fromEntries(
        Object.keys(oRefs)
          .sort()
          .map((j) => [j, oRefs[j].map((x) => ({ start: x.start, length: x.length }))]),
      );
      const got = refsOf(neu, n);
      expect(Object.fromEntries(Object.keys(got).sort().map((j) => [j, got[j]]))).toEqual(want);
      const lines = Object.values(want).flat();
      const verdicts = rowVerdicts(neu, n);
      expect(verdicts).toEqual(lines.map((l) => readLine<Verdict>(vfile, l)).sort((a, b) => (a.judge_id < b.judge_id ? -1 : a.judge_id > b.judge_id ? 1 : a.repeat - b.repeat)));
      if (lines.length !== new Set(verdicts.map((x) => `${x.judge_id}/${x.repeat}`)).size) superseded++;
      expect(neu.byId.get(n.id)).toEqual(n);
      expect(neu.index.has(n.id)).toBe(old.index.has(o.id));
      expect(neu.index.get(n.id)).toEqual(old.index.get(o.id));
    }
    expect(superseded).toBe(0);
    expect(neu.byId.get("nowhere")).toBeUndefined();
    expect(neu.index.has("orphan/0")).toBe(false);
    expect(JSON.stringify(facets(neu))).toBe(JSON.stringify(facets(old as unknown as ViewRun)));
    const queries = [
      "",
      "offset=290&limit=50",
      "suite=moved",
      "label.a=full_compliance",
      "label.c=(none)",
      "status=unverified",
      "status=errors",
      "status=downgraded",
      "status=unverified_quotes",
      "disagree=reference",
      "disagree=reference&vs=j:c",
      "disagree=human&vs=j:b",
      "disagree=judges",
      "q=transfer%20s1",
      "q=orphan",
      "diff=j:a,j:b",
      "diff=j:b,j:c&binary=1",
      "agent_model=orphan-model",
    ];
    for (const q of queries) {
      const lq = parseListQuery(new URLSearchParams(`${q}&limit=500`.replace(/^&/, "")));
      expect(JSON.stringify(listPage(neu, lq)), q).toBe(JSON.stringify(listPage(old as unknown as ViewRun, lq)));
    }
  });
});

describe("view loader: the committee file, read as columns", () => {
  it("shows or refuses every committee file as the object-built loader (checkCommitteeFile) does", async () => {
    clearJournalSkips();
    const base = await loadObjectRun(runDir, {});
    const file = path.join(runDir, "committee.jsonl");
    // a fresh file: every row's repeat-0 votes of judges a, b, c (status ok with a label, else null)
    const vote = (st: Record<string, string>, lb: Record<string, string | null>, j: string) => (st[j] === "ok" && lb[j] ? lb[j] : null);
    const fresh = [...base.rows].map((row, i) => {
      const votes = Object.fromEntries(["a", "b", "c"].map((j) => [j, vote(row.status, row.labels, j)]));
      const valid = Object.values(votes).filter((x) => x !== null);
      return { trajectory_id: row.id, votes, label: valid[0] ?? null, status: valid.length >= 2 ? (i % 5 ? "ok" : "disputed") : "no_quorum", unanimous: i % 3 === 0, committee_judges: ["a", "b", "c"], excluded_judges: [], quorum: 2 };
    });
    const variants: Array<[string, string[]]> = [
      ["fresh", fresh.map((c) => JSON.stringify(c))],
      // duplicate lines (the later wins), a line that is not JSON, an id the run does not hold (no votes: with votes it
      // would be stale, every judge's vote on it changed)
      ["dupes", [...fresh.map((c) => JSON.stringify(c)), JSON.stringify({ ...fresh[4], label: "unaffected", status: "ok" }), "{oops", JSON.stringify({ ...fresh[0], trajectory_id: "nowhere", votes: { a: null, b: null, c: null }, label: null, status: "no_quorum" })]],
      ["changed votes", fresh.map((c, i) => JSON.stringify(i % 37 === 1 ? { ...c, votes: { ...c.votes, b: c.votes.b ? null : "unaffected" } } : c))],
      ["missing lines", fresh.filter((_, i) => i % 50 !== 3).map((c) => JSON.stringify(c))],
      ["older file (no judge set)", fresh.map(({ committee_judges: _j, excluded_judges: _e, quorum: _q, ...c }) => JSON.stringify({ ...c, votes: { a: c.votes.a, b: c.votes.b } }))],
      ["a judge left out", fresh.map((c) => JSON.stringify({ ...c, votes: { a: c.votes.a, b: c.votes.b }, committee_judges: ["a", "b"], excluded_judges: ["c"] }))],
      ["a judge gone", fresh.map((c) => JSON.stringify({ ...c, votes: { ...c.votes, z: null }, committee_judges: ["a", "b", "c", "z"] }))],
      ["empty", []],
    ];
    try {
      for (const [what, lines] of variants) {
        fs.writeFileSync(file, lines.map((l) => l + "\n").join(""));
        clearJournalSkips();
        const neu = await loadViewRun(runDir, { humanFile: human });
        clearJournalSkips();
        const old = await loadObjectRun(runDir, { humanFile: human });
        expect(neu.committee, what).toEqual(old.committee);
        expect(neu.warnings, what).toEqual(old.warnings);
        for (let i = 0; i < old.rows.length; i++) expect(JSON.stringify(neu.rows.at(i)!.committee), what).toBe(JSON.stringify(old.rows[i].committee));
        if (what === "fresh" || what === "dupes" || what === "a judge left out") expect(neu.committee.source, what).toBe("file");
        else expect(neu.committee.source, what).toBe(null);
      }
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

describe("RefStore", () => {
  it("grows past its first capacity, finds an entry by judge and repeat, and keeps offsets past 4 GB", () => {
    const st = new RefStore();
    let head = -1;
    for (let k = 0; k < 3000; k++) head = st.add(head, { start: 2 ** 33 + k, length: k }, st.code(k % 2 ? "b" : "a"), k);
    expect(st.n).toBe(3000);
    expect(st.judges).toEqual(["a", "b"]);
    const i = st.find(head, st.code("b"), 2999);
    expect(st.start[i]).toBe(2 ** 33 + 2999);
    expect(st.find(head, st.code("a"), 2999)).toBe(-1);
    const refs = refsOf({ refStore: st }, { refs: head } as never);
    expect(refs.a).toHaveLength(1500);
    expect(refs.a[0]).toEqual({ start: 2 ** 33, length: 0 });
    expect(refs.b[1].start).toBe(2 ** 33 + 3);
  });
});
