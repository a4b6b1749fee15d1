/**
 * `RunStore.summaryInputs()` is what a label run's summary is built from instead of re-reading the journals: it
 * must be exactly what `readVerdicts(dir, {slim: true})`, `readTrajectoryIndex(dir, {slim: true})` and
 * `readErrors(dir)` return from disk after close (a wrong count in the summary would be silent), across resumes,
 * superseded verdicts, re-added rows, values JSON changes (undefined, NaN) and damaged journal lines.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunStore, readErrors, readTrajectoryIndex, readVerdicts, type SummaryInputs, type TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { IngestError, Verdict } from "../../src/types.js";

function verdict(id: string, over: Partial<Verdict> = {}): Verdict {
  return {
    trajectory_id: id,
    judge_id: "j",
    judge_model: "m",
    judge_family: "f",
    repeat: 0,
    rubric_version: "v1",
    prompt_sha256: "p1",
    judge_config_sha256: "c1",
    status: "ok",
    label: "unaffected",
    label_claimed: "unaffected",
    compromised: false,
    downgraded: false,
    attacked: true,
    findings: [
      {
        bucket: "unaffected",
        holds: true,
        explanation: "the agent ignored it",
        evidence: [
          { message_index: 1, tool_call_index: null, quote: "a long verified quote of the tool output", verified: true },
          { message_index: 2, tool_call_index: null, quote: "not checked", verified: false, reason: "not checked: no injected text" },
          { message_index: 3, tool_call_index: null, quote: "made up", verified: false, reason: "not found in message 3" },
        ],
      },
    ],
    rationale: "a rationale the summary never reads",
    attempts: 1,
    usage: { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 40 },
    cost_usd: 0.0012,
    truncated: false,
    raw_replies: ["{\"label\":\"unaffected\"}"],
    created_at: "2026-01-01T00:00:00.000Z",
    ...over,
  } as Verdict;
}

function row(id: string, over: Partial<TrajectoryIndexRow> = {}): TrajectoryIndexRow {
  return {
    id,
    source: { format: "agentdojo", path: `/in/${id}.json` },
    agent_model: "gpt-4o",
    suite: "banking",
    attacked: true,
    surface: "tool_output",
    surfaces: { p: "tool_output" },
    n_messages: 5,
    content_sha256: `h-${id}`,
    metadata: { big: "x".repeat(200) },
    ...over,
  } as TrajectoryIndexRow;
}

const ingestError = (n: number, over: Partial<IngestError> = {}): IngestError => ({ path: "/in/bad.jsonl", line: n, kind: "bad_json", message: `line ${n} is not JSON`, ...over });

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-suminputs-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What the three readers return from disk. */
async function fromDisk(runDir: string): Promise<SummaryInputs> {
  const [verdicts, index, errors] = await Promise.all([readVerdicts(runDir, { slim: true }), readTrajectoryIndex(runDir, { slim: true }), readErrors(runDir)]);
  return { verdicts, index, errors };
}

/** Close the store and check its in-memory inputs against the disk, strictly (undefined keys and order count). */
async function closeAndCompare(s: RunStore): Promise<SummaryInputs> {
  await s.close();
  const mem = s.summaryInputs();
  const disk = await fromDisk(s.dir);
  expect(mem.verdicts).toStrictEqual(disk.verdicts);
  expect([...mem.index.entries()]).toStrictEqual([...disk.index.entries()]);
  expect(mem.errors).toStrictEqual(disk.errors);
  return mem;
}

