/**
 * The per-judge attack rates of a run summary from its repeat-0 verdicts (`summarizeRun`), folded by trajectory slot
 * (issue 26): what the rates need of each repeat-0 verdict is one of few distinct {@link Rep0} values, so a judge
 * holds per trajectory a 4-byte code in a typed-array column (and its slot in first-seen order), not a map entry
 * keyed by an id string (~260 MB at a million trajectories before). Ids are numbered by the run store's own
 * {@link IdSlots} when the index is a store's {@link IndexRows} (no second copy of the ids), else by a local one.
 * The result is the same as folding into `Map<id, Rep0>` per judge: same ids, same order, same items.
 */
import type { Verdict } from "../types.js";
import type { TrajectoryIndexRow } from "../store/records.js";
import { IdSlots, IntColumn } from "../store/compact.js";
import { IndexRows } from "../store/index-rows.js";
import { ColumnIndex, type SlotIds } from "../store/column-index.js";
import { RateTally, type AttackRates, type RateItem } from "../stats/rates.js";
import { referenceValueOf } from "../stats/reference-rates.js";
import { blockedFields, blockedKindOf } from "../verdict/blocked.js";
import { NO_VALUE } from "../stats/no-value.js";

/** An index row's fields but `id` and `run_folder` (what the summary and its rates read of a row). */
export type RowFields = Readonly<Omit<TrajectoryIndexRow, "id" | "run_folder">>;

/**
 * The one reader of a run index's row fields, by id and by slot, for the summary and {@link Rep0Fold}: a store's
 * {@link IndexRows} is read by slot (its shared row fields, none rebuilt, numbered by its own ids); any other map
 * (a column run's {@link ColumnIndex}, which lends its id table, or a plain `Map`, numbered locally) by id.
 */
export interface IndexFields {
  /** The ids' numbering the slots below are of. */
  readonly ids: SlotIds;
  /** The fields of an id's row (undefined: no row). */
  byId(id: string): RowFields | undefined;
  /** The fields of a slot's row (undefined: no row, or slot -1). */
  bySlot(slot: number): RowFields | undefined;
  /** Every row in the index's order with its slot (-1 for a plain map's id no verdict numbered). */
  eachRow(fn: (fields: RowFields, slot: number) => void): void;
  /** Every row in the index's order, without its slot (a column run's ids are not made strings for it). */
  values(): Iterable<RowFields>;
}

/** {@link IndexFields} of a run index (module docstring of the interface). */
export function indexFields(index: ReadonlyMap<string, TrajectoryIndexRow>): IndexFields {
  if (index instanceof IndexRows)
    return {
      ids: index.ids,
      byId: (id) => index.fieldsOf(index.ids.find(id)),
      bySlot: (slot) => index.fieldsOf(slot),
      eachRow: (fn) => {
        for (let i = 0; i < index.size; i++) {
          const slot = index.slotAt(i);
          fn(index.fieldsOf(slot)!, slot);
        }
      },
      values: function* () {
        for (let i = 0; i < index.size; i++) yield index.fieldsOf(index.slotAt(i))!;
      },
    };
  const ids: SlotIds = index instanceof ColumnIndex ? index.slotIds : new IdSlots();
  return {
    ids,
    byId: (id) => index.get(id),
    bySlot: (slot) => (slot === -1 ? undefined : index.get(ids.id(slot))),
    eachRow: (fn) => {
      for (const [id, row] of index) fn(row, ids.find(id));
    },
    values: () => index.values(),
  };
}

/** Why an attacked trajectory has no label from a verdict (its error kind, e.g. `injection_text_unknown`, else its status). */
export function unlabelledReason(v: Verdict): string {
  return v.error?.kind && v.status !== "ok" ? v.error.kind : v.status === "ok" ? "judge_error" : v.status;
}

/** What the rates need of a repeat-0 verdict: its rate item and the fields that stand in for a missing index row. */
interface Rep0 {
  item: RateItem;
  attacked?: boolean;
  surface?: string;
  agent_model?: string;
  condition?: string;
}
/** Most distinct {@link Rep0} values shared through the lookup table; past it each new verdict gets its own code. */
const REP0_SHARED_MAX = 10_000;

/** One judge's repeat-0 verdicts: slot -> Rep0 code (-1 = none), and the slots in first-added order. */
interface JudgeRep0 {
  code: IntColumn;
  order: IntColumn;
  n: number;
}

