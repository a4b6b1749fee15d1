import { UsageError } from "./errors.js";

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
