/**
 * ipi-judge's own output is not input (lead, session 45: `cd /tmp/x && ipi-judge label /tmp/x --run bad` read the
 * new run's own journals under labels/bad/ as 4 input errors): a walked folder that is the `--labels-dir` folder, a
 * label run or an annotation sample is passed over whole, named once in an `own_output` note; look-alikes (the same
 * file names, not ipi-judge's content) are read as before.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { countInputs, inputFiles, readTrajectories, type IngestWarning, type ReadOptions } from "../../src/ingest/index.js";
import { OwnFolders, ownFolderAbove, ownFolderOf, realOrResolved, type OwnKind } from "../../src/ingest/own-folders.js";
import { NOTE_KINDS } from "../../src/ingest/warnings.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-own-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const line = (id: string) => JSON.stringify({ id, messages: [{ role: "user", content: `hello ${id}` }, { role: "assistant", content: "ok" }] }) + "\n";
const STORE = JSON.stringify({ version: 1, run: "r", created_at: "2026-01-01T00:00:00.000Z", inputs: ["."] }, null, 2);
const MANIFEST = JSON.stringify({ ipi_judge_manifest: 1, run: "r", scale: "binary", labels: [], seed: 1, n_items: 0, design: {} }) + "\n";

function put(root: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** A run folder as `label` leaves it, and a sample folder as `sample` writes it. */
function runFiles(prefix: string): Record<string, string> {
  return {
    [`${prefix}/store.json`]: STORE,
    [`${prefix}/verdicts.jsonl`]: "{}\n",
    [`${prefix}/errors.jsonl`]: '{"kind":"x"}\n',
    [`${prefix}/trajectories.jsonl`]: '{"id":"a"}\n',
    [`${prefix}/sample1/manifest.jsonl`]: MANIFEST,
    [`${prefix}/sample1/design.json`]: "{}",
  };
}

async function read(paths: string[], opts: ReadOptions = {}): Promise<{ items: string[]; notes: IngestWarning[]; count: number }> {
  const items: string[] = [];
  const notes: IngestWarning[] = [];
  for await (const it of readTrajectories(paths, { ...opts, onWarning: (w) => notes.push(w) })) items.push(it.kind === "trajectory" ? `ok ${it.trajectory.id}` : `${it.error.kind} ${path.basename(it.error.path)}`);
  return { items, notes: notes.filter((w) => w.kind === "own_output"), count: await countInputs(paths, opts) };
}

