/**
 * Reading JSON Lines files record by record: the framing every stage that reads a `.jsonl` file of ours shares
 * (the run store's journals, committee files, batch output). Writing is the run store's `Journal`
 * (src/store/journal.ts). Small files read whole (human labels, annotation files, the sample manifest) are framed by
 * {@link jsonLines}.
 */
import fs from "node:fs";
import { PrettySpans, spanText, type SpanOut } from "./pretty-spans.js";
import { mayRepeatKey, repeatedKey } from "./repeated-keys.js";

/** Bytes read at a time by {@link readLines}: 1 MiB (a buffer grows to hold a longer line). */
const READ_CHUNK_BYTES = 1 << 20;

/**
 * The lines of a file, framed as `readline` frames them with `crlfDelay: Infinity` (the framing every reader here
 * used before): a line ends at `\r\n`, `\n` or a lone `\r`; the text after the last line break is a last line
 * when it is not empty; each line is decoded from UTF-8 on its own (a line break byte never occurs inside a UTF-8
 * sequence, so the text is the same as decoding the stream whole). Read in {@link READ_CHUNK_BYTES} reads and split
 * on bytes: ~6x less CPU than `readline` over a `utf8` read stream on 24 KB lines (a batch chunk's state file:
 * 282 MB, 0.9 s vs 5.4-5.9 s of CPU, most of readline's in joining and re-splitting decoded strings).
 * @param file the file (it must exist).
 * @param chunkBytes read size (tests use tiny ones to put line breaks on read boundaries).
 */
export async function* readLines(file: string, chunkBytes = READ_CHUNK_BYTES): AsyncGenerator<string> {
  const fh = await fs.promises.open(file, "r");
  try {
    let buf = Buffer.allocUnsafe(Math.max(1, chunkBytes));
    let have = 0;
    for (;;) {
      if (have === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, have, buf.length - have, null);
      const eof = bytesRead === 0;
      const end = have + bytesRead;
      const view = buf.subarray(0, end);
      let start = 0;
      // the next \r at or after `start` (-1: none in the bytes held); JSON lines of ours hold none
      let cr = view.indexOf(13, 0);
      // the next \n at or after `start`, kept like `cr`: searched again only once passed (lines ended by lone \r
      // would otherwise rescan to the end of the bytes held per line: quadratic in the lines per read)
      let lf = view.indexOf(10, 0);
      for (;;) {
        if (lf !== -1 && lf < start) lf = view.indexOf(10, start);
        if (cr !== -1 && cr < start) cr = view.indexOf(13, start);
        let brk: number;
        let next: number;
        if (cr !== -1 && (lf === -1 || cr < lf)) {
          // a \r: with a \n right after it is one line break; as the last byte held, wait for the next byte
          if (cr + 1 === end && !eof) break;
          brk = cr;
          next = cr + 1 < end && view[cr + 1] === 10 ? cr + 2 : cr + 1;
        } else if (lf !== -1) {
          brk = lf;
          next = lf + 1;
        } else break;
        yield view.toString("utf8", start, brk);
        start = next;
      }
      if (eof) {
        if (start < end) yield view.toString("utf8", start, end);
        return;
      }
      buf.copy(buf, 0, start, end);
      have = end - start;
    }
  } finally {
    await fh.close();
  }
}

/**
 * Stream the records of a JSON Lines file. Lines that are not JSON, or not records of the expected shape
 * (`isRecord`, given the record and its 1-based line; default: a JSON object), are reported to `onBad` and skipped.
 * A missing file yields nothing.
 * Not passed through ./pretty-spans.ts (a record over several lines is one skipped line each): the files read here
 * are ipi-judge's own journals, written one `JSON.stringify` per line, whose bad lines are torn appends or hand edits;
 * callers count skipped lines by number (the run store's resume accounting, ../store/skipped-lines.ts, which names
 * them in one warning per file), and the 1M-verdict reads stay one parse per line.
 * `onEnd` gets the number of lines read (blank ones included) when the file is read to the end.
 */
