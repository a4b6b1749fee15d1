/**
 * The list of `ipi-judge view`, served a page at a time: filters (metadata fields, each judge's label, committee
 * status, disagreement with the benchmark or the humans' consensus, verdict status, text search), the side-by-side mode
 * (items two raters label differently: two judges, a judge and the committee, or a judge of another run) and
 * the facet counts the filter menus show.
 */
import { binaryOf, BUCKETS } from "../rubric/buckets.js";
import type { Bucket } from "../types.js";
import { searchText, type ViewRow, type ViewRun } from "./run-data.js";
import type { OtherRun } from "./other-run.js";
import { showBidiControlsExactly } from "../format/bidi.js";
import { visibleRow } from "./item.js";
import { NO_VALUE } from "../stats/no-value.js";
import { RESERVED_ANNOTATOR } from "../agree/adjudicated.js";
import { figureConsensus } from "../agree/consensus.js";

/** The metadata fields the list filters on by exact value. */
export const FIELDS = ["agent_model", "suite", "condition", "attack", "surface"] as const;
/** The value a filter uses for a row without the field. */
export const NONE = NO_VALUE;

/** A parsed list request (from the query string). */
export interface ListQuery {
  fields: Partial<Record<(typeof FIELDS)[number], string>>;
  /** Judge id -> wanted label (`(none)`: no label). */
  labels: Record<string, string>;
  committee?: string;
  /** `reference` | `human`: the rater `vs` disagrees with the benchmark's verdict / a human label. */
  disagree?: string;
  /**
   * The rater compared in `disagree` (`j:<judge>`, `committee`, or `any`: a row where any of the run's judges
   * disagrees, the union over them); default: the committee, else the first judge.
   */
  vs?: string;
  /** `unverified` (a verdict with status unverified), `errors` (any status but ok/unverified), `downgraded`. */
  status?: string;
  q?: string;
  /** Side by side: two raters (`j:<judge>`, `committee`, `o:<judge>` of the other run); rows where both label and differ. */
  diff?: [string, string];
  /** Compare `diff` on the binary collapse instead of the six buckets. */
  binary?: boolean;
  offset: number;
  limit: number;
}

/** The most rows one page may ask for. */
export const MAX_PAGE = 500;

/**
 * A malformed list request (the server answers it 400 with this message). A RangeError, as before it had a class of
 * its own; the server tells it from any other RangeError (a bug or an overflow inside the library: 500, red team 30 M4).
 */
export class ListQueryError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "ListQueryError";
  }
}

/**
 * Parse the list's query string.
 * @throws ListQueryError naming the parameter for a malformed offset, limit or diff.
 */
export function parseListQuery(sp: URLSearchParams): ListQuery {
  const int = (name: string, dflt: number, max: number) => {
    const raw = sp.get(name);
    if (raw === null || raw === "") return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new ListQueryError(`${name} must be an integer >= 0, not ${JSON.stringify(raw)}`);
    return Math.min(n, max);
  };
  const q: ListQuery = { fields: {}, labels: {}, offset: int("offset", 0, Number.MAX_SAFE_INTEGER), limit: int("limit", 100, MAX_PAGE) };
  for (const f of FIELDS) {
    const v = sp.get(f);
    if (v) q.fields[f] = v;
  }
  for (const [k, v] of sp) if (k.startsWith("label.") && v) q.labels[k.slice(6)] = v;
  for (const k of ["committee", "disagree", "vs", "status", "q"] as const) {
    const v = sp.get(k);
    if (v) q[k] = v;
  }
  const diff = sp.get("diff");
  if (diff) {
    const parts = diff.split(",");
    if (parts.length !== 2 || !parts[0] || !parts[1]) throw new ListQueryError(`diff must be two raters separated by a comma, not ${JSON.stringify(diff)}`);
    q.diff = [parts[0], parts[1]];
  }
  q.binary = sp.get("binary") === "1";
  return q;
}

/** The values of the enumerated list parameters (what the page's menus offer). */
export const LIST_VALUES = {
  disagree: ["reference", "judges", "human"],
  status: ["unverified", "errors", "downgraded", "unverified_quotes"],
  committee: ["ok", "disputed", "no_quorum", NONE],
  binary: ["1", "0"],
} as const;

/** Query parameters the list reads besides {@link FIELDS} and `label.<judge>` (`token`: the server's own). */
const OTHER_PARAMS = ["committee", "disagree", "vs", "status", "q", "diff", "binary", "offset", "limit", "token"];

/**
 * Parse the list's query string and check it against the run (red team: `vs=claude`, without the `j:` the API
 * expects, gave `total: 0`, a silent empty list). An unknown parameter, a rater (`vs`, each of `diff`) that is not
 * `j:<judge>` of the run, `committee` (when the run has one) or `o:<judge>` of the other run, a `label.<judge>` of
 * no judge or with a value that is not a bucket or `(none)`, and an enumerated value ({@link LIST_VALUES}) outside
 * its list are errors naming the accepted forms (`vs` also accepts {@link ANY_JUDGE}); a parameter given twice is an
 * error (only one value would be checked and used). Metadata values (agent_model, ...) and `q` are free: no match is an
 * answer there.
 * @throws ListQueryError (the server's 400) as {@link parseListQuery}, and for the above.
 */
