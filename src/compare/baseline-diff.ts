/**
 * Each condition against the baseline, for the same agent model: for every rate `compare` prints (asr_goal,
 * asr_behaviour, utility under attack, utility without attack), the difference condition − baseline with a 95%
 * interval, so "is the defense's difference real?" is answered by the tool, not by hand (new user 41).
 * - **Paired** when the two conditions ran the same cells once each: the 2x2 table of (baseline outcome, condition
 *   outcome) over the cells with a label (a verdict) under both, Newcombe's paired hybrid score interval
 *   (../stats/newcombe-paired.ts) and the exact McNemar p-value on the discordant cells (../stats/mcnemar-exact.ts).
 *   A cell is the like-for-like cell of ./cells.ts for the attacked rates, and (suite, user task) for utility without
 *   attack; compared by another field than the defense (`--by attack`, `--by surface`, `--condition-from`), the run's
 *   own defense too, so a run pairs with the baseline's run of its cell under the same defense (break42: the baseline
 *   attack under four defenses, the other under one, made every cell "several runs" and the difference unpaired
 *   between undefended runs and a pool of defended ones). Runs whose cell has a label under one condition only are
 *   left out of the pairs and counted.
 * - **Unpaired** when the cells cannot be paired (a run without task ids, or several runs of one cell under a
 *   condition): Newcombe's unpaired hybrid score interval (../stats/newcombe-unpaired.ts) over all the two rows' runs,
 *   said (`paired: false` with `unpaired_reason`).
 * - Undefined is not zero: no shared labelled cell, or no run under one side, gives `difference: null` with a reason
 *   (`no_labelled_run_under <side>`: runs there may have no usable label, e.g. all judge errors).
 */
import { newcombePaired } from "../stats/newcombe-paired.js";
import { newcombeUnpaired } from "../stats/newcombe-unpaired.js";
import { mcnemarExact } from "../stats/mcnemar-exact.js";
import { runKind } from "../ingest/attacked.js";
import { conditionValue } from "../store/row-field.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { Observation } from "./data.js";
import { cellKey } from "./cells.js";

/** Compared fields that an unattacked run never has: by them, utility without attack has no side to compare. */
const ATTACK_ONLY_FIELDS: ReadonlySet<string> = new Set(["attack", "surface"]);

/**
 * The reason of utility without attack's difference compared by an {@link ATTACK_ONLY_FIELDS} field:
 * `unattacked_runs_have_no_attack` (or `_surface`); the text says it once, not on every line.
 */
export function unattackedHaveNo(field: string): string {
  return `unattacked_runs_have_no_${field}`;
}

/** The rates a difference is given for: the two attack-success rates, then utility under and without attack. */
export const DIFFERENCE_RATES = ["asr_goal", "asr_behaviour", "utility_under_attack", "utility_without_attack"] as const;
export type DifferenceRate = (typeof DIFFERENCE_RATES)[number];

/** One run as a difference reads it: its model, condition, cell (undefined: unknown) and whether the event happened. */
export interface DifferenceItem {
  model: string;
  condition: string;
  cell?: string;
  event: boolean;
  /** Runs it stands for (absent: 1); more than 1 means several runs of its cell. */
  weight?: number;
}

