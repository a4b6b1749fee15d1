/**
 * The resume fast path (issue 26, src/run/fast-resume.ts): a one-item input file whose resolved path, size, mtime and
 * ctime equal those recorded in its index row (`file_stamp`) is taken as unchanged without being read or parsed, when
 * nothing is left to judge for it; any other file is read and its content hash decides, as before.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import type { Judge } from "../../src/judges/judge.js";
import { labelRun, type LabelResult } from "../../src/run/label.js";
import { readErrors, readTrajectoryIndex } from "../../src/store/run-store.js";
import { STAMP_READER_VERSION } from "../../src/store/file-stamp.js";

const DATA = path.resolve(__dirname, "../data/agentdojo/runs/gpt-4o-2024-05-13/workspace/user_task_5");
/** A fixed mtime (whole seconds: set exactly by utimesSync) for every input file. */
const T0 = 1_700_000_000;

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-fast-resume-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A copy of three AgentDojo runs in the layout `<model>/<suite>/<user_task>/<attack>/<file>`, mtimes set to T0. */
function corpus(name: string): { root: string; files: string[] } {
  const root = path.join(tmp, name, "gpt-4o-2024-05-13");
  const dest = path.join(root, "workspace", "user_task_5");
  fs.cpSync(DATA, dest, { recursive: true });
  const files = ["important_instructions/injection_task_3.json", "tool_knowledge/injection_task_0.json", "tool_knowledge/injection_task_3.json"].map((f) => path.join(dest, f));
  for (const f of files) fs.utimesSync(f, T0, T0);
  return { root, files };
}

/** Overwrite a file with bytes that are not JSON, of the same size, and give it back the mtime `mtime` (seconds). */
function garble(file: string, mtime: number): void {
  const size = fs.statSync(file).size;
  fs.writeFileSync(file, "x".repeat(size));
  fs.utimesSync(file, mtime, mtime);
}

/** What a resume must leave identical whichever way it read (the counts and the summary). */
function outcome(r: LabelResult) {
  const { run_dir: _dir, ...summary } = r.summary as unknown as Record<string, unknown>;
  // `unread` says which way it read (the one count that differs)
  const { unread: _unread, ...thisRun } = r.thisRun;
  return { thisRun, rejudge: r.rejudge, summary };
}

