/**
 * Output files are written whole or not at all (src/io/write-atomic.ts; hostile53 finding 4: a killed or full-disk
 * `estimate --table --csv` left a table cut mid-row in place of the good one, and an error naming no file).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OutputWriteError, writeFileAtomic, writeFilesAtomic } from "../../src/io/write-atomic.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-write-atomic-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Lines that fail after `n` pieces: a write that dies part way (a killed process, a full disk). */
function* failingAfter(n: number): Generator<string> {
  for (let i = 0; i < n; i++) yield `row ${i},${"x".repeat(600_000)}\n`;
  throw Object.assign(new Error("no space left on device, write"), { code: "ENOSPC" });
}
const leftovers = () => fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"));

describe("writeFileAtomic", () => {
  it("writes the text, creates the folder, returns the absolute path, leaves no temp file", () => {
    const f = path.join(dir, "sub", "t.csv");
    expect(writeFileAtomic(f, "a,b\n1,2\n")).toBe(path.resolve(f));
    expect(fs.readFileSync(f, "utf8")).toBe("a,b\n1,2\n");
    expect(fs.readdirSync(path.join(dir, "sub"))).toEqual(["t.csv"]);
  });

  it("writes lines given as pieces, in chunks, byte for byte", () => {
    const f = path.join(dir, "big.jsonl");
    const pieces = Array.from({ length: 5000 }, (_, i) => `{"i":${i},"pad":"${"é".repeat(300)}"}\n`);
    writeFileAtomic(f, pieces);
    expect(fs.readFileSync(f, "utf8")).toBe(pieces.join(""));
  });

  it("a write that fails part way leaves the old file byte-identical, no temp, and names the file and the cause", () => {
    const f = path.join(dir, "t.csv");
    fs.writeFileSync(f, "the good table\n");
    let err: unknown;
    try {
      writeFileAtomic(f, failingAfter(3));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OutputWriteError);
    expect((err as OutputWriteError).file).toBe(f);
    expect((err as Error).message).toBe(`cannot write ${f}: no space left on device; the file there before is unchanged`);
    expect(fs.readFileSync(f, "utf8")).toBe("the good table\n");
    expect(leftovers()).toEqual([]);
  });

  it("says when no file was there, and that none was written", () => {
    const f = path.join(dir, "new.csv");
    expect(() => writeFileAtomic(f, failingAfter(1))).toThrow(`cannot write ${f}: no space left on device; no file was written`);
    expect(fs.existsSync(f)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it("a rename over a folder fails with the folder named and left as it was", () => {
    const f = path.join(dir, "out.html");
    fs.mkdirSync(f);
    expect(() => writeFileAtomic(f, "<html>")).toThrow(new RegExp(`^cannot write ${f.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: `));
    expect(fs.statSync(f).isDirectory()).toBe(true);
    expect(leftovers()).toEqual([]);
  });
});

describe("writeFilesAtomic", () => {
  it("writes every file", () => {
    const a = path.join(dir, "t.csv");
    const b = path.join(dir, "t.tex");
    expect(writeFilesAtomic([[a, "csv\n"], [b, "tex\n"]])).toEqual([a, b]);
    expect([fs.readFileSync(a, "utf8"), fs.readFileSync(b, "utf8")]).toEqual(["csv\n", "tex\n"]);
  });

  it("the second file failing to write replaces neither: the CSV and its .tex stay a pair", () => {
    const a = path.join(dir, "t.csv");
    const b = path.join(dir, "t.tex");
    fs.writeFileSync(a, "old csv\n");
    fs.writeFileSync(b, "old tex\n");
    expect(() => writeFilesAtomic([[a, "new csv\n"], [b, failingAfter(2)]])).toThrow(
      `cannot write ${b}: no space left on device; none of the files was replaced (each is as it was before)`,
    );
    expect([fs.readFileSync(a, "utf8"), fs.readFileSync(b, "utf8")]).toEqual(["old csv\n", "old tex\n"]);
    expect(leftovers()).toEqual([]);
  });

  it("a folder that cannot hold the second file (its parent is a file): the first is not replaced either", () => {
    const a = path.join(dir, "t.csv");
    fs.writeFileSync(a, "old csv\n");
    fs.writeFileSync(path.join(dir, "plain"), "");
    const b = path.join(dir, "plain", "t.tex");
    expect(() => writeFilesAtomic([[a, "new csv\n"], [b, "tex"]])).toThrow(/^cannot write .*plain\/t\.tex: .*none of the files was replaced/);
    expect(fs.readFileSync(a, "utf8")).toBe("old csv\n");
    expect(leftovers()).toEqual([]);
  });

  it("a rename failing part way says which files hold the new text and which the old", () => {
    const a = path.join(dir, "t.csv");
    const b = path.join(dir, "t.tex");
    const c = path.join(dir, "t.json");
    fs.mkdirSync(b); // a rename over a folder fails
    fs.writeFileSync(c, "old json\n");
    expect(() => writeFilesAtomic([[a, "new csv\n"], [b, "tex"], [c, "new json\n"]])).toThrow(
      new RegExp(`written: ${a.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}; not written \\(as they were before\\): ${c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`),
    );
    expect(fs.readFileSync(a, "utf8")).toBe("new csv\n");
    expect(fs.readFileSync(c, "utf8")).toBe("old json\n");
    expect(leftovers()).toEqual([]);
  });
});
