/**
 * A record written over many lines inside a JSON Lines file (a pretty-printed object among one-line records: `jq .`
 * of one row pasted in, an editor's "format document"). Read line by line, each of its lines is one `invalid_json`
 * error (session 46: 59 errors for one record) and none says why. The readers of `.jsonl` files that name their bad
 * lines (trajectory input: ../ingest/index.ts; human labels, annotations, adjudications, sample manifests:
 * `jsonLines` of ./jsonl.ts) pass their lines through {@link PrettySpans}, which finds such a record so it is
 * reported once, by its line span, while the one-line records around it are read as before.
 *
 * A span is a run of lines whose first line fails to parse alone and begins (after blanks and a BOM) with `{` or `[`,
 * and whose last line holds that bracket's match, followed by nothing but blanks and at most one comma; brackets
 * inside strings do not count (a string never spans lines in JSON, so string state restarts on every line). It is
 * reported as one span when its lines joined parse as one JSON value, or when none of its lines parses alone (an
 * opening line and the lines up to its matching close); otherwise its lines are reported one by one as before.
 * A record cut short (break48; break47b left it: a pretty-printed record truncated at the end of the file gave one
 * error per line) is one span too: an opening line that is the bracket alone (as pretty printers write it), two or
 * more lines held from it, none of them parsing alone, and its bracket never closed before the end of the file or
 * the next record (`unclosed`: the end, or the record's line). A search settled for its size is not such a span.
 * A line that parses alone as a non-empty object (a record) is never inside a span: pretty-printed JSON puts no
 * non-empty object on one line, so such a line ends the search and is read as itself (a torn line before good records
 * cannot swallow them). Memory: the lines of one unfinished search are held, at most `maxBytes` of text.
 */

/** One non-blank line fed to {@link PrettySpans}, with what the reader made of it (`item`, handed back). */
export interface SpanLine<T> {
  /** 1-based line number */
  line: number;
  /** the line's text (only read while a search is open or when `parsed` is false) */
  text: () => string;
  /** the line parses alone as JSON */
  parsed: boolean;
  /** a record of its own (never inside a span; it ends an open search): for `jsonLines` a line that parses alone as
   * an object with at least one key; for the trajectory reader a line that converted (../ingest/pretty-record.ts) */
  record: boolean;
  /** the reader's own result for the line */
  item: T;
}

/** What {@link PrettySpans} hands back, in line order: a line to treat as the reader did, or a span said once. */
export type SpanOut<T> =
  | { kind: "line"; at: SpanLine<T> }
  | {
      kind: "span";
      /** first and last line of the span (1-based, inclusive) */
      first: number;
      last: number;
      /** the span's lines as fed (blank lines between them were not fed) */
      lines: SpanLine<T>[];
      /** the value the joined lines parse as, when they do */
      value?: unknown;
      /** `JSON.parse`'s message for the joined lines, when they do not parse */
      error?: string;
      /** its opening bracket is never closed: before the end of the file (`"end"`), or before the record on that line */
      unclosed?: "end" | number;
    };

/** Only blanks and at most one comma after a close: a span may end there. */
const TAIL_OK = /^\s*,?\s*$/;

/**
 * Finds pretty-printed records among JSON Lines (module docstring). Feed non-blank lines in order with
 * {@link PrettySpans.push}, then call {@link PrettySpans.end}; each returns what is settled, in order.
 * @param maxBytes the most text one open search holds; past it the search is settled with what it found (default:
 *   no limit, for text already in memory).
 */
export class PrettySpans<T> {
  private held: SpanLine<T>[] = [];
  private texts: string[] = [];
  private bytes = 0;
  /** open brackets: index into `held`, whether the bracket began its line */
  private stack: { at: number; starts: boolean }[] = [];
  /** matched multi-line spans by the index of their first line: the index of their last */
  private closes = new Map<number, number>();

  constructor(private readonly maxBytes = Infinity) {}

  /** No search is open: a line that parses would be handed straight back (a reader may skip {@link push} for it). */
  get idle(): boolean {
    return this.held.length === 0;
  }

  /** Feed one non-blank line; returns what is settled (possibly nothing while a search is open). */
  push(x: SpanLine<T>): SpanOut<T>[] {
    if (this.held.length === 0) {
      if (x.parsed) return [{ kind: "line", at: x }];
      this.hold(x);
      return this.stack.length === 0 ? this.settle() : [];
    }
    if (x.record) return [...this.settle(x.line), ...this.push(x)];
    this.hold(x);
    return this.stack.length === 0 || this.bytes > this.maxBytes ? this.settle() : [];
  }

