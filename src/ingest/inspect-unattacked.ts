/**
 * An Inspect sample that carries the benchmark's security verdict (`--security-scorer`) but counts as unattacked (no
 * injected text, no attack or an attack that means none): the `verdict_on_unattacked` warning chat JSONL gives for
 * such rows (`./chat-jsonl.ts`), so the rule input-formats.md states holds for Inspect logs too (newuser54 #5: two
 * unattacked samples scored `C` were said of the chat JSONL rows beside them, not of the log).
 */
import type { Trajectory } from "../types.js";
import { isAttacked } from "./attacked.js";
import type { ItemWarning } from "./warnings.js";

/**
 * The warning for one sample, or undefined when it is attacked or carries no security verdict.
 * @param t the sample's trajectory (after its metadata fields and scores were read); `meta` the sample's metadata;
 *   `scorer` the `--security-scorer` name; `path` the log; `where` the sample's place in it.
 */
export function inspectUnattackedVerdictWarning(t: Trajectory, meta: Record<string, unknown>, scorer: string | undefined, path: string, where: string): ItemWarning | undefined {
  if (isAttacked(t) || t.reference?.security === undefined) return undefined;
  const said = typeof meta.attack === "string" && meta.attack.trim() !== "" ? meta.attack : undefined;
  return {
    kind: "verdict_on_unattacked",
    scope: path,
    message:
      `${path}: samples carry a benchmark verdict (security, scorer ${JSON.stringify(scorer ?? "")}) but count as unattacked (no injected text` +
      `${said !== undefined ? `, and "metadata.attack" says ${JSON.stringify(said)}: no attack` : ", no attack field"}): they are left out of the attack-success rates. ` +
      `If they are attacked, record the injected text ("metadata.injections")${said === undefined ? " or map the key naming the attack: --field KEY=attack" : ""}; ` +
      `if they are not (a benchmark may record a security verdict on its runs without an attack, as AgentDyn's "none" attacks do), nothing needs doing`,
    item: where,
  };
}
