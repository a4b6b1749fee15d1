/**
 * What `import-annotations` says of a JSONL line that is not valid JSON (break55 #5): the last line of a file that
 * does not end in a newline is most often a torn line (a writer killed mid-line: an annotation tool, a script), as the
 * run store says of its own journals; then the message says so and how to recover. Any other line keeps the bare
 * parse error. The file is refused either way (a label is never guessed from a cut line).
 */

/**
 * @param where `file line N`
 * @param error the JSON parser's message
 * @param line the line's number (1-based, as `jsonLines` counts it)
 * @param body the file's text
 */
export function invalidJsonLineText(where: string, error: string, line: number, body: string): string {
  const bare = `${where}: not valid JSON (${error})`;
  const trimmed = body.replace(/[ \t]+$/, "");
  if (trimmed.endsWith("\n") || line !== trimmed.split("\n").length) return bare;
  return `${bare}: the file's last line, with no final newline: a writer killed mid-line may have cut it (a torn last line); delete that line (its item then needs labelling again) or write it whole, and import again`;
}