describe("ipi-judge's own output in an input folder", () => {
  it("the --labels-dir folder inside the input is passed over whole, said once; the user's files are read", async () => {
    const root = put(path.join(tmp, "labels-inside"), { "a.jsonl": line("t1"), "sub/b.jsonl": line("t2"), ...runFiles("labels/bad"), "labels/other/x.jsonl": line("t3") });
    const r = await read([root], { labelsRoot: path.join(root, "labels") });
    expect(r.items).toEqual(["ok t1", "ok t2"]);
    expect(r.count).toBe(2);
    expect(r.notes).toEqual([
      { kind: "own_output", path: path.join(root, "labels"), count: 1, message: `${path.join(root, "labels")}: passed over, not read as input: it is this invocation's --labels-dir folder, where ipi-judge writes its runs, found under input path ${root}` },
    ]);
    expect(NOTE_KINDS.has("own_output")).toBe(true); // a note, apart from the input warnings
  });

  it("found through a symbolic link or named relatively, the --labels-dir folder is the same folder (real path)", async () => {
    const root = put(path.join(tmp, "labels-link"), { "a.jsonl": line("t1"), "labels/x.jsonl": line("t2") });
    symlinkSync(path.join(root, "labels"), path.join(tmp, "labels-link-alias"), "dir");
    const r = await read([root], { labelsRoot: path.relative(process.cwd(), path.join(tmp, "labels-link-alias")) });
    expect(r.items).toEqual(["ok t1"]);
    expect(r.notes.map((n) => n.path)).toEqual([path.join(root, "labels")]);
  });

  it("label run and sample folders are passed over without --labels-dir (another labels folder, a copied run), one note each", async () => {
    const root = put(path.join(tmp, "runs"), { "a.jsonl": line("t1"), ...runFiles("old/r1"), "samples/s/manifest.jsonl": MANIFEST, "samples/s/design.json": "{}", "samples/s/tasks.jsonl": line("t9") });
    const r = await read([root]);
    expect(r.items).toEqual(["ok t1"]);
    expect(r.count).toBe(1);
    expect(r.notes.map((n) => [path.relative(root, n.path), /label run/.test(n.message) ? "run" : /annotation sample/.test(n.message) ? "sample" : "?"])).toEqual([
      ["old/r1", "run"],
      ["samples/s", "sample"],
    ]);
  });

  it("look-alikes are input: a store.json that is no run store, a manifest.jsonl that is no ipi-judge manifest", async () => {
    const root = put(path.join(tmp, "lookalike"), {
      "r/store.json": JSON.stringify({ messages: "x" }),
      "r/verdicts.jsonl": line("v1"),
      "s/manifest.jsonl": JSON.stringify({ file: "a.json" }) + "\n",
      "s/design.json": "{}",
      "s/t.jsonl": line("t1"),
    });
    const r = await read([root]);
    expect(r.notes).toEqual([]);
    expect(r.items).toContain("ok v1");
    expect(r.items).toContain("ok t1");
  });

  it("a resume's walk read ahead on a worker yields the same files and notes", async () => {
    const root = put(path.join(tmp, "ahead"), { "a/1.json": "{}", ...runFiles("labels/r"), ...runFiles("b/r2"), "c/2.json": "{}" });
    const walked = async (ahead: boolean) => {
      const own = new OwnFolders();
      const files: string[] = [];
      for await (const f of inputFiles([root], { sidecars: true, labels: path.join(root, "labels"), own, ahead })) files.push("error" in f ? "error" : path.relative(root, f.file));
      return { files, notes: own.warnings().map((w) => w.path) };
    };
    const plain = await walked(false);
    expect(plain).toEqual({ files: ["a/1.json", "c/2.json"], notes: [path.join(root, "b/r2"), path.join(root, "labels")] });
    expect(await walked(true)).toEqual(plain);
  });

  it("ownFolderOf: what an input path given is (label refuses it), nothing for input folders and files", () => {
    const root = put(path.join(tmp, "given"), { ...runFiles("labels/r"), "in/a.jsonl": line("t1") });
    const labels = realOrResolved(path.join(root, "labels"));
    expect(ownFolderOf(path.join(root, "labels"), labels)).toBe("labels");
    expect(ownFolderOf(path.join(root, "labels/r"), labels)).toBe("run");
    expect(ownFolderOf(path.join(root, "labels/r/sample1"))).toBe("sample");
    expect(ownFolderOf(path.join(root, "labels"))).toBeUndefined(); // another invocation's labels folder: its runs are passed over one by one
    expect(ownFolderOf(path.join(root, "in"), labels)).toBeUndefined();
    expect(ownFolderOf(path.join(root, "in/a.jsonl"), labels)).toBeUndefined();
    expect(ownFolderOf(path.join(root, "missing"), labels)).toBeUndefined();
  });

  it("ownFolderAbove: many paths of one folder look at each folder above once (break47: each path listed the whole folder, quadratic in the paths of `label d/*.jsonl`); a marker that is a link makes no own folder, as the walk's listing tells it", () => {
    const root = put(path.join(tmp, "above"), { ...runFiles("labels/r"), ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`in/t${i}.jsonl`, line(`t${i}`)])) });
    const seen = new Map<string, OwnKind | undefined>();
    for (let i = 0; i < 50; i++) expect(ownFolderAbove(path.join(root, `in/t${i}.jsonl`), seen)).toBeUndefined();
    const real = realOrResolved(root);
    // in/, the root and each folder above it: once each, whatever the number of paths
    expect(seen.size).toBe(real.split(path.sep).length + 1); // in/, the root, ..., the file system root
    expect(seen.has(path.join(real, "in"))).toBe(true);
    expect(ownFolderAbove(path.join(root, "labels/r/verdicts.jsonl"), seen)).toEqual({ dir: path.join(real, "labels/r"), kind: "run" });
    expect(ownFolderAbove(path.join(root, "labels/r/sample1/design.json"))).toEqual({ dir: path.join(real, "labels/r/sample1"), kind: "sample" });
    // store.json a link to a run's: not a run folder (a listing's entry of a link is no plain file)
    const linked = put(path.join(tmp, "linked"), { "verdicts.jsonl": "{}\n", "x.jsonl": line("t1") });
    symlinkSync(path.join(root, "labels/r/store.json"), path.join(linked, "store.json"));
    expect(ownFolderOf(linked)).toBeUndefined();
    expect(ownFolderAbove(path.join(linked, "x.jsonl"))).toBeUndefined();
  });
});
