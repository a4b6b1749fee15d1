import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** `../shared` beside the repository (CI lays a copy there); override with IPI_SHARED. */
export const SHARED = process.env.IPI_SHARED ?? path.resolve(ROOT, "../shared");
export const CASES = path.join(SHARED, "cases");
export const VECTORS = path.join(SHARED, "vectors");
export const CORPUS = path.join(SHARED, "corpus", "agentdojo");
export const SAMPLES = path.join(ROOT, "samples", "agentdojo");
/** The compiled transport worker script (tests that start a `TransportWorker` need the `dist/` build: `npm test` builds first). */
export const WORKER_ENTRY = path.join(ROOT, "dist", "judges", "transport-worker-entry.js");
