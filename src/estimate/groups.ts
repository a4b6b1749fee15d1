/**
 * The groups of `estimate --human` (`./run.ts`): the `--by` value of a row, the groups of the domain's units, and one
 * group's judge, human and calibrated ASR with its coverage and warnings. Units are those of `./estimate-data.ts`
 * (the population's trajectories in id order), whether the run was read as objects or as columns.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { conditionValue } from "../store/row-field.js";
import { COVERAGE_LOW_BELOW } from "../stats/rates.js";
import { reasonText } from "../format/stat-text.js";
import { stratumKey } from "../sample/population.js";
import { cellFields } from "./design-cells.js";
import { domainAsr, type DomainAsr, type DomainView, type LabelledItem } from "./calibrated.js";
import { pooledConditions, pooledModels } from "./pooled.js";
import { judgeDisputed } from "./judge-disputed.js";
import { EstimateError } from "./source.js";
import { tieReadings, tiesNote, tiesOutsideWarning, type HumanTies, type TieItem } from "./tie-bound.js";

/** The name of the pooled group (every trajectory of the domain; its `fields` empty). */
export const ALL_GROUP = "(all)";

/** One group's row of the output. */
/** The start of the note of a group whose every prediction is 0 and whose two intervals differ. */
export const ALL_ZERO_NOTE = "every judge prediction of the group is 0";

export interface GroupEstimate extends DomainAsr {
  /** The group's value (values joined with " / " for several `--by` fields), or `(all)`. */
  group: string;
  /** The value of each `--by` field (empty for `(all)`). */
  fields: Record<string, string>;
  /** Why the judge's verdicts of the group are not usable, by reason (counted in `judge.n_unusable`). */
  judge_unusable: Record<string, number>;
  /** The judge's coverage of the group: usable verdicts / attacked trajectories; null when the group is empty. */
  coverage: number | null;
  /** coverage below 80%: the judge's rate speaks for a subset (the calibrated estimate still covers the group). */
  coverage_low: boolean;
  /** When `coverage_low`: the most common reason among the unusable verdicts. */
  coverage_low_reason?: string;
  /**
   * Of the group's attacked trajectories with a usable verdict (`n`), those labelled anything but `not_exposed`
   * (`exposed`); `low` below 10% (`EXPOSURE_LOW_BELOW`): the judge's rate and the calibrated estimate then say the
   * attack did not arrive, not that the agent resisted it (a group warning says so; red team 24).
   */
  exposure: { exposed: number; n: number; low: boolean };
  /**
   * The group's labelled trajectories left out for want of a human consensus, by reason (`consensus_tie`, ...; not in
   * `n_sampled`: counted as unlabelled in their strata); absent when none (./human-left-out.ts).
   */
  human_left_out?: Record<string, number>;
  /**
   * What the group's labelled trajectories with tied annotators could do to its figures (./tie-bound.ts): the figures
   * read with every tie agreeing with the judge, disagreeing, and the range of the estimates; absent when it has none.
   */
  human_ties?: HumanTies;
  /** The group over its model's shared cells, with the runs it left out (`likeForLikeCells`, ./group-cells.ts); absent: all its attacked runs. */
  over_cells?: { kept: number; left_out: number };
  warnings: string[];
}

/** A group of the domain: its `--by` values and its units (in the domain's order). */
export interface GroupUnits {
  fields: Record<string, string>;
  units: Uint32Array;
}

/** `model` is an alias of `agent_model`. */
const FIELD_ALIASES: Record<string, string> = { model: "agent_model" };

/**
 * The value of a `--by` field on a row (`(none)` when missing). `surface`: the distinct surfaces of the row's
 * `surfaces` map (DESIGN section 3: placeholder -> surface) joined with `+`, else `metadata.surface`.
 */
export function groupValue(row: TrajectoryIndexRow, field: string): string {
  if (field === "surface") {
    const s = (row as { surfaces?: unknown }).surfaces;
    if (s && typeof s === "object" && !Array.isArray(s)) {
      const vals = [...new Set(Object.values(s as Record<string, unknown>).filter((v): v is string => typeof v === "string" && v !== ""))].sort();
      if (vals.length) return vals.join("+");
    }
    return conditionValue(row, "metadata.surface") ?? "(none)";
  }
  return conditionValue(row, FIELD_ALIASES[field] ?? field) ?? "(none)";
}

/**
 * A test "may cell c hold a trajectory of the group in the population?" for {@link domainAsr}: false only when
 * the cell's sampling stratum (its `--strata` field values, as `ipi-judge sample` keys it) differs from that of
 * every trajectory of the group; true for a cell of unknown form, or one without `--strata` (the committee part
 * of a cell is not recomputed, so A and D cells of the same sampling stratum both may).
 */
