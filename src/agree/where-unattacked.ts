/**
 * The unattacked runs an `--where attack=...` clause leaves out (session 40): AgentDojo's unattacked runs record no
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
}

/**
 * The unattacked runs of the user's own tasks with a utility verdict that pass every clause of `f` but its `attack`
 * one (so the filter on the attack, not on the model or suite, is what leaves them out); null when there is none, or
 * `f` has no attack clause.
 * @param rows the run's index rows before the filter.
 */
export function unattackedLeftOut<R extends UnattackedRow>(rows: Iterable<R>, f: WhereFilter | null | undefined): UnattackedLeftOut<R> | null {
  const attack = f?.clauses.find((c) => c.field === "attack");
  if (!f || !attack) return null;
  const others: WhereFilter = { clauses: f.clauses.filter((c) => c !== attack), text: "" };
  const out: R[] = [];
  for (const r of rows) {
    if (runKind(r) !== "user_task" || typeof r.reference?.utility !== "boolean") continue;
    if (attack.values.includes(whereValue(r, "attack") ?? WHERE_NONE) || !matchesWhere(r, others)) continue;
    out.push(r);
  }
  if (!out.length) return null;
  return { rows: out, values: [...new Set(out.map((r) => whereValue(r, "attack") ?? WHERE_NONE))].sort() };
}

/**
 * The note for {@link unattackedLeftOut}: what reads undefined, why, and the `--where` that keeps them (quoted for
 * the shell: `(none)` holds parentheses).
 * @param what the figures that read undefined, e.g. "utility (without attack) reads undefined on 8 of the 8 rows".
 */
export function unattackedLeftOutNote(l: UnattackedLeftOut<unknown>, f: WhereFilter, what: string): string {
  const attack = f.clauses.find((c) => c.field === "attack")!;
  const keep = `attack=${[...attack.values, ...l.values].join(",")}`;
  const none = l.values.includes(WHERE_NONE) ? " (they record no attack)" : "";
  const n = l.rows.length;
  return (
    `${what} because --where attack=${attack.values.join(",")} leaves out the run's ${n} unattacked run${n === 1 ? "" : "s"} of the user's own tasks with a utility verdict${none}, not because the run has none; ` +
    `--where '${keep}' keeps them (${l.values.includes(WHERE_NONE) ? `${WHERE_NONE} matches runs without an attack; ` : ""}the attack-success rates count attacked runs only, so they stay the same)`
  );
}

/**
 * Whether a paper-table row (agent model, condition; `(all)` when the run records no condition) has unattacked runs
 * among `l` (`TableOptions.unattackedOutside` of `../estimate/table.ts`); always false without `l`.
 */
export function unattackedOutsideRow(l: UnattackedLeftOut<{ agent_model?: unknown; condition?: unknown }> | null): (model: string, condition: string) => boolean {
  const name = (v: unknown) => (typeof v === "string" && v !== "" ? v : WHERE_NONE);
  const keys = new Set((l?.rows ?? []).flatMap((r) => [`${name(r.agent_model)}\u0000${name(r.condition)}`, `${name(r.agent_model)}\u0000(all)`]));
  return (model, condition) => keys.has(`${model}\u0000${condition}`);
}

/**
 * The paper table's note for its rows whose utility reads `unattacked_outside_where` ({@link unattackedLeftOutNote}),
 * or null when none does.
 */
export function tableUnattackedNote(l: UnattackedLeftOut<unknown> | null, f: WhereFilter | null | undefined, rows: readonly { utility: { reason?: string } }[]): string | null {
  const n = rows.filter((r) => r.utility.reason === "unattacked_outside_where").length;
  return l && f && n ? unattackedLeftOutNote(l, f, `utility (without attack) reads undefined on ${n} of the ${rows.length} rows`) : null;
}
