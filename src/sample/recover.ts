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
  /** the indexes built over a few files each (`recoveredAsLabelled`'s `files`), by their file list; bounded */
  byFiles?: Map<string, Promise<SiblingIndex>>;
}

/** Most few-file indexes kept at once (then forgotten and built again when asked). */
const BY_FILES_MAX = 64;

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
 * @param files when given, the only files that can serve `t` (its sibling runs and clean runs, as the run's index
 *   names them: `view` opening one trajectory): the index is built over them alone instead of over every input. The
 *   rules are the same (every sibling of its key is among them, so an ambiguous key is still ambiguous); the caller
 *   compares the result's content hash with the stored one, as for the whole read.
 */
export async function recoveredAsLabelled(
  t: Trajectory,
  inputs: readonly string[] | undefined,
  root: string,
  cache: SiblingCache,
  files?: (t: Trajectory) => readonly string[] | undefined,
): Promise<Trajectory> {
  if (!needsSibling(t)) return t;
  const few = files?.(t);
  if (few && few.length > 0) {
    const key = JSON.stringify([...few].sort());
    const by = (cache.byFiles ??= new Map());
    let index = by.get(key);
    if (!index) {
      if (by.size >= BY_FILES_MAX) by.clear();
      by.set(key, (index = buildSiblingIndex([...few], {})));
    }
    return (await index).recover(t);
  }
  if (!inputs || inputs.length === 0) return t;
  const index = await (cache.siblings ??= buildSiblingIndex(inputs.map((p) => path.resolve(root, p)), {}));
  return index.recover(t);
}
