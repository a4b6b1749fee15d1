/**
 * Verdicts verified under older rules (src/store/old-rules.ts, src/store/ledger.ts): counted over the CURRENT verdict per
 * (trajectory, judge, repeat) only, so a verdict re-verified or judged again since no longer counts; an error verdict
 * (no verified label) never counts; the readers' note names each judge with its count and the fix.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VerdictLedger } from "../../src/store/ledger.js";
import { OlderRules } from "../../src/store/old-rules.js";
import { readVerdicts } from "../../src/store/records.js";
import { readColumnRun } from "../../src/store/columns.js";
import { takeJournalWarnings } from "../../src/store/skipped-lines.js";
import { VERIFY_RULES_VERSION } from "../../src/rubric/verify-rules.js";
import type { Verdict } from "../../src/types.js";

const v = (id: string, judge: string, over: Partial<Verdict> = {}): Verdict =>
  ({
    trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "f", repeat: 0, rubric_version: "r", prompt_sha256: "p",
    status: "ok", label: "unaffected", label_claimed: "unaffected", compromised: false, downgraded: false, findings: [], rationale: "",
    attempts: 1, usage: { prompt_tokens: 1, completion_tokens: 1 }, truncated: false, raw_replies: [], created_at: "2026-01-01T00:00:00Z", ...over,
  }) as Verdict;

describe("verdicts verified under older rules", () => {
  it("the ledger counts the latest per key: a newer verdict of today's rules takes it out, an older one over another older counts once", () => {
    const l = new VerdictLedger();
    l.addVerdict(v("a", "j"));
    l.addVerdict(v("b", "j"));
    l.addVerdict(v("b", "j"));
    l.addVerdict(v("c", "j", { status: "judge_error", label: null }));
    expect(l.verifiedUnderOlderRules).toBe(2);
    expect(l.olderRulesOf("b", "j", 0)).toBe(true);
    expect(l.olderRulesOf("c", "j", 0)).toBe(false);
    l.addVerdict(v("b", "j", { verify_rules: VERIFY_RULES_VERSION }));
    expect(l.verifiedUnderOlderRules).toBe(1);
    expect(l.olderRulesOf("b", "j", 0)).toBe(false);
    expect(l.olderRulesOf("a", "j", 0)).toBe(true);
  });

  it("a run of today's rules only holds nothing and says nothing", () => {
    const l = new VerdictLedger();
    for (let i = 0; i < 100; i++) l.addVerdict(v(`t${i}`, "j", { verify_rules: VERIFY_RULES_VERSION }));
    expect(l.verifiedUnderOlderRules).toBe(0);
    expect(l.olderRulesOf("t1", "j", 0)).toBe(false);
  });

  it("readVerdicts notes the current older ones per judge, once, with the fix", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-old-rules-"));
    try {
      const lines = [v("a", "j1"), v("a", "j1", { verify_rules: VERIFY_RULES_VERSION }), v("b", "j1"), v("a", "j2"), v("b", "j2"), v("c", "j2", { status: "judge_error", label: null })];
      fs.writeFileSync(path.join(dir, "verdicts.jsonl"), lines.map((x) => JSON.stringify(x)).join("\n") + "\n");
      takeJournalWarnings();
      await readVerdicts(dir);
      const w = takeJournalWarnings().filter((x) => /older verification rules/.test(x));
      expect(w).toHaveLength(1);
      expect(w[0]).toMatch(/3 current verdicts were verified under older verification rules than this build's \(judge "j1": 1; judge "j2": 2\).*Run `ipi-judge label` on this run again/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("readColumnRun notes what readVerdicts notes (a byte per verdict, counted over the current ones once read: issue 26)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-old-rules-cols-"));
    try {
      // j1: a superseded by today's rules, b older; j2: a and b older, c an error (never counts), d older then superseded
      // by an error; j3 (repeat 1): one older among many of today's rules (its flag set far from position 0)
      const today = { verify_rules: VERIFY_RULES_VERSION };
      const lines = [
        v("a", "j1"), v("a", "j1", today), v("b", "j1"), v("a", "j2"), v("b", "j2"), v("c", "j2", { status: "judge_error", label: null }),
        v("d", "j2"), v("d", "j2", { status: "judge_error", label: null }),
        ...Array.from({ length: 300 }, (_, i) => v(`t${i}`, "j3", { repeat: 1, ...(i === 299 ? {} : today) })),
      ];
      // two folders of the same file (a note already said is not said again: each reader its own)
      const [objects, columns, todays] = ["objects", "columns", "todays"].map((d) => path.join(dir, d));
      for (const d of [objects, columns]) {
        fs.mkdirSync(d);
        fs.writeFileSync(path.join(d, "verdicts.jsonl"), lines.map((x) => JSON.stringify(x)).join("\n") + "\n");
      }
      const older = () => takeJournalWarnings().filter((x) => /older verification rules/.test(x));
      takeJournalWarnings();
      await readVerdicts(objects);
      const byObjects = older();
      expect(byObjects).toHaveLength(1);
      expect(byObjects[0]).toMatch(/4 current verdicts were verified under older verification rules than this build's \(judge "j1": 1; judge "j2": 2; judge "j3": 1\)/);
      await readColumnRun(columns, { rowFields: ["attacked"] });
      expect(older()).toEqual(byObjects.map((w) => w.replace(objects, columns)));
      // a run of today's rules only: no note
      fs.mkdirSync(todays);
      fs.writeFileSync(path.join(todays, "verdicts.jsonl"), JSON.stringify(v("a", "j1", today)) + "\n");
      await readColumnRun(todays, { rowFields: ["attacked"] });
      expect(older()).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("OlderRules counts positions only while they stay current", () => {
    const o = new OlderRules();
    o.see(v("a", "j"), 0);
    o.see(v("b", "j"), 1);
    o.see(v("c", "j", { verify_rules: VERIFY_RULES_VERSION }), 2);
    const dir = path.join(os.tmpdir(), "ipi-old-rules-x");
    takeJournalWarnings();
    o.noteCurrent(dir, (i) => i !== 1);
    expect(takeJournalWarnings().join("\n")).toMatch(/1 current verdict was verified under older verification rules than this build's \(judge "j": 1\)/);
  });
});