export function checkedListQuery(sp: URLSearchParams, run: ViewRun, other?: OtherRun): ListQuery {
  const q = parseListQuery(sp);
  const fields: readonly string[] = FIELDS;
  for (const k of new Set(sp.keys()))
    if (!fields.includes(k) && !OTHER_PARAMS.includes(k) && !k.startsWith("label."))
      throw new ListQueryError(`unknown list parameter ${JSON.stringify(k)}: accepted ${[...FIELDS, "label.<judge>", ...OTHER_PARAMS.filter((p) => p !== "token")].join(", ")}`);
  // a parameter given twice was checked and used only once (red team 37c F7: vs=any&vs=j:nope passed): refused
  for (const k of new Set(sp.keys())) {
    const n = sp.getAll(k).length;
    if (n > 1) throw new ListQueryError(`${k} is given ${n} times (${sp.getAll(k).map((v) => JSON.stringify(v)).join(", ")}): give each list parameter once`);
  }
  const judges = (js: readonly string[]) => js.map((j) => JSON.stringify(j)).join(", ") || "none";
  for (const [j, want] of Object.entries(q.labels)) {
    if (!run.judges.includes(j)) throw new ListQueryError(`label.${j}: no judge ${JSON.stringify(j)} in run ${run.name} (its judges: ${judges(run.judges)})`);
    if (want !== NONE && !(BUCKETS as readonly string[]).includes(want)) throw new ListQueryError(`label.${j} must be a label (${BUCKETS.join(", ")}) or ${NONE}, not ${JSON.stringify(want)}`);
  }
  const raters = [
    ...run.judges.map((j) => `j:${j}`),
    ...(run.committee.source ? ["committee"] : []),
    ...(other ? other.judges.map((j) => `o:${j}`) : []),
  ];
  const forms =
    `j:<judge> (a judge of run ${run.name}: ${judges(run.judges)})` +
    (run.committee.source ? ", committee" : ` (committee: not available, ${run.committee.reason})`) +
    (other ? `, o:<judge> (a judge of run ${other.name}: ${judges(other.judges)})` : "");
  const rater = (name: string, v: string, more = "") => {
    if (!raters.includes(v)) throw new ListQueryError(`${name} must be ${forms}${more}, not ${JSON.stringify(v)}`);
  };
  if (q.vs !== undefined && q.vs !== ANY_JUDGE) rater("vs", q.vs, `, or ${ANY_JUDGE} (any judge of run ${run.name})`);
  if (q.diff) q.diff.forEach((v, i) => rater(`diff (rater ${i + 1})`, v));
  const oneOf = (name: keyof typeof LIST_VALUES, v: string | null | undefined) => {
    const ok: readonly string[] = LIST_VALUES[name];
    if (v && !ok.includes(v)) throw new ListQueryError(`${name} must be one of ${ok.join(", ")}, not ${JSON.stringify(v)}`);
  };
  oneOf("disagree", q.disagree);
  oneOf("status", q.status);
  oneOf("binary", sp.get("binary"));
  if (q.committee !== undefined) {
    if (!run.committee.source) throw new ListQueryError(`committee: run ${run.name} has no committee column (${run.committee.reason})`);
    oneOf("committee", q.committee);
  }
  return q;
}

/** The `vs` value for the union over the run's judges. */
export const ANY_JUDGE = "any";

/** Whether a rater's label of a row disagrees as `disagree` asks (`reference`, `human`, `judges`); no label: no. */
function disagrees(row: ViewRow, disagree: string, label: string | null | undefined): boolean {
  if (!label) return false;
  // DESIGN section 3: the benchmark's security verdict corresponds to full_compliance (the goal ASR).
  if (disagree === "reference") return row.reference !== undefined && (label === "full_compliance") !== row.reference;
  if (disagree === "human") {
    const theirs = humanConsensusBinary(row.humans);
    return theirs !== null && theirs !== binaryOf(label as Bucket);
  }
  if (disagree === "judges") return new Set(Object.values(row.labels).filter((l): l is string => !!l)).size >= 2;
  return true;
}

/** A rater's label of a row: `j:<judge>`, `committee`, `o:<judge>` (the other run, looked up by id). */
export function raterLabel(row: ViewRow, rater: string, other?: OtherRun): string | null | undefined {
  if (rater === "committee") return row.committee ? row.committee.label : undefined;
  if (rater.startsWith("j:")) {
    const j = rater.slice(2);
    return Object.hasOwn(row.labels, j) ? row.labels[j] : undefined;
  }
  if (rater.startsWith("o:") && other) {
    const labels = other.labelsOf(row.id);
    const j = rater.slice(2);
    return labels && Object.hasOwn(labels, j) ? labels[j] : undefined;
  }
  return undefined;
}

function defaultRater(run: ViewRun): string | undefined {
  if (run.committee.source) return "committee";
  return run.judges[0] !== undefined ? `j:${run.judges[0]}` : undefined;
}

