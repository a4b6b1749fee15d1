/**
 * Resuming a run an older build started (nits12): its errors.jsonl lists the corpus's manifest.jsonl as an
 * `unknown_format` input error, and the newer build passes that file over as a sidecar. The summary named it twice
 * (passed over, and among the errors). Now the old error is counted apart as superseded, saying why, once.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { splitSupersededErrors, supersededStatement } from "../../src/run/superseded-errors.js";
import type { IngestError } from "../../src/types.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let dir: string;
const line = (k: number) => JSON.stringify({ id: `c${k}`, messages: [{ role: "user", content: `task ${k}` }, { role: "assistant", content: "Done." }] });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "superseded-"));
  fs.mkdirSync(path.join(dir, "corpus"));
  fs.writeFileSync(path.join(dir, "corpus", "runs.jsonl"), [1, 2].map(line).join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "corpus", "manifest.jsonl"), '{"path": "runs.jsonl"}\n');
  fs.writeFileSync(path.join(dir, "corpus", "bad.jsonl"), '{"path": "not a trajectory"}\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("an earlier invocation's input error about a file now passed over as a sidecar", () => {
  it("splitSupersededErrors: a file-level error of a passed-over file goes; one with a line or another file stays", () => {
    const m = path.join(dir, "corpus", "manifest.jsonl");
    const errors: IngestError[] = [
      { path: m, kind: "unknown_format", message: "x" },
      { path: m, line: 3, kind: "schema", message: "a line of it" },
      { path: path.join(dir, "corpus", "bad.jsonl"), kind: "unknown_format", message: "y" },
    ];
    const r = splitSupersededErrors(errors, new Set([m]));
    expect(r.superseded).toEqual([errors[0]]);
    expect(r.current).toEqual(errors.slice(1));
    expect(splitSupersededErrors(errors, new Set()).superseded).toEqual([]);
    expect(supersededStatement([errors[0]])).toMatchObject({ total: 1, by_kind: { unknown_format: 1 }, files: [m] });
  });

  it("a resume shows the manifest once: passed over, and its old error said superseded, not counted among the errors", async () => {
    const labelsDir = path.join(dir, "labels");
    const corpus = path.join(dir, "corpus");
    const run = () => labelRun({ inputs: [corpus], run: "old", labelsDir, judges: [createSignatureJudge()] });
    const first = await run();
    expect(first.summary.errors).toEqual({ total: 1, by_kind: { unknown_format: 1 } }); // bad.jsonl
    // what an older build wrote: the manifest as an input error
    const manifest = path.join(corpus, "manifest.jsonl");
    fs.appendFileSync(path.join(labelsDir, "old", "errors.jsonl"), JSON.stringify({ path: manifest, kind: "unknown_format", message: `${manifest}: not a chat-jsonl trajectory file (e.g. a manifest)` }) + "\n");
    const again = await run();
    expect(again.summary.errors).toEqual({ total: 1, by_kind: { unknown_format: 1 } }); // still bad.jsonl, only
    expect(again.summary.errors_superseded).toMatchObject({ total: 1, by_kind: { unknown_format: 1 }, files: [manifest] });
    const text = formatSummary({ ...again.summary, ingest_warnings: again.summary.ingest_warnings });
    expect(text).toContain("errors: 1 (unknown_format 1); see errors.jsonl");
    expect(unwrapText(text)).toContain(`1 input error recorded by an earlier invocation is superseded, not counted above (unknown_format 1): ${manifest} is now recognized as a corpus's sidecar file and passed over`);
    expect(text.match(/passed over \(a corpus's manifest/g)).toHaveLength(1);
    const summaryFile = JSON.parse(fs.readFileSync(path.join(labelsDir, "old", "summary.json"), "utf8"));
    expect(summaryFile.errors.total).toBe(1);
    expect(summaryFile.errors_superseded.total).toBe(1);
  });

  it("a content_changed note stops counting once its trajectory is judged again on its content now (inputs14)", async () => {
    const labelsDir = path.join(dir, "labels");
    const corpus = path.join(dir, "changing");
    fs.mkdirSync(corpus);
    const file = path.join(corpus, "runs.jsonl");
    fs.writeFileSync(file, [1, 2].map(line).join("\n") + "\n");
    const run = () => labelRun({ inputs: [corpus], run: "chg", labelsDir, judges: [createSignatureJudge()] });
    await run();
    // line 2 changes: judged again, its old verdict superseded
    fs.writeFileSync(file, [line(1), line(2).replace("task 2", "task two")].join("\n") + "\n");
    for (const r of [await run(), await run()]) {
      expect(r.summary.errors).toEqual({ total: 0, by_kind: {} });
      expect(r.summary.errors_superseded).toMatchObject({ total: 1, by_kind: { content_changed: 1 }, rejudged: 1 });
      expect(r.summary.errors_superseded!.message).toContain("1 content_changed note is superseded, not counted above (content_changed 1): 1 trajectory that changed since labelled was judged again on its content now");
    }
    // the split itself: without the check, or when the trajectory is not judged on its content now, it stands
    const e: IngestError = { path: file, trajectory_id: "c2", kind: "content_changed", message: "x" };
    expect(splitSupersededErrors([e], new Set()).current).toEqual([e]);
    expect(splitSupersededErrors([e], new Set(), undefined, () => false).current).toEqual([e]);
    expect(splitSupersededErrors([e], new Set(), undefined, () => true).rejudged).toEqual([e]);
  });
});

describe("judge_crash errors (new user 19 item 1)", () => {
  const crash = (id: string, seq: number | undefined, extra: Partial<IngestError> = {}): IngestError => ({
    path: `/x/${id}.json`,
    trajectory_id: id,
    kind: "judge_crash",
    message: `judge sig failed on ${id}: analysis took longer than the 1 s time limit`,
    ...(seq !== undefined ? { judge_id: "sig", repeat: 0, verdict_seq: seq } : {}),
    ...extra,
  });

  it("a crash is superseded once its judge stored a verdict of the trajectory and repeat at or after its verdict_seq, not by one before", () => {
    const seen: unknown[] = [];
    const judged = (id: string, judge: string, repeat: number, seq: number) => (seen.push([id, judge, repeat, seq]), id === "a" && seq <= 5);
    const errs = [crash("a", 5), crash("a", 6, { message: "other" }), crash("b", 2)];
    const s = splitSupersededErrors(errs, new Set(), undefined, undefined, judged);
    // a@5: judged since; a@6 is a later crash of the same item that no verdict followed: it stands; b: never judged
    expect(s.crashes).toEqual([errs[0]]);
    expect(s.current).toEqual([errs[1], errs[2]]);
    expect(seen).toContainEqual(["a", "sig", 0, 5]);
  });

  it("the same item crashed twice, no verdict since: the earlier line is superseded by the later (counted once)", () => {
    const errs = [crash("a", 1), crash("a", 9)];
    const s = splitSupersededErrors(errs, new Set(), undefined, undefined, () => false);
    expect(s.crashes).toEqual([errs[0]]);
    expect(s.current).toEqual([errs[1]]);
  });

  it("a crash recorded before judge_id / verdict_seq existed is never superseded (unknown whether a verdict came after)", () => {
    const old = crash("a", undefined);
    const s = splitSupersededErrors([old], new Set(), undefined, undefined, () => true);
    expect(s.current).toEqual([old]);
    expect(s.crashes).toEqual([]);
  });

  it("the statement counts them apart, naming the judge", () => {
    const st = supersededStatement([], [], [], [crash("a", 1), crash("b", 1)]);
    expect(st).toMatchObject({ total: 2, by_kind: { judge_crash: 2 }, judge_crashes: 2 });
    expect(st.message).toBe(
      "2 recorded errors are superseded, not counted above (judge_crash 2): 2 judge crashes (sig 2) were followed by a verdict of the same judge, " +
        "trajectory and repeat (or the same crash recorded again later); the old lines stay in errors.jsonl",
    );
  });
});
