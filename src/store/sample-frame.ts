/**
 * The frame of a human sample: exactly which trajectories it was drawn from. `ipi-judge sample` records it in the
 * design (design.json / manifest header `design.frame`), `import-annotations` copies it onto every human-label row
 * (`sample_frame`), and `estimate` recomputes it over the run as it is now: a run that gained or lost trajectories
 * since the sample no longer is the sample's population, and its human or calibrated figures are refused
 * (src/estimate/sample-frame.ts), never re-weighted silently.
 *
 * The frame is the sorted ids of the population (after duplicate ids are dropped and `--where` applied), recorded
 * as their count and SHA-256 (ids in code-unit order, each followed by "\n", UTF-8), not the ids themselves: a
 * million ids would make every label row megabytes long. The digest says whether the population is the same,
 * not which ids changed.
 */
import { createHash } from "node:crypto";
import { jsonCell, readSampleWhere, type SampleWhere } from "./sample-where.js";

/** `sample_frame` of a human-label row (and `design.frame` without `ids`). */
export interface SampleFrame {
  /** Identifies the sample's design: SHA-256 (first 16 hex digits) of the frame digest, the seed and the request. */
  design: string;
  /** Number of trajectories in the frame (the design's N). */
  N: number;
  /** SHA-256 (hex) of the frame's ids in code-unit order, each followed by "\n". */
  ids_sha256: string;
}

/** Code-unit order (what `sort()` does on strings), for ids that must sort the same everywhere. */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Count and SHA-256 of a set of trajectory ids (the frame digest of the module docstring).
 * @param ids the frame's ids, in any order; `sorted: true` when they already are in code-unit order (no copy).
 */
export function frameDigest(ids: Iterable<string>, sorted = false): { N: number; ids_sha256: string } {
  const list = sorted ? ids : [...ids].sort(byCodeUnits);
  const h = createHash("sha256");
  let N = 0;
  for (const id of list) {
    h.update(id);
    h.update("\n");
    N++;
  }
  return { N, ids_sha256: h.digest("hex") };
}

/** The design id of a frame drawn with `seed` and `request` (see {@link SampleFrame.design}). */
export function designId(ids_sha256: string, seed: number, request: unknown): string {
  return createHash("sha256").update(`${ids_sha256}\n${seed}\n${JSON.stringify(request)}`).digest("hex").slice(0, 16);
}

/**
 * Read a row's `sample_frame` (an object, or its JSON text in a CSV cell).
 * @returns the value; undefined when absent (null, "", missing); or a message naming the field and what is wrong.
 */
export function readSampleFrame(v: unknown): SampleFrame | undefined | string {
  const cell = jsonCell(v, "sample_frame");
  if (cell === undefined || typeof cell === "string") return cell;
  const o = cell.value;
  if (!o || typeof o !== "object" || Array.isArray(o)) return `sample_frame must be an object {design, N, ids_sha256}, got ${Array.isArray(o) ? "an array" : JSON.stringify(o)}`;
  const { design, N, ids_sha256 } = o as Record<string, unknown>;
  if (typeof design !== "string" || design === "") return `sample_frame.design must be a non-empty string, got ${JSON.stringify(design)}`;
  if (typeof N !== "number" || !Number.isSafeInteger(N) || N <= 0) return `sample_frame.N must be a positive integer, got ${JSON.stringify(N)}`;
  if (typeof ids_sha256 !== "string" || !/^[0-9a-f]{64}$/.test(ids_sha256)) return `sample_frame.ids_sha256 must be 64 hex digits, got ${JSON.stringify(ids_sha256)}`;
  return { design, N, ids_sha256 };
}

/** A human-label row's record of its sample's population (`sample_where`, `sample_frame`), as read. */
export interface FrameFields {
  sample_where?: SampleWhere;
  sample_frame?: SampleFrame;
  /**
   * What is wrong with the row's `sample_where` or `sample_frame` (naming the field). The row's label is kept (it is
   * readable); `estimate` refuses the figures that need the sample's frame, naming the file and line.
   */
  frame_problem?: string;
}

/** Read a row's `sample_where` and `sample_frame` (objects, or JSON text in CSV cells); a malformed one is a `frame_problem`. */
export function readFrameFields(o: Record<string, unknown>): FrameFields {
  const out: FrameFields = {};
  const problems: string[] = [];
  const sw = readSampleWhere(o.sample_where);
  if (typeof sw === "string") problems.push(sw);
  else if (sw) out.sample_where = sw;
  const sf = readSampleFrame(o.sample_frame);
  if (typeof sf === "string") problems.push(sf);
  else if (sf) out.sample_frame = sf;
  if (problems.length) out.frame_problem = problems.join("; ");
  return out;
}
