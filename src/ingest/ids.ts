/**
 * Fallback trajectory ids for inputs that carry none: paths relative to the inputs' common folder (AgentDojo files
 * outside the layout, Inspect logs, shell trajectories) or to the current directory (chat-JSONL lines).
 */
import { stat } from "node:fs/promises";
import path from "node:path";

/**
 * The folder that fallback ids of AgentDojo files outside the layout, Inspect logs and shell trajectories are
 * relative to (chat-JSONL fallback ids use {@link chatFallbackIdPath} instead): the deepest common
 * ancestor of all the input paths, where a directory input stands for itself and a file input for the folder
 * holding it (paths are resolved against the current directory, links are not followed). So one folder or one
 * file read alone keeps the short ids it always had (`sub/a.jsonl:3`, `data.jsonl:1`), and inputs in different
 * folders get ids that differ by those folders (`x/data.jsonl:1`, `y/data.jsonl:1`) instead of colliding.
 * Paths that cannot be read are left out.
 *
 * @returns an absolute path, or `undefined` when no path can be read.
 */
export async function fallbackIdRoot(paths: string[]): Promise<string | undefined> {
  let common: string[] | undefined;
  for (const p of paths) {
    let dir: string;
    try {
      const abs = path.resolve(p);
      dir = (await stat(abs)).isDirectory() ? abs : path.dirname(abs);
    } catch {
      continue;
    }
    const parts = dir.split(path.sep);
    if (common === undefined) common = parts;
    else {
      let n = 0;
      while (n < common.length && n < parts.length && common[n] === parts[n]) n++;
      common = common.slice(0, n);
    }
  }
  if (common === undefined) return undefined;
  const joined = common.join(path.sep);
  return joined === "" ? path.parse(path.resolve(paths[0] ?? ".")).root : joined;
}

/**
 * A file's path for a fallback id: relative to `root` (`/`-separated); the file name when `root` is the file
 * itself; the whole resolved path when the file is not under `root`.
 */
export function idPath(root: string, file: string): string {
  const rel = path.relative(root, file);
  const p = rel === "" ? path.basename(file) : rel.startsWith("..") || path.isAbsolute(rel) ? path.resolve(file) : rel;
  return p.split(path.sep).join("/");
}

/**
 * The file part of a chat-JSONL fallback id (`<file>:<line>` for a line without an `id`): the file's path relative
 * to the current directory (`/`-separated), or its resolved path when it is not under the current directory. It
 * depends on the file alone, never on the other inputs of the same read, so `label x/data.jsonl` and
 * `label x/data.jsonl y/data.jsonl` give x's rows the same ids (`x/data.jsonl:1`), and a resumed run never judges
 * them again under new names.
 */
export function chatFallbackIdPath(file: string): string {
  return idPath(process.cwd(), path.resolve(file));
}