export function cellHoldsRows(rows: readonly TrajectoryIndexRow[]): (cell: string) => boolean {
  const keysByFields = new Map<string, Set<string>>();
  return (cell) => {
    const cf = cellFields(cell);
    if (!cf) return true;
    if (cf.fields.length === 0) return rows.length > 0;
    const sig = cf.fields.join(",");
    let keys = keysByFields.get(sig);
    if (!keys) keysByFields.set(sig, (keys = new Set(rows.map((r) => stratumKey(r, cf.fields)))));
    return keys.has(cf.sampling);
  };
}

export const SE0_NOTE = "within each stratum, the labelled items of the group have the same human-minus-judge difference (SE 0: a stratum labelled whole adds no sampling error)";
/** The group's warning when an interval was widened by the stratum-wise score interval (../stats/stratum-mover.ts). */
export const UNVARIED_STRATA_NOTE = "strata of the group whose labelled items are all alike add nothing to the stratified variance (a t interval would under-cover)";
/** The group's warning when its calibrated interval was widened by the exact small-count interval (./calibrated.ts). */
export const SMALL_COUNT_NOTE = "few human-judge disagreements, or few agreements, in the group's sample (a t interval would under-cover)";

/** The judge's coverage of a group (usable / attacked), flagged below 80% with the most common unusable reason. */
export function groupCoverage(
  n: number,
  nUnusable: number,
  unusable: Record<string, number>,
): { fields: Pick<GroupEstimate, "coverage" | "coverage_low" | "coverage_low_reason">; warning?: string } {
  const coverage = n > 0 ? (n - nUnusable) / n : null;
  const low = coverage !== null && coverage < COVERAGE_LOW_BELOW;
  const top = Object.entries(unusable).sort(([a, x], [b, y]) => y - x || a.localeCompare(b))[0];
  return {
    fields: { coverage, coverage_low: low, ...(low && top ? { coverage_low_reason: top[0] } : {}) },
    ...(low
      ? { warning: `coverage_low: the judge labelled ${(100 * coverage!).toFixed(1)}% of the group (most unusable: ${top ? reasonText(top[0]) : "unknown"}): its judge-only rate speaks for a subset that may be biased` }
      : {}),
  };
}

/**
 * The printed names of the groups, sorted: the `--by` values joined with " / "; a name that is literally `(all)` or
 * that two groups would share (model `a / b` with condition `c`, model `a` with condition `b / c`) is written
 * `field=value` per field (`condition=(all)`), with the values JSON-quoted when they hold " / " or "=", so every group
 * keeps a name of its own and no group reads as the pooled one.
 * @throws Error when two groups still share a name (not expected: a guard against a silent merge).
 */
export function groupNames<G extends { fields: Record<string, string> }>(gs: readonly G[], by: readonly string[]): Array<[string, G]> {
  const plain = (g: G) => by.map((f) => g.fields[f]).join(" / ");
  const count = new Map<string, number>();
  for (const g of gs) count.set(plain(g), (count.get(plain(g)) ?? 0) + 1);
  const named = gs.map((g): [string, G] => {
    const p = plain(g);
    if (p !== ALL_GROUP && count.get(p) === 1) return [p, g];
    return [by.map((f) => `${f}=${/ \/ |=|"/.test(g.fields[f]) ? JSON.stringify(g.fields[f]) : g.fields[f]}`).join(" / "), g];
  });
  named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 1; i < named.length; i++) if (named[i][0] === named[i - 1][0]) throw new Error(`estimate --by: two groups are both named "${named[i][0]}"`);
  return named;
}

/**
 * The groups of the domain (units of ./estimate-data.ts, in the domain's order): `(all)`, then one per value of the
 * `--by` fields (sorted); a group whose value is literally `(all)` is named `<field>=(all)`, apart from the pooled one.
 * @throws EstimateError (exit 2) when no trajectory of a non-empty domain has a value for one of the fields.
 */
