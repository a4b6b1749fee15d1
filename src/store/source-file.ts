/**
 * Where a run's index row was read from, for the readers that read the trajectory again (`sample`, `view`,
 * `report`): `source.path` as label was given it, resolved from a folder (`--source-root`, default the current
 * directory); when nothing is there and the row records its resolved file (`source_file`: chat-JSONL rows since
 * review 16), that file. So a run labelled from one directory is read again from any other.
 */
import fs from "node:fs";
import path from "node:path";
import { sourceKey } from "./records.js";

/**
 * The file of a row's source (module docstring).
 * @param row an index row with at least `source.path` (and `source_file` when recorded).
 * @param root the folder a relative `source.path` is resolved from.
 * @returns an absolute path (which may not exist: the caller says so).
 */
export function rowSourceFile(row: { source: { path: string }; source_file?: string }, root: string): string {
  const given = path.resolve(root, row.source.path);
  if (typeof row.source_file === "string" && path.isAbsolute(row.source_file) && row.source_file !== given && !fs.existsSync(given)) return row.source_file;
  return given;
}

/**
 * The source key of a row (`sourceKey` of `./records.ts`: absolute path and line) and whether it was resolved from
 * this directory: a chat-JSONL row's `source_file` is right from any directory; `source.path` as given (relative)
 * resolves against this one (red team 15: such a source is judged gone only under the inputs read).
 */
export function rowSourceKey(t: { source?: { path?: string; line?: number }; source_file?: string }): { key: string; relative: boolean } {
  if (typeof t.source_file === "string" && path.isAbsolute(t.source_file)) return { key: sourceKey({ path: t.source_file, line: t.source?.line }), relative: false };
  return { key: sourceKey(t.source), relative: typeof t.source?.path === "string" && !path.isAbsolute(t.source.path) };
}
