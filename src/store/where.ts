/**
 * The `--where FIELD=VALUE[,VALUE]` filter (issue 22, item 3): the one selection of a run's trajectories that
 * `label`, `agree`, `sample`, `estimate`, `compare` and `report` apply, identically, so a figure can be computed
 * over one attack, one model, one defense, ... and says over which runs it is (`whereStatement`).
 *
 * Semantics: values of one field are alternatives (OR); several `--where` options must all hold (AND). A value
 * matches a trajectory whose field equals it exactly; the value `(none)` matches trajectories without the field
 * (e.g. `attack=important_instructions,(none)` keeps the unattacked runs for utility without attack).
 */
import { UsageError } from "../errors.js";
import { showControls } from "../format/shown.js";
import { showInvisibleExactly } from "../format/invisible.js";
import { NO_VALUE } from "../stats/no-value.js";

/**
 * A `--where` value (typed, or a run's) as messages show it: controls and invisible characters (zero-width, soft hyphen,
 * bidi) as markers such as `⟨U+200B⟩` (break48: `suite=banking\u200b` "matched none" beside "suite values: banking").
 */
const shownValue = (v: string) => showControls(showInvisibleExactly(v));

/** The fields a filter can name: canonical name -> the record field it reads. */
export const WHERE_FIELDS = {
  model: "agent_model",
  suite: "suite",
  condition: "condition",
  attack: "attack",
  surface: "surface",
  user_task: "user_task_id",
  injection_task: "injection_task_id",
  attacked: "attacked",
} as const;

/** A canonical filter field. */
export type WhereField = keyof typeof WHERE_FIELDS;

/** Other spellings accepted for a field (the record field names, and hyphens). */
const ALIASES: Record<string, WhereField> = {
  agent_model: "model",
  "agent-model": "model",
  user_task_id: "user_task",
  "user-task": "user_task",
  injection_task_id: "injection_task",
  "injection-task": "injection_task",
  defense: "condition",
};

/**
 * The fields as every listing names them (the error for an unknown field, `--help`, README): canonical names, each
 * with the other spellings it accepts in parentheses (`model (or agent_model, agent-model)`), so a user who met
 * `agent_model` elsewhere (`sample --strata`, the record's field) finds it accepted (new user 19).
 */
export function whereFieldsText(): string {
  return (Object.keys(WHERE_FIELDS) as WhereField[])
    .map((f) => {
      if (f === "attacked") return "attacked (true or false)";
      const other = Object.keys(ALIASES).filter((a) => ALIASES[a] === f);
      return other.length ? `${f} (or ${other.join(", ")})` : f;
    })
    .join(", ");
}

/** The value that matches a trajectory without the field. */
export const WHERE_NONE = NO_VALUE;

/** One clause: the field and the values it accepts. */
export interface WhereClause {
  field: WhereField;
  values: string[];
  /**
   * The field's name as the user typed it (`agent_model` for `model`; absent: the canonical name), which every echo
   * of the filter gives back (new user 49 item 6: `--where agent_model=X` was echoed `filter --where model=X`).
   */
  name?: string;
}

/** The field name a clause's echoes show: as typed ({@link WhereClause.name}), else canonical. */
export const clauseName = (c: WhereClause): string => c.name ?? c.field;

/** A parsed filter: its clauses (all must hold) and its text as given back (`attack=a,b model=m`). */
export interface WhereFilter {
  clauses: WhereClause[];
  text: string;
  /**
   * The human label file whose recorded sample population this filter is, when the command took it from there
   * (`--human` without `--where`: ../cli/sample-where-default.ts), not from its command line: what a figure the filter
   * leaves undefined names as the cause (new user 48: `--where left out the unattacked runs` with no --where typed).
   */
  fromSample?: string;
}

/** The fields a filter reads (a trajectory, or a run's index row, which has `surface`). */
export type WhereRecord = Partial<Record<(typeof WHERE_FIELDS)[WhereField], unknown>>;

/** The filter field a `FIELD=VALUE` text names (a canonical name or an alias, any case), or undefined. */
function fieldOfClause(text: string): WhereField | undefined {
  const eq = text.indexOf("=");
  if (eq <= 0) return undefined;
  const name = text.slice(0, eq).trim().toLowerCase();
  return (Object.hasOwn(WHERE_FIELDS, name) ? name : Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined) as WhereField | undefined;
}