/**
 * The human label a rater is compared with, on the binary scale: the item's consensus as `agree --human` and
 * `estimate` form it (`../agree/consensus.ts`): an adjudicated item's settled label (annotator `RESERVED_ANNOTATOR`,
 * ../agree/adjudicated.ts) alone, since the votes it overruled are not the human label; otherwise the annotators'
 * majority on compromised vs not. Null when there is none: no label, or a tie (`consensus_tie`, which agree leaves
 * out and lists for adjudication), so a tie is no disagreement with the humans. Session 40: every annotator's vote
 * was compared, so a judge agreeing with two of three annotators was listed as disagreeing with the humans, a row
 * agree --human counts as agreement.
 */
export function humanConsensusBinary(humans: Record<string, string> | undefined): string | null {
  if (!humans) return null;
  const votes = Object.hasOwn(humans, RESERVED_ANNOTATOR) ? [humans[RESERVED_ANNOTATOR]] : Object.values(humans);
  // the one rule for a binary figure (../agree/consensus.ts figureConsensus): unaffected vs not_exposed agree on "not compromised"
  const c = votes.length ? figureConsensus(votes, "asr_behaviour") : null;
  return c && "answer" in c ? (c.answer ? "compromised" : "not_compromised") : null;
}

/** Whether the row passes every filter of `q` (except paging). */
export function matches(row: ViewRow, q: ListQuery, run: ViewRun, other?: OtherRun): boolean {
  for (const f of FIELDS) {
    const want = q.fields[f];
    // the facets show bidi controls as markers: a filter value may carry them
    // exactly: a value holding a real U+202E and one holding the typed text "⟨U+202E⟩" are two facets (red team 30 M1)
    if (want !== undefined && showBidiControlsExactly(row[f] ?? NONE) !== want) return false;
  }
  for (const [j, want] of Object.entries(q.labels)) {
    if (!Object.hasOwn(row.labels, j)) return false;
    if ((row.labels[j] ?? NONE) !== want) return false;
  }
  if (q.committee && (row.committee?.status ?? NONE) !== q.committee) return false;
  if (q.status) {
    const st = Object.values(row.status);
    if (q.status === "unverified" && !st.includes("unverified")) return false;
    if (q.status === "errors" && !st.some((s) => s !== "ok" && s !== "unverified")) return false;
    if (q.status === "downgraded" && row.downgraded.length === 0) return false;
    if (q.status === "unverified_quotes" && row.unverified_quotes === 0) return false;
  }
  if (q.disagree) {
    // any: the union over the run's judges (new-user report 38 F3: unset reads as "any" but is the committee)
    const raters = q.vs === ANY_JUDGE ? run.judges.map((j) => `j:${j}`) : [q.vs ?? defaultRater(run)];
    if (!raters.some((r) => r !== undefined && disagrees(row, q.disagree!, raterLabel(row, r, other)))) return false;
  }
  if (q.diff) {
    const a = raterLabel(row, q.diff[0], other);
    const b = raterLabel(row, q.diff[1], other);
    if (!a || !b) return false;
    if (q.binary ? binaryOf(a as Bucket) === binaryOf(b as Bucket) : a === b) return false;
  }
  if (q.q) {
    const words = q.q.toLowerCase().split(/\s+/).filter(Boolean);
    const text = searchText(row);
    if (!words.every((w) => text.includes(w))) return false;
  }
  return true;
}

/** One row as the page gets it (no search text, no line offsets). */
export type ListItem = Omit<ViewRow, "refs" | "search"> & { diff?: [string | null | undefined, string | null | undefined] };

/**
 * One page of the filtered list, its rows' text with bidi controls as markers (src/view/item.ts `visibleRow`).
 * @returns `total` (rows passing the filters), `offset`, and up to `limit` rows from `offset`.
 */
export function listPage(run: ViewRun, q: ListQuery, other?: OtherRun): { total: number; offset: number; rows: ListItem[] } {
  let total = 0;
  const rows: ListItem[] = [];
  for (const row of run.rows) {
    if (!matches(row, q, run, other)) continue;
    if (total >= q.offset && rows.length < q.limit) {
      const { refs: _refs, search: _search, ...item } = row;
      const out: ListItem = item;
      if (q.diff) out.diff = [raterLabel(row, q.diff[0], other), raterLabel(row, q.diff[1], other)];
      rows.push(visibleRow(out));
    }
    total++;
  }
  return { total, offset: q.offset, rows };
}

/**
 * Facet values with their counts over the whole run (not the filtered list): each metadata field (bidi controls
 * as markers; {@link matches} takes the shown value back), each judge's labels, the committee's statuses.
 */
export function facets(run: ViewRun): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  const add = (k: string, v: string) => {
    const m = (out[k] ??= Object.create(null) as Record<string, number>);
    m[v] = (m[v] ?? 0) + 1;
  };
  for (const row of run.rows) {
    for (const f of FIELDS) add(f, showBidiControlsExactly(row[f] ?? NONE));
    for (const j of run.judges) if (Object.hasOwn(row.labels, j)) add(`label.${j}`, row.labels[j] ?? NONE);
    if (run.committee.source) add("committee", row.committee?.status ?? NONE);
  }
  return out;
}