/** The paired table over the shared cells: condition and baseline outcome per cell. */
export interface DifferencePairs {
  /** Cells with a label under both conditions (the pairs). */
  n: number;
  /** The event under both. */
  both: number;
  /** The event under the condition only (discordant). */
  condition_only: number;
  /** The event under the baseline only (discordant). */
  baseline_only: number;
  neither: number;
  /**
   * Labelled cells left out because the cell has no label under the other condition: `{condition, baseline}`. Most
   * often the other condition never ran the cell (e.g. `--by attack`: attacks ran on different tasks).
   */
  unpaired_left_out: { condition: number; baseline: number };
  /**
   * Of `unpaired_left_out`, the cells the other condition did run, with no usable label there (judge errors, no
   * verdict); the rest were not run under it. Given for the ASR rates (absent for utility: a run without a utility
   * verdict is not told from one not run).
   */
  unpaired_unlabelled_there?: { condition: number; baseline: number };
  /**
   * Cells both conditions ran with a usable label under neither (judge errors on both sides): in no pair and in
   * neither side's left-out count (newuser52 6: 476 + 74 + 70 of 629 shared cells, 9 counted nowhere). ASR rates only.
   */
  unlabelled_under_both?: number;
  /**
   * The pairs' share of the cells both conditions ran: `n / (n + unpaired_unlabelled_there.condition +
   * unpaired_unlabelled_there.baseline + unlabelled_under_both)`; ASR rates only.
   */
  pair_coverage?: number | null;
  /**
   * `pair_coverage` below {@link PAIR_COVERAGE_LOW_BELOW} (the 80% compare's rows flag as `coverage_low`); null with
   * `pair_coverage` when no cell was run under both (0/0 is undefined, not 0 and "not low": break53 #7).
   */
  pair_coverage_low?: boolean | null;
  /** Why `pair_coverage` is null: `no_cell_run_under_both`. */
  pair_coverage_reason?: string;
}

/** A paired difference over fewer than this share of the cells both conditions ran is marked (as rows below 80%). */
export const PAIR_COVERAGE_LOW_BELOW = 0.8;

/** A difference's range with the disputed runs read each way (./disputed-range.ts). */
export interface DisputedDifferenceRange {
  /** Disputed runs of the model under the condition and under the baseline (weights counted). */
  condition_disputed: number;
  baseline_disputed: number;
  /**
   * asr_goal only, when above 0: labelled runs whose committee `full_compliance` rests on a full/partial tie
   * (`Observation.goal_split` of ./data.ts), read each way with the disputed ones (weights counted).
   */
  condition_goal_split?: number;
  baseline_goal_split?: number;
  /** The difference with the condition's disputed runs read not the event and the baseline's read the event where a vote allows; null when undefined. */
  lower: number | null;
  /** The other way round. */
  upper: number | null;
  /** The pairs each reading is over (cells with a label or a dispute under both). */
  n_lower: number;
  n_upper: number;
}

/** A condition's difference from the baseline on one rate, for one agent model. */
export interface BaselineDifference {
  model: string;
  condition: string;
  baseline: string;
  rate: DifferenceRate;
  /** Condition − baseline (a share: 0.036 is 3.6 percentage points); null when undefined (`reason`). */
  difference: number | null;
  ci95: { lower: number; upper: number; method: "newcombe_paired_hybrid_score" | "newcombe_unpaired_hybrid_score" } | null;
  /** Why `difference` is null (absent when defined). */
  reason?: string;
  /** Paired by cell (true) or not (false, with `unpaired_reason`). */
  paired: boolean;
  unpaired_reason?: string;
  /** The two rates the difference is between, over what it is over (the pairs when paired, else every run). */
  condition_rate: { count: number; n: number };
  baseline_rate: { count: number; n: number };
  /** When paired: the 2x2 table. */
  pairs?: DifferencePairs;
  /** When paired: the exact McNemar two-sided p-value on the discordant cells; null with `mcnemar_reason` when none is discordant. */
  mcnemar_p?: number | null;
  mcnemar_reason?: string;
  /** A committee's ASR difference with disputed runs left out under either side: its range with them read each way (./disputed-range.ts). */
  disputed?: DisputedDifferenceRange;
}

const w = (x: DifferenceItem) => x.weight ?? 1;

/** Per cell: runs and events; null when some run has no cell. */
function byCell(xs: readonly DifferenceItem[]): Map<string, { runs: number; events: number }> | null {
  const m = new Map<string, { runs: number; events: number }>();
  for (const x of xs) {
    if (x.cell === undefined) return null;
    const c = m.get(x.cell) ?? { runs: 0, events: 0 };
    c.runs += w(x);
    if (x.event) c.events += w(x);
    m.set(x.cell, c);
  }
  return m;
}

