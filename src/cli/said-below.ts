/**
 * One caveat once per screen (new user 44 item 11: `npm start` showed the ~600-character "agent models ran different
 * attacks ..." caveat on stderr and again in the summary on stdout). A warning that the text summary on stdout prints
 * in full is cut short on stderr, with a pointer to the summary, when both streams go to the same terminal; when
 * either is redirected (`> summary.txt`, `2> err.log`), each stream keeps every warning whole, as a log needs.
 */
import { unwrapText } from "../format/wrap-text.js";

/** Warnings at most this long are written whole either way (a pointer would save little). */
const SHORT_ENOUGH = 160;

/** How much of a long warning stderr keeps before the pointer (cut at a word boundary). */
const HEAD = 100;

/** Whether stdout and stderr are both terminals (one screen, as a person running the command at a prompt sees it). */
export function sameScreen(stdout: { isTTY?: boolean } = process.stdout, stderr: { isTTY?: boolean } = process.stderr): boolean {
  return stdout.isTTY === true && stderr.isTTY === true;
}

/**
 * The stderr form of warning `w`: `w` itself, or, when `summaryText` (the stdout text, printed after the warnings,
 * given only when both streams are one screen: {@link sameScreen}) holds it whole and it is longer than 160
 * characters, its first ~100 characters and `... (in full in the summary below)`.
 * @param summaryText the text summary to be printed on stdout, or null (streams apart, or --json).
 */
export function stderrForm(w: string, summaryText: string | null): string {
  // the summary's long lines are broken for reading (../format/wrap-text.ts): the warning is looked for unbroken
  if (summaryText === null || w.length <= SHORT_ENOUGH || !unwrapText(summaryText).includes(w)) return w;
  const cut = w.lastIndexOf(" ", HEAD);
  return `${w.slice(0, cut > HEAD / 2 ? cut : HEAD).replace(/[\s,;:(]+$/, "")} ... (in full in the summary below)`;
}
