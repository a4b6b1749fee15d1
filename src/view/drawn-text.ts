/**
 * A sample's own rendering of its items (`tasks.jsonl`, written by `ipi-judge sample --out`: `{item_id, trajectory}`
 * per line), which the view shows in place of an item whose source changed since the sample was drawn (./annotations.ts
 * `drawnText`). Read like the view's other files of the sample folder: a line that is not JSON, not a task line, or
 * that gives one key twice with different values (`JSON.parse` keeps the last in silence: break45, the view would show
 * one of two texts the line gives as "the text the sample was drawn with") is not read, and a warning names the file,
 * line and what is wrong. An item given twice with different texts is shown with neither (which one was drawn is not
 * known), and said; the same text twice is kept once.
 */
import { repeatedKeyProblem } from "../io/jsonl.js";
import { eachSampleLine } from "./sample-lines.js";

/** The drawn texts of a sample's items and what could not be read. */
export interface DrawnTexts {
  /** item id -> the markdown the sample was drawn with. */
  texts: Map<string, string>;
  /** Why an item has no text here although a line names it: item id -> the reason (file and line named). */
  refused: Map<string, string>;
  /** One per line not read, or item given twice with different texts: `FILE line N: what, skipped`. */
  warnings: string[];
}

/**
 * Read a sample's `tasks.jsonl` (module docstring).
 * @param file the path; a file that does not exist gives no texts and no warnings (samples written before it existed).
 * @returns the texts by item id, the items refused with the reason, and the warnings (file and line named).
 */
export function readDrawnTexts(file: string): DrawnTexts {
  const out: DrawnTexts = { texts: new Map(), refused: new Map(), warnings: [] };
  const lineOf = new Map<string, number>();
  eachSampleLine(file, out.warnings, ": no item's drawn text can be shown", (v, line, where, n) => {
    const o = v as Record<string, unknown> | null;
    if (!o || typeof o !== "object" || Array.isArray(o) || typeof o.item_id !== "string" || typeof o.trajectory !== "string") {
      return out.warnings.push(`${where}: not a task line (item_id, trajectory), skipped`);
    }
    const id = o.item_id;
    const twice = repeatedKeyProblem(line, v);
    if (twice !== null) {
      out.refused.set(id, `${where}: ${twice}`);
      out.texts.delete(id);
      return out.warnings.push(`${where}: ${twice}: item ${id}'s drawn text is not shown`);
    }
    if (out.refused.has(id)) return;
    const had = out.texts.get(id);
    if (had === undefined) {
      out.texts.set(id, o.trajectory);
      lineOf.set(id, n);
    } else if (had !== o.trajectory) {
      out.texts.delete(id);
      const why = `${where}: item ${id} has another text here than at line ${lineOf.get(id)}`;
      out.refused.set(id, why);
      out.warnings.push(`${why}: which one the sample was drawn with is not known, neither is shown`);
    }
  });
  return out;
}