const tally = (xs: readonly DifferenceItem[]) => ({ count: xs.reduce((s, x) => s + (x.event ? w(x) : 0), 0), n: xs.reduce((s, x) => s + w(x), 0) });

/**
 * The difference of one model's condition from its baseline on one rate (see the file's comment for the method).
 * @param cond the model's runs under the condition; @param base its runs under the baseline (each with a label or
 *   verdict: runs without one are not passed). @param field the compared field (`--by`; default condition).
 */
export function baselineDifference(
  model: string,
  condition: string,
  baseline: string,
  rate: DifferenceRate,
  cond: readonly DifferenceItem[],
  base: readonly DifferenceItem[],
  field?: string,
  unlabelled?: { condition: ReadonlySet<string>; baseline: ReadonlySet<string> },
): BaselineDifference {
  const head = { model, condition, baseline, rate };
  const ct = tally(cond);
  const bt = tally(base);
  if (ct.n === 0 || bt.n === 0) {
    // compared by a field only attacked runs have (attack, surface), utility without attack is never defined: said
    // so in one reason (the text gives it once for all the lines), not as "no run under <each side>" (break42)
    if (rate === "utility_without_attack" && ct.n === 0 && bt.n === 0 && field !== undefined && ATTACK_ONLY_FIELDS.has(field))
      return { ...head, difference: null, ci95: null, reason: unattackedHaveNo(field), paired: false, condition_rate: ct, baseline_rate: bt };
    const side = ct.n === 0 ? condition : baseline;
    // for a rate of labels, runs under it may be there without a usable label (judge errors): never "not run"
    const what = rate === "asr_goal" || rate === "asr_behaviour" ? "no_labelled_run_under" : "no_run_with_a_utility_verdict_under";
    return { ...head, difference: null, ci95: null, reason: `${what} ${side}`, paired: false, condition_rate: ct, baseline_rate: bt };
  }
  const cc = byCell(cond);
  const bc = byCell(base);
  const several = (m: Map<string, { runs: number }>) => [...m.values()].some((c) => c.runs > 1);
  const why = !cc || !bc ? "cells unknown (runs without user or injection task ids)" : several(cc) || several(bc) ? "several runs of one cell under a condition" : null;
  if (why) {
    const d = newcombeUnpaired(ct.count, ct.n, bt.count, bt.n);
    return { ...head, difference: d.difference, ci95: { lower: d.lower!, upper: d.upper!, method: "newcombe_unpaired_hybrid_score" }, paired: false, unpaired_reason: why, condition_rate: ct, baseline_rate: bt };
  }
  const t = { both: 0, condition_only: 0, baseline_only: 0, neither: 0 };
  for (const [k, c] of cc!) {
    const b = bc!.get(k);
    if (!b) continue;
    const ce = c.events > 0;
    const be = b.events > 0;
    if (ce && be) t.both++;
    else if (ce) t.condition_only++;
    else if (be) t.baseline_only++;
    else t.neither++;
  }
  const n = t.both + t.condition_only + t.baseline_only + t.neither;
  const left = { condition: cc!.size - n, baseline: bc!.size - n };
  // a left-out cell the other side ran without a usable label is not one it never ran (break50 4: all were read as "no label")
  const there = (mine: Map<string, unknown>, other: Map<string, unknown>, ran: ReadonlySet<string>) => [...mine.keys()].filter((k) => !other.has(k) && ran.has(k)).length;
  const pairs: DifferencePairs = {
    n,
    ...t,
    unpaired_left_out: left,
    ...(unlabelled ? pairCoverage(n, { condition: there(cc!, bc!, unlabelled.baseline), baseline: there(bc!, cc!, unlabelled.condition) }, unlabelled, cc!, bc!) : {}),
  };
  if (n === 0) {
    return { ...head, difference: null, ci95: null, reason: `no_shared_labelled_cell: ${cc!.size} cells labelled under ${condition}, ${bc!.size} under ${baseline}, none under both`, paired: true, condition_rate: { count: 0, n: 0 }, baseline_rate: { count: 0, n: 0 }, pairs };
  }
  const d = newcombePaired({ both: t.both, first_only: t.condition_only, second_only: t.baseline_only, neither: t.neither });
  const mc = mcnemarExact(t.condition_only, t.baseline_only);
  return {
    ...head,
    difference: d.difference,
    ci95: { lower: d.lower!, upper: d.upper!, method: "newcombe_paired_hybrid_score" },
    paired: true,
    condition_rate: { count: t.both + t.condition_only, n },
    baseline_rate: { count: t.both + t.baseline_only, n },
    pairs,
    mcnemar_p: mc.p,
    ...(mc.reason ? { mcnemar_reason: mc.reason } : {}),
  };
}