/**
 * A recorded filter's clauses as the user typed them (`agent_model=X`, not the canonical `model=X` its `clauses` keep):
 * the field names read back from its text (`filter`, written by {@link parseWhere} with each name as typed), the
 * values from `clauses`; a field its text does not name (a record written by hand) keeps its canonical name.
 * For echoes that rebuild a `--where` from a stored record (a sample's population, a report's filter; out50).
 * @param w a `WhereStatement`, or a human-label row's `sample_where`: its `filter` text and canonical `clauses`.
 * @returns one `NAME=V1,V2` per clause, in the order of `clauses`.
 */
export function typedClauses(w: { filter: string; clauses: Record<string, string[]> }): string[] {
  const typed = new Map<string, string>();
  for (const token of w.filter.split(" ")) {
    const field = fieldOfClause(token);
    if (field !== undefined && !typed.has(field)) typed.set(field, token.slice(0, token.indexOf("=")).trim());
  }
  return Object.entries(w.clauses).map(([f, vs]) => `${typed.get(f) ?? f}=${vs.join(",")}`);
}

/**
 * Parse `--where` option values (`FIELD=VALUE[,VALUE]`, repeatable).
 * @returns the filter, or null when none is given.
 * @throws UsageError naming the option for a malformed clause, an unknown field (listing the fields), an empty value,
 *   a value that is itself a clause of a known field (`model=a,attack=b`: one --where per field), or an `attacked`
 *   value other than true or false (any case) or `(none)`.
 */
export function parseWhere(specs: readonly string[] | string | undefined): WhereFilter | null {
  const list = specs === undefined ? [] : typeof specs === "string" ? [specs] : [...specs];
  if (list.length === 0) return null;
  const clauses: WhereClause[] = [];
  for (const spec of list) {
    const eq = spec.indexOf("=");
    if (eq <= 0) throw new UsageError(`--where "${spec}": expected FIELD=VALUE[,VALUE] (fields: ${whereFieldsText()})`);
    const field = fieldOfClause(spec);
    if (!field) throw new UsageError(`--where "${spec}": unknown field "${spec.slice(0, eq).trim()}" (fields: ${whereFieldsText()})`);
    let values = [...new Set(spec.slice(eq + 1).split(",").map((v) => v.trim()))];
    if (values.some((v) => v === "")) throw new UsageError(`--where "${spec}": empty value (give ${field}=VALUE[,VALUE]; ${WHERE_NONE} matches runs without a ${field})`);
    const other = values.find((v) => fieldOfClause(v) !== undefined);
    if (other !== undefined) {
      // `model=a,attack=b` reads as model in {a, "attack=b"}: it kept every attack of model a (new user 45, item 1)
      const rest = values.filter((v) => v !== other && fieldOfClause(v) === undefined);
      throw new UsageError(
        `--where "${spec}": the value "${other}" names another field; the values of one --where are alternatives of one field, so give one --where per field (e.g. --where ${field}=${rest.join(",") || "VALUE"} --where ${other})`,
      );
    }
    if (field === "attacked") values = booleanValues(spec, values);
    const name = spec.slice(0, eq).trim();
    clauses.push(name === field ? { field, values } : { field, values, name });
  }
  return { clauses, text: clauses.map((c) => `${clauseName(c)}=${c.values.join(",")}`).join(" ") };
}

/**
 * The values of an `attacked` clause: `true` and `false` in any case (`True`, as Python writes it, is `true`), and
 * {@link WHERE_NONE}. Any other value is refused before anything is read (break 46: `--where attacked=yes` matched
 * nothing, so `label` read the whole input, judged nothing and exited 0 with one warning).
 * @throws UsageError naming the value and the ones accepted.
 */
function booleanValues(spec: string, values: string[]): string[] {
  const out = values.map((v) => (v === WHERE_NONE ? v : v.toLowerCase()));
  const bad = out.find((v) => v !== "true" && v !== "false" && v !== WHERE_NONE);
  if (bad !== undefined) throw new UsageError(`--where "${spec}": attacked is true or false (or ${WHERE_NONE} for runs without the field), not "${values[out.indexOf(bad)]}"`);
  return [...new Set(out)];
}

