/**
 * Reading JSON Lines files record by record: the framing every stage that reads a `.jsonl` file of ours shares
 * (the run store's journals, committee files, batch output). Writing is the run store's `Journal`
 * (src/store/journal.ts). Small files read whole (human labels, annotation files, the sample manifest) are framed by
 * {@link jsonLines}.
 */
import fs from "node:fs";
import { PrettySpans, spanText, type SpanOut } from "./pretty-spans.js";
import { mayRepeatKey, repeatedKey } from "./repeated-keys.js";
import { lineText, splitLines } from "./line-ends.js";

/** Bytes read at a time by {@link readLines}: 1 MiB (a buffer grows to hold a longer line). */
const READ_CHUNK_BYTES = 1 << 20;

/**
 * The lines of a file under the JSON Lines rules every reader shares (`./line-ends.ts`): a line ends at LF, the CR of
 * a CRLF dropped, a lone CR ends no line; the text after the last LF is a last line when it is not empty. Each line is
 * decoded from UTF-8 on its own (an LF byte never occurs inside a UTF-8 sequence, so the text is the same as decoding
 * the stream whole); a byte order mark is left to the caller ({@link readJsonl} applies `lineText`). Read in
 * {@link READ_CHUNK_BYTES} reads and split on bytes: ~6x less CPU than `readline` over a `utf8` read stream on 24 KB
 * lines (a batch chunk's state file: 282 MB, 0.9 s vs 5.4-5.9 s of CPU). Before session 50 a lone CR ended a line here
 * (readline's framing) and nowhere else: the journals, written one `JSON.stringify` per line, hold none.
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
      for (let lf = view.indexOf(10, 0); lf !== -1; lf = view.indexOf(10, start)) {
        yield view.toString("utf8", start, lf > start && view[lf - 1] === 13 ? lf - 1 : lf);
        start = lf + 1;
      }
      if (eof) {
        if (start < end) yield view.toString("utf8", start, view[end - 1] === 13 ? end - 1 : end);
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
  for await (const raw of readLines(file)) {
    n++;
    if (!raw.trim()) continue;
    // a byte order mark: line 1's dropped, a later line's that line's error (./line-ends.ts)
    const lt = lineText(raw, n);
    if (lt.error !== undefined) {
      onBad?.(n, raw);
      continue;
    }
    const line = lt.text;
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
 * Frame a JSON Lines text held in memory under the rules every JSON Lines reader shares (./line-ends.ts): lines end
 * with LF or CRLF (a lone CR ends none); a byte order mark before the first line is dropped, one starting a later line
 * is that line's `error`; blank lines (only whitespace) are skipped;
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
  // was refused and a label file's first row dropped as `Unexpected token '\ufeff'`); the CSV reader drops it too. The
  // line rules every JSON Lines reader shares (./line-ends.ts): LF ends a line, CRLF's CR dropped, a later line's mark an error
  splitLines(text).forEach((raw, i) => {
    if (raw.trim() === "") return;
    const lt = lineText(raw, i + 1);
    if (lt.error !== undefined) {
      take(spans.push({ line: i + 1, text: () => raw, parsed: false, record: false, item: { line: i + 1, error: lt.error } }));
      return;
    }
    const l = lt.text;
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
