/**
 * The unattacked runs an `--where attack=...` (or `attacked=true`) clause leaves out (session 40): AgentDojo's unattacked runs record no
 * attack, so `--where attack=important_instructions` keeps none of them, and utility without attack (the benchmark's
 * utility check over the unattacked runs of the user's own tasks) reads undefined on every row: a filter on the
 * attack, not a run without unattacked runs. The value `(none)` keeps them (`attack=important_instructions,(none)`;
 * the attack-success rates count attacked runs only, so they do not change). `estimate --table` marks the cells and
 * notes it; `compare` warns. Used by both, which are one layer (hence here, beside `./dos-attacks.ts`).
 */
import { runKind } from "../ingest/attacked.js";
import { matchesWhere, whereValue, WHERE_NONE, type WhereFilter, type WhereRecord } from "../store/where.js";

/** What {@link unattackedLeftOut} reads of an index row. */
export type UnattackedRow = WhereRecord & { attack?: string; attacked?: boolean; user_task_id?: string; reference?: { utility?: unknown } };

/** The unattacked runs the attack clause alone leaves out, and the attack values they carry (`(none)`: no attack). */
export interface UnattackedLeftOut<R> {
  rows: R[];
  /** Their distinct `attack` values, sorted (`(none)` for those without one, AgentDojo's). */
  values: string[];
  /** The filter's `fromSample`: the human label file whose sample population it is, not a `--where` typed. */
  fromSample?: string;
}

/** Why a paper-table row's utility (without attack) is undefined when the filter left out its unattacked runs. */
export type UtilityOutsideReason = "unattacked_outside_where" | "unattacked_outside_sample_population";

/** The clauses of a filter that can leave out unattacked runs: on the attack, or on `attacked` itself. */
function attackClauses(f: WhereFilter): WhereFilter["clauses"] {
  return f.clauses.filter((c) => c.field === "attack" || c.field === "attacked");
}

/**
 * The unattacked runs of the user's own tasks with a utility verdict that pass every clause of `f` but its `attack`
 * and `attacked` ones (so the filter on the attack, not on the model or suite, is what leaves them out); null when
 * there is none, or `f` has neither clause (`--where attacked=true` leaves them out as `--where attack=X` does).
 * @param rows the run's index rows before the filter.
 */
export function unattackedLeftOut<R extends UnattackedRow>(rows: Iterable<R>, f: WhereFilter | null | undefined): UnattackedLeftOut<R> | null {
  const on = f ? attackClauses(f) : [];
  if (!f || !on.length) return null;
  const attack: WhereFilter = { clauses: on, text: "" };
  const others: WhereFilter = { clauses: f.clauses.filter((c) => !on.includes(c)), text: "" };
  const out: R[] = [];
  for (const r of rows) {
    if (runKind(r) !== "user_task" || typeof r.reference?.utility !== "boolean") continue;
    if (matchesWhere(r, attack) || !matchesWhere(r, others)) continue;
    out.push(r);
  }
  if (!out.length) return null;
  return { rows: out, values: [...new Set(out.map((r) => whereValue(r, "attack") ?? WHERE_NONE))].sort(), ...(f.fromSample ? { fromSample: f.fromSample } : {}) };
}

/**
 * The note for {@link unattackedLeftOut}: what reads undefined, why, and the `--where` that keeps them (quoted for
 * the shell: `(none)` holds parentheses; for an `attacked` clause, the same clause with `false` added).
 * @param what the figures that read undefined, e.g. "utility (without attack) reads undefined on 8 of the 8 rows".
 */
export function unattackedLeftOutNote(l: UnattackedLeftOut<unknown>, f: WhereFilter, what: string): string {
  const on = attackClauses(f);
  const given = on.map((c) => `${c.field}=${c.values.join(",")}`).join(" ");
  const keep = on
    .map((c) => (c.field === "attack" ? `attack=${[...new Set([...c.values, ...l.values])].join(",")}` : `attacked=${[...new Set([...c.values, "false"])].join(",")}`))
    .map((k) => `--where '${k}'`)
    .join(" ");
  const none = l.values.includes(WHERE_NONE) ? " (they record no attack)" : "";
  const noneWord = on.some((c) => c.field === "attack") && l.values.includes(WHERE_NONE) ? `${WHERE_NONE} matches runs without an attack; ` : "";
  const n = l.rows.length;
  const runs = `the run's ${n} unattacked run${n === 1 ? "" : "s"} of the user's own tasks with a utility verdict${none}, not because the run has none`;
  // the sample's recorded population, not a --where typed (new user 48): named as such, with both ways out
  if (l.fromSample)
    return (
      `${what} because the human sample's population (--where ${given}, recorded in ${l.fromSample} with the sample and applied to every figure) leaves out ${runs}; ` +
      `--no-sample-population reads the whole run, them too (the attack-success rates count attacked runs only)`
    );
  return `${what} because --where ${given} leaves out ${runs}; ${keep} keeps them (${noneWord}the attack-success rates count attacked runs only, so they stay the same)`;
}

/**
 * Whether a paper-table row (agent model, condition; null when the run records no condition) has unattacked runs
 * among `l` (`TableOptions.unattackedOutside` of `../estimate/table.ts`), as the reason its utility reads undefined
 * (`unattacked_outside_sample_population` when the filter is the human sample's recorded population); always false
 * without `l`.
 */
export function unattackedOutsideRow(l: UnattackedLeftOut<{ agent_model?: unknown; condition?: unknown }> | null): (model: string, condition: string | null) => UtilityOutsideReason | false {
  const name = (v: unknown) => (typeof v === "string" && v !== "" ? v : WHERE_NONE);
  // a row without a condition (null: the run records none) is its model's: keyed by the model alone, apart from any condition
  const keys = new Set((l?.rows ?? []).flatMap((r) => [`${name(r.agent_model)}\u0001${name(r.condition)}`, `${name(r.agent_model)}\u0000`]));
  const reason: UtilityOutsideReason = l?.fromSample ? "unattacked_outside_sample_population" : "unattacked_outside_where";
  return (model, condition) => keys.has(condition === null ? `${model}\u0000` : `${model}\u0001${condition}`) && reason;
}

/**
 * The paper table's note for its rows whose utility reads `unattacked_outside_where` ({@link unattackedLeftOutNote}),
 * or null when none does.
 */
export function tableUnattackedNote(l: UnattackedLeftOut<unknown> | null, f: WhereFilter | null | undefined, rows: readonly { utility: { reason?: string } }[]): string | null {
  const n = rows.filter((r) => r.utility.reason === "unattacked_outside_where" || r.utility.reason === "unattacked_outside_sample_population").length;
  return l && f && n ? unattackedLeftOutNote(l, f, `utility (without attack) reads undefined on ${n} of the ${rows.length} rows`) : null;
}
