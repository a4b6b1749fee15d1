/** A trajectory id this run already holds with other content, read from another input: a duplicate, never a change. */
import fs from "node:fs";
import { sourceKey, type RunStore } from "../store/run-store.js";
import type { Trajectory } from "../types.js";
import { contentSha256 } from "./resume.js";

/**
 * The duplicate check of a run: for a trajectory whose id this run already holds with other content read from
 * another input, that input (`sourceKey`); else undefined. The same id from another input with other content is a
 * duplicate, never "the trajectory changed": a later invocation given the other file would silently swap the
 * judged trajectory (issue 23). Loud, not judged. Unless that other input's file is gone (moved or removed): then
 * nothing else claims the id, and it is a change (judged again, said as `content_changed`).
 */
export function duplicateSource(store: RunStore): (t: Trajectory) => string | undefined {
  return (t: Trajectory): string | undefined => {
    const storedFrom = store.trajectorySource(t.id);
    if (!(storedFrom !== undefined && storedFrom !== "" && storedFrom !== sourceKey(t.source) && store.hasTrajectory(t.id) && !store.sameTrajectory(t.id, contentSha256(t)))) return undefined;
    // the file it was read from is gone (its folder moved or it was removed): no other input claims the id any more,
    // so this is the trajectory changed where it now lives, judged again and said so, not a duplicate (break2_53 #8:
    // a moved folder with one file edited kept the stale verdict and asked to rename a trajectory that was fine)
    return fs.existsSync(storedFrom.replace(/:\d+$/, "")) ? storedFrom : undefined;
  };
}