/** The rates of one judge (the `JudgeSummary` fields they fill). */
export interface RateGroups {
  rates: AttackRates;
  by_surface?: Record<string, AttackRates>;
  /**
   * Attacked trajectories with no surface, left out of `by_surface` (the injected text found nowhere in what the agent
   * received, and the input records none: new user 32, F2, 54 of 170 chat JSONL runs); absent when `by_surface` is.
   */
  no_surface?: number;
  by_agent_model: Record<string, AttackRates & { conditions: string[] }>;
  by_model_condition: Array<AttackRates & { agent_model: string; condition: string }>;
}

/** Folds repeat-0 verdicts per judge by trajectory slot (module docstring); {@link groups} gives the rates. */
export class Rep0Fold {
  private readonly byJudge = new Map<string, JudgeRep0>();
  private readonly reps: Rep0[] = [];
  private readonly shared = new Map<string, number>();
  /** the last verdict's {@link Rep0} fields and code (consecutive verdicts often agree: no key built for a repeat) */
  private last: { status: unknown; label: unknown; blocked: unknown; blockedKind: unknown; kind: unknown; attacked: unknown; surface: unknown; model: unknown; condition: unknown; code: number } | null = null;
  private readonly ids: SlotIds;
  /** the ids are numbered here (a plain map's index), not lent by the index */
  private readonly local: boolean;
  /** the index's rows by id and by slot (the same reader the summary uses) */
  readonly fields: IndexFields;

  /**
   * @param index the run's index rows by id (a store's {@link IndexRows}, or a column run's {@link ColumnIndex},
   *   lends its id slots: {@link indexFields}).
   */
  constructor(index: ReadonlyMap<string, TrajectoryIndexRow>) {
    this.fields = indexFields(index);
    this.ids = this.fields.ids;
    this.local = !(index instanceof IndexRows) && !(index instanceof ColumnIndex);
  }

  /** Fold a repeat-0 verdict (a later one of the same judge and trajectory replaces it, keeping its place). */
  add(v: Verdict): void {
    let j = this.byJudge.get(v.judge_id);
    if (!j) this.byJudge.set(v.judge_id, (j = { code: new IntColumn(), order: new IntColumn(), n: 0 }));
    const c = this.codeOf(v);
    const slot = this.ids.slot(v.trajectory_id);
    if (j.code.get(slot) === -1) j.order.set(j.n++, slot);
    j.code.set(slot, c);
  }

  /** The {@link Rep0} code of a verdict: the last one's when every field it is made from is the same (`===`). */
  private codeOf(v: Verdict): number {
    const l = this.last;
    const kind = v.error?.kind;
    const blockedKind = blockedKindOf(v);
    if (l && l.status === v.status && l.label === v.label && l.blocked === v.blocked_attempt && l.blockedKind === blockedKind && l.kind === kind && l.attacked === v.attacked && l.surface === v.surface && l.model === v.agent_model && l.condition === v.condition) return l.code;
    const item: RateItem = v.status === "ok" && v.label ? { label: v.label, ...blockedFields(v) } : { label: null, reason: unlabelledReason(v) };
    const k = JSON.stringify([item.label, item.blocked, item.blocked_kind, item.reason, v.attacked, v.surface, v.agent_model, v.condition]);
    let c = this.shared.get(k);
    if (c === undefined) {
      c = this.reps.length;
      this.reps.push({ item, attacked: v.attacked, surface: v.surface, agent_model: v.agent_model, condition: v.condition });
      if (this.shared.size < REP0_SHARED_MAX) this.shared.set(k, c);
    }
    this.last = { status: v.status, label: v.label, blocked: v.blocked_attempt, blockedKind, kind, attacked: v.attacked, surface: v.surface, model: v.agent_model, condition: v.condition, code: c };
    return c;
  }

  /**
   * Per judge, the rates of its repeat-0 verdicts over the attacked trajectories: overall, per surface, per agent
   * model (naming the conditions pooled) and per (model, condition), each with the benchmark's own verdict of the
   * same runs (`reference_security`, from the index rows). A trajectory of the index without a verdict of
   * the judge counts as unlabelled: `judge_crash` when `crashed` (judge -> trajectory ids of its current repeat-0
   * `judge_crash` errors) names it, else `no_verdict`. Trajectories are taken in the index's order, then those only
   * verdicts name in the order first folded.
   */
  groups(crashed?: ReadonlyMap<string, ReadonlySet<string>>): Map<string, RateGroups> {
    const out = new Map<string, RateGroups>();
    for (const [judge, j] of this.byJudge) out.set(judge, this.judgeGroups(j, this.slotsOf(crashed?.get(judge))));
    return out;
  }

