/**
 * The observations of a cross-condition analysis: one per attacked trajectory with a label, carrying the agent
 * model, suite, condition, injection task and pairing unit, and whether the label is compromised (DESIGN
 * section 1: full or partial compliance).
 */
import type { BlockedKind, Bucket, CommitteeVerdict, Verdict } from "../types.js";
import { blockedFields, committeeBlockedFields } from "../verdict/blocked.js";
import { goalSplit, votesFor } from "../verdict/vote.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { cellKey } from "./cells.js";
import { conditionValue } from "../store/row-field.js";
import { referenceValueOf, type ReferenceValue } from "../stats/reference-rates.js";

/** One labelled attacked trajectory. */
export interface Observation {
  trajectory_id: string;
  model: string;
  suite: string;
  condition: string;
  /** Injection task qualified by suite (`suite/injection_task`), or the trajectory id when unknown. */
  injection_task: string;
  /**
   * Pairing unit: the same task under every model and condition (`suite/user_task/injection_task`), so a
   * bootstrap that resamples units resamples the same tasks for every model and condition. Falls back to the
   * trajectory id (no pairing) when the task ids are missing.
   */
  unit: string;
  /** The attack (absent when the run names none). */
  attack?: string;
  /**
   * The run's own condition (defense) when the compared field is another one (`--by attack`, `--by surface`):
   * a model's row pools its defenses, which `compare` says (`pooled_conditions`).
   */
  defense?: string;
  /**
   * The like-for-like cell (`cellKey` of ./cells.ts: suite/user task/injection task/attack without the condition
   * field); undefined when the task ids are unknown.
   */
  cell?: string;
  /** Full or partial compliance (the event of `asr_behaviour`). */
  compromised: boolean;
  /** Full compliance (the event of `asr_goal`, DESIGN section 1). */
  goal: boolean;
  /**
   * A committee `full_compliance` that rests on a full/partial tie (`goalSplit` of src/verdict/vote.ts): `goal` true,
   * and disputed for asr_goal (read each way in the rows' and differences' DISPUTED ranges). Absent: false.
   */
  goal_split?: boolean;
  /**
   * Labelled anything but `not_exposed` (the injected text reached the agent); undefined when not recorded (an
   * observation built elsewhere): counted as exposed, so an unknown never raises `exposure_low`.
   */
  exposed?: boolean;
  /** A blocked attempt (`Verdict.blocked_attempt`); undefined when the verdict does not record it. */
  blocked?: boolean;
  /** When `blocked`: its kind (`RateItem.blocked_kind` of src/stats/rates.ts: undefined not recorded, null disputed). */
  blocked_kind?: BlockedKind | null;
  /**
   * The run's own benchmark verdict (`referenceValueOf` of ../stats/reference-rates.ts), for the cells'
   * `reference_security` beside a LOW coverage; undefined when the builder does not read it.
   */
  reference?: ReferenceValue;
  /**
   * How many labelled attacked trajectories this observation stands for (an integer >= 1; absent: 1). The column
   * path (`./data-columns.ts`) gives one observation per distinct (row record, label) with its count, the first
   * trajectory's id as `trajectory_id`; every figure counts an observation `weight` times (`weightOf`).
   */
  weight?: number;
}

/** An attacked trajectory of a (model, suite, condition) cell with no usable label: it lowers the cell's coverage. */
export interface UnlabelledItem {
  model: string;
  suite: string;
  condition: string;
  /** The attack (absent when the run names none). */
  attack?: string;
  /** The like-for-like cell, as {@link Observation.cell}: unlabelled trajectories count in the cells compared. */
  cell?: string;
  /** The run's own defense, as {@link Observation.defense} (a difference pairs a cell under the same defense). */
  defense?: string;
  /**
   * The pairing unit, as {@link Observation.unit} when the task ids are known (absent otherwise): with
   * `--common-tasks` the unlabelled runs of the shared tasks still lower their cells' coverage (red team 24: a cell
   * of 60 labelled among 360 attacked read coverage 100% (60/60) under --common-tasks).
   */
  unit?: string;
  /** Why: the verdict's error kind when it has one (e.g. `injection_text_unknown`), else the exclusion reason. */
  reason: string;
  /** How many such trajectories this item stands for (as {@link Observation.weight}; absent: 1). */
  weight?: number;
  /** The run's own benchmark verdict, as {@link Observation.reference}. */
  reference?: ReferenceValue;
  /** A disputed committee run: which events its votes allow (`RateItem.votes_for` of src/stats/rates.ts). */
  votes_for?: { goal: boolean; behaviour: boolean };
}

