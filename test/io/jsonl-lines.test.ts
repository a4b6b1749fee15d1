import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readJsonl, readLines } from "../../src/io/jsonl.js";
import { Rand } from "../helpers/rand.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jsonl-lines-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * The framing every JSON Lines reader shares (src/io/line-ends.ts), from the whole file: split at LF, the CR of a CRLF
 * dropped, a lone CR kept, the text after the last LF a line when not empty. (Before session 50, readLines framed as
 * readline does, a lone CR ending a line, and no other reader did.)
 */
function lfLines(file: string): string[] {
  const parts = fs.readFileSync(file).toString("utf8").split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

async function all<T>(g: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of g) out.push(x);
  return out;
}

/** A seeded generator (test/helpers/rand.ts), so a failure is reproducible: numbers in [0, 1). */
function rng(seed: number): () => number {
  const rand = new Rand(seed);
  return () => rand.unit();
}

// pieces: line breaks of every kind, multi-byte and invalid UTF-8, a BOM, JSON
const PIECES: Buffer[] = [
  Buffer.from("a"),
  Buffer.from("{\"k\": 1}"),
  Buffer.from("\n"),
  Buffer.from("\r"),
  Buffer.from("\r\n"),
  Buffer.from("  "),
  Buffer.from("é"),
  Buffer.from("\u2028"),
  Buffer.from("😀"),
  Buffer.from([0xe2, 0x82]), // a cut sequence
  Buffer.from([0xff]),
  Buffer.from([0xf0, 0x9f]),
  Buffer.from("\ufeff"),
];

describe("readLines: the JSON Lines framing (src/io/line-ends.ts), read on bytes", () => {
  it("gives the LF-framed lines on random contents, line breaks on every read boundary", async () => {
    const r = rng(26);
    for (let trial = 0; trial < 300; trial++) {
      const parts: Buffer[] = [];
      const n = Math.floor(r() * 40);
      for (let i = 0; i < n; i++) parts.push(PIECES[Math.floor(r() * PIECES.length)]);
      const file = path.join(dir, `t${trial}.jsonl`);
      fs.writeFileSync(file, Buffer.concat(parts));
      const chunk = 1 + Math.floor(r() * 9);
      const want = lfLines(file);
      expect({ trial, lines: await all(readLines(file, chunk)) }).toEqual({ trial, lines: want });
      expect(await all(readLines(file))).toEqual(want);
    }
  });

  it("edge cases: empty file, no trailing break, a lone CR at the end, CRLF split by a read, a line longer than the buffer", async () => {
    const cases = ["", "\n", "a", "a\n", "a\r", "a\r\n", "a\r\rb", "\r\n\r\n", "a\n\nb\r\n", "x".repeat(50) + "\r\n" + "y".repeat(33)];
    for (const [i, text] of cases.entries()) {
      const file = path.join(dir, `e${i}.jsonl`);
      fs.writeFileSync(file, text);
      for (const chunk of [1, 2, 3, 4, 16]) expect({ text, chunk, lines: await all(readLines(file, chunk)) }).toEqual({ text, chunk, lines: lfLines(file) });
    }
  });

  it("readJsonl: the same records, bad lines (by number) and line count as before", async () => {
    const file = path.join(dir, "mixed.jsonl");
    // a lone CR ends no line: "not json\r[1,2]" is one bad line (line 3)
    fs.writeFileSync(file, '{"a":1}\r\n\nnot json\r[1,2]\n{"b":"é"}\n   \n{"c":3}');
    const bad: number[] = [];
    let lines = -1;
    const recs = await all(readJsonl<Record<string, unknown>>(file, (n) => bad.push(n), undefined, (n) => (lines = n)));
    expect(recs).toEqual([{ a: 1 }, { b: "é" }, { c: 3 }]);
    expect(bad).toEqual([3]);
    expect(lines).toBe(6);
    expect(await all(readJsonl(path.join(dir, "missing.jsonl")))).toEqual([]);
  });

  it("a file whose lines end with a lone \\r is one line (a lone CR ends none), scanned a bounded number of times", async () => {
    // 20,000 lines of 9 bytes ended by \r, in one read: a search for \n from each line start to the end of the
    // bytes held was ~2e9 bytes scanned (quadratic); kept like the \r search it is a few passes over the 200 KB
    const file = path.join(dir, "cr-only.jsonl");
    fs.writeFileSync(file, Buffer.from('{"a":123}\r'.repeat(20_000)));
    const indexOf = Buffer.prototype.indexOf;
    let scanned = 0;
    Buffer.prototype.indexOf = function (this: Buffer, value: unknown, from?: unknown, ...rest: unknown[]) {
      const r = (indexOf as (...a: unknown[]) => number).call(this, value, from, ...rest);
      scanned += (r === -1 ? this.length : r) - (typeof from === "number" ? from : 0);
      return r;
    } as typeof indexOf;
    let lines: string[];
    try {
      lines = await all(readLines(file));
    } finally {
      Buffer.prototype.indexOf = indexOf;
    }
    expect(lines.length).toBe(1);
    expect(lines[0]).toBe('{"a":123}\r'.repeat(20_000).slice(0, -1));
    expect(scanned).toBeLessThan(10 * 200_000);
  });
});

describe("jsonLines: a UTF-8 byte order mark before the first line (break48)", () => {
  it("is not part of the first record: a label file or manifest saved 'UTF-8 with BOM' loses no row", async () => {
    const { jsonLines } = await import("../../src/io/jsonl.js");
    // before: line 1 was `not valid JSON (Unexpected token '\ufeff' ...)`: a manifest's header refused, a label row dropped
    expect(jsonLines('\ufeff{"id": "a"}\r\n{"id": "b"}\r\n')).toEqual([
      { line: 1, value: { id: "a" } },
      { line: 2, value: { id: "b" } },
    ]);
    // a mark anywhere else is the line's text, as before
    expect(jsonLines('{"id": "a"}\n\ufeff{"id": "b"}\n')[1]).toMatchObject({ line: 2, error: expect.any(String) });
  });
});
