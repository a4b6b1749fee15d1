import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** `../shared` beside the repository (CI lays a copy there); override with IPI_SHARED. */
export const SHARED = process.env.IPI_SHARED ?? path.resolve(ROOT, "../shared");
/** Test data vendored in the repository (see test/data/NOTICE): a fresh clone needs no `../shared`. */
export const DATA = path.join(ROOT, "test", "data");
export const CASES = path.join(DATA, "cases");
export const VECTORS = path.join(DATA, "vectors");
export const CORPUS = path.join(DATA, "agentdojo");
/** The larger archives (scale, defenses, AgentDyn, VIGIL) live only in `../shared/corpus`. */
export const SHARED_CORPUS = path.join(SHARED, "corpus");
export const SAMPLES = path.join(ROOT, "samples", "agentdojo");

/**
 * A resource a test needs beyond what the repository holds (a `../shared` archive, a browser binary).
 * Returns `{ path, skip }`: `skip` is false when the resource exists, else a one-line reason to pass to
 * `describe.skipIf(skip)` / `it.skipIf(skip)` (and to guard any `beforeAll` that would use it). Every such
 * skip is printed to stderr and, when `IPI_SKIP_LOG` is set (`.ci/run` sets it), appended to that file, so CI
 * can fail on any resource skip. `hint` says how to provide it (default: point IPI_SHARED at a shared folder).
 */
export function resource(
  p: string,
  what: string,
  hint = "set IPI_SHARED=<folder holding corpus/> to run this",
): { path: string; skip: string | false } {
  if (fs.existsSync(p)) return { path: p, skip: false };
  const reason = `${callerTestFile() ?? "a test"}: ${what} not found at ${p}: ${hint}`;
  process.stderr.write(`[skip] ${reason}\n`);
  if (process.env.IPI_SKIP_LOG) fs.appendFileSync(process.env.IPI_SKIP_LOG, reason + "\n");
  return { path: p, skip: reason };
}

/** The test file (relative to the repository) that called into this module, from the stack; undefined if none. */
function callerTestFile(): string | undefined {
  for (const line of (new Error().stack ?? "").split("\n").slice(1)) {
    const m = /(?:file:\/\/)?(\/[^():]+\.test\.ts)/.exec(line);
    if (m) return path.relative(ROOT, m[1]);
  }
  return undefined;
}

/** A `../shared/corpus` archive or folder (e.g. "agentdyn.tgz"), as a `resource`. */
export function sharedCorpus(name: string): { path: string; skip: string | false } {
  return resource(path.join(SHARED_CORPUS, name), `shared corpus ${name}`);
}
