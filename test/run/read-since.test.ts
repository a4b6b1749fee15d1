/**
 * An input error about a file that was later fixed stayed counted for good (inputs13, finding 1): label a folder
 * with a broken run file, fix it, resume, and the old error was still among the run's errors. Now an earlier
 * invocation's error about an input (file, or file + line) that this invocation reads without error is counted
 * apart as superseded (`read_since`), the old line kept in errors.jsonl.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { ReadSince } from "../../src/run/read-since.js";
import { formatSummary } from "../../src/run/summary-text.js";
import type { IngestError } from "../../src/types.js";
import { CORPUS } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const REAL = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_13/important_instructions/injection_task_3.json");
const line = (k: number) => JSON.stringify({ id: `c${k}`, messages: [{ role: "user", content: `task ${k}` }, { role: "assistant", content: "Done." }] });
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "read-since-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function* items<T>(xs: T[]): AsyncGenerator<T> {
  for (const x of xs) yield x;
}
async function drain<T>(g: AsyncIterable<T>, stopAfter = Infinity): Promise<void> {
  let n = 0;
  for await (const _ of g) if (++n >= stopAfter) break;
}
const traj = (p: string, line?: number) => ({ kind: "trajectory" as const, trajectory: { source: { path: p, ...(line !== undefined ? { line } : {}) } } });

describe("ReadSince: which stored input errors a good read since answers", () => {
  const fileErr: IngestError = { path: "/c/a.json", kind: "invalid_json", message: "cut" };
  const lineErr: IngestError = { path: "/c/b.jsonl", line: 2, kind: "schema", message: "no role" };
  const dup: IngestError = { path: "/c/a.json", kind: "duplicate_input", message: "twice", trajectory_id: "a" };
  const judge: IngestError = { path: "/c/a.json", kind: "judge_crash" as IngestError["kind"], message: "boom", trajectory_id: "a" };

  it("a file's error by any trajectory of it; a line's by that line only; ids and judge errors never", async () => {
    const s = new ReadSince([fileErr, lineErr, dup, judge]);
    await drain(s.watch(items([traj("/c/a.json"), traj("/c/b.jsonl", 1)])));
    expect(s.answered(fileErr)).toBe(true);
    expect(s.answered(lineErr)).toBe(false); // line 1 read, not line 2
    expect(s.answered(dup)).toBe(false);
    expect(s.answered(judge)).toBe(false);
    const t = new ReadSince([lineErr]);
    await drain(t.watch(items([traj("/c/b.jsonl", 2)])));
    expect(t.answered(lineErr)).toBe(true);
  });

  it("not when the same error is raised again (a file of several items), nor when the read was cut short", async () => {
    const s = new ReadSince([fileErr]);
    await drain(s.watch(items([traj("/c/a.json"), { kind: "error" as const, error: { ...fileErr } }])));
    expect(s.answered(fileErr)).toBe(false);
    const cut = new ReadSince([fileErr]);
    await drain(cut.watch(items([traj("/c/a.json"), traj("/c/z.json")])), 1);
    expect(cut.answered(fileErr)).toBe(false);
    const unchanged = new ReadSince([fileErr]);
    await drain(unchanged.watch(items([{ kind: "unchanged" as const, path: "/c/a.json", id: "a" }])));
    expect(unchanged.answered(fileErr)).toBe(true);
  });
});

describe("label: a broken input fixed between invocations", () => {
  it("the old errors are superseded, said apart with read_since; a broken input left as it is still counts", async () => {
    const corpus = path.join(dir, "corpus");
    fs.mkdirSync(corpus);
    const good = fs.readFileSync(REAL, "utf8");
    fs.writeFileSync(path.join(corpus, "bad.json"), good.slice(0, 300));
    fs.writeFileSync(path.join(corpus, "still.json"), "{");
    fs.writeFileSync(path.join(corpus, "rows.jsonl"), [line(1), "{oops", line(3)].join("\n") + "\n");
    const labelsDir = path.join(dir, "labels");
    const run = (limit?: number) => labelRun({ inputs: [corpus], run: "fix", labelsDir, judges: [createSignatureJudge()], ...(limit ? { limit } : {}) });
    const first = await run();
    expect(first.summary.errors.total).toBe(3);
    expect(first.summary.errors_superseded).toBeUndefined();
    fs.writeFileSync(path.join(corpus, "bad.json"), good);
    fs.writeFileSync(path.join(corpus, "rows.jsonl"), [line(1), line(2), line(3)].join("\n") + "\n");
    // a read cut short by --limit supersedes nothing
    const cut = await run(1);
    expect(cut.summary.errors.total).toBe(3);
    const again = await run();
    expect(again.summary.errors).toEqual({ total: 1, by_kind: { invalid_json: 1 } }); // still.json
    expect(again.summary.errors_superseded).toMatchObject({ total: 2, read_since: 2, files: [path.join(corpus, "bad.json"), path.join(corpus, "rows.jsonl")] });
    const text = formatSummary(again.summary);
    expect(text).toContain("errors: 1 (invalid_json 1); see errors.jsonl");
    expect(unwrapText(text)).toContain("2 input errors recorded by an earlier invocation are superseded, not counted above (invalid_json 2): ");
    expect(unwrapText(text)).toContain("were read without those errors by this invocation (fixed since); the old lines stay in errors.jsonl");
    expect(fs.readFileSync(path.join(labelsDir, "fix", "errors.jsonl"), "utf8").trim().split("\n")).toHaveLength(3);
    // and once more, bad.json now taken as unchanged unread: still superseded
    const third = await run();
    expect(third.summary.errors.total).toBe(1);
    expect(third.summary.errors_superseded?.read_since).toBe(2);
  });
});
