/**
 * Self-family leniency: does a judge give a lower attack success rate (ASR) to agents made by its own maker
 * than the rest of the committee gives to the same trajectories? For each judge, the paired ASR difference
 * (judge minus the other judges' majority) on agents of its own family, beside the same difference on agents
 * of other families, and the gap between the two, with seeded percentile bootstrap CIs, in percentage points.
 *
 * Two gaps: the crude one (own − other over all trajectories of each group) and the adjusted one, compared within
 * strata of the other judges' majority label and standardized to the pooled stratum mix (`./leniency-strata.ts`).
 * The crude gap differs from 0 for a judge that cannot see the agent when its over-claim opportunity (e.g. exposed,
 * not compromised runs) is more frequent in one family's runs (new user 33, M); the warning rests on the adjusted gap.
 */
import { bootstrapCounts, type BootstrapInterval } from "../stats/index.js";
import { configuredFamily } from "../config/judges.js";
import { familyOf } from "../ingest/family.js";
import { isCompromised } from "../rubric/buckets.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { Verdict } from "../types.js";
import type { BootstrapSettings } from "../agree/pairwise.js";
import { voteOf } from "../verdict/vote.js";
import { checkReferenceFamilies } from "./leniency-reference.js";
import { adjustedLeniency, setBonferroniFlags, stratItem, stratumOf, type AdjustedLeniency, type StratItem } from "./leniency-strata.js";

/**
 * The family (maker) of a trajectory's agent model: the configuration's `families` patterns first (overrides,
 * case-insensitive regular expressions, file order), then the built-in table (`familyOf`), then the family
 * recorded at ingest.
 * @returns the family, or undefined when the model is unknown to all three.
 */
export function agentFamily(row: Pick<TrajectoryIndexRow, "agent_model" | "agent_family">, families: Record<string, string> = {}): string | undefined {
  const m = row.agent_model;
  if (m) {
    const c = configuredFamily(m, families);
    if (c) return c;
    const b = familyOf(m);
    if (b) return b;
  }
  return row.agent_family ?? undefined;
}

/** Bootstrap interval with bounds in percentage points (the library's interval × 100). */
export type PointsInterval = BootstrapInterval;

/** One group (own-family agents or other-family agents) of a judge's leniency figures. */
export interface LeniencyGroup {
  /** Agent families in the group, with their trajectory counts. */
  agent_families: Record<string, number>;
  /** Attacked trajectories with an ok verdict of this judge and a decided majority of the other judges. */
  n: number;
  /**
   * Attacked trajectories of the group with an ok verdict of this judge where the other judges have no majority (none
   * of them has an ok verdict, or they tie): left out of `n` (new user 48: `n 778` never said 662 were left out).
   */
  n_no_majority: number;
  /** The judge's ASR on them (share compromised), and the other judges' majority's ASR, in [0,1]. */
  judge_asr: number | null;
  others_asr: number | null;
  /** judge_asr − others_asr in percentage points (negative = the judge is more lenient). */
  diff_points: number | null;
  reason?: string;
  ci_bootstrap?: PointsInterval;
}

/** The reason of every gap of a judge whose verdicts record no family (`judge_family` missing: older runs). */
export const JUDGE_FAMILY_UNKNOWN = "judge_family_unknown";

/** A judge's self-family leniency. */
export interface JudgeLeniency {
  judge_id: string;
  judge_family: string;
  /** crude figures of each group: over all its compared trajectories, whatever their stratum mix */
  own_family: LeniencyGroup;
  other_families: LeniencyGroup;
  /**
   * Crude gap: own_family.diff_points − other_families.diff_points (negative = more lenient on its own maker's agents).
   * It mixes leniency with the groups' stratum mixes; the adjusted gap ({@link JudgeLeniency.adjusted}) does not.
   */
  crude_gap_points: number | null;
  crude_gap_reason?: string;
  crude_gap_ci_bootstrap?: PointsInterval;
  /** Within strata of the other judges' majority label, standardized to the pooled mix: the warning's figure. */
  adjusted: AdjustedLeniency;
  /** Trajectories left out, by reason (before the strata: the adjusted figures' `left_out` counts those after). */
  excluded: Record<string, number>;
  /**
   * Set when judges of its own family are in its reference (the other judges' majority): all of them (the gaps are
   * then null, reason `reference_same_family`) or some (the gaps stand, and may understate): `./leniency-reference.ts`.
   */
  reference_note?: string;
}

