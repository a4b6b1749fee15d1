/**
 * The content hash of a trajectory, shared by the stages that store it (`run/`), check it (`sample/`, `report/`,
 * `view/`) and compare it: below all of them, so none imports it from a later stage.
 */
import crypto from "node:crypto";
import type { Trajectory } from "../types.js";

/**
 * sha256 over a trajectory's content (not its id or path): its messages and injections, and its tool list when it
 * has one (a changed tool description changes what the judge sees; trajectories without tools hash as before).
 */
export function contentSha256(t: Trajectory): string {
  const text = JSON.stringify(Array.isArray(t.tools) && t.tools.length > 0 ? { m: t.messages, i: t.injections, t: t.tools } : { m: t.messages, i: t.injections });
  // the one-shot hash (Node >= 20.12) skips the Hash object a createHash call builds; same digest
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}
const oneShot = (crypto as unknown as { hash?: (alg: string, data: string, enc: "hex") => string }).hash;
