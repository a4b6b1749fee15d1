/** A trajectory id this run already holds with other content, read from another input: a duplicate, never a change. */
import { sourceKey, type RunStore } from "../store/run-store.js";
import type { Trajectory } from "../types.js";
import { contentSha256 } from "./resume.js";

/**
 * The duplicate check of a run: for a trajectory whose id this run already holds with other content read from
 * another input, that input (`sourceKey`); else undefined. The same id from another input with other content is a
 * duplicate, never "the trajectory changed": a later invocation given the other file would silently swap the
 * judged trajectory (issue 23). Loud, not judged.
 */
export function duplicateSource(store: RunStore): (t: Trajectory) => string | undefined {
  return (t: Trajectory): string | undefined => {
    const storedFrom = store.trajectorySource(t.id);
    return storedFrom !== undefined && storedFrom !== "" && storedFrom !== sourceKey(t.source) && store.hasTrajectory(t.id) && !store.sameTrajectory(t.id, contentSha256(t))
      ? storedFrom
      : undefined;
  };
}
