/**
 * The judge-configuration part of the resume key (issue 12, point 5): `judge_config_sha256`, a sha256 over a
 * canonical JSON form (object keys sorted at every depth, `undefined` dropped) of everything about a judge that
 * can change its verdicts (`../judges/verdict-config.ts`) and the run settings it is applied with.
 */
import crypto from "node:crypto";

/** JSON text of a value with object keys sorted at every depth (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  );
}

/**
 * sha256 (hex) of {@link canonicalJson} of a judge's verdict-affecting configuration.
 * @param config a plain JSON object (`verdictConfig(...)` plus run settings); key order does not matter.
 */
export function judgeConfigSha256(config: unknown): string {
  return crypto.createHash("sha256").update(canonicalJson(config ?? null)).digest("hex");
}

/**
 * The top-level fields whose values differ between two configurations, as `field: old -> new` (values as compact
 * JSON, each cut to 80 characters); `[]` when they are equal.
 */
export function configDiff(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const show = (v: unknown) => {
    const s = v === undefined ? "(unset)" : canonicalJson(v);
    return s.length > 80 ? `${s.slice(0, 77)}...` : s;
  };
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.filter((k) => canonicalJson(before[k]) !== canonicalJson(after[k])).map((k) => `${k}: ${show(before[k])} -> ${show(after[k])}`);
}
