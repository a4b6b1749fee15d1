import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { IdTable } from "../../src/store/id-table.js";
import { contentCode, letGoContentCodes, readColumnRun, rowOf, verdictRecords } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { takeJournalWarnings } from "../../src/store/skipped-lines.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-columns-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("IdTable: trajectory ids as one byte buffer and offsets (issue 26)", () => {
  it("round-trips every id exactly, across growth, in order of first add; duplicates get their first slot", () => {
    const t = new IdTable();
    const ids: string[] = [];
    for (let i = 0; i < 30_000; i++) ids.push(`model-${i % 7}/suite/user_task_${i}/important_instructions~r${i % 3}`);
    ids.forEach((id, i) => expect(t.add(id)).toBe(i));
    expect(t.size).toBe(ids.length);
    ids.forEach((id, i) => {
      expect(t.add(id)).toBe(i);
      expect(t.slotOf(id)).toBe(i);
      expect(t.id(i)).toBe(id);
    });
    expect(t.slotOf("model-0/suite/user_task_0/important_instructions~r1")).toBe(-1);
    expect(() => t.id(ids.length)).toThrow(RangeError);
  });

  it("unicode ids (multi-byte, astral, lone surrogates, empty) round-trip exactly and never share a slot", () => {
    const t = new IdTable();
    const odd = ["é/ü", "日本語/タスク", "emoji 🦀/x", "lone \ud800 high", "lone \udc00 low", "lone \ud801 other", "\ufffd", "", "e\u0301"];
    odd.forEach((id, i) => expect(t.add(id)).toBe(i));
    odd.forEach((id, i) => {
      expect(t.id(i)).toBe(id);
      expect(t.slotOf(id)).toBe(i);
      expect(t.add(id)).toBe(i);
    });
    // the lone surrogates would all be U+FFFD in UTF-8: each keeps its own slot
    expect(new Set(odd.map((id) => t.slotOf(id))).size).toBe(odd.length);
  });
});

/** Write a run folder from index rows and verdict records (lines as given; a string is written as it is). */
function writeRun(name: string, rows: unknown[], verdicts: unknown[]): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  const text = (xs: unknown[]) => xs.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join("\n") + "\n";
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), text(rows));
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), text(verdicts));
  return dir;
}

const row = (id: string, extra: Record<string, unknown> = {}) => ({ id, source: { format: "x", path: `/p/${id}` }, suite: "banking", condition: "no_defense", attacked: true, reference: { security: true }, content_sha256: "ab", ...extra });
const verdict = (id: string, judge: string, label: string | null, extra: Record<string, unknown> = {}) => ({
  trajectory_id: id,
  judge_id: judge,
  judge_model: `${judge}-m`,
  judge_family: "rule",
  repeat: 0,
  rubric_version: "rubric-v2",
  prompt_sha256: "p",
  status: label ? "ok" : "judge_error",
  label,
  downgraded: false,
  findings: [],
  rationale: "r",
  attempts: 1,
  usage: { prompt_tokens: Math.floor(Math.random() * 1000), completion_tokens: 1 },
  cost_usd: Math.random(),
  truncated: false,
  raw_replies: [],
  created_at: "2026-01-01T00:00:00Z",
  attacked: true,
  label_basis: "finding",
  ...extra,
});

