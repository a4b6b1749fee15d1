/**
 * The content hash of a trajectory, shared by the stages that store it (`run/`), check it (`sample/`, `report/`,
 * `view/`) and compare it: below all of them, so none imports it from a later stage.
 */
import crypto from "node:crypto";
import type { Trajectory } from "../types.js";

/**
 * The JSON text a trajectory's content hash was computed over ({@link contentSha256} with `keep`), held while the
 * trajectory lives, with the values it was made from (so a trajectory given other messages, injections or tools since
 * is not taken for it).
 */
interface KeptText {
  text: string;
  /** The text holds the tool list (`t` key): the trajectory had a non-empty one. */
  tools: boolean;
  messages: Trajectory["messages"];
  injections: Trajectory["injections"];
  toolList: Trajectory["tools"];
}

const kept = new WeakMap<Trajectory, KeptText>();

/**
 * sha256 over a trajectory's content (not its id or path): its messages and injections, and its tool list when it
 * has one (a changed tool description changes what the judge sees; trajectories without tools hash as before).
 * @param keep keep the JSON text hashed while `t` lives, for {@link keptContentText} (`label`'s index row: the
 *   signature judge's worker pool sends that text instead of copying the same values again).
 */
export function contentSha256(t: Trajectory, keep = false): string {
  const tools = Array.isArray(t.tools) && t.tools.length > 0;
  const text = JSON.stringify(tools ? { m: t.messages, i: t.injections, t: t.tools } : { m: t.messages, i: t.injections });
  if (keep) kept.set(t, { text, tools, messages: t.messages, injections: t.injections, toolList: t.tools });
  // the one-shot hash (Node >= 20.12) skips the Hash object a createHash call builds; same digest
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}
const oneShot = (crypto as unknown as { hash?: (alg: string, data: string, enc: "hex") => string }).hash;

/**
 * The JSON text `contentSha256(t, true)` hashed: `{"m": messages, "i": injections}`, with `"t": tools` when
 * `tools` is true. Undefined when none was kept for this object, or when its messages, injections or tool list
 * are other values than the ones hashed (the text would be stale). The values are not compared deeply: a caller
 * that changes a message in place after hashing must not use it (`label` does not: the index row is made from the
 * trajectory it judges, `run/prepare.ts`).
 */
export function keptContentText(t: Trajectory): { text: string; tools: boolean } | undefined {
  const k = kept.get(t);
  if (k === undefined || k.messages !== t.messages || k.injections !== t.injections || k.toolList !== t.tools) return undefined;
  return k;
}
