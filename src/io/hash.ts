/**
 * The content hash of a trajectory, shared by the stages that store it (`run/`), check it (`sample/`, `report/`,
 * `view/`) and compare it: below all of them, so none imports it from a later stage.
 */
import crypto from "node:crypto";
import type { Trajectory } from "../types.js";

/**
 * sha256 over a trajectory's content (not its id or path): its messages and injections, and its tool list when it
 * has one (a changed tool description changes what the judge sees; trajectories without tools hash as before).
 * A trajectory with an `error` on a system, user or assistant message also hashes `n: 1`: since red team 39 F that
 * error is a harness note apart from the message's text (`serialize/parts.ts`), no longer joined into the agent's
 * words, so a verdict stored on the old view (a content filter's words verified as the agent's refusal) is judged
 * again on resume (`content_changed`); trajectories without such a note hash as before. A trajectory with a tool call
 * whose arguments are not valid JSON (`tool_arguments_invalid`, `ingest/tool-arguments.ts`) also hashes `a: 1`: its
 * verdicts carry that mark, so one stored before it is judged again; others hash as before.
 */
export function contentSha256(t: Trajectory): string {
  const base: Record<string, unknown> = Array.isArray(t.tools) && t.tools.length > 0 ? { m: t.messages, i: t.injections, t: t.tools } : { m: t.messages, i: t.injections };
  if (hasHarnessNote(t)) base.n = 1;
  // a call marked as not valid JSON (../ingest/tool-arguments.ts): its verdicts carry the mark, so a verdict stored
  // before the mark is of other content and judged again (a trajectory without such a call keeps its hash)
  if (Array.isArray(t.tool_arguments_invalid) && t.tool_arguments_invalid.length > 0) base.a = 1;
  const text = JSON.stringify(base);
  // the one-shot hash (Node >= 20.12) skips the Hash object a createHash call builds; same digest
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}
const oneShot = (crypto as unknown as { hash?: (alg: string, data: string, enc: "hex") => string }).hash;

/** Whether a message other than a tool result carries an `error` (a harness note: see {@link contentSha256}). */
function hasHarnessNote(t: Trajectory): boolean {
  if (!Array.isArray(t.messages)) return false;
  for (const m of t.messages) if (m?.role !== "tool" && typeof m?.error === "string" && m.error !== "") return true;
  return false;
}