/**
 * The pairs' coverage of the cells both conditions ran ({@link DifferencePairs}): the left-out cells the other side
 * ran unlabelled, the cells both ran unlabelled (in neither side's labelled cells), and the pairs' share of all of them.
 */
function pairCoverage(
  n: number,
  there: { condition: number; baseline: number },
  unlabelled: { condition: ReadonlySet<string>; baseline: ReadonlySet<string> },
  cc: ReadonlyMap<string, unknown>,
  bc: ReadonlyMap<string, unknown>,
): Pick<DifferencePairs, "unpaired_unlabelled_there" | "unlabelled_under_both" | "pair_coverage" | "pair_coverage_low" | "pair_coverage_reason"> {
  let both = 0;
  for (const k of unlabelled.condition) if (unlabelled.baseline.has(k) && !cc.has(k) && !bc.has(k)) both++;
  const shared = n + there.condition + there.baseline + both;
  if (shared === 0) return { unpaired_unlabelled_there: there, unlabelled_under_both: both, pair_coverage: null, pair_coverage_low: null, pair_coverage_reason: "no_cell_run_under_both" };
  const coverage = n / shared;
  return { unpaired_unlabelled_there: there, unlabelled_under_both: both, pair_coverage: coverage, pair_coverage_low: coverage < PAIR_COVERAGE_LOW_BELOW };
}

/**
 * Every (model, condition other than the baseline) against the model's baseline, on each rate whose items are given.
 * @param items per rate, the runs with a label (ASR) or a utility verdict (utility); a rate absent or with no item
 *   is left out. @param conditionsPerModel each model's compared conditions (`compare`'s rows).
 * @param field the compared field (`--by`): by attack or surface, utility without attack's reason is
 *   {@link unattackedHaveNo}.
 * @returns in the order model, condition, rate; a model without the baseline among its conditions has none.
 */
export function baselineDifferences(
  items: Partial<Record<DifferenceRate, readonly DifferenceItem[]>>,
  conditionsPerModel: Record<string, string[]>,
  baseline: string,
  field?: string,
  unlabelled?: ReadonlyArray<{ model: string; condition: string; cell?: string; defense?: string }>,
  defenseFollows: ReadonlySet<string> = new Set(),
): BaselineDifference[] {
  // the cells each (model, condition) ran with no usable label, keyed as the items' cells (for the ASR rates)
  const ran = new Map<string, Set<string>>();
  for (const u of unlabelled ?? []) {
    const c = withCell(u.cell, defenseFollows.has(u.model) ? undefined : u.defense).cell;
    if (c === undefined) continue;
    const k = `${u.model}\u0000${u.condition}`;
    (ran.get(k) ?? ran.set(k, new Set()).get(k)!).add(c);
  }
  const none: ReadonlySet<string> = new Set();
  const out: BaselineDifference[] = [];
  const grouped = new Map<DifferenceRate, Map<string, DifferenceItem[]>>();
  for (const rate of DIFFERENCE_RATES) {
    const xs = items[rate];
    if (!xs || xs.length === 0) continue;
    grouped.set(rate, byModelCondition(xs));
  }
  for (const [model, conds] of Object.entries(conditionsPerModel)) {
    if (!conds.includes(baseline)) continue;
    for (const condition of conds) {
      if (condition === baseline) continue;
      for (const [rate, g] of grouped) {
        const un = unlabelled && (rate === "asr_goal" || rate === "asr_behaviour") ? { condition: ran.get(`${model}\u0000${condition}`) ?? none, baseline: ran.get(`${model}\u0000${baseline}`) ?? none } : undefined;
        out.push(baselineDifference(model, condition, baseline, rate, g.get(`${model}\u0000${condition}`) ?? [], g.get(`${model}\u0000${baseline}`) ?? [], field, un));
      }
    }
  }
  return out;
}