describe("resume fast path: a file stamped unchanged is not read", () => {
  it("records each one-item file's size, mtime and ctime in its index row", async () => {
    const { root, files } = corpus("stamps");
    const labels = path.join(tmp, "labels-stamps");
    await labelRun({ inputs: [root], run: "s", labelsDir: labels, judges: [createSignatureJudge()] });
    const rows = [...(await readTrajectoryIndex(path.join(labels, "s"))).values()];
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      const f = files.find((x) => x === path.resolve(r.source.path))!;
      expect(r.file_stamp).toEqual({ reader: STAMP_READER_VERSION, size: fs.statSync(f).size, mtime_ms: T0 * 1000, ctime_ms: fs.statSync(f).ctimeMs });
    }
  });

  it("unchanged files are passed over unread; one rewritten with its size and mtime kept is read (its ctime moved)", async () => {
    const { root, files } = corpus("same");
    const labels = path.join(tmp, "labels-same");
    const sig = createSignatureJudge();
    const opts = { inputs: [root], run: "s", labelsDir: labels, judges: [sig] };
    const first = await labelRun(opts);
    expect(first.progress.judged).toBe(3);
    const clean = await labelRun({ ...opts, verifyContent: true });
    const fast = await labelRun(opts);
    expect(fast.progress).toMatchObject({ read: 3, judged: 0, skipped: 3, errors: 0, unread: 3 });
    expect(clean.progress.unread).toBe(0);
    expect(outcome(fast)).toEqual(outcome(clean));
    // same size, same mtime, other bytes (touch -d, cp -p, tar -x keep both): the ctime moved, so the file is read
    garble(files[1], T0);
    expect(fs.statSync(files[1]).mtimeMs).toBe(T0 * 1000);
    const after = await labelRun(opts);
    expect(after.progress).toMatchObject({ read: 2, judged: 0, skipped: 2, errors: 1, unread: 2 });
    expect((await readErrors(path.join(labels, "s"))).find((e) => e.kind === "invalid_json")?.path).toBe(files[1]);
  });

  it("another mtime: the file is read and its content decides (unchanged bytes: skipped; other bytes: read as they are)", async () => {
    const { root, files } = corpus("mtime");
    const labels = path.join(tmp, "labels-mtime");
    const opts = { inputs: [root], run: "s", labelsDir: labels, judges: [createSignatureJudge()] };
    await labelRun(opts);
    const clean = await labelRun({ ...opts, verifyContent: true });
    fs.utimesSync(files[0], T0 + 60, T0 + 60); // touched: same bytes
    const touched = await labelRun(opts);
    expect(outcome(touched)).toEqual(outcome(clean));
    garble(files[2], T0 + 120);
    const garbled = await labelRun(opts);
    // the touched file's stamp was renewed by the resume that read it (task s40): passed over unread now, as files[1]
    expect(garbled.progress).toMatchObject({ read: 2, judged: 0, skipped: 2, errors: 1, unread: 2 });
    expect((await readErrors(path.join(labels, "s"))).find((e) => e.kind === "invalid_json")?.path).toBe(files[2]);
  });

  it("a changed trajectory under a new mtime is judged again (content_changed), as without the fast path", async () => {
    const { root, files } = corpus("changed");
    const labels = path.join(tmp, "labels-changed");
    const opts = { inputs: [root], run: "s", labelsDir: labels, judges: [createSignatureJudge()] };
    await labelRun(opts);
    const run = JSON.parse(fs.readFileSync(files[0], "utf8"));
    run.messages.push({ role: "assistant", content: "One more thing." });
    fs.writeFileSync(files[0], JSON.stringify(run));
    fs.utimesSync(files[0], T0 + 60, T0 + 60);
    const r = await labelRun(opts);
    expect(r.progress).toMatchObject({ read: 3, judged: 1, skipped: 2, changed: 1 });
    expect(r.rejudge.by_reason).toEqual({ content_changed: 1 });
    // its new row carries the new stamp: the next resume passes over it
    expect((await labelRun(opts)).progress).toMatchObject({ judged: 0, skipped: 3, errors: 0, unread: 3 });
  });

  it("index rows without a stamp (older runs) resume through the content hash", async () => {
    const { root, files } = corpus("old");
    const labels = path.join(tmp, "labels-old");
    const opts = { inputs: [root], run: "s", labelsDir: labels, judges: [createSignatureJudge()] };
    await labelRun(opts);
    const index = path.join(labels, "s", "trajectories.jsonl");
    const rows = fs.readFileSync(index, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    for (const row of rows) delete row.file_stamp;
    fs.writeFileSync(index, rows.map((row) => JSON.stringify(row) + "\n").join(""));
    const clean = await labelRun({ ...opts, verifyContent: true });
    const resumed = await labelRun(opts);
    expect(outcome(resumed)).toEqual(outcome(clean));
    expect(resumed.progress).toMatchObject({ read: 3, judged: 0, skipped: 3 });
    garble(files[1], T0);
    expect((await labelRun(opts)).progress).toMatchObject({ read: 2, skipped: 2, errors: 1 });
  });

  it("a stamp made under another version of the input readers is not trusted: the file is read, its hash decides", async () => {
    const { root, files } = corpus("reader");
    const labels = path.join(tmp, "labels-reader");
    const opts = { inputs: [root], run: "s", labelsDir: labels, judges: [createSignatureJudge()] };
    await labelRun(opts);
    const index = path.join(labels, "s", "trajectories.jsonl");
    const rows = fs.readFileSync(index, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    rows[1].file_stamp.reader = STAMP_READER_VERSION + 1;
    delete rows[2].file_stamp.reader;
    fs.writeFileSync(index, rows.map((row) => JSON.stringify(row) + "\n").join(""));
    const byPath = (row: { source: { path: string } }) => files.indexOf(path.resolve(row.source.path));
    for (const row of rows.slice(1)) garble(files[byPath(row)], T0);
    expect((await labelRun(opts)).progress).toMatchObject({ read: 1, skipped: 1, errors: 2 });
  });

  it("a file with work left is read: a judge added to the run judges it", async () => {
    const { root, files } = corpus("judge");
    const labels = path.join(tmp, "labels-judge");
    const sig = createSignatureJudge();
    await labelRun({ inputs: [root], run: "s", labelsDir: labels, judges: [sig] });
    garble(files[1], T0);
    const r = await labelRun({ inputs: [root], run: "s", labelsDir: labels, judges: [sig, { ...sig, id: "sig-2" }] });
    // the garbled file is read (the new judge has work there): an input error, not a silent skip
    expect(r.progress).toMatchObject({ read: 2, judged: 2, skipped: 2, errors: 1 });
  });

  it("a file whose read raised warnings is passed over too, its warnings said again as read (the summary's ingest warnings identical)", async () => {
    const { root, files } = corpus("warned");
    // a model folder that disagrees with the runs' pipeline_name: an attribution warning per file
    const renamed = path.join(path.dirname(root), "gpt-4o-2024-05-13~copy");
    fs.renameSync(root, renamed);
    const moved = files.map((f) => f.replace(root, renamed));
    const labels = path.join(tmp, "labels-warned");
    const opts = { inputs: [renamed], run: "s", labelsDir: labels, judges: [createSignatureJudge()] };
    const first = await labelRun(opts);
    expect(first.summary.ingest_warnings?.map((w) => w.kind)).toEqual(["attribution"]);
    const rows = [...(await readTrajectoryIndex(path.join(labels, "s"))).values()];
    expect(rows.every((r) => r.file_stamp?.warnings?.length === 1)).toBe(true);
    const clean = await labelRun({ ...opts, verifyContent: true });
    const fast = await labelRun(opts);
    expect(fast.progress).toMatchObject({ read: 3, judged: 0, skipped: 3, errors: 0, unread: 3 });
    expect(outcome(fast)).toEqual(outcome(clean));
    expect(fast.summary.ingest_warnings).toEqual(first.summary.ingest_warnings);
  });

  it("the re-judge count is said before the first request even though it is made when the loop first finds work", async () => {
    const { root } = corpus("count");
    const labels = path.join(tmp, "labels-count");
    const sig = createSignatureJudge();
    await labelRun({ inputs: [root], run: "s", labelsDir: labels, judges: [sig] });
    const said: string[] = [];
    const newPrompt: Judge = {
      ...sig,
      promptSha256: "another-prompt",
      judge: async (...args: Parameters<Judge["judge"]>) => {
        said.push("request");
        return sig.judge(...args);
      },
    };
    const r = await labelRun({ inputs: [root], run: "s", labelsDir: labels, judges: [newPrompt], onConfigChange: "rejudge", onWarning: (w) => said.push(w) });
    expect(r.rejudge.by_reason).toEqual({ prompt_changed: 3 });
    expect(said.findIndex((w) => w.includes("will be judged again"))).toBeLessThan(said.indexOf("request"));
    expect(said.filter((w) => w === "request")).toHaveLength(3);
  });

  it("multi-trajectory files (chat JSONL) carry no stamp and are always read", async () => {
    const dir = path.join(tmp, "chat");
    fs.mkdirSync(dir, { recursive: true });
    const f = path.join(dir, "two.jsonl");
    const line = (id: string) => JSON.stringify({ id, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] });
    fs.writeFileSync(f, `${line("a")}\n${line("b")}\n`);
    fs.utimesSync(f, T0, T0);
    const labels = path.join(tmp, "labels-chat");
    const opts = { inputs: [f], run: "s", labelsDir: labels, judges: [createSignatureJudge()] };
    await labelRun(opts);
    expect([...(await readTrajectoryIndex(path.join(labels, "s"))).values()].map((r) => r.file_stamp)).toEqual([undefined, undefined]);
    const text = fs.readFileSync(f, "utf8");
    fs.writeFileSync(f, text.replace(line("b"), "x".repeat(line("b").length)));
    fs.utimesSync(f, T0, T0);
    const r = await labelRun(opts);
    expect(r.progress).toMatchObject({ read: 1, skipped: 1, errors: 1 });
  });
});
