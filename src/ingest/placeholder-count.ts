/**
 * The pre-count's look at an AgentDojo-layout `.json` file: is it an empty placeholder (a combination the benchmark
 * never ran: `messages: []`, no verdict, no injected text; VIGIL has 8,023 of its 8,469 files)? `label` passes such a
 * file over at once, so its progress total leaves them out (session 48, newuser finding 2: "13/8,469 trajectories
 * ... ETA 2h01m" for a 21-second job). The test is the one `convertAgentDojo` (./agentdojo.ts) applies, on the raw
 * record; only small files are read (a placeholder holds a dozen short fields: VIGIL's are ~430 bytes), so the
 * pre-count of a corpus of real runs reads no run's file.
 */
import { readFileSync, statSync } from "node:fs";

/** Files above this many bytes are taken to be runs without reading them (a placeholder is ~430 bytes). */
export const PLACEHOLDER_MAX_BYTES = 4096;

/**
 * Whether a parsed AgentDojo record is an empty placeholder: `messages` an empty array, no `security` or `utility`
 * given (`undefined` or null), and no injected text (`injections` absent, null, "", `{}` or `[]`).
 */
export function isEmptyPlaceholderRecord(r: unknown): boolean {
  if (typeof r !== "object" || r === null || Array.isArray(r)) return false;
  const o = r as Record<string, unknown>;
  if (!Array.isArray(o.messages) || o.messages.length > 0) return false;
  if ((o.security !== undefined && o.security !== null) || (o.utility !== undefined && o.utility !== null)) return false;
  const inj = o.injections;
  return inj === undefined || inj === null || inj === "" || (Array.isArray(inj) ? inj.length === 0 : typeof inj === "object" && Object.keys(inj).length === 0);
}

/**
 * Whether the file at `file` is an empty placeholder ({@link isEmptyPlaceholderRecord}); false for a file larger than
 * {@link PLACEHOLDER_MAX_BYTES}, one that cannot be read or is not JSON (the read itself says what is wrong with it).
 * A UTF-8 byte order mark is passed over, as the reader does. Never throws.
 */
export function isPlaceholderFile(file: string): boolean {
  try {
    // one stat for a run's file (most of a real corpus): opened only when small enough to be a placeholder
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st || st.size > PLACEHOLDER_MAX_BYTES) return false;
    let text = readFileSync(file, "utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return text.length <= PLACEHOLDER_MAX_BYTES && isEmptyPlaceholderRecord(JSON.parse(text));
  } catch {
    return false;
  }
}