/**
 * The value of a filter field on a record: a non-empty string (numbers and booleans turned into strings: `attacked`
 * is `true` or `false`, so `--where attacked=true` keeps the attacked runs without naming every attack), else
 * undefined.
 */
export function whereValue(r: WhereRecord, field: WhereField): string | undefined {
  const v = r[WHERE_FIELDS[field]];
  if (typeof v === "string") return v === "" ? undefined : v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

/** True when a record passes every clause of the filter (always true without a filter). */
export function matchesWhere(r: WhereRecord, f: WhereFilter | null | undefined): boolean {
  if (!f) return true;
  return f.clauses.every((c) => c.values.includes(whereValue(r, c.field) ?? WHERE_NONE));
}

/** What a filter kept, for every output: the filter, the counts, and the values that matched nothing. */
export interface WhereStatement {
  /** The filter as given (`attack=important_instructions model=gpt-4o`). */
  filter: string;
  /** Field -> accepted values. */
  clauses: Record<string, string[]>;
  /** Trajectories kept, of how many. */
  kept: number;
  of: number;
  /** Values that matched no trajectory of the input (each also a warning); `[]` when none. */
  unmatched: Array<{ field: WhereField; value: string; name?: string }>;
}

/**
 * A streaming count of what a filter keeps (for `label`, which reads its input once): `add` each record, then
 * `statement` (the same statement and warnings as {@link applyWhere}, without throwing).
 */
export class WhereTally {
  private readonly seen = new Map<WhereField, Map<string, number>>();
  kept = 0;
  of = 0;
  constructor(readonly filter: WhereFilter) {
    for (const c of filter.clauses) this.seen.set(c.field, new Map());
  }
  /** Count a record; true when the filter keeps it. */
  add(r: WhereRecord): boolean {
    this.of++;
    for (const [field, m] of this.seen) {
      const v = whereValue(r, field) ?? WHERE_NONE;
      m.set(v, (m.get(v) ?? 0) + 1);
    }
    const keep = matchesWhere(r, this.filter);
    if (keep) this.kept++;
    return keep;
  }
  /**
   * The statement so far, and one warning per value that matched nothing (naming the values that occur, up to 12);
   * `said`: the same, each without the `--where` and the count a message about the whole filter says once before them
   * (`attack=x matches none (attack values: ...)`).
   */
  statement(what = "trajectories"): { statement: WhereStatement; warnings: string[]; said: string[] } {
    const unmatched: WhereStatement["unmatched"] = [];
    const warnings: string[] = [];
    const said: string[] = [];
    const occurring = (field: WhereField) => {
      // values from the run files, in a message that can be an error (its line feeds kept): one line each (review 26)
      const vs = [...this.seen.get(field)!.keys()].sort().map(shownValue);
      return vs.length > 12 ? `${vs.slice(0, 12).join(", ")}, ... (${vs.length} values)` : vs.join(", ") || "none";
    };
    for (const c of this.filter.clauses) {
      for (const v of c.values) {
        if (this.seen.get(c.field)!.has(v)) continue;
        unmatched.push(c.name ? { field: c.field, value: v, name: c.name } : { field: c.field, value: v });
        const n = clauseName(c); // as typed (agent_model, defense, ...)
        warnings.push(`--where ${n}=${shownValue(v)} matches none of the ${this.of} ${what} (${n} values: ${occurring(c.field)})`);
        said.push(`${n}=${shownValue(v)} matches none (${n} values: ${occurring(c.field)})`);
      }
      // a joined surface (`tool_output+tool_description`) holding an asked one is another value: said, not kept in
      // silence (break46: --where surface=tool_output left such runs out with no word)
      if (c.field === "surface") {
        const joined = [...this.seen.get("surface")!].filter(([v]) => v.includes("+") && !c.values.includes(v) && v.split("+").some((p) => c.values.includes(p)));
        if (joined.length) {
          const n = joined.reduce((a, [, k]) => a + k, 0);
          const list = joined.sort(([a], [b]) => (a < b ? -1 : 1)).slice(0, 12).map(([v, k]) => `${showControls(v)} ${k}`).join(", ");
          const w = `surface=${c.values.join(",")} is matched exactly: ${n} ${what} whose surface joins it with another are left out (${list}); list them too to keep them (--where surface=${[...c.values, ...joined.map(([v]) => v)].join(",")})`;
          warnings.push(`--where ${w}`);
          said.push(w);
        }
      }
    }
    const statement: WhereStatement = {
      filter: this.filter.text,
      clauses: Object.fromEntries(this.filter.clauses.map((c) => [c.field, c.values])),
      kept: this.kept,
      of: this.of,
      unmatched,
    };
    return { statement, warnings, said };
  }
}

/**
 * Apply a filter to records, counting what it kept and naming the values that matched nothing.
 * @param what the records' name in messages (`trajectories of run X`).
 * @returns the kept records, the statement (null without a filter) and warnings (one per unmatched value, naming
 *   the field's values that do occur, up to 12).
 * @throws UsageError when a filter keeps nothing (naming each clause's unmatched values and what occurs).
 */
export function applyWhere<T extends WhereRecord>(
  records: Iterable<T>,
  f: WhereFilter | null | undefined,
  what = "trajectories",
): { kept: T[]; statement: WhereStatement | null; warnings: string[] } {
  if (!f) return { kept: [...records], statement: null, warnings: [] };
  const tally = new WhereTally(f);
  const kept: T[] = [];
  for (const r of records) if (tally.add(r)) kept.push(r);
  const { statement, warnings } = tallied(tally, what);
  return { kept, statement, warnings };
}

/**
 * A tally's statement and warnings (`WhereTally.statement`), for the readers that count records one at a time
 * ({@link applyWhere}, the column runs of `./where-columns.ts`).
 * @throws UsageError when the filter kept nothing (naming each clause's unmatched values and what occurs).
 */
export function tallied(tally: WhereTally, what = "trajectories"): { statement: WhereStatement; warnings: string[] } {
  const { statement, warnings, said } = tally.statement(what);
  if (tally.kept === 0) {
    // the filter and the count once, then each value that matched nothing (it said them twice: "--where attack=x
    // keeps none of the 3784 trajectories of run r: --where attack=x matches none of the 3784 trajectories of run r")
    throw new UsageError(
      `--where ${shownValue(tally.filter.text)} keeps none of the ${statement.of} ${what}` + (said.length ? `: ${said.join("; ")}` : ` (every value occurs, but none of them passes every clause together)`),
    );
  }
  return { statement, warnings };
}

/** One line for text outputs: `filter --where attack=x: 753 of 14,652 trajectories`. */
export function whereLine(s: WhereStatement | null | undefined, what = "trajectories"): string {
  if (!s) return "";
  return `filter --where ${shownValue(s.filter)}: ${s.kept.toLocaleString("en-US")} of ${s.of.toLocaleString("en-US")} ${what}` +
    (s.unmatched.length ? ` (matched nothing: ${s.unmatched.map((u) => `${u.name ?? u.field}=${shownValue(u.value)}`).join(", ")})` : "");
}

/**
 * A run restricted to the trajectories a filter keeps: the index rows kept, and the verdicts and committee
 * verdicts of those trajectories only. The one way every command that reads a stored run applies `--where`.
 * @param index the run's trajectory index (`readTrajectoryIndex`); rows carry `surface`.
 * @returns the same objects without a filter (statement null).
 * @throws UsageError as {@link applyWhere}.
 */
export function restrictRun<R extends WhereRecord & { id: string }, V extends { trajectory_id: string }, C extends { trajectory_id: string }>(
  run: { index: ReadonlyMap<string, R>; verdicts?: readonly V[]; committee?: readonly C[] },
  f: WhereFilter | null | undefined,
  runName?: string,
): { index: Map<string, R>; verdicts: V[]; committee: C[] | undefined; statement: WhereStatement | null; warnings: string[] } {
  if (!f) return { index: new Map(run.index), verdicts: [...(run.verdicts ?? [])], committee: run.committee ? [...run.committee] : undefined, statement: null, warnings: [] };
  const { kept, statement, warnings } = applyWhere(run.index.values(), f, `trajectories${runName ? ` of run ${runName}` : ""}`);
  const index = new Map(kept.map((r) => [r.id, r]));
  return {
    index,
    verdicts: (run.verdicts ?? []).filter((v) => index.has(v.trajectory_id)),
    committee: run.committee?.filter((c) => index.has(c.trajectory_id)),
    statement,
    warnings,
  };
}
