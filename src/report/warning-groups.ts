/**
 * The report's warnings as its summary lists them (new user 45 #5: ~22 boxes opened the page before any figure): a
 * note the calibrated estimate gives alike for asr_goal and asr_behaviour said once, and each warning sorted into
 * "changes how a figure reads" or "note" by its kind (./warning-kinds.ts: a warning of no known kind changes how a
 * figure reads).
 * No warning is dropped: each appears once, in its group, in the order given.
 */
import { warningKindOf } from "./warning-kinds.js";

const GOAL = "estimate asr_goal, ";
const BEHAVIOUR = "estimate asr_behaviour, ";

/**
 * The warnings with each `estimate asr_goal, <group>: <text>` whose `estimate asr_behaviour, <group>: <text>` twin
 * is also there (the same words after the rate) said once, as `estimate asr_goal and asr_behaviour, <group>: <text>`,
 * at the first twin's place; every other warning as is, in order.
 */
export function mergeRateTwins(warnings: readonly string[]): string[] {
  const all = new Set(warnings);
  const said = new Set<string>();
  const out: string[] = [];
  for (const w of warnings) {
    if (said.has(w)) continue;
    said.add(w);
    const prefix = w.startsWith(GOAL) ? GOAL : w.startsWith(BEHAVIOUR) ? BEHAVIOUR : null;
    const rest = prefix ? w.slice(prefix.length) : "";
    const twin = prefix ? (prefix === GOAL ? BEHAVIOUR : GOAL) + rest : null;
    if (twin && all.has(twin) && !said.has(twin)) {
      said.add(twin);
      out.push(`estimate asr_goal and asr_behaviour, ${rest}`);
    } else out.push(w);
  }
  return out;
}

/** Whether a warning changes how a figure of the report reads (its kind's group, ./warning-kinds.ts; an unknown kind does), else it is a note. */
export function changesReading(w: string): boolean {
  return warningKindOf(w).group === "reading";
}

/** The warnings as the summary lists them: twins merged ({@link mergeRateTwins}), then split by {@link changesReading}. */
export function groupedWarnings(warnings: readonly string[]): { reading: string[]; notes: string[] } {
  const merged = mergeRateTwins(warnings);
  return { reading: merged.filter(changesReading), notes: merged.filter((w) => !changesReading(w)) };
}
