/**
 * The read's duplicate check: where an item was read from (its file AND its place in that file), and whether a
 * second item under a taken id is the same input given twice (`duplicate_input`, read once) or another input under
 * that id (`duplicate_id`, an input error naming both places).
 *
 * Every format's place names the item within its file: a chat-JSONL row by its line (`<file>:<line>`), an Inspect
 * sample by its zip entry or its index in a `.json` log's `samples` (`<file> (<entry>)`), a one-item file (AgentDojo,
 * VIGIL, AgentDyn, shell) by the file alone. Two different items of one file are never "the same input" (red team
 * 30: two Inspect samples with one id and epoch were taken as the same file given twice, the second never judged).
 */
import { readFileSync, statSync } from "node:fs";
import type { IngestError, TrajectorySource } from "../types.js";
import { ingestError } from "./errors.js";

/** The part of an item's place after its file: `:<line>`, ` (<entry>)`, or "" for a one-item file. */
export function placeSuffix(source: Pick<TrajectorySource, "line" | "entry">): string {
  if (source.line !== undefined) return `:${source.line}`;
  if (source.entry !== undefined) return ` (${source.entry})`;
  return "";
}

/** True when two files hold the same bytes (a copy of a run is the same run; sizes compared first); false when either cannot be read. */
export function sameBytes(a: string, b: string): boolean {
  try {
    if (statSync(a).size !== statSync(b).size) return false;
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

/**
 * The duplicate check of one read: the places of the items it refused as `duplicate_id` (few: kept whole), so that
 * such an item met again (its file given twice, or a byte-identical copy) is the same input again
 * (`duplicate_input`), not a second duplicate id.
 */
export class DuplicatePlaces {
  /** id + NUL + place suffix -> the refused places (files differ: one entry of one id in a few files at most) */
  private readonly refused = new Map<string, string[]>();

  /**
   * The error for an item whose id `firstFrom` (a place as {@link placeSuffix} builds it: resolved file + suffix)
   * read first. Same input: the same place (the same file given twice), the same place in a byte-identical copy of a
   * one-item file or an Inspect log (a copy of a chat-JSONL file stays a `duplicate_id`, as it always was), or the
   * place of an item refused before under the same id (or its copy). Anything else (another file, another line or
   * another sample of the same file) is a `duplicate_id` naming both places.
   *
   * @param file the item's file, resolved; `source` its source (path as given, line or entry); `id` its trajectory id.
   */
  error(firstFrom: string, file: string, source: TrajectorySource, id: string): IngestError {
    const suffix = placeSuffix(source);
    const here = file + suffix;
    const at: { line?: number; trajectory_id: string } = { trajectory_id: id };
    if (source.line !== undefined) at.line = source.line;
    // the entry is said in the message (an IngestError has a line, not an entry)
    const entry = source.entry !== undefined ? `${source.entry}: ` : "";
    const key = `${id}\0${suffix}`;
    const refused = this.refused.get(key) ?? [];
    const before = firstFrom === here || refused.includes(here) ? here : [firstFrom, ...refused].find((p) => copyOf(p, suffix, source, file));
    if (before !== undefined) {
      const copy = before !== here;
      return ingestError("duplicate_input", source.path, `${entry}the same input given twice (trajectory "${id}"${copy ? `, a byte-identical copy of ${before}` : ""}): read once`, at);
    }
    refused.push(here);
    if (refused.length === 1) this.refused.set(key, refused);
    return ingestError("duplicate_id", source.path, `${entry}duplicate trajectory id "${id}", first read from ${firstFrom} (the first one read is kept; this one is not judged)`, at);
  }
}

/** True when place `p` is the same place (`suffix`) in a byte-identical copy of `file` (chat-JSONL rows excepted). */
function copyOf(p: string, suffix: string, source: TrajectorySource, file: string): boolean {
  if (source.line !== undefined || !p.endsWith(suffix)) return false;
  const other = p.slice(0, p.length - suffix.length);
  return other !== file && !/:\d+$/.test(other) && sameBytes(other, file);
}