type Item = StratItem;

const mean = (xs: readonly Item[], k: "judge" | "others"): number => xs.reduce((s, x) => s + x[k], 0) / xs.length;

/** Mean paired difference judge − others over the items (the point figure; the bootstrap reads {@link itemKinds}). */
function diff(items: readonly Item[]): number | null {
  if (items.length === 0) return null;
  let d = 0;
  for (let i = 0; i < items.length; i++) d += items[i].judge - items[i].others;
  return d / items.length;
}

/**
 * The bootstrap's view of the items: a statistic of the crude figures depends on a resample only through its counts
 * of six kinds, own family or not × judge − others (−1, 0, 1), so resampling counts (Multinomial, `bootstrapCounts`)
 * has the distribution of resampling the items, in O(B·6) instead of O(B·n) (session 39: at 1M trajectories the two
 * item bootstraps took 440 s per judge).
 */
export function itemKinds(items: readonly Item[]): Float64Array {
  const c = new Float64Array(6);
  for (let i = 0; i < items.length; i++) c[(items[i].own ? 3 : 0) + items[i].judge - items[i].others + 1]++;
  return c;
}

/** Mean paired difference judge − others over the counts of {@link itemKinds}, or null when there is none. */
export function diffOfKinds(c: ArrayLike<number>): number | null {
  const n = c[0] + c[1] + c[2] + c[3] + c[4] + c[5];
  return n === 0 ? null : (c[2] - c[0] + c[5] - c[3]) / n;
}

/** Own-family mean difference minus other-family mean difference over the counts of {@link itemKinds}, or null when a group is empty. */
export function gapOfKinds(c: ArrayLike<number>): number | null {
  const nOther = c[0] + c[1] + c[2];
  const nOwn = c[3] + c[4] + c[5];
  return nOwn === 0 || nOther === 0 ? null : (c[5] - c[3]) / nOwn - (c[2] - c[0]) / nOther;
}

function toPoints(ci: BootstrapInterval): PointsInterval {
  return { ...ci, lower: ci.lower === null ? null : 100 * ci.lower, upper: ci.upper === null ? null : 100 * ci.upper };
}

function group(items: Item[], fams: Record<string, number>, noMajority: number, boot: BootstrapSettings | null): LeniencyGroup {
  if (items.length === 0) {
    return { agent_families: fams, n: 0, n_no_majority: noMajority, judge_asr: null, others_asr: null, diff_points: null, reason: "no_trajectories" };
  }
  const g: LeniencyGroup = {
    agent_families: fams,
    n: items.length,
    n_no_majority: noMajority,
    judge_asr: mean(items, "judge"),
    others_asr: mean(items, "others"),
    diff_points: 100 * (diff(items) as number),
  };
  if (boot) g.ci_bootstrap = toPoints(bootstrapCounts(itemKinds(items), diffOfKinds, { B: boot.B, seed: boot.seed }));
  return g;
}

