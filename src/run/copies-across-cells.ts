/**
 * A run file copied into another cell (break50 finding 5): a byte-identical copy of an input file under another id,
 * in another agent model, condition, attack, suite or tasks (a user assembling defense runs copies the undefended
 * folder by mistake: `compare` then printed "spotlighting 0.0 pp [-1.9, +1.9], paired over 108 cells", the defense
 * "changing nothing", with no word). Equal *content* in two cells is real (an unattacked run a defense left unchanged:
 * 13 pairs in the AgentDojo defenses corpus, 89 in AgentDyn) and stays unsaid (`./same-content.ts`); equal *bytes* is
 * not: the benchmarks' own logs carry the pipeline and their own timings, and over the 14,652 files of agentdojo-scale
 * and agentdojo-defenses no two are byte-identical. So only the pairs whose content hashes are equal are compared
 * byte for byte, and a pair of identical files is a copy.
 *
 * Cost: bounded. At most {@link CHECK_LIMIT} candidate pairs are read (two files each, sizes first); past that the
 * finding says how many were checked of how many, and its count is a lower bound ("at least"). A bench run made of
 * copied folders (every trajectory a copy) pays ~2 x CHECK_LIMIT small reads, not one per trajectory, and holds
 * CHECK_LIMIT candidate pairs ({@link CandidatePairs}), not one per candidate (a pair array each, ~75 bytes: 70.5 MiB
 * for 990,000 pairs; issue 26). In such a bench run about 1 trajectory in 5 is a candidate (unattacked runs repeat
 * across injection-task cells: 17,874 pairs at 87,391 trajectories).
 * A chat-JSONL row's place (`<file>:<line>`) is not a whole file: such pairs are not compared (a copied JSONL file
 * given other ids is not byte-identical anyway); two items of one file are never a copy of each other here.
 */
import { sameBytes } from "../ingest/duplicates.js";

/** How many candidate pairs (equal content, different cells) are compared byte for byte at most. */
export const CHECK_LIMIT = 2000;

/**
 * The candidate pairs in the order met: the first {@link CHECK_LIMIT} held (the only ones {@link copiesAcrossCells}
 * compares), the others only counted, so the check's memory is bounded whatever the number of candidates.
 */
export class CandidatePairs {
  /** the first CHECK_LIMIT pairs of positions, in the order added */
  readonly held: Array<[number, number]> = [];
  /** how many pairs were added (held or not) */
  count = 0;

  /** Add the pair (a, b): held while fewer than CHECK_LIMIT are, counted always. */
  add(a: number, b: number): void {
    if (this.held.length < CHECK_LIMIT) this.held.push([a, b]);
    this.count++;
  }
}

/** What the check found: `copies` byte-identical pairs among `checked` of `candidates`; the first few pairs' positions. */
export interface CopiesFound {
  candidates: number;
  checked: number;
  copies: number;
  /** the first pairs found, as positions the caller names */
  first: Array<[number, number]>;
}

/**
 * Compare candidate pairs' files byte for byte, the first {@link CHECK_LIMIT} of them.
 * @param pairs candidate pairs of positions (equal content hash, different cells), in the order met: all of them, or a
 *   {@link CandidatePairs} (its first CHECK_LIMIT and its count; the same result as the whole list).
 * @param fileOf a position's file as recorded (a relative path is resolved from the working directory, as the run's
 *   other file checks do); undefined when it has none or it is a JSON Lines row (`<file>:<line>`).
 * @param shown how many pairs to keep in `first`.
 * @returns the counts; a file that cannot be read is no copy (not counted, not thrown).
 */
export function copiesAcrossCells(pairs: Array<[number, number]> | CandidatePairs, fileOf: (pos: number) => string | undefined, shown: number): CopiesFound {
  const list = pairs instanceof CandidatePairs ? pairs.held : pairs;
  const found: CopiesFound = { candidates: pairs instanceof CandidatePairs ? pairs.count : pairs.length, checked: 0, copies: 0, first: [] };
  for (const [a, b] of list) {
    if (found.checked === CHECK_LIMIT) break;
    found.checked++;
    const fa = fileOf(a);
    const fb = fileOf(b);
    if (fa === undefined || fb === undefined || fa === fb || !sameBytes(fa, fb)) continue;
    found.copies++;
    if (found.first.length < shown) found.first.push([a, b]);
  }
  return found;
}