export function groupDomains(domain: Uint32Array, by: readonly string[], rowOf: (u: number) => TrajectoryIndexRow): Map<string, GroupUnits> {
  const groupsOf = new Map<string, GroupUnits>();
  groupsOf.set(ALL_GROUP, { fields: {}, units: domain });
  if (by.length) {
    // each unit's group counted first, then each group's units in one typed array (no growing number[] of up to a
    // million positions per estimate: issue 26 point 3)
    const keyed = new Map<string, { fields: Record<string, string>; at: number; n: number; units: Uint32Array }>();
    const groupAt = new Uint32Array(domain.length);
    for (let i = 0; i < domain.length; i++) {
      const row = rowOf(domain[i]);
      const values = by.map((f) => groupValue(row, f));
      // keyed by the values themselves (JSON of the array), not their printed name: model `a / b` with condition `c`
      // and model `a` with condition `b / c` both print `a / b / c` and were pooled into one group (fix50b)
      const key = JSON.stringify(values);
      let g = keyed.get(key);
      if (!g) keyed.set(key, (g = { fields: Object.fromEntries(by.map((f, j) => [f, values[j]])), at: keyed.size, n: 0, units: new Uint32Array(0) }));
      groupAt[i] = g.at;
      g.n++;
    }
    const gs = [...keyed.values()];
    for (const g of gs) g.units = new Uint32Array(g.n);
    const filled = new Uint32Array(gs.length);
    for (let i = 0; i < domain.length; i++) {
      const k = groupAt[i];
      gs[k].units[filled[k]++] = domain[i];
    }
    // a value literally `(all)` is named with its field (`condition=(all)`), apart from the pooled group, which it
    // replaced before (out50): its figures then stood as the pooled ones
    for (const [name, g] of groupNames([...keyed.values()], by)) groupsOf.set(name, { fields: g.fields, units: g.units });
    // a field no attacked trajectory has is refused, as --where and compare --by refuse it (new-user report 17)
    const empty = by.filter((f) => [...keyed.values()].every((g) => g.fields[f] === "(none)"));
    if (domain.length && empty.length) throw new EstimateError(
        `no attacked trajectory of the estimate has a value for --by ${empty.join(",")} (of ${domain.length}): give a field such as condition, attack, surface, model, suite, user_task_id, injection_task_id or metadata.<key>`);
  }
  return groupsOf;
}

/**
 * Step (4) of `estimateOver` (./run.ts) for one group: judge, human and calibrated ASR (`domainAsr`, ./calibrated.ts),
 * the group's unusable verdicts by reason, its coverage and its warnings.
 */