/**
 * The models whose runs' own defense follows from the compared value (`--by metadata.<key>` splitting the undefended
 * folder from the defended one, or a key that is the defense): no defense of the model occurs under two compared
 * values. Pairing a cell "under its own defense" can then never pair two values (break53 #6: every difference was
 * withheld as "none under both" under a header saying the two share 797 cells), so for them the cell is the cell the
 * compared values define, as `--by condition` pairs (a value pooling several defenses then has several runs of a cell:
 * the difference is unpaired, and says so). Runs without a defense count as none.
 * @param xs the observations and unlabelled items (model, compared value, own defense).
 */
export function defenseFollowsValue(xs: Iterable<{ model: string; condition: string; defense?: string }>): Set<string> {
  const seen = new Map<string, Map<string, string>>(); // model -> defense -> the first compared value it came under
  const mixed = new Set<string>();
  for (const x of xs) {
    if (x.defense === undefined) continue;
    const m = seen.get(x.model) ?? seen.set(x.model, new Map()).get(x.model)!;
    const v = m.get(x.defense);
    if (v === undefined) m.set(x.defense, x.condition);
    else if (v !== x.condition) mixed.add(x.model);
  }
  return new Set([...seen.keys()].filter((m) => !mixed.has(m)));
}

/**
 * The `cell` of a difference item: the cell, with the run's own defense after it when another field is compared
 * (`defense` given); none when the cell is unknown.
 */
function withCell(cell: string | undefined, defense: string | undefined): { cell?: string } {
  if (cell === undefined) return {};
  return { cell: differenceCell(cell, defense) };
}

/** The cell key of a difference item (as {@link withCell}): the cell, the defense after it when given; undefined when the cell is. */
export function differenceCell(cell: string | undefined, defense: string | undefined): string | undefined {
  return cell === undefined ? undefined : defense === undefined ? cell : `${cell}\u0000${defense}`;
}

/**
 * The items of each rate: the labelled observations `compare`'s rows are over (asr_goal: full compliance;
 * asr_behaviour: full or partial), and the utility rows its utility columns are over (a boolean `reference.utility`:
 * attacked runs by their like-for-like cell, unattacked runs of the user's own tasks by (suite, user task);
 * injection-task runs left out, as in the utility columns).
 */
