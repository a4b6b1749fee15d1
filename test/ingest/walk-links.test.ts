import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inputFiles, readTrajectories, type IngestWarning } from "../../src/ingest/index.js";
import { Relinked } from "../../src/ingest/walk.js";
import { CORPUS } from "../helpers/paths.js";

const REAL = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_13/important_instructions/injection_task_3.json");
const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-walk-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function files(p: string): Promise<string[]> {
  const out: string[] = [];
  for await (const f of inputFiles([p])) out.push("file" in f ? path.relative(p, f.file) : `error ${f.error.kind}`);
  return out;
}

describe("directory walk: real paths without a realpath per directory, links still safe", () => {
  it("a link back to an ancestor deep in the tree is walked once (no loop)", async () => {
    const root = path.join(tmp, "loop");
    mkdirSync(path.join(root, "a", "b"), { recursive: true });
    copyFileSync(REAL, path.join(root, "a", "b", "run.json"));
    symlinkSync(root, path.join(root, "a", "b", "up"), "dir");
    symlinkSync(path.join(root, "a"), path.join(root, "a", "b", "upa"), "dir");
    expect(await files(root)).toEqual([path.join("a", "b", "run.json")]);
  });

  it("a plain folder and a link to it in the same walk: read once, whichever comes first", async () => {
    const root = path.join(tmp, "twice");
    mkdirSync(path.join(root, "m"), { recursive: true });
    copyFileSync(REAL, path.join(root, "m", "run.json"));
    symlinkSync(path.join(root, "m"), path.join(root, "l"), "dir"); // "l" sorts before "m"
    symlinkSync(path.join(root, "m"), path.join(root, "z"), "dir");
    expect(await files(root)).toEqual([path.join("l", "run.json")]);
  });

  it("a linked input folder is the same folder: read once, under the first input path (test/ingest/same-files.test.ts)", async () => {
    const root = path.join(tmp, "ids");
    const model = path.join(root, "runs", "gpt-4o-2024-05-13", "workspace", "user_task_13", "important_instructions");
    mkdirSync(model, { recursive: true });
    copyFileSync(REAL, path.join(model, "injection_task_3.json"));
    const link = path.join(root, "gpt-4o-2024-05-13~r1");
    symlinkSync(path.join(root, "runs", "gpt-4o-2024-05-13"), link, "dir");
    const ids: string[] = [];
    for await (const it of readTrajectories([path.join(root, "runs", "gpt-4o-2024-05-13"), link])) {
      expect(it.kind).toBe("trajectory");
      if (it.kind === "trajectory") ids.push(it.trajectory.id);
    }
    expect(ids).toHaveLength(1);
  });

  it("a file reached twice through a link is read once, whichever name comes first, and said once", async () => {
    const root = path.join(tmp, "filelink");
    mkdirSync(path.join(root, "m"), { recursive: true });
    copyFileSync(REAL, path.join(root, "m", "b.json"));
    copyFileSync(REAL, path.join(root, "m", "d.json"));
    symlinkSync(path.join(root, "m", "d.json"), path.join(root, "m", "a.json")); // the link sorts before its target
    symlinkSync(path.join(root, "m", "b.json"), path.join(root, "m", "c.json")); // ... after its target
    symlinkSync(path.join(root, "m", "b.json"), path.join(root, "z.json")); // a second link to b, in the parent
    symlinkSync(path.join(root, "m"), path.join(root, "n"), "dir"); // the folder again
    const relinked = new Relinked();
    const got: string[] = [];
    for await (const f of inputFiles([root], { relinked })) got.push("file" in f ? path.relative(root, f.file) : `error ${f.error.kind}`);
    expect(got).toEqual([path.join("m", "a.json"), path.join("m", "b.json")]);
    const notes = relinked.warnings();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: "linked_twice", path: root, count: 4 });
    expect(notes[0].message).toContain("3 files and 1 folder reached twice through symbolic links");
    // the reader says it once, as a note
    const warnings: IngestWarning[] = [];
    let n = 0;
    for await (const it of readTrajectories([root], { onWarning: (w) => warnings.push(w) })) if (it.kind === "trajectory") n++;
    expect(n).toBe(2);
    expect(warnings.filter((w) => w.kind === "linked_twice")).toHaveLength(1);
  });

  it("a link to a file outside the input is read; two links to it read it once", async () => {
    const root = path.join(tmp, "outside");
    const out = path.join(tmp, "outside-target");
    mkdirSync(root, { recursive: true });
    mkdirSync(out, { recursive: true });
    copyFileSync(REAL, path.join(out, "run.json"));
    symlinkSync(path.join(out, "run.json"), path.join(root, "a.json"));
    symlinkSync(path.join(out, "run.json"), path.join(root, "b.json"));
    expect(await files(root)).toEqual(["a.json"]);
  });

  it("a loop of file links does not hang: each is a read error", async () => {
    const root = path.join(tmp, "fileloop");
    mkdirSync(root, { recursive: true });
    symlinkSync(path.join(root, "y.json"), path.join(root, "x.json"));
    symlinkSync(path.join(root, "x.json"), path.join(root, "y.json"));
    const kinds: string[] = [];
    for await (const it of readTrajectories([root])) kinds.push(it.kind === "error" ? it.error.kind : it.kind);
    expect(kinds).toEqual(["read_error", "read_error"]);
  });
});
