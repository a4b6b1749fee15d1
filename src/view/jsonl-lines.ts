/**
 * A JSON Lines file read line by line with each line's byte offset, and one line read back by its offset: how the
 * view keeps where a verdict or an index row is instead of the record (./run-data.ts, ./run-scan.ts).
 */
import fs from "node:fs";
import type { ReadProgress } from "../store/lean-read.js";

/** Where one stored verdict's JSON line is in `verdicts.jsonl`: byte offset and length. */
export interface LineRef {
  start: number;
  length: number;
}

/**
 * Read `file` line by line with the byte offset of each line (UTF-8), calling `onLine` for each non-empty line
 * (with its 1-based number). Lines that are not JSON objects are passed to `onBad` with their 1-based number.
 * @returns the number of lines read (0 when the file does not exist).
 */
export function scanJsonlLines(
  file: string,
  onLine: (value: Record<string, unknown>, ref: LineRef, line: number) => void,
  onBad?: (line: number) => void,
  progress?: ReadProgress,
): number {
  if (!fs.existsSync(file)) return 0;
  const total = progress ? fs.statSync(file).size : 0;
  const fd = fs.openSync(file, "r");
  try {
    // one buffer for the whole file: the unfinished line is moved to its front and the next chunk read after it
    // (a longer line grows it); no Buffer per chunk, which at 4.6 GB left hundreds of MB of freed-but-held memory
    let buf = Buffer.alloc(2 << 20);
    const CHUNK = 1 << 20;
    let carryLen = 0;
    let carryStart = 0;
    let pos = 0;
    let lineNo = 0;
    const handle = (buf: Buffer, start: number) => {
      lineNo++;
      const text = buf.toString("utf8").replace(/\r$/, "");
      if (!text.trim()) return;
      try {
        const v = JSON.parse(text);
        if (typeof v === "object" && v !== null && !Array.isArray(v)) onLine(v, { start, length: buf.length }, lineNo);
        else onBad?.(lineNo);
      } catch {
        onBad?.(lineNo);
      }
    };
    for (;;) {
      if (carryLen + CHUNK > buf.length) {
        const grown = Buffer.alloc(Math.max(buf.length * 2, carryLen + CHUNK));
        buf.copy(grown, 0, 0, carryLen);
        buf = grown;
      }
      const n = fs.readSync(fd, buf, carryLen, CHUNK, pos);
      if (n === 0) break;
      const data = buf.subarray(0, carryLen + n);
      let from = 0;
      for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, from)) {
        handle(data.subarray(from, i), carryStart + from);
        from = i + 1;
      }
      carryStart += from;
      carryLen = data.length - from;
      buf.copy(buf, 0, from, data.length);
      pos += n;
      progress?.(pos, total, file);
    }
    if (carryLen) handle(buf.subarray(0, carryLen), carryStart);
    return lineNo;
  } finally {
    fs.closeSync(fd);
  }
}

/** Read one stored line back (a {@link LineRef} from {@link scanJsonlLines}). */
export function readLine<T>(file: string, ref: LineRef): T {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(ref.length);
    fs.readSync(fd, buf, 0, ref.length, ref.start);
    return JSON.parse(buf.toString("utf8")) as T;
  } finally {
    fs.closeSync(fd);
  }
}
