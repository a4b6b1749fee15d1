/**
 * Long text lines broken for a reader (new user 46 item 4: `label` on AgentDyn printed lines of ~1,500 characters):
 * a line wider than the limit is broken at its clause boundaries (`; ` outside parentheses and brackets) first, then
 * at spaces, never inside a word; every continuation line is indented deeper than the line it continues.
 *
 * A break replaces exactly one space with a newline and the continuation's indent, so {@link unwrapText} gives the
 * line back as it was (a warning printed on stderr is found in the wrapped summary that way: `../cli/said-below.ts`).
 *
 * A bracketed group stays whole on the line of what it qualifies where it can (session 49): no break inside `[ ]`,
 * before a `[`, between `]` and `(`, or beside another space (a table's padding), so an interval and its count
 * `0.0% [0.0, 1.1] (0/12)` are not split; a rate's mark (`[JUDGE x LOOKS BROKEN: see the warning]`) that would be is
 * kept on its line, which may then run to {@link HARD_WIDTH} (a row's mark on the row's first line).
 */

/** The widest prose line the text outputs aim at (tables may be wider, up to {@link HARD_WIDTH}). */
export const TEXT_WIDTH = 120;

/** No line of a text summary is wider than this (a table row wider than it is broken too). */
export const HARD_WIDTH = 160;

/**
 * The spaces of `s` a break should avoid: inside `[ ]`, right before a `[` (an interval or a mark stays with its
 * figure), or next to another space (padding: the continuation's indent would swallow it in {@link unwrapText}).
 */
function keptSpaces(s: string): Set<number> {
  const out = new Set<number>();
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "[") depth++;
    else if (c === "]" && depth > 0) depth--;
    else if (c === " " && (depth > 0 || s[i + 1] === "[" || s[i + 1] === " " || s[i - 1] === " " || (s[i - 1] === "]" && s[i + 1] === "("))) out.add(i);
  }
  return out;
}

/** What ends a rate's mark (`../verdict/rate-caveat.ts` `rateCaveatMark`: `[JUDGE x LOOKS BROKEN: see the warning]`). */
const MARK_END = "see the warning]";

/**
 * Where a line broken at `cut` (one of `kept`, inside or before a bracketed group) should break instead so that a
 * rate's mark straddling `cut` stays whole on the line: the first space after `cut` not in `kept`, or `line.length`
 * when none (the rest stays on the line); -1 when no mark straddles `cut` or the line would run past `maxEnd`.
 */
function pastMark(line: string, cut: number, kept: ReadonlySet<number>, maxEnd: number): number {
  let j = cut;
  while (j < line.length && !(line[j] === " " && !kept.has(j))) j++;
  return j <= maxEnd && line.slice(Math.max(0, cut - MARK_END.length), j).includes(MARK_END) ? j : -1;
}

/** The clause boundaries of `s` outside ( ) and [ ]: indices of the space after each top-level `; `. */
function clauseBreaks(s: string): Set<number> {
  const out = new Set<number>();
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "(" || c === "[") depth++;
    else if ((c === ")" || c === "]") && depth > 0) depth--;
    else if (c === ";" && depth === 0 && s[i + 1] === " ") out.add(i + 1);
  }
  return out;
}

/**
 * `line` broken into lines of at most `width` characters where it can be (a single word wider than that stays
 * whole): at top-level clause boundaries when one falls in the line's second half, else at the last space that fits.
 * Continuation lines carry the line's own leading spaces plus `hang` (default 4) more; when those leave no room, one
 * word a line (never a break inside the leading spaces).
 * @returns the lines (one: `line` itself when it fits).
 */
export function wrapLine(line: string, width: number = TEXT_WIDTH, hang = 4): string[] {
  if (line.length <= width) return [line];
  const lead = line.length - line.trimStart().length;
  const indent = " ".repeat(lead + hang);
  const clauses = clauseBreaks(line);
  const kept = keptSpaces(line);
  const out: string[] = [];
  let start = 0; // where the current piece begins in `line`
  let prefix = "";
  while (prefix.length + line.length - start > width) {
    // characters of `line` from `start` that fit; at least 1, so an indent as wide as the line still moves on a word
    // at a time (break48: with its indent + hang at the width, the room went to 0 or below and the loop never ended)
    const room = Math.max(1, width - prefix.length);
    const limit = start + room;
    let cut = -1; // the last space that fits
    let good = -1; // the last that fits and is not one of `kept`
    let clause = -1;
    const from = start === 0 ? lead : start; // never a break inside the line's own indent
    for (let i = limit; i > from; i--)
      if (line[i] === " ") {
        if (cut === -1) cut = i;
        if (good === -1 && !kept.has(i)) good = i;
        if (clauses.has(i)) {
          clause = i;
          break;
        }
      }
    // a rate's mark that would be split stays on the line, up to HARD_WIDTH (a row's mark on the row's first line);
    // else a bracketed group is moved whole, unless the line would be left short
    const past = cut !== -1 && kept.has(cut) ? pastMark(line, cut, kept, start + Math.max(room, HARD_WIDTH - prefix.length)) : -1;
    if (past === line.length) break;
    if (past !== -1) cut = past;
    else if (good !== -1 && good - start >= room / 3) cut = good;
    if (clause !== -1 && clause - start >= room / 2) cut = clause;
    if (cut === -1) cut = line.indexOf(" ", Math.max(limit, from + 1)); // one word wider than the room: broken after it (never inside the indent)
    if (cut === -1) break;
    out.push(prefix + line.slice(start, cut));
    start = cut + 1;
    prefix = indent;
  }
  out.push(prefix + line.slice(start));
  return out;
}

/** Every line of `lines` through {@link wrapLine} (`width`, `hang`). */
export function wrapLines(lines: readonly string[], width: number = TEXT_WIDTH, hang = 4): string[] {
  return lines.flatMap((l) => wrapLine(l, width, hang));
}

/** `text` with every continuation break of {@link wrapLine} joined back (a newline and spaces read as one space). */
export function unwrapText(text: string): string {
  return text.replace(/\n +/g, " ");
}

/**
 * A whole text output (lines joined by `\n`) with every line through {@link wrapLine} (`width`, `hang`): the text
 * outputs of `estimate`, `agree` and `compare`, whose warnings, population lines and footnotes ran to 600-1,300
 * characters. Their rows of padded names followed by prose (compare's rates per model and condition, agree's
 * disagreements by kind) are broken too, after the names; a table wider than `width` must not be given here (estimate's
 * paper table: `../estimate/table.ts` wraps the lines around it). {@link unwrapText} gives the text back.
 */
export function wrapText(text: string, width: number = TEXT_WIDTH, hang = 4): string {
  return wrapLines(text.split("\n"), width, hang).join("\n");
}

/** Whether a line is a table's (cells padded: two spaces inside it after its indent): {@link wrapProse} keeps it whole. */
export function isTableRow(line: string): boolean {
  return /\S {2,}\S/.test(line);
}

/**
 * {@link wrapText}, but a table row ({@link isTableRow}) stays whole: `label`'s summary and `estimate --table`, whose
 * tables are fitted to the terminal by their own printer (`./text-table.ts` `wrappedTable`), a file getting each row
 * on one line for grep.
 */
export function wrapProse(text: string, width: number = TEXT_WIDTH, hang = 4): string {
  return text
    .split("\n")
    .flatMap((l) => (isTableRow(l) ? [l] : wrapLine(l, width, hang)))
    .join("\n");
}
