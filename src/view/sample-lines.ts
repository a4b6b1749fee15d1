/**
 * The line loop of the view's readers of a sample folder's small JSON Lines files (`tasks.jsonl`, ./drawn-text.ts;
 * `adjudication.jsonl`, ./adjudication-file.ts): the file read whole, split on LF or CRLF, blank lines passed over,
 * each other line parsed, and the two problems every such reader words alike said once here.
 */
import fs from "node:fs";

/**
 * Call `onLine` for each non-blank line of `file` that is JSON, in order.
 * @param file the path; a file that does not exist gives nothing and no warning.
 * @param warnings gets `FILE: could not be read (CODE), skipped<unreadable>` for a file that cannot be read, and
 *   `FILE line N: not JSON, skipped` for each line that is not JSON (N 1-based).
 * @param onLine the parsed value, the line's text (without its CR), `FILE line N` for the caller's own warnings, and N.
 */
export function eachSampleLine(
  file: string,
  warnings: string[],
  unreadable: string,
  onLine: (value: unknown, line: string, where: string, n: number) => void,
): void {
  if (!fs.existsSync(file)) return;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    warnings.push(`${file}: could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).name}), skipped${unreadable}`);
    return;
  }
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\r$/, "");
    if (!line.trim()) return;
    const where = `${file} line ${i + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      warnings.push(`${where}: not JSON, skipped`);
      return;
    }
    onLine(v, line, where, i + 1);
  });
}
