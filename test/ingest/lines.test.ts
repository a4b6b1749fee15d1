import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countNonBlankLines, LONG_LINE_PREFIX, rawLines, type RawLine } from "../../src/ingest/lines.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ingest-lines-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function all(file: string, maxLineBytes?: number): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const l of rawLines(file, maxLineBytes === undefined ? {} : { maxLineBytes })) out.push(l);
  return out;
}

describe("rawLines", () => {
  it("splits on \\n, drops a trailing \\r, yields a last line without newline", async () => {
    const f = path.join(dir, "a.txt");
    await writeFile(f, "one\r\n\ntwo\nthree");
    expect((await all(f)).map((l) => [l.line, l.bytes.toString(), l.tooLong])).toEqual([
      [1, "one", undefined],
      [2, "", undefined],
      [3, "two", undefined],
      [4, "three", undefined],
    ]);
  });

  it("a line over maxLineBytes is yielded with its full size and only a prefix, across chunk boundaries", async () => {
    const f = path.join(dir, "long.txt");
    const long = '{"messages":' + "x".repeat(300_000) + "}"; // several 64 KiB chunks
    await writeFile(f, `short\n${long}\r\nafter\n${"y".repeat(1000)}`);
    const lines = await all(f, 1000);
    expect(lines.map((l) => [l.line, l.tooLong])).toEqual([
      [1, undefined],
      [2, long.length + 1], // with its \r
      [3, undefined],
      [4, undefined], // exactly at the limit: kept whole
    ]);
    expect(lines[1].bytes.length).toBeGreaterThan(1000);
    expect(lines[1].bytes.length).toBeLessThanOrEqual(LONG_LINE_PREFIX);
    expect(lines[1].bytes.toString().startsWith('{"messages":xxx')).toBe(true);
    expect(lines[2].bytes.toString()).toBe("after");
    expect(lines[3].bytes.length).toBe(1000);
    // a last line without newline over the limit
    await writeFile(f, "z".repeat(1001));
    expect((await all(f, 1000)).map((l) => [l.line, l.tooLong, l.bytes.length])).toEqual([[1, 1001, 1001]]);
  });
});

describe("countNonBlankLines", () => {
  it("counts lines with any byte other than space, tab, CR", async () => {
    const f = path.join(dir, "c.txt");
    await writeFile(f, "a\n\n  \t\r\nb\r\n" + "c".repeat(200_000));
    expect(await countNonBlankLines(f)).toBe(3);
    await writeFile(f, "");
    expect(await countNonBlankLines(f)).toBe(0);
    await writeFile(f, "x\n");
    expect(await countNonBlankLines(f)).toBe(1);
  });
});
