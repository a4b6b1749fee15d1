/**
 * The repeat indexes `label` can write: `--repeats K` (at most {@link MAX_REPEATS}) judges each trajectory K times,
 * repeats 0 .. K-1. A stored verdict line whose `repeat` is anything else (negative, fractional, a string, 1e9: red
 * team 39b and task s40) was not written by `label`: it is refused by file, line and why (`./verdict-check.ts`), never
 * read as a repeat that raises committee's health and test-retest denominators. The run keeps no record of every
 * invocation's `--repeats`, so the bound is the option's own.
 */

/** The most repeats `label --repeats` takes (test-retest needs a few; each repeat is a full judging of the run). */
export const MAX_REPEATS = 100;

/**
 * Why `r` is not a repeat index `label` could have written, or undefined when it is (an integer 0 .. MAX_REPEATS-1).
 * @returns e.g. `repeat 1000000000 is not a repeat label writes (an integer from 0 to 99: --repeats is at most 100)`.
 */
export function repeatProblem(r: unknown): string | undefined {
  if (typeof r === "number" && Number.isInteger(r) && r >= 0 && r < MAX_REPEATS) return undefined;
  return `repeat ${JSON.stringify(r) ?? String(r)} is not a repeat label writes (an integer from 0 to ${MAX_REPEATS - 1}: --repeats is at most ${MAX_REPEATS})`;
}
