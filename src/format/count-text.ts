/**
 * A count with its noun in agreement (new-user report 31: "1 annotators"): `1 annotator`, `2 annotators`,
 * `0 annotators`. Every text that builds a count of annotators (or other nouns) with its number goes through it.
 */

/**
 * `n` and the noun, singular for exactly 1.
 * @param plural the plural when it is not the singular + "s".
 */
export function countText(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? singular : plural}`;
}