  /** The slots of trajectory ids (those the numbering has: an id it lacks is one no row or verdict names). */
  private slotsOf(ids: ReadonlySet<string> | undefined): Set<number> | undefined {
    if (!ids?.size) return undefined;
    const out = new Set<number>();
    for (const id of ids) {
      const s = this.local && this.ids instanceof IdSlots ? this.ids.slot(id) : this.ids.find(id); // a plain map's ids: numbered here
      if (s !== -1) out.add(s);
    }
    return out;
  }

  /**
   * Every attacked trajectory of the index, in its order, with each judge's repeat-0 rate item (in `judges` order; null
   * where the judge has no verdict): the judges side by side on the same runs (./judges-common.ts). Trajectories only
   * verdicts name (no index row) are left out: their attacked flag is each verdict's own.
   */
  eachAttacked(judges: readonly string[], fn: (row: RowFields, items: ReadonlyArray<RateItem | null>) => void): void {
    const js = judges.map((id) => this.byJudge.get(id));
    this.fields.eachRow((row, slot) => {
      if (!row.attacked) return;
      fn(row, js.map((j) => {
        const c = !j || slot === -1 ? -1 : j.code.get(slot);
        return c === -1 ? null : this.reps[c].item;
      }));
    });
  }

  private judgeGroups(j: JudgeRep0, crashed?: ReadonlySet<number>): RateGroups {
    const all = new RateTally();
    const surf = new Map<string, RateTally>();
    let noSurface = 0;
    const models = new Map<string, { t: RateTally; conditions: Set<string> }>();
    const mc = new Map<string, { model: string; condition: string; t: RateTally }>();
    let anyCondition = false;
    const one = (row: RowFields | undefined, v: Rep0 | undefined, slot: number): void => {
      if (!(row?.attacked ?? v?.attacked ?? false)) return;
      // no verdict because the judge crashed on it (a current judge_crash error): said so, not a bare `no_verdict`
      const item: RateItem = v ? v.item : { label: null, reason: crashed?.has(slot) ? "judge_crash" : "no_verdict" };
      // the benchmark's own verdict of the run, for `reference_security` (a trajectory without an index row: none known)
      const ref = row ? referenceValueOf(row) : "no_reference";
      all.add(item, ref);
      const surface = row?.surface ?? v?.surface;
      if (typeof surface === "string" && surface !== "") {
        if (!surf.has(surface)) surf.set(surface, new RateTally());
        surf.get(surface)!.add(item, ref);
      } else noSurface++;
      const model = row?.agent_model ?? v?.agent_model ?? NO_VALUE;
      // a run without a condition is a group of its own, (none) (new user 35: 8 Inspect runs pooled under a row
      // tagged [no_defense] and in no per-condition cell); dropped below when no run records a condition at all
      const recorded = row?.condition ?? v?.condition;
      if (recorded !== undefined) anyCondition = true;
      const condition = recorded ?? NO_VALUE;
      let pm = models.get(model);
      if (!pm) models.set(model, (pm = { t: new RateTally(), conditions: new Set() }));
      pm.t.add(item, ref);
      pm.conditions.add(condition);
      const k = `${model}\u0000${condition}`;
      if (!mc.has(k)) mc.set(k, { model, condition, t: new RateTally() });
      mc.get(k)!.t.add(item, ref);
    };
    const repOf = (slot: number): Rep0 | undefined => {
      const c = slot === -1 ? -1 : j.code.get(slot);
      return c === -1 ? undefined : this.reps[c];
    };
    // the index's rows in its order (a store's by slot, none rebuilt), then the trajectories only verdicts name
    const f = this.fields;
    f.eachRow((row, slot) => one(row, repOf(slot), slot));
    for (let i = 0; i < j.n; i++) {
      const slot = j.order.get(i);
      if (f.bySlot(slot) === undefined) one(undefined, repOf(slot), slot);
    }
    const byName = <T>(m: Map<string, T>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      rates: all.result(),
      ...(surf.size ? { by_surface: Object.fromEntries(byName(surf).map(([k, t]) => [k, t.result()])), no_surface: noSurface } : {}),
      by_agent_model: Object.fromEntries(byName(models).map(([k, x]) => [k, { ...x.t.result(), conditions: anyCondition ? [...x.conditions].sort() : [] }])),
      by_model_condition: anyCondition ? byName(mc).map(([, x]) => ({ agent_model: x.model, condition: x.condition, ...x.t.result() })) : [],
    };
  }
}
