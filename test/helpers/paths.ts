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
/** The compiled transport worker script (tests that start a `TransportWorker` need the `dist/` build: `npm test` builds first). */
export const WORKER_ENTRY = path.join(ROOT, "dist", "judges", "transport-worker-entry.js");
