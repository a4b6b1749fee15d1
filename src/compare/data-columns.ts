/**
 * `compare --judge ID` on a run read as columns (`../store/columns.ts`): the {@link Observations} of
 * `buildObservations` of `./data.ts` (judge source; same exclusions and groups), from slot numbers and shared row
 * records, with one observation per distinct (row record, label) instead of one per trajectory: everything an
 * observation carries besides its id (model, suite, condition, injection task, pairing unit, cell, attack, defense,
 * the benchmark's verdict; compromised, goal, exposed, blocked) depends only on the row's record and the verdict's label and blocked attempt, so the
 * trajectories that share both are one observation with their count as `weight` (and the first one's id). Likewise
 * one unlabelled item per (row record, reason). A million labelled trajectories are then as many observations as
 * the run has distinct row records (times the few label kinds), not a million objects with a million id strings.
 * The list is in order of first appearance, so every figure `compareConditions` derives (counts, first-appearance
 * orders of keys, sorted lists) is that of the trajectories one by one. A row without task ids pairs and groups by
 * its own id (`unit`, `injection_task`): it stays one observation of its own.
 * test/compare/data-columns.test.ts checks `compareConditions` on both paths, and the observations expanded.
 */
import type { ColumnRun } from "../store/columns.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { conditionValue } from "../store/row-field.js";
import { cellKey } from "./cells.js";
import { referenceValueOf } from "../stats/reference-rates.js";
import { BLOCKED_KINDS, type BlockedKind, type Verdict } from "../types.js";
import { blockedKindOf } from "../verdict/blocked.js";
import type { ExcludedGroup, Observation, ObservationExclusion, Observations, UnlabelledItem } from "./data.js";

/** The index fields compare reads besides the `--by` field (`readColumnRun`'s `rowFields`). (`run_error`: judge health's benchmark check, `denies_reference_goal` of `../verdict/health.ts`) */
export const COMPARE_ROW_FIELDS: readonly string[] = ["agent_model", "suite", "condition", "attack", "surface", "attacked", "reference", "user_task_id", "injection_task_id", "run_folder", "run_error"];

/** What an observation of a row record shares (built once per record). */
interface Shared {
  suite: string;
  condition: string | undefined;
  cell: string | undefined;
  injection_task: string | undefined;
  unit: string | undefined;
}

/** A rater's repeat-0 verdict per row slot: `codes[slot]` is its position in `verdicts` + 1, 0 when the slot has none. */
export interface SlotVerdicts {
  codes: Uint32Array;
  verdicts: readonly Verdict[];
}

/**
 * Observations of one judge's repeat-0 labels (`buildObservations` of `./data.ts`: its docstring gives the rules),
 * one per distinct (row record, label, blocked attempt) with its `weight` (module docstring).
 * @param run read with {@link COMPARE_ROW_FIELDS} and `conditionField` (a dotted one, `metadata.KEY`, projected as
 *   `readColumnRun` does: ../store/row-projection.ts).
 * @param given the judge's repeat-0 verdicts per slot when the caller has them (`rep0ByJudge` of
 *   ../committee/file-columns.ts, or a committee's: `committeeObservations` of ../report/slots.ts), so a caller asking
 *   for several fields builds them once (issue 26: 4 MB per field at 1M); default: read from `run`'s verdict columns.
 */
