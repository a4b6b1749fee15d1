/**
 * Two different strata may not share a name. A stratum's name (`../store/stratum-key.ts`: `field=value` pairs joined
 * with `,`) is a format written to label files and read back by `estimate` and `agree`, so its text stays; but a value
 * holding `,` can make two strata print alike: `agent_model=x,condition=y` with condition `z` and `agent_model=x` with
 * condition `y,condition=z` are both `agent_model=x,condition=y,condition=z`, and their trajectories would be drawn,
 * weighted and estimated as one stratum. Values without `,` cannot collide (each `,<field>=` of the name is then a
 * separator), so only those with one are checked.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { stratumKey, type StratumField } from "../store/stratum-key.js";

/**
 * A stratum namer that refuses a name two different value tuples would share.
 * @param fields the `--strata` fields, in order.
 * @returns `name(row)`: the row's stratum name ({@link stratumKey}); it throws an Error naming both tuples when the
 *   name was given before to another tuple of values.
 */
export function uniqueStratumNamer(fields: readonly StratumField[]): (row: TrajectoryIndexRow) => string {
  const tupleOf = new Map<string, string>();
  return (row) => {
    const key = stratumKey(row, fields);
    const values = fields.map((f) => row[f]);
    if (!values.some((v) => typeof v === "string" && v.includes(","))) {
      const seen = tupleOf.get(key);
      if (seen !== undefined && seen !== "") throw clash(key, seen, values);
      tupleOf.set(key, "");
      return key;
    }
    const tuple = JSON.stringify(values);
    const seen = tupleOf.get(key);
    if (seen === undefined) tupleOf.set(key, tuple);
    else if (seen !== tuple) throw clash(key, seen === "" ? null : seen, values);
    return key;
  };
}

function clash(key: string, seen: string | null, values: unknown[]): Error {
  return new Error(
    `two different strata would both be named "${key}" (values ${seen ?? "without a comma"} and ${JSON.stringify(values)}): ` +
      "a value of a --strata field holds a comma; rename it in the run, or stratify by other fields",
  );
}
