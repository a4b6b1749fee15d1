/**
 * A stored row read again (same id, same content) from another file, the recorded one gone (`src/store/source-moved.ts`,
 * runs53): a moved folder, told from a copy (the recorded file still there) and from the same file named from another
 * directory; and where a file recorded under a moved folder is now.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SourceMoves } from "../../src/store/source-moved.js";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "source-moved-")));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("SourceMoves", () => {
  it("a recorded file gone, read now elsewhere: moved, counted, said with both paths; a copy (recorded file there) is not", () => {
    const m = new SourceMoves();
    const there = path.join(tmp, "there.json");
    fs.writeFileSync(there, "{}");
    expect(m.moved(there, path.join(tmp, "b", "there.json"), false)).toBe(false); // a copy
    expect(m.moved(path.join(tmp, "a", "x.json"), path.join(tmp, "a", "x.json"), false)).toBe(false); // same place
    expect(m.moved(path.join(tmp, "a", "x.jsonl:3"), path.join(tmp, "a", "x.jsonl:4"), false)).toBe(false); // row moved inside its file
    expect(m.moved("", path.join(tmp, "b", "x.json"), false)).toBe(false); // nothing recorded
    expect(m.moved(path.join(tmp, "ad", "runs", "m", "x.json"), path.join(tmp, "mv", "runs", "m", "x.json"), false)).toBe(true);
    expect(m.count).toBe(1);
    expect(m.statement()).toMatch(/^the input files of 1 stored trajectory moved \(same ids, same content, the recorded file not there now; e\.g\. .*ad\/runs\/m\/x\.json -> .*mv\/runs\/m\/x\.json\): their index rows now record the new paths .* no figure changes$/);
  });

  it("nothing moved: no statement", () => {
    expect(new SourceMoves().statement()).toBeUndefined();
  });

  it("a relative recorded path naming the same file from another directory is not a move", () => {
    const m = new SourceMoves();
    const cwd = process.cwd();
    try {
      process.chdir(tmp);
      // recorded as runs/m/x.json from some other directory: resolved from here it is tmp/runs/m/x.json (not there)
      expect(m.moved(path.join(tmp, "runs", "m", "x.json"), path.join("/elsewhere", "runs", "m", "x.json"), true)).toBe(false);
      expect(m.moved(path.join(tmp, "runs", "m", "x.json"), path.join("/elsewhere", "other", "m", "x.json"), true)).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  });

  it("placeNow: a file recorded under a moved folder maps to the folder's new place, the rest of its path the same", () => {
    const m = new SourceMoves();
    expect(m.placeNow("/a/ad/runs/m/s/y.json")).toBeUndefined();
    m.moved("/a/ad/runs/m/s/x.json", "/a/mv/runs/m/s/x.json", false);
    expect(m.placeNow("/a/ad/runs/m/s/y.json")).toBe("/a/mv/runs/m/s/y.json");
    expect(m.placeNow("/a/ad/runs/other/t/z.json")).toBe("/a/mv/runs/other/t/z.json"); // a folder whose rows did not move, under the moved one
    expect(m.placeNow("/a/elsewhere/z.json")).toBeUndefined();
  });
});
