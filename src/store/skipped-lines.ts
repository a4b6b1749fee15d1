/**
 * The journal lines a reader skipped, kept for the whole process so a command can say so (house rule: bad input
 * is named by file and line, never dropped without a word). Every reader of a run's journals (`./records.ts`,
 * `./lean-read.ts`, `RunStore.open`) reports the lines it skips here; `Journal.open` reports the partial last line
 * it cuts. The CLI prints {@link takeJournalWarnings} once per file on stderr (and a command with `--json`
 * warnings adds them there). A file read twice by one command is counted once (lines are kept by number).
 */
import fs from "node:fs";
import path from "node:path";

/** How many line numbers a warning lists before "...". */
const SHOWN = 5;

/** What was skipped in one journal file. */
export interface SkippedLines {
  /** the file, absolute */
  file: string;
  /** why a line was skipped, e.g. `not a verdict record` */
  what: string;
  /** the 1-based numbers of the lines skipped (distinct, ascending) */
  lines: number[];
  /** the partial last line (no final newline: a killed writer), when one was seen; its number when known */
  torn?: { line?: number; cut: boolean };
  /**
   * Lines whose own fields contradict them (`./verdict-check.ts`), by line (ascending): `refused` ones are among
   * `lines` (skipped), the others were read as written.
   */
  questioned?: { line: number; why: string; refused: boolean }[];
}

interface Entry {
  what: string;
  lines: Set<number>;
  torn?: { line?: number; cut: boolean };
  questioned?: Map<number, { why: string; refused: boolean }>;
  /** the warning text last handed out (an unchanged entry is not said twice) */
  said?: string;
}

const registry = new Map<string, Entry>();
/** Other run-level notes (verdicts without an index row), by key, with the same said-once rule. */
const notes = new Map<string, { text: string; said?: string }>();

function entry(file: string, what: string): Entry {
  const k = path.resolve(file);
  let e = registry.get(k);
  if (!e) registry.set(k, (e = { what, lines: new Set() }));
  return e;
}