describe("readColumnRun: the same rows and verdicts as readLeanRun", () => {
  it("supersedes, duplicates, rows without verdicts, verdicts without rows, bad lines, missing fields, unicode ids", async () => {
    const dir = writeRun(
      "mixed",
      [
        row("a/1"),
        row("b/ü"),
        row("c/🦀", { attacked: false }),
        "not json",
        row("a/1", { suite: "slack", run_error: "boom" }), // a later row of a/1: its values, a/1's first position
        { id: "d/no-fields" },
        row("e/\ud800"),
      ],
      [
        verdict("a/1", "j1", "unaffected"),
        verdict("b/ü", "j1", "full_compliance"),
        verdict("a/1", "j2", "partial_compliance", { repeat: 1 }),
        "{torn",
        verdict("a/1", "j1", "full_compliance"), // supersedes the first
        verdict("zz/orphan", "j1", "unaffected"),
        verdict("e/\ud800", "j2", null, { error: { kind: "http", message: "long message" } }),
        verdict("d/no-fields", "j1", "not_exposed", { label_basis: undefined, attacked: undefined }),
        verdict("b/ü", "j1", "full_compliance"), // supersedes, same record
      ],
    );
    const copy = path.join(tmp, "mixed-copy");
    fs.cpSync(dir, copy, { recursive: true });
    const lean = await readLeanRun(dir);
    const leanWarnings = takeJournalWarnings().map((w) => w.replace(dir, "RUN"));
    const run = await readColumnRun(copy, { rowFields: ["suite", "condition", "attacked", "reference", "run_error"] });
    expect(takeJournalWarnings().map((w) => w.replace(copy, "RUN"))).toEqual(leanWarnings);
    expect(leanWarnings.length).toBeGreaterThan(0); // the bad lines and the orphan are said, the same way
    // rows: same ids in the same order, the asked fields equal
    expect(run.nRows).toBe(lean.index.size);
    const leanRows = [...lean.index.values()];
    leanRows.forEach((r, s) => {
      expect(run.ids.id(s)).toBe(r.id);
      const c = rowOf(run, s)!;
      for (const k of ["suite", "condition", "attacked", "reference", "run_error"] as const) expect(c[k]).toEqual(r[k]);
    });
    // verdicts: same order, same fields but the omitted per-verdict ones
    expect(run.nVerdicts).toBe(lean.verdicts.length);
    const recs = verdictRecords(run);
    lean.verdicts.forEach((v, i) => {
      expect(run.ids.id(run.vSlot[i])).toBe(v.trajectory_id);
      const { trajectory_id: _t, usage: _u, cost_usd: _c, ...want } = { ...Object.getPrototypeOf(v), ...v } as Record<string, unknown>;
      const got = recs[i] as unknown as Record<string, unknown>;
      expect(JSON.parse(JSON.stringify(got))).toEqual(JSON.parse(JSON.stringify(want)));
      expect("usage" in got).toBe(false);
    });
    // equal records are one shared object
    expect(recs[recs.length - 1]).toBe(run.verdicts[run.vCode[run.nVerdicts - 1]]);
    expect(rowOf(run, run.ids.slotOf("zz/orphan"))).toBeUndefined();
  });

  it("an empty or missing run reads as nothing", async () => {
    const dir = path.join(tmp, "missing");
    fs.mkdirSync(dir, { recursive: true });
    const run = await readColumnRun(dir, { rowFields: ["attacked"] });
    expect(run.nRows).toBe(0);
    expect(run.nVerdicts).toBe(0);
    expect(verdictRecords(run)).toEqual([]);
  });
});

describe("letGoContentCodes: a reader done with the content codes lets them go (issue 26 point 3)", () => {
  it("reading them afterwards throws, naming who let them go; a spread copy has none; twice, or a run without them, is a no-op", async () => {
    const dir = writeRun("let-go", [row("a"), row("b")], [verdict("a", "j1", "unaffected", { content_sha256: "ab" }), verdict("b", "j1", "full_compliance")]);
    const run = await readColumnRun(dir, { rowFields: ["attacked"] });
    expect(Array.from(run.vContent!)).toEqual([contentCode("ab"), -1]);
    letGoContentCodes(run, "the test, after its figures");
    // never read as "no hash recorded" (-1 would pair repeats made on different texts in silence)
    expect(() => run.vContent).toThrow(/let go \(the test, after its figures\)/);
    expect("vContent" in { ...run }).toBe(false);
    expect(run.nVerdicts).toBe(2); // the other columns stay
    letGoContentCodes(run, "again");
    expect(() => run.vContent).toThrow(/the test, after its figures/);
    const bare = { ...run, vContent: undefined };
    letGoContentCodes(bare, "none to let go");
    expect(bare.vContent).toBeUndefined();
  });
});
