/**
 * The file name of an annotator's labels in a sample folder's `annotations/` (./annotations.ts).
 */
import { createHash } from "node:crypto";
import { AnnotationInputError } from "./annotation-errors.js";
import { RESERVED_ANNOTATOR, isReservedAnnotator } from "../agree/adjudicated.js";

/** The longest annotator name, in characters (code points). */
export const MAX_ANNOTATOR_CHARS = 100;

/**
 * The annotator's file name (module docstring): the name itself when it is plain lower case (`a-z 0-9 . _ -`, at
 * most 64 characters, not ending in `-` + 12 hex digits, not starting with `u-`), else its plain characters
 * lower-cased (at most 40) + `-` + 12 hex digits of sha256 over the exact name. Names differing only by case get
 * different files, even on a case-insensitive disk, and a file name is at most 64 bytes whatever the name.
 * @throws AnnotationInputError for an empty or over-long name, or a reserved one ({@link isReservedAnnotator}).
 */
export function annotatorFileName(name: string): string {
  const n = typeof name === "string" ? name.trim() : "";
  if (n === "" || [...n].length > MAX_ANNOTATOR_CHARS) throw new AnnotationInputError(`annotator: give a name of 1 to ${MAX_ANNOTATOR_CHARS} characters`);
  if (isReservedAnnotator(n)) {
    throw new AnnotationInputError(`annotator: "${RESERVED_ANNOTATOR}" is reserved: it names the adjudicated labels (adjudication.jsonl), and an annotator's rows under it would be read as adjudicated; choose another name`);
  }
  if (/^[a-z0-9][a-z0-9._-]{0,63}$/.test(n) && !n.startsWith("u-") && !n.endsWith(".") && !/-[0-9a-f]{12}$/.test(n)) return `${n}.jsonl`;
  const slug = n.toLowerCase().replace(/[^a-z0-9._-]+/g, "_").replace(/^[._-]+/, "").slice(0, 40) || "u";
  return `${slug}-${createHash("sha256").update(n, "utf8").digest("hex").slice(0, 12)}.jsonl`;
}
