/**
 * The signature judge's mark for attacker values it explained away as the environment's (`[env_explained]` notes in
 * its rationale, `../judges/signature/env-notes.ts`; sigfix53): how many a verdict has, as a field the slim records
 * (`./records.ts`, which keep no rationale) and judge health (`../verdict/env-explained-health.ts`) read. A verdict of
 * the signature judge stored before the field (`judge_model` `signature-v1`, no `env_explained`) is read from its
 * rationale's tags, so a stored run counts the same without being labelled again.
 */

/** The tag every such note of the signature judge's rationale starts with. */
export const ENV_EXPLAINED_TAG = "[env_explained]";

/** The signature judge's model name (`../judges/signature/index.ts`): its rationale alone carries the tag by rule. */
const SIGNATURE_MODEL = "signature-v1";

/**
 * How many values a verdict explained away as the environment's: its `env_explained` field when it has one, else, for
 * a signature verdict stored before the field, how many times its rationale carries {@link ENV_EXPLAINED_TAG}; 0 when none.
 * Another judge's rationale is never read (an LLM may quote any text).
 */
export function envExplainedOf(v: { env_explained?: unknown; judge_model?: unknown; rationale?: unknown }): number {
  if (typeof v.env_explained === "number" && Number.isSafeInteger(v.env_explained) && v.env_explained > 0) return v.env_explained;
  if (v.env_explained !== undefined || v.judge_model !== SIGNATURE_MODEL || typeof v.rationale !== "string") return 0;
  return v.rationale.split(ENV_EXPLAINED_TAG).length - 1;
}
