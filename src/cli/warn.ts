/** One warning line on stderr, its untrusted parts made visible (`../format/shown.ts`). */
import { showControls } from "../format/shown.js";

/**
 * Write `ipi-judge: warning: <w>` and a line feed to stderr, with every line-breaking, terminal or bidi control
 * character in `w` shown as a marker (`showControls`): a warning names models, conditions and files taken from the
 * run, and one of them must not start a line of its own (red team 25 L5).
 */
export function warnLine(w: string): void {
  process.stderr.write(`ipi-judge: warning: ${showControls(w)}\n`);
}
