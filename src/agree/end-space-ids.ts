/**
 * Trajectory ids that differ only by white space at their ends (break50 finding 2). `label` and `sample` keep ids
 * exactly as the input stores them, so `"t1"` and `"t1 "` are two trajectories; every reader of labels compares ids
 * exactly too. A label whose id is not in the run (or the sample) exactly but is once its end spaces are removed is
 * never matched to the trimmed id (that could put the label on another trajectory than the one it was given for):
 * it is refused (import-annotations) or left out as not in the run (agree, estimate, report, view), and named here.
 */

/**
 * The clause naming the ids of `ids` that equal `id` once both are trimmed (and are not `id`), or "" when none:
 * `; ids are compared exactly as stored, and "t1" differs from it only by white space at the ends: correct the id if
 * the label is for that trajectory`.
 */
export function endSpaceTwin(id: string, ids: Iterable<string>): string {
  const t = id.trim();
  const twins: string[] = [];
  for (const x of ids) if (x !== id && x.trim() === t) twins.push(JSON.stringify(x));
  if (twins.length === 0) return "";
  return `; ids are compared exactly as stored, and ${twins.slice(0, 3).join(", ")} differ${twins.length === 1 ? "s" : ""} from it only by white space at the ends: correct the id if the label is for ${twins.length === 1 ? "that trajectory" : "one of them"}`;
}

/**
 * The warning naming label rows whose trajectory id the run lacks exactly but holds once trimmed
 * (`near`: line and both ids, the first 5 named), or undefined when there is none.
 */
export function endSpaceWarning(humanFile: string, near: ReadonlyArray<{ line: number; id: string; run_id: string }>): string | undefined {
  if (near.length === 0) return undefined;
  const named = near
    .slice(0, 5)
    .map((r) => `${r.line ? `line ${r.line}: ` : ""}${JSON.stringify(r.id)} (the run has ${JSON.stringify(r.run_id)})`)
    .join("; ");
  return (
    `label file ${humanFile}: ${near.length} label row${near.length === 1 ? " names a trajectory" : "s name trajectories"} the run holds only without white space at the ends of the id (${named}${near.length > 5 ? `; ... (${near.length} in all)` : ""}): ` +
    `ids are compared exactly as stored (the run keeps "t1" and "t1 " apart), so these labels are not put on the trajectory of the trimmed id but left out as not in the run; ` +
    `if they were given for it, correct the ids in the file (import-annotations writes them exactly as the sample's manifest holds them)`
  );
}