  /** No more lines: settles what is held. */
  end(): SpanOut<T>[] {
    return this.settle("end");
  }

  private hold(x: SpanLine<T>): void {
    const at = this.held.length;
    const text = x.text();
    this.held.push(x);
    this.texts.push(text);
    this.bytes += text.length;
    let first = true;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 92) i++; // backslash: skip the escaped character
        else if (c === 34) inString = false;
        continue;
      }
      if (c === 34) inString = true;
      else if (c === 123 || c === 91) this.stack.push({ at, starts: first });
      else if (c === 125 || c === 93) {
        const open = this.stack.pop();
        if (open !== undefined && open.starts && open.at < at && !this.closes.has(open.at) && TAIL_OK.test(text.slice(i + 1))) this.closes.set(open.at, at);
      }
      if (first && c !== 32 && c !== 9 && c !== 0xfeff) first = false;
    }
  }

  /**
   * Hand back what is held: spans where one holds, lines otherwise; then start afresh.
   * @param cut what ends the search when it is not its size: the end of the file, or the line of a record
   *   (a record cut short before it is one span: module docstring).
   */
  private settle(cut?: "end" | number): SpanOut<T>[] {
    const out: SpanOut<T>[] = [];
    const held = this.held;
    const open = cut === undefined ? -1 : this.unclosedFrom();
    for (let p = 0; p < held.length; p++) {
      if (p === open) {
        out.push({ kind: "span", first: held[p].line, last: held[held.length - 1].line, lines: held.slice(p), unclosed: cut });
        break;
      }
      const q = this.closes.get(p);
      if (q !== undefined) {
        const span = this.span(p, q);
        if (span !== undefined) {
          out.push(span);
          p = q;
          continue;
        }
      }
      out.push({ kind: "line", at: held[p] });
    }
    this.held = [];
    this.texts = [];
    this.bytes = 0;
    this.stack = [];
    this.closes = new Map();
    return out;
  }

  /** Where a record cut short begins in `held` (module docstring), or -1. */
  private unclosedFrom(): number {
    const b = this.stack[0]; // the outermost bracket not closed
    if (b === undefined || !b.starts || this.held.length - b.at < 2 || !/^\ufeff?\s*[[{]\s*$/.test(this.texts[b.at])) return -1;
    for (let i = b.at; i < this.held.length; i++) if (this.held[i].parsed) return -1;
    return b.at;
  }

  /** Lines p..q as one span when they parse joined or none of them parses alone; else undefined. */
  private span(p: number, q: number): SpanOut<T> | undefined {
    const lines = this.held.slice(p, q + 1);
    const joined = this.texts.slice(p, q + 1).join("\n").replace(/,\s*$/, "");
    const where = { kind: "span" as const, first: lines[0].line, last: lines[lines.length - 1].line, lines };
    try {
      return { ...where, value: JSON.parse(joined.replace(/^\ufeff/, "")) as unknown };
    } catch (e) {
      return lines.some((l) => l.parsed) ? undefined : { ...where, error: (e as Error).message };
    }
  }
}

/**
 * The words for a span (one error naming it): `lines 3-61 hold one JSON object written over 59 lines: the file looks
 * pretty-printed, not one record per line; ...`. `what` names the record (`a trajectory`, `a label row`);
 * `fix` says how to put it on one line.
 */
export function spanText(s: Extract<SpanOut<unknown>, { kind: "span" }>, what = "record"): string {
  const n = s.last - s.first + 1;
  const v = s.value;
  const kind = v === undefined ? undefined : Array.isArray(v) ? `a JSON array of ${v.length} item(s)` : typeof v === "object" && v !== null ? "one JSON object" : "one JSON value";
  const head =
    s.unclosed !== undefined
      ? `lines ${s.first}-${s.last} begin one ${what} written over several lines whose opening bracket is never closed ${s.unclosed === "end" ? "before the end of the file" : `before the ${what} on line ${s.unclosed}`} (cut short?)`
      : kind !== undefined
      ? `lines ${s.first}-${s.last} hold ${kind} written over ${n} lines`
      : `lines ${s.first}-${s.last} look like one ${what} written over ${n} lines (an opening bracket and its matching close) but are not valid JSON joined (${s.error})`;
  return `${head}: the file looks pretty-printed, not one ${what} per line (JSON Lines); it is not read: write it on one line (e.g. jq -c .)`;
}
