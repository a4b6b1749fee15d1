import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inputFiles } from "../../src/ingest/index.js";
import { WalkAhead } from "../../src/ingest/walk-ahead.js";
import { SameFiles } from "../../src/ingest/same-files.js";
import { Relinked } from "../../src/ingest/walk.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-ahead-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A tree with nested folders, links to a folder and a file, a link loop, dot names, sidecars and other files. */
function tree(name: string): string {
  const root = path.join(tmp, name);
  for (const d of ["a/b", "a/c", "m", "z/y", ".hidden"]) mkdirSync(path.join(root, d), { recursive: true });
  for (const f of ["a/b/1.json", "a/b/2.json", "a/c/3.jsonl", "a/c/notes.txt", "m/4.json", "m/manifest.json", "m/README", "z/y/5.json", ".hidden/6.json", "a/.7.json"])
    writeFileSync(path.join(root, f), "{}");
  symlinkSync(path.join(root, "m"), path.join(root, "l"), "dir"); // "l" sorts before "m": m is walked under l
  symlinkSync(path.join(root, "a", "b", "1.json"), path.join(root, "z", "link.json"));
  symlinkSync(root, path.join(root, "z", "y", "up"), "dir");
  return root;
}

async function walked(paths: string[], ahead: boolean): Promise<{ out: unknown[]; notes: unknown[] }> {
  const relinked = new Relinked();
  const same = new SameFiles();
  const out: unknown[] = [];
  for await (const f of inputFiles(paths, { sidecars: true, relinked, same, ahead }))
    out.push("error" in f ? f.error : { file: f.file, root: f.root, sidecar: f.sidecar, real: f.real, stat: f.stat === undefined ? undefined : f.stat.size });
  return { out, notes: [...relinked.warnings(), ...same.warnings()] };
}

describe("the walk read ahead on a worker thread (a resume's read)", () => {
  it("yields what the walk yields without it, notes alike, plain .json files with their stat", async () => {
    const root = tree("same");
    const paths = [root, path.join(root, "a"), path.join(root, "l")];
    const plain = await walked(paths, false);
    const ahead = await walked(paths, true);
    const strip = (xs: unknown[]) => xs.map((x) => ({ ...(x as object), stat: undefined }));
    expect(strip(ahead.out)).toEqual(strip(plain.out));
    expect(ahead.notes).toEqual(plain.notes);
    const under = (r: string) => ahead.out.filter((x) => (x as { root?: string }).root === r && (x as { stat?: number }).stat !== undefined).map((x) => path.relative(root, (x as { file: string }).file));
    // files of folders the worker lists, not through a link in the walk (an input path that is a link is listed)
    const withStat = under(root);
    expect(withStat).toContain(path.join("a", "b", "1.json"));
    expect(withStat).toContain(path.join("z", "y", "5.json"));
    expect(withStat).not.toContain(path.join("l", "4.json")); // reached through a link: stat'ed by the reader
    expect(withStat).not.toContain(path.join("z", "link.json"));
    expect(under(path.join(root, "l"))).toEqual([path.join("l", "4.json"), path.join("l", "manifest.json")]);
  });

  it("gives a folder's listing and a file's stat asked in order; skips what is not asked; undefined for what it never met", () => {
    const root = tree("order");
    const ahead = new WalkAhead([root]);
    try {
      expect(ahead.listing(root)!.map((e) => `${e.name}${e.isDirectory() ? "/" : e.isSymbolicLink() ? "@" : ""}`)).toEqual(["a/", "l@", "m/", "z/"]);
      // a/ and its files passed over (the walk skipped them): the next asked is found further on
      const m = ahead.listing(path.join(root, "m"))!;
      expect(m.map((e) => e.name)).toEqual(["4.json", "README", "manifest.json"]);
      expect(ahead.stat(path.join(root, "m", "4.json"))).toEqual({ isFile: true, size: 2, mtimeMs: statSync(path.join(root, "m", "4.json")).mtimeMs, ctimeMs: statSync(path.join(root, "m", "4.json")).ctimeMs });
      expect(ahead.listing(path.join(root, "l"))).toBeUndefined(); // a link: never listed ahead (and the rest is spent)
      expect(ahead.stat(path.join(root, "z", "y", "5.json"))).toBeUndefined();
    } finally {
      ahead.close();
    }
  });

  it("an input path that cannot be read, or a file, is no folder to list: the walk reports it as without", async () => {
    const root = tree("errors");
    const paths = [path.join(root, "missing"), path.join(root, "a", "b", "1.json"), root];
    const plain = await walked(paths, false);
    const ahead = await walked(paths, true);
    expect(ahead.out.map((x) => ({ ...(x as object), stat: undefined }))).toEqual(plain.out.map((x) => ({ ...(x as object), stat: undefined })));
    expect(ahead.notes).toEqual(plain.notes);
  });

  it("stops its worker when the walk stops early", async () => {
    const root = tree("early");
    for await (const f of inputFiles([root], { ahead: true })) {
      expect("file" in f).toBe(true);
      break; // close() runs in the walk's finally
    }
  });
});
