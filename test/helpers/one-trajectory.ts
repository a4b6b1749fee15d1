/**
 * The first trajectory of one crafted JSON file, read through the real ingest path (`readTrajectories`), for tests
 * that judge single hand-made cases.
 *
 * @param dir - folder of the case files.
 * @param name - the file's name without `.json`.
 * @returns the canonical trajectory.
 * @throws Error when the file holds no trajectory (an input error, a placeholder).
 */
import path from "node:path";
import { readTrajectories } from "../../src/ingest/index.js";
import type { Trajectory } from "../../src/types.js";

export async function loadOneTrajectory(dir: string, name: string): Promise<Trajectory> {
  for await (const item of readTrajectories([path.join(dir, `${name}.json`)])) if (item.kind === "trajectory") return item.trajectory;
  throw new Error(`no trajectory in ${name}`);
}
