/**
 * Annotations of another sample, told apart from typos (red team 40): item ids are `<study tag>-<n>`, the tag six hex
 * digits of the seed and the sampled ids (`./export.ts` `studyTag`). Labels imported against the manifest of another
 * draw (another `--seed`, another run, a sample drawn again) were 34 lines of `unknown item_id`, with no word of why.
 */

const ITEM_ID = /^([0-9a-f]{6})-\d+$/;

/**
 * The first problem line to show when item ids unknown to the manifest carry a study tag the manifest has none of,
 * naming both tags and the likely cause; undefined when there is none (a typo, a hand-made id).
 * @param unknown the item ids the import did not find; @param manifestIds the manifest's item ids.
 */
export function otherSampleProblem(unknown: readonly string[], manifestIds: Iterable<string>): string | undefined {
  const ours = new Set<string>();
  for (const id of manifestIds) {
    const m = ITEM_ID.exec(id);
    if (m) ours.add(m[1]);
  }
  const theirs = new Map<string, number>();
  for (const id of unknown) {
    const m = ITEM_ID.exec(id);
    if (m && !ours.has(m[1])) theirs.set(m[1], (theirs.get(m[1]) ?? 0) + 1);
  }
  if (theirs.size === 0) return undefined;
  const tags = [...theirs].map(([t, n]) => `${t} (${n} row${n === 1 ? "" : "s"})`).join(", ");
  return (
    `item ids of another sample: study tag ${tags}, while this manifest's items are ${[...ours].join(", ") || "untagged"}: ` +
    `the annotations were given for another draw (another --seed, run or sample folder); import them with that sample's manifest.jsonl`
  );
}