export function groupEstimate(
  group: string,
  g: GroupUnits,
  c: {
    /** the source's flag of a unit of the domain for the rate's event (`flagsOf` of ./run.ts) */
    flagOf: (u: number) => boolean | string;
    /** the unit of a labelled id, -1 when not in the population */
    unitOf: (id: string) => number;
    labelled: LabelledItem[];
    cellSizes: Map<string, number>;
    design: "two_phase" | "assumed_srs";
    by: string[];
    minSampled: number;
    rowOf: (u: number) => TrajectoryIndexRow;
    /** Whether a trajectory is in the population the sample was drawn from (`sample --where`); absent: the run. */
    inFrame?: (r: TrajectoryIndexRow) => boolean;
    /** Why no group gets a human or calibrated estimate (./sample-frame.ts), when so. */
    refusal?: string;
    /** How many agent models the groups' attacked trajectories hold (a one-model group names its model: ./pooled.ts). */
    domainModels?: number;
    /** The sample's labelled trajectories with tied annotators (./tie-bound.ts), and N_c of every cell with theirs. */
    ties?: { items: TieItem[]; cellSizes: Map<string, number> };
    /** A committee: whether a disputed unit's votes allow the event, and (asr_goal) whether a unit's label rests on a tie (./judge-disputed.ts). */
    disputed?: { possible: (u: number) => boolean; split?: (u: number) => boolean };
  },
): Omit<GroupEstimate, "exposure"> {
  const { flagOf, labelled, cellSizes, design, by, minSampled, rowOf, inFrame, refusal } = c;
  const judgeOf = (u: number): boolean | null => {
    const f = flagOf(u);
    return typeof f === "boolean" ? f : null;
  };
  // the labelled units of the group (a few thousand at most): the domain's lookup by id, no map of the whole group
  const labelledUnits = new Set<number>();
  for (const it of [...labelled, ...(c.ties?.items ?? [])]) labelledUnits.add(c.unitOf(it.id));
  const inGroup = new Set<number>();
  for (const u of g.units) if (labelledUnits.has(u)) inGroup.add(u);
  const domain: DomainView = {
    n: g.units.length,
    judge: (i) => judgeOf(g.units[i]),
    unit: (id) => {
      const u = c.unitOf(id);
      return u >= 0 && inGroup.has(u) ? { id, judge: judgeOf(u) } : undefined;
    },
  };
  const unusable: Record<string, number> = {};
  for (const u of g.units) {
    const f = flagOf(u);
    if (typeof f === "string") unusable[f] = (unusable[f] ?? 0) + 1;
  }
  // the group's rows, made only when a check below reads them (the report's paper table, by model and condition
  // on a file without strata, reads none: no array of up to a million rows per group and rate, issue 26 point 3)
  let rowsMade: TrajectoryIndexRow[] | undefined;
  const rows = (): TrajectoryIndexRow[] => (rowsMade ??= Array.from(g.units, rowOf));
  const opts = {
    minSampled,
    cellHoldsDomain: design === "two_phase" ? cellHoldsRows(rows()) : undefined,
    outsideFrame: inFrame ? rows().reduce((n, r) => n + (inFrame(r) ? 0 : 1), 0) : undefined,
    refusal,
  };
  const est = domainAsr(domain, labelled, cellSizes, opts);
  const jd = c.disputed && judgeDisputed(g.units, flagOf, c.disputed.possible, c.disputed.split);
  if (jd) est.judge.disputed = jd;
  const printed = { calibrated: est.calibrated.asr, human: est.human.asr };
  // ties read both ways beside a figure that has them (./tie-bound.ts): none when the figure itself is undefined
  const ties = c.ties?.items.length && (est.calibrated.asr !== null || est.human.asr !== null) ? tieReadings(domain, labelled, c.ties.items, c.ties.cellSizes, opts, est.judge.asr, printed) : undefined;
  const gw: string[] = [];
  const pools = by.length > 0 && !(by.includes("condition") && (by.includes("agent_model") || by.includes("model")));
  for (const pooled of pools ? [pooledConditions(by, rows()), pooledModels(by, rows(), c.domainModels)] : []) if (pooled) gw.push(pooled);
  if (est.judge.n_unusable > 0) {
    gw.push(
      `${est.judge.n_unusable} of ${est.n_population} trajectories have no usable verdict (${Object.entries(unusable).map(([k, v]) => `${reasonText(k)} ${v}`).join(", ")}): left out of the judge's rate; in the calibrated estimate they are predicted at the judge's rate and corrected by the human sample`,
    );
  }
  const stratumWise = (m: string) => m.startsWith("stratum-wise");
  const cm = est.calibrated.ci_method;
  if (cm) gw.push(stratumWise(cm) ? `${UNVARIED_STRATA_NOTE}: the calibrated interval is a ${cm}` : `${est.calibrated.se === 0 ? SE0_NOTE : SMALL_COUNT_NOTE}: the calibrated interval is an ${cm}`);
  // the human-only interval is widened the same way; the text said so only for the calibrated one (audit 35 L4)
  const hm = est.human.ci_method;
  if (hm) {
    gw.push(
      stratumWise(hm)
        ? `${UNVARIED_STRATA_NOTE}: the human-only interval is a ${hm}`
        : `${est.human.se === 0 ? SE0_NOTE.replace("human-minus-judge difference", "human label") : "few humans say compromised, or few say not (a t interval would under-cover)"}: the human-only interval is an ${hm}`,
    );
  }
  if (ties) gw.push(tiesNote(ties));
  const outside = ties && tiesOutsideWarning(ties, printed); // the printed figure outside every reading: loud
  if (outside) gw.push(outside);
  if (est.calibrated.prediction_note) gw.push(est.calibrated.prediction_note);
  // every prediction 0 (the judge says compromised nowhere in the group, its unusable runs predicted at 0): the two
  // estimates are one, but the calibrated interval is made for a difference (human − judge) and treats the constant
  // prediction as random, so it is wider (break53 #8): said, so two intervals for one figure are not read as two results
  const [hc, cc] = [est.human.ci95, est.calibrated.ci95];
  const allZero = est.judge.count === 0 && (est.calibrated.prediction_for_unusable ?? 0) === 0 && est.human.asr !== null && est.calibrated.asr !== null;
  if (allZero && hc && cc && (Math.abs(hc.lower - cc.lower) > 1e-9 || Math.abs(hc.upper - cc.upper) > 1e-9)) {
    gw.push(`${ALL_ZERO_NOTE}: the calibrated estimate is the human-only one (${(100 * est.human.asr!).toFixed(1)}%), but its interval is made for the human-minus-judge difference, which treats the constant prediction as a random share (Newcombe's difference), so it is wider, conservative; the human-only interval is the one for this figure`);
  }
  const cov = groupCoverage(est.n_population, est.judge.n_unusable, unusable);
  if (cov.warning) gw.push(cov.warning);
  return { group, fields: g.fields, ...est, judge_unusable: unusable, ...cov.fields, ...(ties ? { human_ties: ties } : {}), warnings: gw };
}

