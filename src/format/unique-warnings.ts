/**
 * One warning per distinct fact (session 39: the same warning text printed several times in one output): exact
 * repeats collapse into the first, which says how many times it was given.
 */

/** ` (given N times: said once)`, the mark of a warning given more than once. */
export function repeatsText(n: number): string {
  return ` (given ${n} times: said once)`;
}

/**
 * The warnings in first-seen order, each text once; one given n > 1 times ends with {@link repeatsText}.
 * @param ws warnings as collected (several parts of a command may warn of the same fact).
 */
export function uniqueWarnings(ws: readonly string[]): string[] {
  const count = new Map<string, number>();
  for (const w of ws) count.set(w, (count.get(w) ?? 0) + 1);
  return [...count].map(([w, n]) => (n > 1 ? w + repeatsText(n) : w));
}
