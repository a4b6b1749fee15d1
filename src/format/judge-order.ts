/**
 * The order every list of judges is printed in: by judge id (`localeCompare`, as the run summary's judges, their
 * health and the broken-judge lists are sorted). The stopped judges were listed in the order they stopped (a race
 * between their first failing requests) or as `store.json` held them (break42): the same run printed them in
 * another order from one invocation to the next.
 */

/** Comparator of two judge ids by name. */
export function byJudgeName(a: string, b: string): number {
  return a.localeCompare(b);
}

/** A record keyed by judge id (`stopped_judges`: id -> message) as its entries sorted by id. */
export function judgeEntries<T>(byJudge: Readonly<Record<string, T>>): Array<[string, T]> {
  return Object.entries(byJudge).sort(([a], [b]) => byJudgeName(a, b));
}

/** A record keyed by judge id with its keys in order by id (so its JSON lists them so too). */
export function sortedByJudge<T>(byJudge: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(judgeEntries(byJudge));
}