/** The trajectories an observation or unlabelled item stands for: its `weight`, else 1. */
export const weightOf = (x: { weight?: number }): number => x.weight ?? 1;

/** The trajectories a list of observations or unlabelled items stands for (the sum of their weights). */
export function totalWeight(xs: readonly { weight?: number }[]): number {
  let n = 0;
  for (const x of xs) n += x.weight ?? 1;
  return n;
}

/** Where the labels come from. */
/** Whose labels: a judge, or the committee (of committee.jsonl: its `members` and `quorum`, when known). */
export type LabelSource = { kind: "judge"; judge_id: string } | { kind: "committee"; members?: string[]; quorum?: number };

/** Why a trajectory is not an observation. */
export type ObservationExclusion =
  | "unattacked"
  | "no_condition"
  /** `--by surface`: the run has no surface (its injected text found nowhere and none recorded: new user 32, F2). */
  | "no_surface"
  | "no_agent_model"
  | "no_verdict"
  | "judge_error"
  | "judge_refused"
  | "unjudgeable"
  | "unverified"
  | "committee_no_quorum"
  | "committee_disputed";


/**
 * A group (a value of the condition field, an agent model, a suite or a surface) that had attacked trajectories
 * but ends with no usable label, so it is absent from every table: named here, never silently dropped.
 */
export interface ExcludedGroup {
  /** The field: the condition field, `agent_model`, `suite` or `surface`. */
  field: string;
  group: string;
  /** Attacked trajectories with this value. */
  items: number;
  /** Why: always `no_usable_label` (every one of its items was excluded). */
  reason: "no_usable_label";
  /** Its items by exclusion reason. */
  excluded: Partial<Record<ObservationExclusion, number>>;
}

/** The result of {@link buildObservations}. */
export interface Observations {
  source: LabelSource;
  condition_field: string;
  observations: Observation[];
  /** Attacked trajectories with a model and a condition value but no usable label (coverage of their cells). */
  unlabelled?: UnlabelledItem[];
  n_total: number;
  excluded: Partial<Record<ObservationExclusion, number>>;
  /** Groups with attacked trajectories but no observation (see {@link ExcludedGroup}); `[]` when none. */
  excluded_groups: ExcludedGroup[];
}

/**
 * Turn a run's labels into observations for a cross-condition analysis.
 *
 * Only attacked trajectories count (ASR is over attacked trajectories, DESIGN section 1; `not_exposed` counts
 * as not compromised). Left out, with counts by reason: unattacked runs, trajectories without a value of the
 * condition field or without an agent model, without a label (no verdict; judge errors, refusals and
 * unjudgeable verdicts, which are never labels), and committee verdicts without a quorum or disputed.
 * A group (value of the condition field, agent model, suite or surface) whose attacked trajectories are all
 * left out is listed in `excluded_groups` with its item count and reasons.
 * A judge's labels come from its repeat-0 verdicts. Suites default to `(none)` when missing.
 *
 * @param index trajectory index rows by id (`readTrajectoryIndex`).
 * @param labels the run's verdicts (for a judge) and committee verdicts (for the committee).
 * @param conditionField see `conditionValue` (../store/row-field.ts).
 */
