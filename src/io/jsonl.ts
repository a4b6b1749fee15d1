/**
 * Reading JSON Lines files record by record: the framing every stage that reads a `.jsonl` file of ours shares
 * (the run store's journals, committee files, batch output). Writing is the run store's `Journal`
 * (src/store/journal.ts).
 */
import fs from "node:fs";
import readline from "node:readline";

/**
 * Stream the records of a JSON Lines file. Lines that are not JSON, or not records of the expected shape
 * (`isRecord`; default: a JSON object), are reported to `onBad` and skipped. A missing file yields nothing.
 */
export async function* readJsonl<T>(
  file: string,
  onBad?: (line: number, text: string) => void,
  isRecord: (v: unknown) => boolean = (v) => typeof v === "object" && v !== null && !Array.isArray(v),
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
}