/** Whether a file's last byte is not a newline (a partial last line); false for a missing or empty file. */
function endsTorn(file: string): boolean {
  try {
    const size = fs.statSync(file).size;
    if (size === 0) return false;
    const fd = fs.openSync(file, "r");
    try {
      const b = Buffer.alloc(1);
      fs.readSync(fd, b, 0, 1, size - 1);
      return b[0] !== 0x0a;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

/**
 * A counter for one read of one journal: `bad(line)` for each skipped line, `end(lines)` once with the number of
 * lines read. On `end`, a skipped last line of a file without a final newline is marked torn (a killed writer).
 * @param file the journal; @param what why its lines are skipped (`not a verdict record`).
 */
export function journalSkips(file: string, what: string): { bad: (line: number) => void; end: (lines: number) => void } {
  let last = 0;
  const seen: number[] = [];
  return {
    bad: (line) => {
      seen.push(line);
      last = line;
    },
    end: (lines) => {
      if (!seen.length) return;
      const e = entry(file, what);
      for (const l of seen) e.lines.add(l);
      if (last === lines && endsTorn(file)) e.torn = { line: last, cut: e.torn?.cut ?? false };
    },
  };
}

/**
 * Record a line whose own fields contradict it (`./verdict-check.ts`, `./error-check.ts`): `refused` when the reader
 * skips it (report it with the reader's `bad` too), else read as written. Said with the file's other skipped lines,
 * once. @param what the file's skip reason when this is its first note (default a verdict journal's).
 */
export function noteQuestionedLine(file: string, line: number, why: string, refused: boolean, what = "not a verdict record"): void {
  const e = entry(file, what);
  (e.questioned ??= new Map()).set(line, { why, refused });
}

/** Record that `Journal.open` cut a partial last line of `file` (a killed writer) before appending. */
export function noteTornTailCut(file: string): void {
  const e = registry.get(path.resolve(file));
  if (e) e.torn = { line: e.torn?.line, cut: true };
  else registry.set(path.resolve(file), { what: "partial last line", lines: new Set(), torn: { cut: true } });
}

/**
 * Record how many of a run's current verdicts have no row in `trajectories.jsonl` (one note per run folder, the
 * latest count). They stay counted: the verdict's own `attacked`, model and condition stand in for the row.
 * @param has whether the index has a row for an id.
 */
export function noteVerdictsWithoutRow(runDir: string, verdicts: Iterable<{ trajectory_id: string }>, has: (id: string) => boolean): void {
  const k = `orphans\u0000${path.resolve(runDir)}`;
  const ids = new Set<string>();
  let count = 0;
  for (const v of verdicts) {
    if (has(v.trajectory_id)) continue;
    count++;
    if (ids.size < 4) ids.add(v.trajectory_id);
  }
  if (count === 0) return void notes.delete(k);
  const shown = [...ids].slice(0, 3).map((i) => JSON.stringify(i)).join(", ");
  const text =
    `${path.join(path.resolve(runDir), "verdicts.jsonl")}: ${count} verdict${count === 1 ? "" : "s"} for a trajectory not in trajectories.jsonl ` +
    `(${shown}${ids.size > 3 ? ", ..." : ""}); counted, with the verdict's own attacked/model/condition standing in for the missing row`;
  notes.set(k, { text, said: notes.get(k)?.said });
}

/**
 * Record how many of a run's current verdicts were stored with a label other than `not_exposed` (and no verified
 * quote of the agent's own action) on an unattacked trajectory (made before the rule of `../rubric/unattacked.ts`) and are counted as `not_exposed` (one note per run
 * folder, the latest count; none when 0). The file is not rewritten.
 */
export function noteUnattackedRelabels(runDir: string, count: number): void {
  const k = `unattacked\u0000${path.resolve(runDir)}`;
  if (count === 0) return void notes.delete(k);
  const text =
    `${path.join(path.resolve(runDir), "verdicts.jsonl")}: ${count} verdict${count === 1 ? "" : "s"} on unattacked trajectories ${count === 1 ? "was" : "were"} stored with a label other than not_exposed ` +
    `and no verified quote of the agent's own action (made before the rule); counted as not_exposed (DESIGN section 1, row 6: no attack, no exposure) in every figure; the file is not rewritten, the judge's claim stays in label_claimed`;
  notes.set(k, { text, said: notes.get(k)?.said });
}

/**
 * Record (or, for `text` undefined, drop) one run-level note under `key`, said once like the others (the same text
 * again is not said twice): what `./removed-ids.ts` says of the trajectories it leaves out.
 */
export function noteRunLevel(key: string, text: string | undefined): void {
  if (text === undefined) return void notes.delete(key);
  notes.set(key, { text, said: notes.get(key)?.said });
}

/** The run-level note recorded under `key` (said or not), or undefined. */
export function runLevelNote(key: string): string | undefined {
  return notes.get(key)?.text;
}

/** Take the run-level note `text` under `key` as said (another statement of the command says the same). */
export function markRunLevelSaid(key: string, text: string): void {
  notes.set(key, { text, said: text });
}

/** What was skipped so far in this process, one entry per file. */
export function skippedLines(): SkippedLines[] {
  return [...registry].map(([file, e]) => ({
    file,
    what: e.what,
    lines: [...e.lines].sort((a, b) => a - b),
    ...(e.torn ? { torn: { ...e.torn } } : {}),
    ...(e.questioned?.size ? { questioned: [...e.questioned].map(([line, q]) => ({ line, ...q })).sort((a, b) => a.line - b.line) } : {}),
  }));
}

/** The warning for one file: `<file>: 3 lines skipped (not a verdict record): lines 12, 17, 20[, ... (N in all)]`. */
export function formatSkipped(s: SkippedLines): string {
  const n = s.lines.length;
  const shown = s.lines.slice(0, SHOWN).join(", ") + (n > SHOWN ? `, ... (${n} in all)` : "");
  const parts: string[] = [];
  if (n) parts.push(`${n} line${n === 1 ? "" : "s"} skipped (${s.what}): line${n === 1 ? "" : "s"} ${shown}`);
  if (s.torn) {
    const which = s.torn.line !== undefined ? `line ${s.torn.line} is` : "its last line was";
    parts.push(`${which} a partial last line (a killed writer)${s.torn.cut ? ", cut off before appending" : "; label cuts it when it resumes"}`);
  }
  const refused = (s.questioned ?? []).filter((q) => q.refused);
  if (refused.length) parts.push(`refused: ${whyShown(refused)}`);
  if (n && s.what.includes("verdict")) parts.push("label judges again what a skipped verdict held");
  const read = (s.questioned ?? []).filter((q) => !q.refused);
  if (read.length)
    parts.push(
      `${read.length} verdict line${read.length === 1 ? "" : "s"} contradicted by ${read.length === 1 ? "its" : "their"} own fields (edited by hand?), read and counted as written: ${whyShown(read)}; ` +
        `delete ${read.length === 1 ? "it" : "them"} and run label again to have ${read.length === 1 ? "it" : "them"} judged again`,
    );
  return `${s.file}: ${parts.join("; ")}`;
}

/** The first questioned lines with their reasons: `line 7: label "x" ...; line 9: ...[; ... (N in all)]`. */
function whyShown(q: { line: number; why: string }[]): string {
  const shown = q.slice(0, 3).map((x) => `line ${x.line}: ${x.why}`);
  return shown.join("; ") + (q.length > 3 ? `; ... (${q.length} in all)` : "");
}

/**
 * The warnings not yet handed out: one per journal file with skipped lines (or a cut partial last line), and one
 * per run with verdicts lacking an index row. Each is handed out once (again only if it changed).
 */
export function takeJournalWarnings(): string[] {
  const out: string[] = [];
  for (const s of skippedLines()) {
    const e = registry.get(s.file)!;
    const w = formatSkipped(s);
    if (e.said !== w) out.push((e.said = w));
  }
  for (const n of notes.values()) if (n.said !== n.text) out.push((n.said = n.text));
  return out;
}

/**
 * The warnings recorded so far about one run folder (its journals' skipped lines and its run-level notes, said
 * already or not), without taking any: for an output that carries them besides stderr (the report's page and its
 * `--json` summary). `except` leaves out the notes of these kinds (the key's part before the folder, e.g. `removed`:
 * an output that says it its own way).
 */
export function journalWarningsNow(runDir: string, except: readonly string[] = []): string[] {
  const dir = path.resolve(runDir);
  const files = skippedLines().filter((s) => path.dirname(s.file) === dir).map(formatSkipped);
  const own = [...notes].filter(([k]) => k.endsWith(`\u0000${dir}`) && !except.includes(k.slice(0, k.indexOf("\u0000"))));
  return [...files, ...own.map(([, n]) => n.text)];
}

/** Forget everything recorded (tests; a long-lived library caller between runs). */
export function clearJournalSkips(): void {
  registry.clear();
  notes.clear();
}