export async function* readJsonl<T>(
  file: string,
  onBad?: (line: number, text: string) => void,
  isRecord: (v: unknown, line: number) => boolean = (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  onEnd?: (lines: number) => void,
): AsyncGenerator<T> {
  if (!fs.existsSync(file)) return;
  let n = 0;
  for await (const line of readLines(file)) {
    n++;
    if (!line.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      onBad?.(n, line);
      continue;
    }
    if (isRecord(v, n)) yield v as T;
    else onBad?.(n, line);
  }
  onEnd?.(n);
}

/**
 * One non-blank line of a JSON Lines text: its parsed value, or why it is not JSON. `line` is 1-based. A record
 * written over several lines (pretty-printed: ./pretty-spans.ts) is one entry with `span` set, `line` its first line
 * and `last` its last, and `error` naming both (`lines 3-61 hold one JSON object written over 59 lines: the file
 * looks pretty-printed, ...`): say it as it is, with no "line N" before it.
 */
export type JsonLine = { line: number; value: unknown; error?: undefined } | { line: number; error: string; span?: true; last?: number };

/**
 * Frame a JSON Lines text held in memory: lines end with LF or CRLF; a byte order mark before the first line is
 * dropped; blank lines (only whitespace) are skipped;
 * every other line is parsed on its own, a line that is not JSON giving its `JSON.parse` message in `error`
 * (the caller words the problem and names the file). A line that gives one key twice with different values
 * (`{"label": "unaffected", ..., "label": "full_compliance"}`, which `JSON.parse` reads as its last value in silence)
 * is an `error` too, naming the key and both values (break43: a human label read as the second one). A record written
 * over several lines is one `span` entry, not one error per line (./pretty-spans.ts); the lines around it are read.
 * @param text the file's content (human labels, annotations, adjudications: small files).
 * @returns one entry per non-blank line (or span of lines), in order.
 */
export function jsonLines(text: string): JsonLine[] {
  const out: JsonLine[] = [];
  const spans = new PrettySpans<JsonLine>();
  const take = (settled: SpanOut<JsonLine>[]) => {
    for (const s of settled) out.push(s.kind === "line" ? s.at.item : { line: s.first, last: s.last, span: true, error: spanText(s) });
  };
  // a UTF-8 byte order mark (an editor's "UTF-8 with BOM") is not part of the first line (break48: a manifest's header
  // was refused and a label file's first row dropped as `Unexpected token '\ufeff'`); the CSV reader drops it too
  (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split(/\r?\n/).forEach((l, i) => {
    if (l.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(l) as unknown;
    } catch (e) {
      take(spans.push({ line: i + 1, text: () => l, parsed: false, record: false, item: { line: i + 1, error: (e as Error).message } }));
      return;
    }
    const twice = repeatedKeyProblem(l, value);
    const item: JsonLine = twice === null ? { line: i + 1, value } : { line: i + 1, error: twice };
    take(spans.push({ line: i + 1, text: () => l, parsed: true, record: isNonEmptyObject(value), item }));
  });
  take(spans.end());
  return out;
}

/** A JSON object with at least one key (what pretty-printed JSON never writes on one line). */
export function isNonEmptyObject(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  for (const _ in v) return true;
  return false;
}

/**
 * Why one line of JSON Lines (`line`, parsed as `value`) says two things, or null: a key given twice in one object
 * with different values (`JSON.parse` keeps the last in silence). Costs some half a `JSON.parse` when no key repeats.
 * @returns `key "label" given twice with different values ("unaffected", then "full_compliance"): the line says two things`.
 */
export function repeatedKeyProblem(line: string, value: unknown): string | null {
  const r = mayRepeatKey(line, value) ? repeatedKey(line) : null;
  return r === null ? null : `key "${r.key}"${r.path ? ` of ${r.path}` : ""} given twice with different values (${r.first}, then ${r.second}): the line says two things`;
}