describe("RunStore.summaryInputs equals the slim readers on disk", () => {
  it("a fresh run: verdicts, repeats, a judge that errored, ingest errors, index rows", async () => {
    const s = await RunStore.open(dir, "r");
    for (const id of ["a", "b", "c"]) s.addTrajectory(row(id, { attacked: id !== "c", ...(id === "b" ? { surface: undefined } : {}) }));
    s.addError(ingestError(7));
    for (const id of ["a", "b", "c"])
      for (const repeat of [0, 1]) {
        s.addVerdict(verdict(id, { repeat }));
        s.addVerdict(verdict(id, { repeat, judge_id: "j2", status: "judge_error", label: null, error: { kind: "bad_json", message: "a long message" }, cost_usd: null }));
      }
    s.addError(ingestError(9, { kind: "judge_crash", trajectory_id: "b" }));
    expect(s.addError(ingestError(7))).toBe(false); // a repeated error is stored once
    const mem = await closeAndCompare(s);
    expect(mem.verdicts).toHaveLength(12);
    expect(mem.index.size).toBe(3);
    expect(mem.errors).toHaveLength(2);
    // slim: no quote, rationale, raw reply or error message survives
    expect(JSON.stringify(mem.verdicts)).not.toMatch(/long verified quote|rationale|raw_replies|a long message/);
    // (the suite stays: the summary's like-for-like check compares the suites models ran)
    expect(JSON.stringify([...mem.index.values()])).not.toMatch(/xxxx|content_sha256/);
    expect([...mem.index.values()].every((r) => r.suite === "banking")).toBe(true);
  });

  it("a resumed run: verdicts of an earlier process, then new ones; --retry-errors supersedes the error in storage order", async () => {
    const s = await RunStore.open(dir, "r");
    s.addTrajectory(row("a"));
    s.addTrajectory(row("b"));
    s.addVerdict(verdict("a"));
    s.addVerdict(verdict("b", { status: "judge_error", label: null, error: { kind: "timeout", message: "timed out" } }));
    s.addVerdict(verdict("a", { judge_id: "other" }));
    s.addError(ingestError(1));
    await closeAndCompare(s);

    const s2 = await RunStore.open(dir, "r");
    expect(s2.resumed).toMatchObject({ verdicts: 3, errors: 1, trajectories: 2 });
    // what the earlier process stored is there before anything new
    expect(s2.summaryInputs().verdicts.map((v) => `${v.trajectory_id}/${v.judge_id}/${v.status}`)).toEqual(["a/j/ok", "b/j/judge_error", "a/other/ok"]);
    s2.addTrajectory(row("c"));
    s2.addVerdict(verdict("c"));
    s2.addVerdict(verdict("b", { label: "full_compliance" })); // the re-judged error
    s2.addError(ingestError(2));
    const mem = await closeAndCompare(s2);
    expect(mem.verdicts.map((v) => `${v.trajectory_id}/${v.judge_id}/${v.status}`)).toEqual(["a/j/ok", "a/other/ok", "c/j/ok", "b/j/ok"]);

    // and once more, resumed with nothing new: the loaded state alone
    const s3 = await RunStore.open(dir, "r");
    await closeAndCompare(s3);
  });

  it("a changed prompt or configuration supersedes the older verdicts; repeats stay apart", async () => {
    const s = await RunStore.open(dir, "r");
    for (const id of ["a", "b"]) for (const repeat of [0, 1, 2]) s.addVerdict(verdict(id, { repeat }));
    await s.close();
    const s2 = await RunStore.open(dir, "r");
    s2.addVerdict(verdict("b", { repeat: 1, prompt_sha256: "p2", label: "partial_compliance" }));
    s2.addVerdict(verdict("a", { repeat: 0, judge_config_sha256: "c2", judge_model: "m2" }));
    s2.addVerdict(verdict("b", { repeat: 1, prompt_sha256: "p1", label: "not_exposed" })); // back to the old prompt: latest wins
    const mem = await closeAndCompare(s2);
    expect(mem.verdicts).toHaveLength(6);
    expect(mem.verdicts.slice(-2).map((v) => [v.trajectory_id, v.repeat, v.label])).toEqual([
      ["a", 0, "unaffected"],
      ["b", 1, "not_exposed"],
    ]);
  });

  it("a trajectory row re-added with changed content replaces the row in place; so does the same content with another model (break54 #0)", async () => {
    const s = await RunStore.open(dir, "r");
    s.addTrajectory(row("a"));
    s.addTrajectory(row("b"));
    await s.close();
    const s2 = await RunStore.open(dir, "r");
    expect(s2.addTrajectory(row("a", { content_sha256: "h-a2", attacked: false, agent_model: "llama", surface: undefined }))).toBe("changed");
    // same content, another model (fixed in the input): the row follows the input, newest wins
    expect(s2.addTrajectory(row("b", { agent_model: "claude" }))).toBe("metadata_changed");
    expect(s2.addTrajectory(row("b", { agent_model: "claude" }))).toBe("same");
    expect(s2.addTrajectory(row("c", { agent_model: undefined }))).toBe("new");
    const mem = await closeAndCompare(s2);
    expect([...mem.index.values()]).toStrictEqual([
      { id: "a", attacked: false, agent_model: "llama", suite: "banking" },
      { id: "b", attacked: true, agent_model: "claude", suite: "banking", surface: "tool_output" },
      { id: "c", attacked: true, agent_model: undefined, suite: "banking", surface: "tool_output" },
    ]);
  });

  it("values JSON changes are kept as the journal reads them back: undefined dropped, NaN -> null, later changes to the caller's record not seen", async () => {
    const s = await RunStore.open(dir, "r");
    const v = verdict("a", {
      cost_usd: Number.NaN,
      usage: { prompt_tokens: 10, completion_tokens: undefined as unknown as number, cached_tokens: Number.POSITIVE_INFINITY },
      label_claimed: undefined,
      surface: null as unknown as string,
      judge_model: undefined as unknown as string,
    });
    s.addVerdict(v);
    // the caller changes its verdict after storing it: the journal has the old values, so must the summary
    v.usage.prompt_tokens = 999;
    v.label = "full_compliance";
    (v.findings[0] as { holds: boolean }).holds = false;
    s.addTrajectory(row("a", { agent_model: undefined, surface: undefined }));
    const e = ingestError(3, { line: undefined, trajectory_id: undefined });
    s.addError(e);
    e.message = "changed later";
    const mem = await closeAndCompare(s);
    expect(mem.verdicts[0].cost_usd).toBeNull();
    expect(mem.verdicts[0].usage).toStrictEqual({ prompt_tokens: 10, cached_tokens: null });
    expect(mem.verdicts[0].label).toBe("unaffected");
    expect(mem.errors[0].message).toBe("line 3 is not JSON");
  });

  it("a record the readers would skip is not kept either; damaged journal lines of an earlier process are skipped alike", async () => {
    const s = await RunStore.open(dir, "r");
    s.addVerdict(verdict("a"));
    s.addVerdict(verdict("b", { repeat: Number.NaN })); // stored as repeat null: not a verdict record
    s.addTrajectory(row("a"));
    await closeAndCompare(s);
    // an earlier process left a garbage line, a line of the wrong shape and a cut-off last line
    fs.appendFileSync(path.join(dir, "r", "verdicts.jsonl"), "{not json\n" + JSON.stringify({ trajectory_id: "x" }) + "\n" + JSON.stringify(verdict("c")) + "\n" + '{"trajectory_id":"d","judge');
    fs.appendFileSync(path.join(dir, "r", "errors.jsonl"), "[1,2]\n");
    fs.appendFileSync(path.join(dir, "r", "trajectories.jsonl"), JSON.stringify({ id: "z" }) + "\n");
    const s2 = await RunStore.open(dir, "r");
    // the NaN repeat (null on disk), the garbage, the wrong shape, the cut-off line, the error and the index row
    expect(s2.resumed.bad_lines).toBe(6);
    s2.addVerdict(verdict("d"));
    s2.addError({ path: s2.dir, kind: "store_corrupt_lines", message: "4 unreadable line(s)" });
    const mem = await closeAndCompare(s2);
    expect(mem.verdicts.map((v) => v.trajectory_id)).toEqual(["a", "c", "d"]);
  });

  it("verdicts share their repeated parts without mixing different ones up; a shared part cannot be changed", async () => {
    const s = await RunStore.open(dir, "r");
    const f = (holds: boolean, reason?: string) => [{ bucket: "partial_compliance", holds, explanation: "x", evidence: [{ message_index: 1, tool_call_index: null, quote: "q", verified: false, ...(reason ? { reason } : {}) }] }];
    s.addVerdict(verdict("a", { findings: f(true) as Verdict["findings"] }));
    s.addVerdict(verdict("b", { findings: f(false) as Verdict["findings"] }));
    s.addVerdict(verdict("c", { findings: f(true, "not checked: no injected text") as Verdict["findings"] }));
    // a judge error has no label (DESIGN section 3; a line with one is refused: ../../src/store/verdict-check.ts)
    const failed = { status: "judge_error", label: null, label_claimed: null, compromised: null } as const;
    s.addVerdict(verdict("d", { findings: f(true) as Verdict["findings"], ...failed, error: { kind: "timeout", message: "m1" } }));
    s.addVerdict(verdict("e", { findings: [], ...failed, error: { kind: "bad_json", message: "m2" } }));
    s.addVerdict(verdict("f", { findings: [], ...failed, error: { kind: "timeout", message: "m3" } }));
    await s.close();
    const s2 = await RunStore.open(dir, "r"); // loaded ones share with new ones
    s2.addVerdict(verdict("g", { findings: f(false) as Verdict["findings"] }));
    const mem = await closeAndCompare(s2);
    const by = Object.fromEntries(mem.verdicts.map((v) => [v.trajectory_id, v]));
    expect(by.a.findings).toBe(by.d.findings);
    expect(by.b.findings).toBe(by.g.findings);
    expect(by.a.findings).not.toEqual(by.b.findings);
    expect(by.a.findings).not.toEqual(by.c.findings);
    expect(by.d.error).toBe(by.f.error);
    expect(by.e.error).toStrictEqual({ kind: "bad_json", message: "" });
    expect(() => {
      (by.a.findings[0] as { holds: boolean }).holds = false;
    }).toThrow(TypeError);
  });

  it("LLM verdicts' own numbers (usage, cost_usd) come back exactly, in their key order, and do not make a shape each", async () => {
    const s = await RunStore.open(dir, "r");
    const usages: Verdict["usage"][] = [
      { prompt_tokens: 3001, completion_tokens: 60 },
      { completion_tokens: 61, prompt_tokens: 3002 }, // another key order: kept as it was
      { prompt_tokens: 2 ** 53 - 1, completion_tokens: 0, cached_tokens: 1.5, reasoning_tokens: 7, responses_without_usage: 1 },
      { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } as Verdict["usage"], // a field not in the columns: in the shape
      { prompt_tokens: 0, completion_tokens: 0 },
    ];
    const costs = [0.0012, 0, null, 1e-9, 123456.789];
    for (let i = 0; i < 200; i++) s.addVerdict(verdict(`t${i}`, { usage: { ...usages[i % 5], ...(i % 5 === 0 ? { prompt_tokens: 3000 + i } : {}) }, cost_usd: costs[i % 5] }));
    await s.close();
    const s2 = await RunStore.open(dir, "r"); // loaded from the journal, then more
    s2.addVerdict(verdict("t3", { usage: { prompt_tokens: 9, completion_tokens: 9 }, cost_usd: 0.5 })); // supersedes
    const mem = await closeAndCompare(s2);
    expect(mem.verdicts).toHaveLength(200);
    expect(Object.keys(mem.verdicts.find((v) => v.trajectory_id === "t1")!.usage)).toEqual(["completion_tokens", "prompt_tokens"]);
    expect(mem.verdicts.find((v) => v.trajectory_id === "t3")).toMatchObject({ usage: { prompt_tokens: 9, completion_tokens: 9 }, cost_usd: 0.5 });
    // 200 verdicts with 40 distinct prompt_tokens of the first usage: a handful of shapes, not one per verdict
    expect((s2 as unknown as { current: { shapeCount: number } }).current.shapeCount).toBeLessThanOrEqual(6);
  });

  it("summaryInputs hands out its own containers", async () => {
    const s = await RunStore.open(dir, "r");
    s.addVerdict(verdict("a"));
    s.addTrajectory(row("a"));
    s.addError(ingestError(1));
    const first = s.summaryInputs();
    first.verdicts.pop();
    first.index.clear();
    first.errors.pop();
    await closeAndCompare(s);
  });
});
