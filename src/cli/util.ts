import fs from "node:fs";
import path from "node:path";
import { UsageError } from "../errors.js";
import { checkRunName } from "../store/run-store.js";

/** Parse an integer option, or throw a UsageError naming it. */
export function intOption(v: unknown, name: string, min = 0): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} must be an integer >= ${min}, not "${v}"`);
  return n;
}

/** Print one JSON object on stdout (NaN never appears: it is mapped to null by the statistics beforehand). */
export function printJson(obj: unknown): void {
  process.stdout.write(JSON.stringify(obj, null, 2) + "\n");
}

/**
 * The folder of an existing run: `<labelsDir>/<run>`.
 * @throws UsageError for an invalid run name or a run that has not been labelled.
 */
export function runDirOf(labelsDir: string, run: string): string {
  try {
    checkRunName(run);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const runDir = path.resolve(labelsDir, run);
  if (!fs.existsSync(path.join(runDir, "verdicts.jsonl"))) {
    throw new UsageError(`no run "${run}" in ${labelsDir} (expected ${path.join(runDir, "verdicts.jsonl")}); run ipi-judge label first`);
  }
  return runDir;
}
