/**
 * The linear scans behind `./instructing.ts` (red team 41: a 4-6 MB tool description took 2-60 s): each gives what
 * one of the detector's regular expressions gave, in time linear in the text (or in the text plus the tool list):
 * - {@link tagBlocks}: the `<important>...</important>`-style blocks of `/<(important|...)>[\s\S]*?<\/\1>/gi`, whose
 *   lazy scan to the end of the text from every unclosed opening tag was quadratic;
 * - {@link opensWithAction}: whether a line or sentence of a block opens with an imperative action verb (the regex
 *   `(?:^|\n|[.!?]\s+)\s*[>*-]?\s*(?:please\s+|always\s+|first,?\s+)?<ACTION>\b`, whose three whitespace quantifiers
 *   over one run of blank lines were cubic: 4,000 newlines took 43 s);
 * - {@link OtherTools}: whether a sentence names another tool of the list (a regular expression built per sentence and
 *   per tool before: sentences x tools).
 */

/** The tag names of an instructing tagged block (lower case; `instruction` and `instructions` both). */
const TAG_NAMES = String.raw`important|system|instructions?|admin|critical|secret`;
const TAG_TOKEN = new RegExp(String.raw`<(\/?)(${TAG_NAMES})>`, "gi");

/**
 * The tagged blocks of a text, as `/<(important|system|instructions?|admin|critical|secret)>[\s\S]*?<\/\1>/gi` finds
 * them with `exec` from the start: left to right, each an opening tag up to the first closing tag of the same name
 * (case-insensitive) after it, the next searched after its end; an opening tag never closed is no block.
 * @returns each block's start and end offsets (end exclusive), in order, not overlapping. Linear in the text.
 */
export function tagBlocks(text: string): Array<{ start: number; end: number }> {
  const opens: Array<{ start: number; end: number; name: string }> = [];
  const closes = new Map<string, number[]>();
  TAG_TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TAG_TOKEN.exec(text)) !== null) {
    const name = m[2].toLowerCase();
    if (m[1] === "") opens.push({ start: m.index, end: m.index + m[0].length, name });
    else {
      let list = closes.get(name);
      if (!list) closes.set(name, (list = []));
      list.push(m.index);
    }
  }
  const next = new Map<string, number>(); // per name: the first closing tag not yet passed
  const out: Array<{ start: number; end: number }> = [];
  let from = 0;
  for (const o of opens) {
    if (o.start < from) continue;
    const list = closes.get(o.name);
    if (!list) continue;
    let i = next.get(o.name) ?? 0;
    while (i < list.length && list[i] < o.end) i++;
    next.set(o.name, i);
    if (i === list.length) continue;
    const end = list[i] + o.name.length + 3;
    out.push({ start: o.start, end });
    from = end;
  }
  return out;
}

const WS_RUN = /\s+/g;

/**
 * Whether a line or sentence of `text` opens with an imperative action verb: at the text's start, after a line
 * break, or after `.`/`!`/`?` and white space, past white space and one optional `>`, `*` or `-` bullet, an optional
 * "please" / "always" / "first," then one of `action` (an alternation of verbs, matched case-insensitively as a word).
 * The same answer as the regular expression in the module docstring: everything before the verb is white space or
 * the bullet, so only the first character past a whole run of white space can open a line (a run at the text's start,
 * one holding a line break, or one after . ! ?). Linear in the text.
 */
export function opensWithAction(text: string, action: string): boolean {
  const tail = new RegExp(String.raw`[>*-]?\s*(?:please\s+|always\s+|first,?\s+)?${action}\b`, "iy");
  const at = (k: number): boolean => {
    tail.lastIndex = k;
    return tail.test(text);
  };
  if (text.length > 0 && !/\s/.test(text[0]) && at(0)) return true;
  WS_RUN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WS_RUN.exec(text)) !== null) {
    const a = m.index;
    const b = a + m[0].length;
    if (b >= text.length) break;
    const before = a > 0 ? text[a - 1] : "";
    const opens = a === 0 || m[0].includes("\n") || before === "." || before === "!" || before === "?";
    if (opens && at(b)) return true;
  }
  return false;
}

const WORD_RUN = /[A-Za-z0-9_]+/g;
const NON_WORD = /[^A-Za-z0-9_]/;

/**
 * The names of a tool list, to find in a sentence the name of a tool other than the one described (as a whole
 * word: not inside a longer `\w` run; case-insensitive; names shorter than 4 characters are never looked for). Built
 * once per list: a name made of word characters only is found by the sentence's word runs (a set look-up each); a
 * name holding other characters (`mcp.read-file`) keeps its own expression.
 */
export class OtherTools {
  private readonly words = new Map<string, number>();
  private readonly others: Array<{ name: string; re: RegExp }> = [];

  /** @param names every tool name of the list, duplicates included (a name given twice is another tool's too). */
  constructor(names: readonly string[]) {
    for (const n of names) {
      if (n.length < 4) continue;
      const lower = n.toLowerCase();
      if (!NON_WORD.test(lower)) this.words.set(lower, (this.words.get(lower) ?? 0) + 1);
      else this.others.push({ name: lower, re: new RegExp(String.raw`(?<![\w])${lower.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\w])`) });
    }
  }

  /**
   * Whether `lower` (a sentence, lower-cased) names a tool of the list other than `own` (the described tool's name:
   * left out once, so a name two tools share still counts).
   */
  namesOther(lower: string, own?: string): boolean {
    const self = own?.toLowerCase();
    WORD_RUN.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = WORD_RUN.exec(lower)) !== null) {
      const n = this.words.get(m[0]);
      if (n !== undefined && n - (m[0] === self ? 1 : 0) > 0) return true;
    }
    let selfLeft = self !== undefined && NON_WORD.test(self) ? 1 : 0;
    for (const o of this.others) {
      if (selfLeft > 0 && o.name === self) {
        selfLeft--;
        continue;
      }
      if (o.re.test(lower)) return true;
    }
    return false;
  }
}
