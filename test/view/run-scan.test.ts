/**
 * The one scan both view loaders read a run with (src/view/run-scan.ts `scanRun`): what it hands a sink and what it
 * says, on a small run folder with each rule's case: a line that is not JSON in each journal, a second index row of
 * an id, a verdict on an older text with no current one (left out, counted stale) and one with a current one (left
 * out, not counted), a replaced verdict (the health tally dropped), an orphan, and a removed trajectory's verdict.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonl, sha, verdict } from "./run-fixture.js";
import { scanRun, type RunScanSink } from "../../src/view/run-scan.js";
import type { TrajectoryIndexRow } from "../../src/store/records.js";
import { writeRemovedIds } from "../../src/store/removed-ids.js";
import type { Verdict } from "../../src/types.js";

let tmp: string;
const row = (id: string, text = id) => ({ id, content_sha256: sha(text), attacked: true, agent_model: "m", attack: "a" });

/** A sink that records what it is handed, one slot per id in order of first sight. */
function recordingSink() {
  const slots = new Map<string, number>();
  const indexed = new Set<number>();
  const current = new Map<string, string>(); // slot|judge|repeat -> label
  const calls: string[] = [];
  const slotFor = (id: string) => {
    let s = slots.get(id);
    if (s === undefined) slots.set(id, (s = slots.size));
    return s;
  };
  const sink: RunScanSink = {
    indexRow: (r: TrajectoryIndexRow) => {
      const s = slotFor(r.id);
      indexed.add(s);
      calls.push(`row ${r.id}`);
      return s;
    },
    slotOf: (id) => slots.get(id) ?? -1,
    has: (s, judge, repeat) => current.has(`${s}|${judge}|${repeat}`),
    verdictSlot: (id) => {
      const s = slotFor(id);
      const orphan = !indexed.has(s) && ![...current.keys()].some((k) => k.startsWith(`${s}|`));
      return { slot: s, orphan };
    },
    keep: (s, v: Verdict) => {
      const k = `${s}|${v.judge_id}|${v.repeat}`;
      const replaced = current.has(k);
      current.set(k, String(v.label));
      calls.push(`keep ${v.trajectory_id} ${v.judge_id} ${v.label}${replaced ? " (replaces)" : ""}`);
      return replaced;
    },
  };
  return { sink, calls, current };
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "run-scan-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeRun(dir: string, replace: boolean): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), jsonl([row("t1", "old"), row("t2"), "not json", row("t1")]));
  const vs: unknown[] = [
    verdict("t1", "a", "unaffected"),
    verdict("t1", "b", "full_compliance", { content_sha256: sha("old") }), // older text, no current (a, b): stale
    verdict("t2", "a", "task_refusal", { content_sha256: sha("old") }), // older text, no current yet: counted...
    verdict("t2", "a", "unaffected"), // ...until a current one comes: not counted
    verdict("t1", "a", "partial_compliance", { content_sha256: sha("other") }), // older text, (t1, a) current: not counted
    verdict("orphan", "a", "unaffected"),
    "[1]",
  ];
  if (replace) vs.push(verdict("t2", "a", "full_compliance"));
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), jsonl(vs));
}

describe("scanRun", () => {
  it("hands the sink the current rows and verdicts, and says the stale, orphans, skipped lines and health", () => {
    const dir = path.join(tmp, "plain");
    writeRun(dir, false);
    const { sink, calls } = recordingSink();
    const scan = scanRun(dir, sink);
    expect(calls).toEqual(["row t1", "row t2", "row t1", "keep t1 a unaffected", "keep t2 a unaffected", "keep orphan a unaffected"]);
    expect(scan.judges).toEqual(["a", "b"]);
    expect(scan.stale).toEqual({ b: 1 });
    expect(scan.orphans).toBe(1);
    expect(scan.warnings.some((w) => w.includes("trajectories.jsonl") && w.includes("line 3"))).toBe(true);
    expect(scan.warnings.some((w) => w.includes("verdicts.jsonl: 1 line skipped") && w.includes("line 7"))).toBe(true);
    expect(scan.warnings.some((w) => w.includes("made on an older text") && w.includes(`judge "b": 1 ("t1")`))).toBe(true);
    expect(scan.warnings.at(-1)).toMatch(/^1 trajectories have verdicts but no row in trajectories.jsonl/);
    expect(scan.health?.map((h) => [h.judge_id, h.verdicts])).toEqual([["a", 3]]);
  });

  it("a replaced verdict is kept as the current one and drops the health tally (the loaders count it again)", () => {
    const dir = path.join(tmp, "replaced");
    writeRun(dir, true);
    const { sink, calls, current } = recordingSink();
    const scan = scanRun(dir, sink);
    expect(calls.at(-1)).toBe("keep t2 a full_compliance (replaces)");
    expect(current.get("1|a|0")).toBe("full_compliance");
    expect(scan.health).toBeUndefined();
  });

  it("a removed trajectory's rows and verdicts are not handed over", () => {
    const dir = path.join(tmp, "removed");
    writeRun(dir, false);
    writeRemovedIds(dir, { ids: ["t2"], files: [] });
    const { sink, calls } = recordingSink();
    const scan = scanRun(dir, sink);
    expect(calls).toEqual(["row t1", "row t1", "keep t1 a unaffected", "keep orphan a unaffected"]);
    expect(scan.stale).toEqual({ b: 1 });
  });
});
