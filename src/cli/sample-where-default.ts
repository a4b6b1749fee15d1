/**
 * The population a human sample was drawn from, taken as the command's `--where` when none is given (new user 46
 * F3: after `sample --where attacked=true --where condition=no_defense`, `estimate --human` without the same
 * `--where` printed a table of `undefined (outside_sample_population)` rows: every group held runs the sample
 * could not reach). `import-annotations` records the sample's `--where` on every row (`sample_where`,
 * ../store/sample-where.ts); `estimate` and `report` now apply it and say so on stderr, so every figure (the judge's
 * too) is over the population the humans were drawn from: like with like. `--no-sample-population` keeps the whole
 * run (the human and calibrated figures of groups reaching outside the sample's population are then undefined, as
 * before).
 */
import { readHumanLabels, type HumanLabelFile } from "../agree/human-file.js";
import { WHERE_FIELDS } from "../store/where.js";
import { warnLine } from "./warn.js";

/** The options this reads and sets: `--human`, `--where` (set when absent) and `--no-sample-population`. */
export interface SampleWhereOptions {
  human?: string;
  where?: string[] | string;
  samplePopulation?: boolean;
}

/**
 * Set `o.where` to the human file's recorded sample population when the command has `--human`, no `--where` and not
 * `--no-sample-population`, and say so on stderr.
 * @param o the command's options (mutated: `where` set to one `FIELD=V1,V2` string per recorded clause).
 * @param command the command's name, for the note.
 * @returns `args`: the `--where` arguments applied (e.g. `--where attacked=true`), or null when nothing was applied: no
 *   `--human`, a `--where` given, `--no-sample-population`, a file with no recorded population (a sample of the whole
 *   run, or a file made by hand), a file that cannot be read (the command's own read names the problem), or a
 *   recorded field this version does not know (the command's read warns about it, ../agree/sample-population.ts);
 *   `labels`: the file as read here, when it was read and could be (the command uses it instead of reading the file
 *   again: one read of the file per command), else undefined (the command reads it and names any problem).
 *   Never throws.
 */
export function applySampleWhere(o: SampleWhereOptions, command: string): { args: string | null; labels?: HumanLabelFile } {
  if (!o.human || o.samplePopulation === false) return { args: null };
  if (Array.isArray(o.where) ? o.where.length > 0 : typeof o.where === "string") return { args: null };
  let labels;
  try {
    labels = readHumanLabels(o.human);
  } catch {
    return { args: null };
  }
  const sw = labels.rows.find((r) => r.sample_where)?.sample_where;
  if (!sw) return { args: null, labels };
  const clauses = Object.entries(sw.clauses);
  if (clauses.length === 0 || clauses.some(([f]) => !Object.hasOwn(WHERE_FIELDS, f))) return { args: null, labels };
  o.where = clauses.map(([f, vs]) => `${f}=${vs.join(",")}`);
  const args = o.where.map((w) => `--where ${w}`).join(" ");
  warnLine(
    `${command}: ${o.human} records the population its sample was drawn from (${args}): every figure below is over it, the judge's too, as if ${args} were given. --no-sample-population for the whole run (groups reaching outside the sample's population then get no human or calibrated figure).`,
  );
  return { args, labels };
}
