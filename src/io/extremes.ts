/**
 * The largest and smallest of many numbers, by a loop. `Math.max(...xs)` passes every element as an argument, and
 * past about 120,000 of them V8 throws `RangeError: Maximum call stack size exceeded` (red team 41: a tool
 * description of 200,000 short imperative sentences, or a tool output of 300,000 backtick runs, made `label`
 * and `sample` stop with that message, naming no file or line). Use these wherever the count comes from the input.
 */

/**
 * The largest of `init` and the values (`init` alone when there are none).
 * @param values numbers (any iterable: an array, a generator).
 * @param init the floor, e.g. `0`, or `-Infinity` for "none" as `Math.max()` gives it.
 */
export function maxOf(values: Iterable<number>, init = -Infinity): number {
  let m = init;
  for (const v of values) if (v > m || Number.isNaN(v)) m = v;
  return m;
}

/**
 * The smallest of `init` and the values (`init` alone when there are none).
 * @param values numbers (any iterable).
 * @param init the ceiling, e.g. `Infinity` for "none" as `Math.min()` gives it.
 */
export function minOf(values: Iterable<number>, init = Infinity): number {
  let m = init;
  for (const v of values) if (v < m || Number.isNaN(v)) m = v;
  return m;
}
