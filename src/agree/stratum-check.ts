/**
 * Is each labelled trajectory in the stratum its label rows name? (break48). A label row's `stratum` is the design cell
 * `sample` put the item in (`D|suite=slack`: `cellKey` of the sample stage), copied by `import-annotations` from the
 * manifest, which it checks against the design's sizes and probabilities but not against the run (it does not read
 * the run). A manifest edited by hand (an item's trajectory id replaced by one of another suite) keeps every size and
 * probability right, so nothing caught it: the travel trajectory was weighted as a slack one and the calibrated rate
 * moved from 49.0% to 51.9% in silence. The frame check (./sample-frame.ts) has the run: there the sampling stratum of
 * each labelled trajectory is recomputed from the run's fields (`stratumKey`) and compared with its rows'.
 *
 * Only strata in the form `sample` writes are checked (`field=value` pairs of the known stratum fields, after an
 * optional `A|`/`D|`/`U|`); a name made by hand (`my stratum`), `all` and a committee stratum alone name no field.
 * A value may itself hold `,suite=`: the fields are then the subsequence of those found whose key is the run's.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { STRATUM_FIELDS, stratumKey, type StratumField } from "../store/stratum-key.js";

/** What is read of a label row. */
interface StratumRow {
  trajectory_id: string;
  stratum?: string;
  line: number;
}

/** A labelled trajectory whose rows name another sampling stratum than the run gives it. */
export interface MisplacedItem {
  trajectory_id: string;
  /** the first row naming it (1-based line) */
  line: number;
  /** the row's cell */
  stratum: string;
  /** the sampling stratum the run gives it, over the fields the row's stratum names */
  run_stratum: string;
}

const FIELD_AT = new RegExp(`(?:^|,)(${STRATUM_FIELDS.join("|")})=`, "g");

/**
 * The sampling stratum of a label row's cell and the stratum fields it names, in order (a field found inside a value
 * is listed too: {@link misplacedItems} tries the subsequences); null when it names none (`all`, `A`, a name made by hand).
 */
export function samplingFieldsOf(cell: string): { sampling: string; fields: StratumField[] } | null {
  const sampling = /^[ADU]\|/.test(cell) ? cell.slice(2) : cell;
  const fields: StratumField[] = [];
  for (const m of sampling.matchAll(FIELD_AT)) {
    if (fields.length === 0 && m.index !== 0) return null;
    fields.push(m[1] as StratumField);
  }
  return fields.length ? { sampling, fields } : null;
}

/** Whether some subsequence of `fields` that keeps its first gives `row` the key `sampling`. */
function keyFits(row: TrajectoryIndexRow, sampling: string, fields: readonly StratumField[]): boolean {
  if (stratumKey(row, fields) === sampling) return true;
  if (fields.length > 8) return false; // the tool writes at most 8 fields; a longer list is a value's text
  for (let mask = 0; mask < 1 << (fields.length - 1); mask++) {
    const sub = [fields[0], ...fields.slice(1).filter((_, i) => (mask >> i) & 1)];
    if (sub.length < fields.length && stratumKey(row, sub) === sampling) return true;
  }
  return false;
}

/**
 * The labelled trajectories whose rows' stratum is not the sampling stratum the run gives them (module docstring),
 * each once (its first row), in file order. Trajectories not in `run` are left to the frame check.
 * @param rows the label file's rows; @param run the run's trajectories (one pass; only labelled ids are held).
 */
export function misplacedItems(rows: readonly StratumRow[], run: Iterable<TrajectoryIndexRow>): MisplacedItem[] {
  const first = new Map<string, StratumRow>();
  for (const r of rows) if (r.stratum !== undefined && !first.has(r.trajectory_id) && samplingFieldsOf(r.stratum)) first.set(r.trajectory_id, r);
  if (first.size === 0) return [];
  const found = new Map<string, MisplacedItem>();
  for (const t of run) {
    const r = first.get(t.id);
    if (r === undefined) continue;
    const { sampling, fields } = samplingFieldsOf(r.stratum!)!;
    if (!keyFits(t, sampling, fields)) found.set(t.id, { trajectory_id: t.id, line: r.line, stratum: r.stratum!, run_stratum: stratumKey(t, fields) });
  }
  return [...first.keys()].filter((id) => found.has(id)).map((id) => found.get(id)!);
}

/**
 * The warning for {@link misplacedItems} (up to 3 named), ending in `refused` (the consumer's words for the refusal).
 * @param file the label file's name for messages.
 */
export function misplacedWarning(items: readonly MisplacedItem[], file: string, refused: string): string {
  const one = items.length === 1;
  const named = items
    .slice(0, 3)
    .map((m) => `line ${m.line}: trajectory ${m.trajectory_id}: ${m.stratum}, the run says ${m.run_stratum}`)
    .join("; ");
  return (
    `label file ${file}: ${items.length} labelled ${one ? "trajectory is" : "trajectories are"} not in the stratum ${one ? "its" : "their"} rows name (${named}${items.length > 3 ? `; and ${items.length - 3} more` : ""}): ` +
    `the label file or the manifest it was imported with was changed after the draw (or the run's fields changed since), so the design weights do not describe ${one ? "it" : "them"} and ${refused}; ` +
    `re-import the annotations with the manifest sample wrote`
  );
}