export function differenceItems(obs: readonly Observation[], utilityRows: Iterable<TrajectoryIndexRow> | null, field: string, defenseFollows: ReadonlySet<string> = new Set()): Partial<Record<DifferenceRate, DifferenceItem[]>> {
  const asr = (pick: (o: Observation) => boolean) =>
    obs.map((o): DifferenceItem => ({ model: o.model, condition: o.condition, event: pick(o), ...withCell(o.cell, defenseFollows.has(o.model) ? undefined : o.defense), ...(o.weight !== undefined ? { weight: o.weight } : {}) }));
  const out: Partial<Record<DifferenceRate, DifferenceItem[]>> = { asr_goal: asr((o) => o.goal), asr_behaviour: asr((o) => o.compromised) };
  if (!utilityRows) return out;
  // one item per distinct (model, condition, event, cell) with its count as `weight` (every figure here counts
  // weights: the same differences as the runs one by one), not one object per run (issue 26: a million at 1M)
  const under = new WeightedItems();
  const without = new WeightedItems();
  // a row record seen before (a column run's rows are shared records: ~11,000 for a million rows) is counted by its
  // item's key made once, not by a copy of the row, a key and an item per row (their garbage reached the old
  // generation at 1M: issue 26 point 3); at most MEMO_ROWS records are remembered (rows of an object index are distinct)
  const memo = new Map<TrajectoryIndexRow, { to: WeightedItems; key: string; item: DifferenceItem } | null>();
  for (const r of utilityRows) {
    let m = memo.get(r);
    if (m === undefined) {
      m = utilityItem(r, field, under, without, defenseFollows);
      if (memo.size < MEMO_ROWS) memo.set(r, m);
    }
    if (m) m.to.addKeyed(m.key, m.item);
  }
  return { ...out, utility_under_attack: under.items, utility_without_attack: without.items };
}

/** Row records {@link differenceItems} remembers the utility item of. */
const MEMO_ROWS = 100_000;

/**
 * The utility item of one index row (`differenceItems`), the fold it goes to and its key there; null for a row
 * without an agent model or a boolean `reference.utility`, or neither attacked nor a run of the user's own task.
 */
function utilityItem(r: TrajectoryIndexRow, field: string, under: WeightedItems, without: WeightedItems, defenseFollows: ReadonlySet<string>): { to: WeightedItems; key: string; item: DifferenceItem } | null {
  if (!r.agent_model || typeof r.reference?.utility !== "boolean") return null;
  const condition = conditionValue(r, field) ?? "(none)";
  const kind = runKind(r);
  const suite = r.suite ?? "(none)";
  // the run's own defense when another field is compared (as Observation.defense)
  const defense = field !== "condition" && !defenseFollows.has(r.agent_model) ? r.condition : undefined;
  let item: DifferenceItem;
  if (kind === "attacked") item = { model: r.agent_model, condition, event: r.reference.utility, ...withCell(cellKey({ ...r, suite }, field), defense) };
  else if (kind === "user_task") item = { model: r.agent_model, condition, event: r.reference.utility, ...withCell(r.user_task_id !== undefined ? `${suite}\u0000${r.user_task_id}` : undefined, defense) };
  else return null;
  return { to: kind === "attacked" ? under : without, key: WeightedItems.keyOf(item), item };
}

/** Unweighted items folded into one per distinct (model, condition, event, cell), in order of first appearance, with their count as `weight` (absent: 1). */
class WeightedItems {
  readonly items: DifferenceItem[] = [];
  private readonly byKey = new Map<string, DifferenceItem>();
  /** The key an item is folded by: its (model, condition, event, cell). */
  static keyOf(x: DifferenceItem): string {
    return JSON.stringify([x.model, x.condition, x.event, x.cell ?? null]);
  }
  /**
   * Count one run whose item has key `k` ({@link WeightedItems.keyOf}): `x` is taken as the first of its key, else the
   * first one's weight grows (`x` may be given again for another run: it is then that first one).
   */
  addKeyed(k: string, x: DifferenceItem): void {
    const same = this.byKey.get(k);
    if (same) same.weight = (same.weight ?? 1) + 1;
    else {
      this.byKey.set(k, x);
      this.items.push(x);
    }
  }
}

/**
 * Items grouped by (model, condition), in the order each pair first comes.
 * @param xs items with `model` and `condition`. @returns a map keyed `<model>\0<condition>`, each group in input order.
 */
export function byModelCondition<T extends { model: string; condition: string }>(xs: readonly T[]): Map<string, T[]> {
  const g = new Map<string, T[]>();
  for (const x of xs) {
    const k = `${x.model}\u0000${x.condition}`;
    const l = g.get(k);
    if (l) l.push(x);
    else g.set(k, [x]);
  }
  return g;
}
