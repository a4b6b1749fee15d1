/**
 * A re-read trajectory as `label` judged it: an attacked run whose log records no injected text (AgentDyn's DRIFT
 * logs) was labelled with the text `label` recovered from its sibling runs or the clean run (`../run/siblings.ts`),
 * which its stored content hash covers. Re-reading the bare file gives another hash; this recovers it the same way,
 * over the run's recorded inputs (`store.json` `inputs`), for `./source.ts`.
 */
import fs from "node:fs";
import path from "node:path";
import { buildSiblingIndex, needsSibling, type SiblingIndex } from "../run/siblings.js";
import type { Trajectory } from "../types.js";

/** The sibling index built over a run's inputs, kept between calls (`view` loads trajectories one at a time). */
export interface SiblingCache {
  siblings?: Promise<SiblingIndex>;
}

/** The input paths a run records (`<runDir>/store.json` `inputs`); undefined when it records none or cannot be read. */
export function recordedInputs(runDir: string): string[] | undefined {
  try {
    const inputs: unknown = (JSON.parse(fs.readFileSync(path.join(runDir, "store.json"), "utf8")) as { inputs?: unknown }).inputs;
    return Array.isArray(inputs) && inputs.every((p) => typeof p === "string") ? (inputs as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `t` with its injected text recovered as `label` recovered it, when it needs that (`needsSibling`) and the run's
 * inputs are known; else `t` itself (also when nothing could be recovered). Never mutates `t`.
 * @param inputs the run's recorded input paths, resolved from `root`; `cache` keeps the index built over them.
 */
export async function recoveredAsLabelled(t: Trajectory, inputs: readonly string[] | undefined, root: string, cache: SiblingCache): Promise<Trajectory> {
  if (!needsSibling(t) || !inputs || inputs.length === 0) return t;
  const index = await (cache.siblings ??= buildSiblingIndex(inputs.map((p) => path.resolve(root, p)), {}));
  return index.recover(t);
}
