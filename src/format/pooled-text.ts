/**
 * What a run-wide figure pools: the agent models, conditions (defenses) and suites of the attacked trajectories it is
 * computed over, named in one line (`agree --reference`, `committee`), as `label`'s summary says "pooled over every
 * agent model and all N conditions". A kappa or a rate over two models and three defenses is one number over all
 * of them, not a per-model figure; the line says so.
 */
import { showControls } from "./shown.js";
import { NO_VALUE } from "../stats/no-value.js";

/** The agent models and conditions of a run's (attacked) trajectories, sorted, and the line that names them. */
export interface Pooling {
  agent_models: string[];
  /** Conditions recorded on the attacked trajectories, `(none)` for those without one (empty when the run records none). */
  conditions: string[];
  /** Suites recorded on them, `(none)` for those without one (empty when the rows carry none, or the caller did not read them). */
  suites: string[];
  text: string;
}

const names = (xs: readonly string[]) => (xs.length <= 6 ? xs.join(", ") : `${xs.slice(0, 6).join(", ")}, ... ${xs.length - 6} more`);

/**
 * The pooling of `rows` (only attacked ones are counted unless `attackedOnly` is false; `agent_model` missing
 * counts as `(none)`).
 * @param what the figures the line speaks of, e.g. "the figures below".
 * @param hint how to get one figure per model or condition, appended when several are pooled (e.g. a `--where`).
 * @param which what the counted rows are, in parentheses after "trajectories": a caller that filters `rows` to
 *   what its figure is computed over names them (review 16: `agree --reference utility` counted every trajectory,
 *   not the ones with a utility verdict).
 */
export function poolingOf(
  rows: Iterable<{ attacked?: boolean; agent_model?: string; condition?: string; suite?: string }>,
  what: string,
  hint = "",
  attackedOnly = true,
  which = "",
): Pooling {
  const models = new Set<string>();
  const conds = new Set<string>();
  const suiteSet = new Set<string>();
  let n = 0;
  for (const r of rows) {
    if (attackedOnly && !r.attacked) continue;
    n++;
    models.add(typeof r.agent_model === "string" && r.agent_model !== "" ? r.agent_model : NO_VALUE);
    conds.add(typeof r.condition === "string" && r.condition !== "" ? r.condition : NO_VALUE);
    suiteSet.add(typeof r.suite === "string" && r.suite !== "" ? r.suite : NO_VALUE);
  }
  const agent_models = [...models].sort();
  // runs without a condition (suite) are a group of their own, (none), named beside the others; when no run records
  // one the list is empty ("no recorded condition"): new user 35, "1 condition (no_defense)" over 54 runs with none
  const named = (s: Set<string>) => ([...s].some((x) => x !== NO_VALUE) ? [...s].sort() : []);
  const conditions = named(conds);
  const suites = named(suiteSet);
  const m = `${agent_models.length} agent model${agent_models.length === 1 ? "" : "s"} (${names(agent_models)})`;
  const c = conditions.length ? `${conditions.length} condition${conditions.length === 1 ? "" : "s"} (${names(conditions)})` : "no recorded condition";
  // the suites too (new user 33: a kappa over AgentDojo's and AgentDyn's checkers named neither benchmark's suites)
  const s = suites.length ? `, over ${suites.length} suite${suites.length === 1 ? "" : "s"} (${names(suites)})` : "";
  const per = suites.length > 1 ? "model, condition or suite" : "model or condition";
  const split = agent_models.length > 1 || conditions.length > 1 || suites.length > 1 ? `: one figure over all of them, not per ${per}${hint ? ` (${hint})` : ""}` : "";
  // the names come from the run files: one visible line (./shown.ts)
  return { agent_models, conditions, suites, text: showControls(`${what} pool the ${n}${attackedOnly ? " attacked" : ""} trajectories${which ? ` (${which})` : ""} of ${m} and ${c}${s}${split}`) };
}
