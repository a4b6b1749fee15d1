/**
 * Reading JSON Lines files record by record: the framing every stage that reads a `.jsonl` file of ours shares
 * (the run store's journals, committee files, batch output). Writing is the run store's `Journal`
 * (src/store/journal.ts). Small files read whole (human labels, annotation files, the sample manifest) are framed by
 * {@link jsonLines}.
 */
import fs from "node:fs";
import readline from "node:readline";

/**
 * Stream the records of a JSON Lines file. Lines that are not JSON, or not records of the expected shape
 * (`isRecord`; default: a JSON object), are reported to `onBad` and skipped. A missing file yields nothing.
 * `onEnd` gets the number of lines read (blank ones included) when the file is read to the end.
 */
export async function* readJsonl<T>(
  file: string,
  onBad?: (line: number, text: string) => void,
  isRecord: (v: unknown) => boolean = (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  onEnd?: (lines: number) => void,
): AsyncGenerator<T> {
  if (!fs.existsSync(file)) return;
  const rl = readline.createInterface({ input: fs.createReadStream(file, "utf8"), crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (!line.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      onBad?.(n, line);
      continue;
    }
    if (isRecord(v)) yield v as T;
    else onBad?.(n, line);
  }
  onEnd?.(n);
}

/** One non-blank line of a JSON Lines text: its parsed value, or why it is not JSON. `line` is 1-based. */
export type JsonLine = { line: number; value: unknown; error?: undefined } | { line: number; error: string };

/**
 * Frame a JSON Lines text held in memory: lines end with LF or CRLF; blank lines (only whitespace) are skipped;
 * every other line is parsed on its own, a line that is not JSON giving its `JSON.parse` message in `error`
 * (the caller words the problem and names the file).
 * @param text the file's content.
 * @returns one entry per non-blank line, in order.
 */
export function jsonLines(text: string): JsonLine[] {
  const out: JsonLine[] = [];
  text.split(/\r?\n/).forEach((l, i) => {
    if (l.trim() === "") return;
    try {
      out.push({ line: i + 1, value: JSON.parse(l) as unknown });
    } catch (e) {
      out.push({ line: i + 1, error: (e as Error).message });
    }
  });
  return out;
}
