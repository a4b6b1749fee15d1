import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeSummaryFile } from "../../src/run/label-summary.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-summary-file-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("writeSummaryFile", () => {
  it("writes summary.json and says nothing", () => {
    expect(writeSummaryFile(dir, { a: 1 })).toBeNull();
    expect(JSON.parse(fs.readFileSync(path.join(dir, "summary.json"), "utf8"))).toEqual({ a: 1 });
    expect(fs.readdirSync(dir)).toEqual(["summary.json"]);
  });

  it("a summary that cannot be written is a warning naming the file, and leaves no temp file (red team 20)", () => {
    // a non-empty folder named summary.json: the rename fails as a full disk would fail the write
    fs.mkdirSync(path.join(dir, "summary.json", "x"), { recursive: true });
    const w = writeSummaryFile(dir, { a: 1 });
    expect(w).toMatch(/^cannot write .*summary\.json: .*journals hold every verdict.*run the same command again/);
    expect(fs.readdirSync(dir)).toEqual(["summary.json"]);
  });
});