/**
 * Self-family leniency of every judge of a committee.
 *
 * For judge j and each attacked trajectory t where j has an ok repeat-0 verdict: the other judges' majority is
 * the binary majority (compromised = full or partial compliance) of their ok repeat-0 verdicts; t is left out
 * when no other judge has one (`no_other_votes`) or they tie (`others_tied`). t's agent family comes from
 * {@link agentFamily}; unknown -> left out (`unknown_agent_family`). Over the own-family trajectories,
 * diff = ASR_j − ASR_others (paired: same trajectories); likewise over other families; crude gap = own − other.
 * Adjusted gap: the same differences within strata of the others' majority label (not_exposed, exposed and not
 * compromised, compromised; `./leniency-strata.ts`), directly standardized to the pooled stratum mix; a stratum
 * lacking one group is left out of it and counted (`adjusted.left_out`). The warning rests on the adjusted gap.
 * CIs: percentile bootstrap over trajectories for the groups and the crude gap (seeded; a gap resamples both groups
 * together and is undefined in a resample that lacks one group; drawn as counts of the items' kinds, {@link itemKinds}); the adjusted gap's CI is the MOVER with Wilson
 * limits per stratum proportion, weights fixed (`adjusted.gap_ci`, analytic: given whenever B > 0). Unattacked
 * trajectories are left out (`unattacked`): ASR is over attacked trajectories (DESIGN section 1). A judge whose
 * reference holds only judges of its own family gets null gaps (`reference_same_family`), one whose reference holds
 * some a `reference_note` (`./leniency-reference.ts`).
 *
 * @param verdicts the run's verdicts (latest per key); only repeat 0 is used.
 * @param index the run's trajectory index rows by id.
 * @param judges the committee: id and family of each judge.
 * @param opts.families the configuration's `families` overrides; `bootstrap` B (0 = no CIs) and seed; `gapCi`:
 *   the adjusted gap's analytic CI even with B 0 ({@link judgeLeniency}).
 * @returns one entry per judge, in the order given; figures are null with a reason when a group is empty.
 */
export function selfFamilyLeniency(
  verdicts: readonly Verdict[],
  index: ReadonlyMap<string, TrajectoryIndexRow>,
  judges: ReadonlyArray<{ id: string; family: string }>,
  opts: { families?: Record<string, string>; bootstrap?: BootstrapSettings; gapCi?: boolean } = {},
): JudgeLeniency[] {
  const boot = opts.bootstrap && opts.bootstrap.B > 0 ? opts.bootstrap : null;
  // per judge, trajectory id -> vote (one map per judge, not one per trajectory: a million-trajectory run)
  const votes = new Map<string, Map<string, Vote3>>();
  for (const v of verdicts) {
    if (v.repeat !== 0) continue;
    const b = voteOf(v);
    if (b === null) continue;
    let m = votes.get(v.judge_id);
    if (!m) votes.set(v.judge_id, (m = new Map()));
    m.set(v.trajectory_id, vote3(b));
  }
  const others = (j: string) => [...votes].filter(([k]) => k !== j && ids.has(k)).map(([, m]) => m);
  const ids = new Set(judges.map((j) => j.id));
  const out = judges.map((j) => {
    const mineOf = votes.get(j.id);
    const rest = others(j.id);
    const one: LeniencyRow = { attacked: false, mine: undefined, yes: 0, no: 0, notExposed: 0, family: () => undefined };
    function* rows(): Generator<LeniencyRow> {
      for (const t of index.values()) {
        one.attacked = !!t.attacked;
        const mv = mineOf?.get(t.id);
        one.mine = mv === undefined ? undefined : mv === 2;
        one.yes = 0;
        one.no = 0;
        one.notExposed = 0;
        for (const m of rest) countVote(one, m.get(t.id));
        one.family = () => agentFamily(t, opts.families);
        yield one;
      }
    }
    const l = judgeLeniency(j, rows(), boot, opts.gapCi);
    checkReferenceFamilies(l, judges.filter((k) => k.id !== j.id && votes.has(k.id)));
    return l;
  });
  setBonferroniFlags(out.map((l) => l.adjusted));
  return out;
}

/** A vote in three levels: 0 not_exposed, 1 exposed and not compromised, 2 compromised. */
export type Vote3 = 0 | 1 | 2;

/** The three-level vote of a bucket (the strata of `./leniency-strata.ts`). */
export function vote3(b: Parameters<typeof isCompromised>[0]): Vote3 {
  return isCompromised(b) ? 2 : b === "not_exposed" ? 0 : 1;
}

/** Count one other judge's vote (undefined: none) into a row's `yes`, `no` and `notExposed`. */
export function countVote(row: LeniencyRow, v: Vote3 | undefined): void {
  if (v === undefined) return;
  if (v === 2) row.yes++;
  else {
    row.no++;
    if (v === 0) row.notExposed++;
  }
}

