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
import { readHumanLabels, type HumanLabelFile, type HumanLabelRead } from "../agree/human-file.js";
import type { SampleWhere } from "../store/sample-where.js";
import { WHERE_FIELDS, typedClauses } from "../store/where.js";
import { warnLine } from "./warn.js";

/** The options this reads and sets: `--human`, `--where` (set when absent) and `--no-sample-population`. */
export interface SampleWhereOptions {
  human?: string;
  where?: string[] | string;
  samplePopulation?: boolean;
  /** Set to the `--human` file when its population was taken as `--where` (read by `whereOf`, ./util.ts). */
  whereFromSample?: string;
}

/**
 * Set `o.where` to the human file's recorded sample population when the command has `--human`, no `--where` and not
 * `--no-sample-population`, and say so on stderr.
 * @param o the command's options (mutated: `where` set to one `FIELD=V1,V2` string per recorded clause).
 * @param command the command's name, for the note.
 * @returns `args`: the `--where` arguments applied (e.g. `--where attacked=true`), or null when nothing was applied: no
 *   `--human`, a `--where` given, `--no-sample-population`, a file with no recorded population (a sample of the whole
 *   run, or a file made by hand), a file that cannot be read (the command's own read names the problem), or a
 *   recorded field this version does not know (the command's read warns about it, ../agree/sample-population.ts),
 *   or a file whose rows do not record one population (rows of samples of different populations, rows recording
 *   none beside rows recording one, a row whose record cannot be read: {@link onePopulation}; said on stderr, as the
 *   figures are then over the whole run); `labels`: the file as read here, when it was read and could be (the
 *   command uses it instead of reading the file again: one read of the file per command), else undefined (the
 *   command reads it and names any problem). Never throws.
 */
export function applySampleWhere(o: SampleWhereOptions, command: string): { args: string | null; labels?: HumanLabelFile } {
  if (!o.human || o.samplePopulation === false) return { args: null };
  if (Array.isArray(o.where) ? o.where.length > 0 : typeof o.where === "string") return { args: null };
  let labels: HumanLabelFile;
  try {
    labels = readHumanLabels(o.human);
  } catch {
    return { args: null };
  }
  const one = onePopulation(labels.rows);
  if (typeof one === "string") {
    warnLine(`${command}: ${o.human} ${one}: none is taken as --where, so the figures below are over the whole run; give --where for the population to read (the label file's check below says what this means for the human figures)`);
    return { args: null, labels };
  }
  const sw = one;
  if (!sw) return { args: null, labels };
  const clauses = Object.entries(sw.clauses);
  if (clauses.length === 0 || clauses.some(([f]) => !Object.hasOwn(WHERE_FIELDS, f))) return { args: null, labels };
  o.where = typedClauses(sw); // fields as typed when drawn (agent_model stays agent_model; out50)
  o.whereFromSample = o.human;
  const args = o.where.map((w) => `--where ${w}`).join(" ");
  warnLine(
    `${command}: ${o.human} records the population its sample was drawn from (${args}): every figure below is over it, the judge's too, as if ${args} were given. --no-sample-population for the whole run (groups reaching outside the sample's population then get no human or calibrated figure).`,
  );
  return { args, labels };
}

/** A row's population as a key: its `--where` clauses, fields and values sorted (the same filter however written). */
function populationKey(sw: SampleWhere | undefined): string {
  if (!sw) return "";
  return JSON.stringify(Object.entries(sw.clauses).map(([f, vs]) => [f, [...vs].sort()]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The one population the label file's rows record, undefined when none records any, or why there is not one (the
 * words after the file's name): rows of samples drawn under different `--where` (a file of two samples pasted
 * together: the first row's would have been taken, so the judge's figures hung on the rows' order; break47), rows
 * recording none beside rows recording one, a row whose `sample_where` or `sample_frame` cannot be read.
 * @param rows the label file's rows as read.
 */
export function onePopulation(rows: readonly HumanLabelRead[]): SampleWhere | undefined | string {
  const bad = rows.find((r) => r.frame_problem);
  if (bad) return `line ${bad.line}: ${bad.frame_problem}: the population its sample was drawn from cannot be read`;
  const by = new Map<string, { sw: SampleWhere | undefined; rows: number; first: number }>();
  for (const r of rows) {
    const k = populationKey(r.sample_where);
    const p = by.get(k);
    if (p) p.rows++;
    else by.set(k, { sw: r.sample_where, rows: 1, first: r.line });
  }
  if (by.size <= 1) return [...by.values()][0]?.sw;
  const said = [...by.values()].map((p) => {
    const what = p.sw ? typedClauses(p.sw).map((c) => `--where ${c}`).join(" ") : "no population recorded (the whole run, or rows made by hand)";
    return `${what} (${p.rows} row${p.rows === 1 ? "" : "s"} from line ${p.first})`;
  });
  return `holds rows of samples drawn from ${by.size} different populations: ${said.join("; ")}`;
}
