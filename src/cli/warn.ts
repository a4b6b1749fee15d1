/** One warning line on stderr, its untrusted parts made visible (`../format/shown.ts`), each text once per command. */
import { showControls } from "../format/shown.js";

/** Warnings written by this process (one command), with how many times each was given. */
const said = new Map<string, number>();
/**
 * Warnings written as they happened (`every`): the same text given again once (label's summary lists a batch's warnings
 * it said during the run) is not written a second time (red team 40: each batch warning was on stderr twice in a row).
 */
const live = new Set<string>();

/**
 * Write `ipi-judge: warning: <w>` and a line feed to stderr, with every line-breaking, terminal or bidi control
 * character in `w` shown as a marker (`showControls`): a warning names models, conditions and files taken from the
 * run, and one of them must not start a line of its own (red team 25 L5). A text already written by this command is
 * not written again (session 39: one warning per distinct fact), only counted: {@link repeatedWarningsNote} says the
 * counts at the end. `every`: write each time (a long run's warnings as they happen, e.g. label's provider retries); a text
 * written so is not written again by a call without it (the end-of-run summary repeating it).
 */
export function warnLine(w: string, every = false): void {
  if (every) live.add(w);
  else if (live.has(w)) return;
  else {
    const n = (said.get(w) ?? 0) + 1;
    said.set(w, n);
    if (n > 1) return;
  }
  process.stderr.write(`ipi-judge: warning: ${showControls(w)}\n`);
}

/**
 * Write `ipi-judge: note: <n>` and a line feed to stderr (information: the figures are right, e.g. inputs that moved),
 * its untrusted parts made visible as {@link warnLine}'s, each text once per command.
 */
export function noteLine(n: string): void {
  const k = `note\u0000${n}`;
  if (said.has(k)) return;
  said.set(k, 1);
  process.stderr.write(`ipi-judge: note: ${showControls(n)}\n`);
}

/** Start a command with no warning said (`main` runs one command per call; tests call it several times in one process). */
export function resetWarnings(): void {
  said.clear();
  live.clear();
}

/**
 * The note on the warnings this command gave more than once and wrote once (`null` when none): how many, and the
 * start of each with its count. Ends the command's count ({@link resetWarnings}).
 */
export function repeatedWarningsNote(): string | null {
  const rep = [...said].filter(([, n]) => n > 1);
  said.clear();
  live.clear();
  if (rep.length === 0) return null;
  const head = (w: string) => (w.length > 60 ? `${w.slice(0, 60)}...` : w);
  return `${rep.length} warning${rep.length === 1 ? " was" : "s were"} given more than once and written once above: ${rep.map(([w, n]) => `"${showControls(head(w))}" ${n} times`).join("; ")}`;
}