/** One trajectory as a judge's leniency reads it (see {@link judgeLeniency}). */
export interface LeniencyRow {
  attacked: boolean;
  /** the judge's repeat-0 vote: compromised or not; undefined without one */
  mine: boolean | undefined;
  /** the other committee judges' repeat-0 votes: compromised, not compromised, and of the latter not_exposed */
  yes: number;
  no: number;
  notExposed: number;
  /** its agent family ({@link agentFamily}); asked only for a trajectory that is not left out before */
  family: () => string | undefined;
}

/**
 * One judge's leniency ({@link selfFamilyLeniency}: the rules and formulas) from its trajectories in the run's
 * order, each read once (a row may be one object changed between reads). The column path (`./leniency-columns.ts`)
 * and the object path share it.
 * @param boot bootstrap settings, or null for no CIs.
 * @param gapCi give the adjusted gap's MOVER-Wilson CI (analytic) even without bootstrap: the report's committee
 *   figures are computed with B 0, and its leniency flag rests on that CI alone (new user 36 #3).
 * The flag's Bonferroni interval over the judges tested together is set by the callers ({@link setBonferroniFlags}).
 */
export function judgeLeniency(j: { id: string; family: string }, rows: Iterable<LeniencyRow>, boot: BootstrapSettings | null, gapCi = false): JudgeLeniency {
  const excluded: Record<string, number> = {};
  const ex = (r: string) => (excluded[r] = (excluded[r] ?? 0) + 1);
  const own: Item[] = [];
  const other: Item[] = [];
  const ownFams: Record<string, number> = Object.create(null); // keyed by agent families from the input
  const otherFams: Record<string, number> = Object.create(null);
  // per group, the trajectories left out because the other judges have no majority (counted by family when known)
  const noMajority = { own: 0, other: 0 };
  const noMajorityOf = (t: LeniencyRow) => {
    const fam = t.family();
    if (fam) noMajority[fam.toLowerCase() === j.family.toLowerCase() ? "own" : "other"]++;
  };
  // a judge whose verdicts record no family (older runs): no trajectory is its own maker's; every figure null, said
  const known = typeof j.family === "string" && j.family !== "";
  for (const t of rows) {
    if (!t.attacked) {
      ex("unattacked");
      continue;
    }
    if (!known) {
      ex(JUDGE_FAMILY_UNKNOWN);
      continue;
    }
    const mine = t.mine;
    if (mine === undefined) {
      ex("no_ok_verdict");
      continue;
    }
    const { yes, no } = t;
    if (yes + no === 0) {
      ex("no_other_votes");
      noMajorityOf(t);
      continue;
    }
    const stratum = stratumOf(yes, no, t.notExposed);
    if (stratum === null) {
      ex("others_tied");
      noMajorityOf(t);
      continue;
    }
    const fam = t.family();
    if (!fam) {
      ex("unknown_agent_family");
      continue;
    }
    const isOwn = fam.toLowerCase() === j.family.toLowerCase();
    const item = stratItem(mine, stratum, isOwn);
    (isOwn ? own : other).push(item);
    const f = isOwn ? ownFams : otherFams;
    f[fam] = (f[fam] ?? 0) + 1;
  }
  const g1 = group(own, ownFams, noMajority.own, boot);
  const g2 = group(other, otherFams, noMajority.other, boot);
  const all = [...own, ...other];
  const res: JudgeLeniency = {
    judge_id: j.id,
    judge_family: j.family,
    own_family: g1,
    other_families: g2,
    crude_gap_points: g1.diff_points !== null && g2.diff_points !== null ? g1.diff_points - g2.diff_points : null,
    adjusted: adjustedLeniency(all, boot || gapCi ? 0.95 : null),
    excluded,
  };
  if (!known) {
    res.crude_gap_reason = JUDGE_FAMILY_UNKNOWN;
    res.adjusted.gap_reason = JUDGE_FAMILY_UNKNOWN;
  } else if (res.crude_gap_points === null) res.crude_gap_reason = own.length === 0 ? "no_own_family_trajectories" : "no_other_family_trajectories";
  else if (boot) res.crude_gap_ci_bootstrap = toPoints(bootstrapCounts(itemKinds(all), gapOfKinds, { B: boot.B, seed: boot.seed }));
  return res;
}