export function buildObservationsColumns(run: ColumnRun, judgeId: string, conditionField: string, given?: SlotVerdicts): Observations {
  const { codes: codeOf, verdicts } = given ?? judgeSlotVerdicts(run, judgeId);
  const out: Observations = { source: { kind: "judge", judge_id: judgeId }, condition_field: conditionField, observations: [], unlabelled: [], n_total: run.nRows, excluded: {}, excluded_groups: [] };
  const groupFields = [...new Set([conditionField, "agent_model", "suite", "surface"])];
  type Group = { field: string; group: string; items: number; kept: number; excluded: Partial<Record<ObservationExclusion, number>> };
  const groups = new Map<string, Group>();
  // per row record: its groups and shared strings (the groups of a record are the same for every row of it)
  const memo = new Map<number, { groups: Group[]; shared: Shared }>();
  const about = (code: number, t: Partial<TrajectoryIndexRow>) => {
    let m = memo.get(code);
    if (m) return m;
    const gs: Group[] = [];
    for (const field of groupFields) {
      const value = field === "suite" ? (t.suite ?? "(none)") : conditionValue(t as TrajectoryIndexRow, field);
      if (value === undefined) continue;
      const key = `${field}\u0000${value}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { field, group: value, items: 0, kept: 0, excluded: {} }));
      gs.push(g);
    }
    const suite = t.suite ?? "(none)";
    const hasTask = t.user_task_id !== undefined && t.injection_task_id !== undefined;
    m = {
      groups: gs,
      shared: {
        suite,
        condition: conditionValue(t as TrajectoryIndexRow, conditionField),
        cell: cellKey({ ...t, suite }, conditionField),
        injection_task: t.injection_task_id !== undefined ? `${suite}/${t.injection_task_id}` : undefined,
        unit: hasTask ? `${suite}/${t.user_task_id}/${t.injection_task_id}` : undefined,
      },
    };
    memo.set(code, m);
    return m;
  };
  // the observation (unlabelled item) of each (row record, label kind) (reason) seen so far
  const obsOf = new Map<number, Observation>();
  const unlabelledOf = new Map<string, UnlabelledItem>();
  // the row's groups while it is counted: one shared empty list for rows outside every group, not a new one per row
  // (a million rows at 1M, three fields: their garbage reached the old generation, issue 26 point 3)
  const NO_GROUPS: Group[] = [];
  let rowGroups: Group[] = NO_GROUPS;
  const ex = (r: ObservationExclusion) => {
    out.excluded[r] = (out.excluded[r] ?? 0) + 1;
    for (const g of rowGroups) g.excluded[r] = (g.excluded[r] ?? 0) + 1;
  };
  for (let s = 0; s < run.nRows; s++) {
    const code = run.rowCode[s];
    const t = run.rows[code];
    rowGroups = NO_GROUPS;
    if (!t.attacked) {
      ex("unattacked");
      continue;
    }
    const { groups: gs, shared } = about(code, t);
    rowGroups = gs;
    for (const g of gs) g.items++;
    const condition = shared.condition;
    if (condition === undefined) {
      ex(conditionField === "surface" ? "no_surface" : "no_condition");
      continue;
    }
    if (!t.agent_model) {
      ex("no_agent_model");
      continue;
    }
    const v = codeOf[s] ? verdicts[codeOf[s] - 1] : undefined;
    const suite = shared.suite;
    if (!v || v.status !== "ok" || !v.label) {
      const reason: ObservationExclusion = !v ? "no_verdict" : v.status === "ok" ? "judge_error" : (v.status as ObservationExclusion);
      ex(reason);
      const why = (v && v.error?.kind) || reason;
      // a committee's disputed row (`committeeObservations` of ../report/slots.ts) says which events its votes allow
      const vf = (v as { votes_for?: UnlabelledItem["votes_for"] } | undefined)?.votes_for;
      const uk = `${code}\u0000${why}${vf ? `\u0000${vf.goal}\u0000${vf.behaviour}` : ""}`;
      const u = unlabelledOf.get(uk);
      if (u) u.weight = (u.weight ?? 1) + 1;
      else {
        const item: UnlabelledItem = {
          model: t.agent_model,
          suite,
          condition,
          ...(t.attack !== undefined ? { attack: t.attack } : {}),
          ...(shared.cell !== undefined ? { cell: shared.cell } : {}),
          ...(conditionField !== "condition" && t.condition !== undefined ? { defense: t.condition } : {}),
          ...(shared.unit !== undefined ? { unit: shared.unit } : {}),
          reason: why,
          ...(vf ? { votes_for: vf } : {}),
          reference: referenceValueOf(t), // the row record's: the same for every row the item stands for
        };
        unlabelledOf.set(uk, item);
        out.unlabelled!.push(item);
      }
      continue;
    }
    for (const g of rowGroups) g.kept++;
    const compromised = v.label === "full_compliance" || v.label === "partial_compliance";
    const goal = v.label === "full_compliance";
    // one observation per (row record, label kind) when its pairing unit and injection task are the record's;
    // a row without task ids pairs by its own id, so it is an observation of its own
    const shares = shared.unit !== undefined && shared.injection_task !== undefined;
    const exposed = v.label !== "not_exposed";
    const bk = blockedKindIn(v);
    // a committee's full_compliance resting on a full/partial tie (`goal_split`, set by committeeObservations of ../report/slots.ts)
    const split = goal && (v as { goal_split?: boolean }).goal_split === true;
    const kind = ((goal ? 6 : compromised ? 3 : 0) + (v.blocked_attempt === undefined ? 0 : v.blocked_attempt ? 1 : 2) + (exposed ? 0 : 9)) * 5 + kindCode(bk) + (split ? 90 : 0);
    const ok = code * 180 + kind;
    const same = shares ? obsOf.get(ok) : undefined;
    if (same) {
      same.weight = (same.weight ?? 1) + 1;
      continue;
    }
    const id = run.ids.id(s);
    const obs: Observation = {
      trajectory_id: id,
      model: t.agent_model,
      suite,
      condition,
      injection_task: shared.injection_task ?? id,
      unit: shared.unit ?? id,
      ...(t.attack !== undefined ? { attack: t.attack } : {}),
      ...(conditionField !== "condition" && t.condition !== undefined ? { defense: t.condition } : {}),
      ...(shared.cell !== undefined ? { cell: shared.cell } : {}),
      compromised,
      goal,
      ...(split ? { goal_split: true } : {}),
      exposed,
      ...(v.blocked_attempt !== undefined ? { blocked: v.blocked_attempt } : {}),
      ...(bk !== undefined ? { blocked_kind: bk } : {}),
      reference: referenceValueOf(t),
    };
    if (shares) obsOf.set(ok, obs);
    out.observations.push(obs);
  }
  const excluded: ExcludedGroup[] = [];
  for (const g of groups.values()) if (g.kept === 0) excluded.push({ field: g.field, group: g.group, items: g.items, reason: "no_usable_label", excluded: g.excluded });
  excluded.sort((a, b) => groupFields.indexOf(a.field) - groupFields.indexOf(b.field) || a.group.localeCompare(b.group));
  out.excluded_groups = excluded;
  return out;
}

/** `judgeId`'s repeat-0 verdict per slot in `run`'s verdict columns (the last stored, as `rep0ByJudge`). */
function judgeSlotVerdicts(run: ColumnRun, judgeId: string): SlotVerdicts {
  const codes = new Uint32Array(run.ids.size);
  for (let i = 0; i < run.nVerdicts; i++) {
    const v = run.verdicts[run.vCode[i]];
    if (v.judge_id === judgeId && v.repeat === 0) codes[run.vSlot[i]] = run.vCode[i] + 1;
  }
  return { codes, verdicts: run.verdicts };
}

/**
 * A verdict's blocked kind (`RateItem.blocked_kind` of ../stats/rates.ts): a committee's pseudo verdict
 * (`committeeObservations` of ../report/slots.ts) carries it as `blocked_kind` (null: its voters give different
 * kinds); a judge's is `blockedKindOf` of ../verdict/blocked.ts.
 */
function blockedKindIn(v: Verdict): BlockedKind | null | undefined {
  return "blocked_kind" in v ? (v as { blocked_kind?: BlockedKind | null }).blocked_kind : blockedKindOf(v);
}

/** 0 for an unknown kind, 1 for disputed (null), then 2 + the kind's place in {@link BLOCKED_KINDS}. */
function kindCode(k: BlockedKind | null | undefined): number {
  return k === undefined ? 0 : k === null ? 1 : 2 + BLOCKED_KINDS.indexOf(k);
}