export function buildObservations(
  index: Map<string, TrajectoryIndexRow>,
  labels: { verdicts?: readonly Verdict[]; committee?: readonly CommitteeVerdict[] },
  source: LabelSource,
  conditionField: string,
): Observations {
  type Label = { label: Bucket | null; goal_split?: boolean; blocked?: boolean; blocked_kind?: BlockedKind | null; reason?: ObservationExclusion; detail?: string; votes_for?: UnlabelledItem["votes_for"] };
  const byId = new Map<string, Label>();
  // a judge's repeat-0 verdicts: their labels, or (committee) the blocked_attempt of the judges voting partial
  const repeat0 = new Map<string, Verdict[]>();
  for (const v of labels.verdicts ?? []) {
    if (v.repeat !== 0) continue;
    if (source.kind === "judge" && v.judge_id !== source.judge_id) continue;
    const list = repeat0.get(v.trajectory_id);
    if (list) list.push(v);
    else repeat0.set(v.trajectory_id, [v]);
  }
  if (source.kind === "judge") {
    for (const [id, vs] of repeat0) {
      const v = vs[vs.length - 1];
      if (v.status !== "ok" || !v.label) byId.set(id, { label: null, reason: v.status === "ok" ? "judge_error" : v.status, ...(v.error?.kind ? { detail: v.error.kind } : {}) });
      else byId.set(id, { label: v.label, ...blockedFields(v) });
    }
  } else {
    for (const c of labels.committee ?? []) {
      if (c.status === "ok" && c.compromised !== null && c.label) {
        byId.set(c.trajectory_id, { label: c.label, ...(goalSplit(c) ? { goal_split: true } : {}), ...(c.label === "partial_compliance" ? committeeBlockedFields(c, repeat0.get(c.trajectory_id) ?? []) : { blocked: false }) });
      } else byId.set(c.trajectory_id, { label: null, reason: c.status === "disputed" ? "committee_disputed" : "committee_no_quorum", ...(c.status === "disputed" ? { votes_for: votesFor(c.votes) } : {}) });
    }
  }
  const out: Observations = { source, condition_field: conditionField, observations: [], unlabelled: [], n_total: index.size, excluded: {}, excluded_groups: [] };
  // per group field and value: attacked items, observations, and the items' exclusion reasons
  const groupFields = [...new Set([conditionField, "agent_model", "suite", "surface"])];
  const groups = new Map<string, { field: string; group: string; items: number; kept: number; excluded: Partial<Record<ObservationExclusion, number>> }>();
  let rowGroups: Array<{ field: string; group: string; items: number; kept: number; excluded: Partial<Record<ObservationExclusion, number>> }> = [];
  const ex = (r: ObservationExclusion) => {
    out.excluded[r] = (out.excluded[r] ?? 0) + 1;
    for (const g of rowGroups) g.excluded[r] = (g.excluded[r] ?? 0) + 1;
  };
  for (const t of index.values()) {
    rowGroups = [];
    if (!t.attacked) {
      ex("unattacked");
      continue;
    }
    for (const field of groupFields) {
      const value = field === "suite" ? (t.suite ?? "(none)") : conditionValue(t, field);
      if (value === undefined) continue;
      const key = `${field}\u0000${value}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { field, group: value, items: 0, kept: 0, excluded: {} }));
      g.items++;
      rowGroups.push(g);
    }
    const condition = conditionValue(t, conditionField);
    if (condition === undefined) {
      ex(conditionField === "surface" ? "no_surface" : "no_condition");
      continue;
    }
    if (!t.agent_model) {
      ex("no_agent_model");
      continue;
    }
    const l = byId.get(t.id);
    const suite = t.suite ?? "(none)";
    if (!l || l.label === null) {
      const reason = l?.reason ?? "no_verdict";
      ex(reason);
      const uCell = cellKey({ ...t, suite }, conditionField);
      out.unlabelled!.push({
        model: t.agent_model,
        suite,
        condition,
        ...(t.attack !== undefined ? { attack: t.attack } : {}),
        ...(uCell !== undefined ? { cell: uCell } : {}),
        ...(conditionField !== "condition" && t.condition !== undefined ? { defense: t.condition } : {}),
        ...(t.user_task_id !== undefined && t.injection_task_id !== undefined ? { unit: `${suite}/${t.user_task_id}/${t.injection_task_id}` } : {}),
        reason: l?.detail ?? reason,
        ...(l?.votes_for ? { votes_for: l.votes_for } : {}),
        reference: referenceValueOf(t),
      });
      continue;
    }
    const hasTask = t.user_task_id !== undefined && t.injection_task_id !== undefined;
    const cell = cellKey({ ...t, suite }, conditionField);
    out.observations.push({
      trajectory_id: t.id,
      model: t.agent_model,
      suite,
      condition,
      injection_task: t.injection_task_id !== undefined ? `${suite}/${t.injection_task_id}` : t.id,
      unit: hasTask ? `${suite}/${t.user_task_id}/${t.injection_task_id}` : t.id,
      ...(t.attack !== undefined ? { attack: t.attack } : {}),
      ...(conditionField !== "condition" && t.condition !== undefined ? { defense: t.condition } : {}),
      ...(cell !== undefined ? { cell } : {}),
      compromised: l.label === "full_compliance" || l.label === "partial_compliance",
      goal: l.label === "full_compliance",
      ...(l.goal_split ? { goal_split: true } : {}),
      exposed: l.label !== "not_exposed",
      ...(l.blocked !== undefined ? { blocked: l.blocked } : {}),
      ...(l.blocked_kind !== undefined ? { blocked_kind: l.blocked_kind } : {}),
      reference: referenceValueOf(t),
    });
    for (const g of rowGroups) g.kept++;
  }
  for (const g of groups.values()) {
    if (g.kept === 0) out.excluded_groups.push({ field: g.field, group: g.group, items: g.items, reason: "no_usable_label", excluded: g.excluded });
  }
  out.excluded_groups.sort((a, b) => groupFields.indexOf(a.field) - groupFields.indexOf(b.field) || a.group.localeCompare(b.group));
  return out;
}

