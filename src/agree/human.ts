/**
 * Agreement of a run's judges (and their committee) with human labels (`ipi-judge agree --human FILE`):
 * reading the label file (CSV or JSONL rows `trajectory_id, annotator, label`, DESIGN section 3), the
 * annotators' own agreement, the human consensus, and each judge's and the committee's agreement with it,
 * unweighted and, when the rows carry design weights, design-weighted (Hájek).
 */
import { drawnText, type DrawnItems } from "./drawn-items.js";
import { countText } from "../format/count-text.js";
import { splitAdjudicated } from "./adjudicated.js";
import { showInvisibleExactly } from "../format/invisible.js";
import { adjudicationFacts, adjudicationWarnings, adjudicatorsText, labelFileRows } from "./adjudication-facts.js";
import { committeeName } from "../format/committee-name.js";
import type { Verdict } from "../types.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { DEFAULT_NON_LABELS, designAgreement, weightedAgreement, kishEffectiveN, type WeightedAgreement } from "../stats/index.js";
import { buildCommittee, DEFAULT_QUORUM, noVoteReason, repeatZeroByJudge, voteOf } from "../verdict/vote.js";
import { consensusScale } from "./consensus.js";
import { formConsensus, orderedReasons, runLookup } from "./human-items.js";
import { nonresponseByStratum, nonresponseText, NONRESPONSE_RULE, STRATUM_SIZE_ESTIMATOR, type StratumNonresponse } from "./design-nonresponse.js";
import { AttackedOnly, attackedOnlyHeading, type UnattackedLeftOut } from "./attacked-only.js";
import { bucketOnScale, detectScale, labelOnScale, SCALE_CATEGORIES, type HumanScale } from "../rubric/scale.js";
import {
  compareManyRaters,
  compareTwoRaters,
  f3,
  formatConfusion,
  formatTwoRater,
  type BootstrapSettings,
  type ManyRaterComparison,
  type TwoRaterComparison,
} from "./pairwise.js";
import { estimateText, undefinedText } from "../format/stat-text.js";
import { badRowsWarning, HumanLabelsError, readHumanLabels, refuseConflicts, screenLabelRow, type HumanLabelFile, type HumanLabelRead } from "./human-file.js";
import { checkLabelPairing } from "./label-pairing.js";
import { AGREE_FRAME_WORDS, checkSampleFrame, checkStrataTotal } from "./sample-frame.js";
import { shownStrings } from "../format/shown.js";
import { designFigureText, explainZeroSe, withZeroSe, zeroSeNote } from "./design-zero-se.js";
import { domainShare, stratumCounts } from "./design-strata.js";
import { smallCountFigureText, smallCountNote, withSmallCount, type SmallCountEstimate } from "./design-small-count.js";
import { stratumWiseFigureText, stratumWiseNote, withStratumWise, type DesignOfEstimate } from "./design-stratum-wise.js";
import { quoted } from "../format/quote-name.js";

export { HumanLabelsError, readHumanLabels, withZeroSe, type HumanLabelFile, type HumanLabelRead };

/** The category that means "compromised" on each scale (for counting missed compromises). */
const COMPROMISED_ON: Record<HumanScale, (x: string) => boolean> = {
  six: (x) => x === "full_compliance" || x === "partial_compliance",
  three: (x) => x === "complied",
  binary: (x) => x === "compromised",
};

/** An item the annotators tied on, listed for adjudication. */
export interface Adjudication {
  trajectory_id: string;
  labels: Record<string, string>;
}

/** A judge's (or the committee's) agreement with the human consensus. */
export interface JudgeVsHuman {
  rater: string;
  /** `judge` or `committee`. */
  kind: "judge" | "committee";
  /** Unweighted (sample) figures: percent agreement, Cohen's kappa with SE, Wald and bootstrap CIs, AC1, PABAK, confusion. */
  unweighted: TwoRaterComparison;
  /** Human-labelled compromises among the used items, and how many of them this rater labelled not compromised. */
  human_compromised: number;
  missed_compromises: number;
  missed_ids: string[];
  /** Design-weighted (Hájek) estimates, when the labels carry weights; null with a reason otherwise. */
  design_weighted: (WeightedAgreement & { estimator: string }) | null;
  design_weighted_reason?: string;
  /** The committee's judges (its row only). */
  members?: string[];
}

/** The whole human-agreement report. */
export interface HumanAgreementReport {
  file: string;
  scale: HumanScale;
  categories: string[];
  annotators: string[];
  rows: { total: number; used: number; excluded: Record<string, number> };
  /** Items (trajectories) with at least one usable human label. */
  items: number;
  /** The items drawn in the sample the file records and how many it labels (./drawn-items.ts), set by the commands that read the file; absent: not known. */
  drawn?: DrawnItems;
  /**
   * Unattacked trajectories left out of every agreement figure (annotators' and judges'; `./attacked-only.ts`), with
   * each annotator's labels there other than not_exposed, and items kept with an unknown flag.
   */
  unattacked_left_out: UnattackedLeftOut;
  annotator_agreement: {
    pairwise: Array<{ annotators: [string, string]; comparison: TwoRaterComparison }>;
    /** Many-rater coefficients (Fleiss, Krippendorff with missing ratings, AC1); null with one annotator. */
    all: ManyRaterComparison | null;
    all_reason?: string;
  };
  consensus: {
    /** Items with a consensus on the scale (./consensus.ts) compared with the judges; `n` + Σ `excluded_items` = `items`. */
    n: number;
    by_label: Record<string, number>;
    /** Items in the run, attacked, with no consensus (`consensus_tie`); with `coarser_than_scale`, `adjudication.length`. */
    ties: number;
    /** Items whose annotators agree only on a coarser scale (full vs partial compliance: `consensus_coarser_than_scale`). */
    coarser_than_scale: number;
    adjudication: Adjudication[];
    /** Of the `n` compared, those whose consensus is an adjudicated label (annotator `adjudicated`, ./adjudicated.ts). */
    adjudicated: number;
    /** Adjudicator -> items their adjudicated label settled in the file; the items whose settled labels changed since (warned). */
    adjudicated_by: Record<string, number>;
    adjudications_changed_since: string[];
  };
  /**
   * Labelled items left out before any judge is compared, each once, by the first reason that holds:
   * `content_changed_since_sample`, `not_in_run`, `unattacked`, `outside_where` (in the run, dropped by `--where`),
   * `consensus_tie`, `consensus_coarser_than_scale`, an off-scale label. `items_in_where` (given `population`): the items the run holds inside `--where`, whatever their reason.
   */
  excluded_items: Record<string, number>;
  items_in_where?: number;
  /**
   * Why no design-weighted figure is defined (the sample-frame check, ./sample-frame.ts: `status (details)`); absent
   * when the run is the sample's population or the file records none. The unweighted figures stand for the labelled
   * trajectories themselves.
   */
  design_refused?: string;
  content_changed?: string[]; // the items excluded as content_changed_since_sample (their text changed since the sample); absent when none
  judges: JudgeVsHuman[];
  /** The design weights found: how many items carry one, Kish n_eff; null when no row has a weight. */
  // kish_n_eff_design_weights: of the compared items' 1/pi weights (a figure's own, of N_h/n_h, is its kish_n_eff);
  // nonresponse_by_stratum: per stratum, the attacked items, n_h compared, those without a consensus (./design-nonresponse.ts)
  weights: { items_with_weight: number; kish_n_eff_design_weights: number | null; source: string; strata: string[] | null; nonresponse_by_stratum: Record<string, StratumNonresponse> | null; nonresponse_rule: string } | null;
  warnings: string[];
  bootstrap: BootstrapSettings;
  quorum: number;
}

/** Options of {@link humanAgreement}. */
export interface HumanAgreementOptions {
  file?: string;
  /** The scale; default: {@link detectScale} of the labels. */
  scale?: HumanScale;
  bootstrap: BootstrapSettings;
  /** Committee quorum (default 2). */
  quorum?: number;
  /** The committee's judges (`committeeMembers` of ../committee/members.ts; default: every judge with a verdict). */
  committee?: readonly string[];
  /** Only these judges (default: every judge with a verdict). */
  judges?: string[];
  /**
   * Every trajectory of the run (before any `--where`: the sample was drawn from the run), for the sample-frame check
   * (./sample-frame.ts), and to tell a labelled trajectory `--where` drops (`outside_where`) from one the run does not
   * hold (`not_in_run`); default: `index`'s rows.
   */
  population?: readonly TrajectoryIndexRow[];
  /**
   * The run's content hash of a trajectory now (null: not in the run), for the label pairing check
   * (./label-pairing.ts); default: the run's row's `content_sha256` (`index`'s, or `population`'s outside `--where`).
   */
  contentOf?: (id: string) => string | null | undefined;
  /** Given the trajectories compared with the judges (the consensus kept), e.g. for agree's code-established count. */
  onCompared?: (ids: readonly string[]) => void;
}

const NON_LABELS = { ...DEFAULT_NON_LABELS, no_verdict: "no_verdict", no_label: "no_label", no_quorum: "no_quorum", disputed: "disputed" };

/**
 * Compare a run's judges and committee with human labels.
 *
 * Steps: (1) each row's label is mapped to the scale (`labelOnScale`); rows that do not map are excluded by
 * reason, and a second row of the same annotator for the same trajectory with the same label is counted once
 * (`duplicate_repeated`); with another label the file is refused (`refuseConflicts`, as import-annotations does). (2) Annotators' agreement over every labelled item: pairwise Cohen's kappa and,
 * with two or more annotators, Fleiss' kappa (items rated by all), generalised Fleiss and Krippendorff's alpha
 * with missing ratings. (3) Consensus (`./consensus.ts` `consensusOf`, the one definition `estimate` uses too): the
 * annotators' binary majority, refined within it on each finer scale while one label leads, put on the scale
 * compared; no binary majority (`consensus_tie`), or a consensus only on a coarser scale than the one compared
 * (`consensus_coarser_than_scale`), is listed for adjudication and left out. Items not in the run are left out
 * (`not_in_run`), and items the run holds but `--where` drops (`outside_where`, of every figure, the annotators' too). (4) Each judge (repeat 0) and the committee (`buildCommittee`, quorum) against the consensus:
 * Cohen's kappa with SE, Wald and bootstrap CIs, AC1, PABAK, percent agreement, confusion matrix (rows = judge,
 * columns = human); judge errors, refusals, missing verdicts, committee no-quorum and disputed items are
 * excluded by reason. (5) When the rows carry `weight` or `inclusion_probability` (weight = 1/π), the
 * design-weighted (Hájek) estimates of `weightedAgreement` are added beside the unweighted ones; when every
 * used item also has a `stratum`, `designAgreement` gives post-stratified estimates (w = N_h/n_h) with
 * stratified linearised SEs: N_h is the rows' `stratum_size` (as `ipi-judge import-annotations` writes it),
 * else, when weights are constant within strata, the sum of the weights of the labelled items in stratum h.
 * Before all this, two checks `estimate` makes too, with the same functions: an item whose trajectory changed since
 * the sample (content hash, ./label-pairing.ts) gets no consensus in step (3) (`content_changed_since_sample`; its
 * labels stay in the annotators' own agreement, which does not involve the run's text); a run that is not the sample's population (./sample-frame.ts) leaves every
 * design-weighted figure undefined with the status as its reason (the unweighted figures, over the labelled
 * trajectories themselves, stay).
 *
 * @param file the label file as read by {@link readHumanLabels}.
 * @param verdicts the run's verdicts (latest per key); @param index the run's trajectory index.
 * @returns the report; every coefficient is a number or null with a reason (never NaN).
 * @throws HumanLabelsError when an annotator gave one trajectory two different labels (`refuseConflicts`).
 * Sources: statistics of `src/stats/` (Cohen 1960; FCE 1969; Gwet 2008; Byrt et al. 1993; Fleiss 1971;
 * Krippendorff 2011; test/data/vectors/NOTES.md §7 "Two-phase / stratified annotation sample" for the design-weighted
 * estimates).
 */
export function humanAgreement(
  file: HumanLabelFile,
  verdicts: readonly Verdict[],
  index: ReadonlyMap<string, TrajectoryIndexRow>,
  opts: HumanAgreementOptions,
): HumanAgreementReport {
  refuseConflicts(file, opts.file);
  const scale = opts.scale ?? detectScale(file.rows.map((r) => r.label));
  const cats = SCALE_CATEGORIES[scale];
  // the consensus is formed on the annotators' own scale, then put on `scale` (./consensus.ts: one definition with estimate)
  const formScale = consensusScale(file.rows.flatMap((r) => (r.label ? [r.label] : [])), scale);
  const onScale = (l: string): string => {
    const m = labelOnScale(l, scale);
    return "reason" in m ? l : m.label;
  };
  const quorum = opts.quorum ?? DEFAULT_QUORUM;
  // (0) labels given for another text than the run's now are refused; a run that is not the sample's frame refuses the weights
  const warnings: string[] = [];
  const population = opts.population ?? [...index.values()];
  // in the index compared, in the run outside --where, or not in the run (./human-items.ts)
  const place = runLookup(index, population, new Set(file.rows.map((r) => r.trajectory_id)));
  const contentOf = opts.contentOf ?? ((id: string) => place(id).row?.content_sha256 ?? null);
  const badRows = badRowsWarning(file, opts.file ?? "");
  if (badRows !== undefined) warnings.push(badRows);
  let runIds: Set<string> | undefined; // made only when a row's id has end spaces (./end-space-ids.ts)
  const has = (id: string) => index.has(id) || (runIds ??= new Set(population.map((r) => r.id))).has(id);
  const paired = checkLabelPairing(file, opts.file ?? "", contentOf, warnings, PAIRING_EFFECT, has);
  const refusal = designRefusal(file, opts.file ?? "", population, warnings);
  // (1) rows -> item -> annotator -> label
  const g0 = groupRows(file, formScale);
  // adjudicated labels are each item's consensus, not one more annotator (./adjudicated.ts)
  const adj = splitAdjudicated(g0.items);
  // who settled how many, adjudications over labels that changed since, rows not as view writes them (red team 35b F2, F4, M1)
  const adjFacts = adjudicationFacts(labelFileRows(file.rows));
  warnings.push(...adjudicationWarnings(adjFacts, `label file ${opts.file ?? ""}`));
  const g: GroupedRows = { ...g0, items: adj.items };
  warnings.push(...g.warnings);
  const annotators = [...new Set([...g.items.values()].flatMap((m) => [...m.keys()]))].sort();
  // agreement over the attacked trajectories only (./attacked-only.ts): an unattacked one is not_exposed by the rubric
  const notExposed = bucketOnScale("not_exposed", scale);
  const ao = new AttackedOnly((l) => onScale(l) === notExposed);
  const allItemIds = [...g.items.keys()];
  // an item --where drops is left out of every figure as outside_where, unless unattacked (ranked first, as estimate does)
  const itemIds = allItemIds.filter((id) => {
    const p = place(id);
    return p.outside && p.row!.attacked !== false ? ao.leaveOutsideWhere() : ao.keep(p.row?.attacked, () => g.items.get(id)!);
  });
  const counted = new Set(itemIds);
  // (2) annotators' agreement
  const grid = itemIds.map((id) => annotators.map((a) => {
    const l = g.items.get(id)!.get(a);
    return l === undefined ? null : onScale(l);
  }));
  const pairwise: HumanAgreementReport["annotator_agreement"]["pairwise"] = [];
  for (let a = 0; a < annotators.length; a++) {
    for (let b = a + 1; b < annotators.length; b++) {
      const names: [string, string] = [annotators[a], annotators[b]];
      pairwise.push({ annotators: names, comparison: compareTwoRaters(grid.map((r) => r[a]), grid.map((r) => r[b]), cats, { names, bootstrap: opts.bootstrap }) });
    }
  }
  const all = annotators.length >= 2 ? compareManyRaters(grid, cats, { bootstrap: opts.bootstrap, raters: annotators.length }) : null;
  // (3) consensus
  const c = formConsensus(g.items, place, formScale, scale, onScale, paired.refused_ids, adj.adjudicated);
  const ids = [...c.consensus.keys()].filter((id) => counted.has(id));
  const human = ids.map((id) => c.consensus.get(id)!);
  opts.onCompared?.(ids);

  // (4) judges and committee
  const allJudges = [...new Set(verdicts.map((v) => v.judge_id))].sort();
  const judgeIds = opts.judges ?? allJudges;
  // one map per judge keyed by the verdicts' own id strings: no key string per verdict (issue 26: 2M at 1M)
  const rep0 = repeatZeroByJudge(verdicts);
  const labelOf = (id: string, j: string): string => {
    const v = rep0.get(j)?.get(id);
    const b = voteOf(v);
    return b ? bucketOnScale(b, scale) : noVoteReason(v)!;
  };
  const members = opts.committee ? [...opts.committee] : allJudges;
  const committee = new Map(buildCommittee(verdicts, ids, { judgeIds: members, quorum }).map((x) => [x.trajectory_id, x]));
  const committeeLabel = (id: string): string => {
    const x = committee.get(id)!;
    return x.status === "ok" && x.label ? bucketOnScale(x.label, scale) : x.status;
  };
  const anyWeight = g.weightOf.size > 0;
  const strata = (anyWeight || g.stratumSize.size > 0) && ids.every((id) => g.stratumOf.has(id)) ? [...new Set(ids.map((id) => g.stratumOf.get(id)!))].sort() : null;
  const ctx: CompareContext = { ids, human, itemIds, allItemIds, scale, cats, strata, rows: g, bootstrap: opts.bootstrap, warnings, refusal };
  const judges: JudgeVsHuman[] = judgeIds.map((jid) => compareWithHumans(ctx, jid, "judge", ids.map((id) => labelOf(id, jid))));
  if (members.length >= 2) judges.push({ ...compareWithHumans(ctx, "committee", "committee", ids.map(committeeLabel)), members });
  // said, not silent (new-user report: the committee row was missing with only a "committee quorum 2" footer)
  else warnings.push(`no committee row: the ${opts.committee ? "committee" : "run"} has ${members.length === 1 ? `one judge (${members[0]})` : "no judge"}, and a committee needs two or more`);

  return {
    file: opts.file ?? "",
    scale,
    categories: [...cats],
    annotators,
    rows: { total: file.rows.length + file.bad_rows.length, used: g.used, excluded: g.rowEx },
    items: allItemIds.length,
    unattacked_left_out: { ...ao.result(), unknown_not_in_run: itemIds.filter((id) => !place(id).row).length },
    annotator_agreement: {
      pairwise,
      all,
      ...(all ? {} : { all_reason: "fewer_than_2_annotators" }),
    },
    // ties and items split only finer than the scale counted apart (new-user report 38 F5), both listed for adjudication
    consensus: { n: c.consensus.size, by_label: c.byLabel, ties: c.itemEx.consensus_tie ?? 0, coarser_than_scale: c.itemEx.consensus_coarser_than_scale ?? 0, adjudication: c.adjudication, adjudicated: c.adjudicated, adjudicated_by: adjFacts.by, adjudications_changed_since: adjFacts.stale.map((x) => x.id) },
    excluded_items: c.itemEx, ...(opts.population ? { items_in_where: allItemIds.filter((id) => place(id).row !== undefined && !place(id).outside).length } : {}),
    ...(paired.refused_items ? { content_changed: [...paired.refused_ids].sort() } : {}),
    ...(refusal ? { design_refused: refusal } : {}),
    judges,
    weights: anyWeight
      ? {
          items_with_weight: ids.filter((id) => g.weightOf.has(id)).length,
          kish_n_eff_design_weights: kishEffectiveN(ids.filter((id) => g.weightOf.has(id)).map((id) => g.weightOf.get(id)!)),
          source: "weight, or 1 / inclusion_probability",
          strata,
          nonresponse_by_stratum: strata ? nonresponseByStratum(itemIds, new Set(ids), (id) => c.reasonOf.get(id) ?? "no_consensus", g.stratumOf) : null,
          nonresponse_rule: NONRESPONSE_RULE,
        }
      : null,
    warnings,
    bootstrap: opts.bootstrap,
    quorum,
  };
}

/** Said after the missed compromises when items split on a finer scale than compared have a binary consensus (./consensus.ts). */
const coarseNote = (r: HumanAgreementReport) =>
  r.scale !== "binary" && r.consensus.coarser_than_scale ? ` (over the ${r.consensus.n} compared on the ${r.scale} scale; the ${r.consensus.coarser_than_scale} split on a finer scale have a consensus on compromised or not, which --scale binary and estimate count)` : "";
/** What `agree --human` does with the labels of trajectories changed since the sample (./label-pairing.ts). */
const PAIRING_EFFECT =
  "their items are left out of every comparison with the judges below (the annotators' agreement among themselves, on the text they read, keeps them)";

/**
 * Step (0) of {@link humanAgreement}: the sample-frame checks `estimate` makes (./sample-frame.ts, the same
 * functions, in agree's words): the recorded frame against the run's trajectories now and, when every row carries
 * `stratum` and `stratum_size`, the strata's total against the frame.
 * @returns the refusal of the design-weighted figures (`status (details)`), or undefined.
 */
function designRefusal(file: HumanLabelFile, name: string, population: readonly TrajectoryIndexRow[], warnings: string[]): string | undefined {
  const frame = checkSampleFrame(file, name, population, [], warnings, AGREE_FRAME_WORDS);
  if (frame.refusal) return frame.refusal;
  if (file.rows.length === 0 || !file.rows.every((r) => r.stratum !== undefined && r.stratum_size !== undefined)) return undefined;
  const sizes = new Map<string, number>();
  for (const r of file.rows) if (!sizes.has(r.stratum!)) sizes.set(r.stratum!, r.stratum_size!);
  const covered = [...sizes.values()].reduce((a, b) => a + b, 0);
  const attacked = population.reduce((n, r) => n + (r.attacked ? 1 : 0), 0);
  return checkStrataTotal(frame, covered, population.length, attacked, name, warnings, undefined, AGREE_FRAME_WORDS);
}

/** The label file's rows grouped by item ({@link groupRows}), with the design fields each item carries. */
interface GroupedRows {
  /** trajectory id -> annotator -> label on the consensus-forming scale (one label per annotator: conflicts are refused). */
  items: Map<string, Map<string, string>>;
  /** Design weight per item (`weight`, or 1 / `inclusion_probability`; the first row's when rows disagree). */
  weightOf: Map<string, number>;
  stratumOf: Map<string, string>;
  /** N_h per stratum (`stratum_size`; the first row's when rows disagree). */
  stratumSize: Map<string, number>;
  /** Rows used, and rows left out by reason. */
  used: number;
  rowEx: Record<string, number>;
  warnings: string[];
}

/**
 * Step (1) of {@link humanAgreement}: the rows of the label file grouped by trajectory and annotator on
 * `formScale`; rows without a label or with a label off the scale are counted by reason in `rowEx`, as are the
 * file's bad rows (`bad_row`) and repeated rows (`duplicate_repeated`: the same label again; the file's conflicting
 * labels were refused before).
 */
function groupRows(file: HumanLabelFile, formScale: HumanScale): GroupedRows {
  const g: GroupedRows = { items: new Map(), weightOf: new Map(), stratumOf: new Map(), stratumSize: new Map(), used: 0, rowEx: {}, warnings: [] };
  const exRow = (r: string) => (g.rowEx[r] = (g.rowEx[r] ?? 0) + 1);
  for (const _ of file.bad_rows) exRow("bad_row");
  let sizeConflicts = 0;
  let weightConflicts = 0;
  for (const r of file.rows) {
    const label = screenLabelRow(r, formScale, exRow);
    if (label === null) continue;
    let it = g.items.get(r.trajectory_id);
    if (!it) g.items.set(r.trajectory_id, (it = new Map()));
    if (it.has(r.annotator)) {
      exRow("duplicate_repeated");
      g.used--;
    }
    it.set(r.annotator, label);
    g.used++;
    const w = r.weight ?? (r.inclusion_probability !== undefined ? 1 / r.inclusion_probability : undefined);
    if (w !== undefined) {
      const prev = g.weightOf.get(r.trajectory_id);
      if (prev !== undefined && Math.abs(prev - w) > 1e-9 * Math.max(1, prev)) weightConflicts++;
      else g.weightOf.set(r.trajectory_id, w);
    }
    if (r.stratum) {
      g.stratumOf.set(r.trajectory_id, r.stratum);
      if (r.stratum_size !== undefined) {
        const prev = g.stratumSize.get(r.stratum);
        if (prev !== undefined && prev !== r.stratum_size) sizeConflicts++;
        else g.stratumSize.set(r.stratum, r.stratum_size);
      }
    }
  }
  if (sizeConflicts) g.warnings.push(`${sizeConflicts} rows give a stratum a different stratum_size than an earlier row: the first is used`);
  if (weightConflicts) g.warnings.push(`${weightConflicts} rows give a trajectory a different weight than an earlier row: the first weight is used`);
  return g;
}

/** What {@link compareWithHumans} compares against: the consensus items and the design of the label file. */
interface CompareContext {
  /** Items with a consensus, and the consensus label of each (same order). */
  ids: string[];
  human: string[];
  /** Every labelled item counted (attacked or flag unknown; for N_h estimated from the weights: the domain's N_h). */
  itemIds: string[];
  /** Every labelled item, unattacked ones too (the share of each stratum in the domain, for `stratum_size`). */
  allItemIds: string[];
  scale: HumanScale;
  cats: readonly string[];
  /** The strata of the consensus items when every one has a stratum (and the file has weights or sizes). */
  strata: string[] | null;
  rows: GroupedRows;
  bootstrap: HumanAgreementOptions["bootstrap"];
  /** Warnings of the report (appended to). */
  warnings: string[];
  /** Why no design-weighted figure is defined (the sample-frame check, `status (details)`), when so. */
  refusal?: string;
}

/**
 * Step (4) of {@link humanAgreement} for one rater: unweighted agreement with the consensus, missed compromises,
 * and the design-weighted estimates when the file carries weights (post-stratified with linearised SEs when it
 * carries strata; test/data/vectors/NOTES.md §7.2 "Estimators").
 */
function compareWithHumans(ctx: CompareContext, rater: string, kind: "judge" | "committee", labels: string[]): JudgeVsHuman {
  const { ids, human, cats, strata } = ctx;
  const { weightOf, stratumOf, stratumSize } = ctx.rows;
  const cmp = compareTwoRaters(labels, human, cats, { names: [rater, "human consensus"], bootstrap: ctx.bootstrap, nonLabels: NON_LABELS, reference: "cols" });
  const isC = COMPROMISED_ON[ctx.scale];
  const usedIdx = ids.map((_, i) => i).filter((i) => cats.includes(labels[i]));
  const humanC = usedIdx.filter((i) => isC(human[i]));
  const missed = humanC.filter((i) => !isC(labels[i]));
  const res: JudgeVsHuman = {
    rater,
    kind,
    unweighted: cmp,
    human_compromised: humanC.length,
    missed_compromises: missed.length,
    missed_ids: missed.map((i) => ids[i]),
    design_weighted: null,
  };
  if (weightOf.size === 0) {
    res.design_weighted_reason = "no_weights_in_label_file";
    return res;
  }
  if (ctx.refusal) {
    res.design_weighted_reason = ctx.refusal;
    return res;
  }
  const lacking = usedIdx.filter((i) => !weightOf.has(ids[i])).length;
  if (lacking > 0) {
    res.design_weighted_reason = `weights_missing_on_${lacking}_items`;
    return res;
  }
  if (usedIdx.length === 0) {
    res.design_weighted_reason = "empty_input";
    return res;
  }
  const j = usedIdx.map((i) => labels[i]);
  const h = usedIdx.map((i) => human[i]);
  const w = usedIdx.map((i) => weightOf.get(ids[i])!);
  let est: WeightedAgreement | null = null;
  let zeroSe: Parameters<typeof explainZeroSe>[1] | null = null; // n_h and N_h of the post-stratified estimate
  let design: DesignOfEstimate | null = null; // its records, for the stratum-wise intervals (./design-stratum-wise.ts)
  let estimator = "hajek (given weights; point estimates, no SE: give stratum and stratum_size columns for linearised SEs)";
  if (strata) {
    const st = usedIdx.map((i) => stratumOf.get(ids[i])!);
    // The consensus items this rater gave no label (a judge run on one suite, a committee without quorum): outside
    // its domain, each still counted in its stratum's n_h with influence 0 (a domain estimate, `designAgreement`).
    const used = new Set(usedIdx);
    const outOfDomain: Record<string, number> = Object.create(null);
    ids.forEach((id, i) => {
      if (used.has(i)) return;
      const x = stratumOf.get(id)!;
      outOfDomain[x] = (outOfDomain[x] ?? 0) + 1;
    });
    if (strata.every((x) => stratumSize.has(x))) {
      // The design's N_h (import-annotations writes stratum_size): post-stratified weights N_h / n_h
      // (test/data/vectors/NOTES.md §7.2 "Estimators").
      // Over the attacked domain only (./attacked-only.ts): N_h of the domain estimated as N_h times the stratum's
      // labelled share in the domain, so each item keeps its design weight N_h / n_h (a domain estimate).
      const share = domainShare(ctx.itemIds, ctx.allItemIds, stratumOf);
      const N = Object.fromEntries(strata.map((x) => [x, stratumSize.get(x)! * (share.get(x) ?? 1)]));
      design = { records: j.map((x, k) => ({ judge: x, human: h[k], stratum: st[k] })), N, outOfDomain };
      est = designAgreement(design.records, N, cats, { outOfDomain });
      zeroSe = { n: stratumCounts(st, outOfDomain), N };
      estimator = STRATUM_SIZE_ESTIMATOR;
    } else if (strata.every((x) => new Set(usedIdx.filter((_, k) => st[k] === x).map((i) => weightOf.get(ids[i]))).size <= 1)) {
      // N_h estimated from every labelled item of the stratum (Σ w = N_h when w = N_h / n_h).
      const N: Record<string, number> = Object.create(null);
      for (const id of ctx.itemIds) {
        const x = stratumOf.get(id);
        const wt = weightOf.get(id);
        if (x !== undefined && wt !== undefined) N[x] = (N[x] ?? 0) + wt;
      }
      design = { records: j.map((x, k) => ({ judge: x, human: h[k], stratum: st[k] })), N, outOfDomain };
      est = designAgreement(design.records, N, cats, { outOfDomain });
      zeroSe = { n: stratumCounts(st, outOfDomain), N };
      estimator = "post-stratified hajek with stratified linearised SEs (N_h = sum of the weights of the labelled items in h, n_h = those with a consensus on the scale)";
    } else {
      ctx.warnings.push(`weights vary within a stratum and no stratum_size is given: ${rater}'s design-weighted estimates have no SE`);
    }
  }
  est ??= weightedAgreement(j, h, w, cats);
  // an SE of 0 from a sample is no figure: undefined with its reason, shares with an exact interval (./design-zero-se.ts)
  if (zeroSe) est = withSmallCount(explainZeroSe(withZeroSe(est), zeroSe)); // few disagreements: as estimate (./design-small-count.ts)
  if (design) est = withStratumWise(est, design); // strata without variation: as estimate
  res.design_weighted = { ...withZeroSe(est), estimator };
  return res;
}

/** Plain-text rendering of a human-agreement report. */
export function formatHumanAgreement(r: HumanAgreementReport): string {
  r = shownStrings(r); // names from the run files cannot break or reorder a line (../format/shown.ts)
  const L: string[] = [];
  // in the order they are decided in
  const ex = (o: Record<string, number>) =>
    orderedReasons(o)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ") || "none";
  L.push(`human labels ${r.file}: ${r.rows.total} rows, ${r.rows.used} used (rows left out: ${ex(r.rows.excluded)}); ${r.items} labelled trajectories${drawnText(r.drawn) ? ` (${drawnText(r.drawn)})` : ""}, ${countText(r.annotators.length, "annotator")}; scale ${r.scale} (${r.categories.join(", ")})`);
  for (const w of r.warnings) L.push(`WARNING: ${w}`);
  const left = attackedOnlyHeading(r.unattacked_left_out, r.items);
  if (left) L.push(left);
  L.push("");
  const u = r.unattacked_left_out;
  const outside = u.outside_where ?? 0;
  const nAnn = r.items - u.unattacked - outside; // its population, stated: the labelled trajectories not unattacked (and kept by --where)
  L.push(`annotators' agreement (over the ${nAnn} labelled trajectories not unattacked${outside ? " and kept by --where" : ""}${u.unknown ? `: ${nAnn - u.unknown} attacked, ${u.unknown} whose attacked flag is unknown` : ""}):`);
  for (const p of r.annotator_agreement.pairwise) {
    L.push(`  ${showInvisibleExactly(p.annotators[0])} vs ${showInvisibleExactly(p.annotators[1])}:`);
    L.push(...formatTwoRater(p.comparison, "    "));
  }
  const a = r.annotator_agreement.all;
  if (a) {
    L.push(
      `  all annotators: Fleiss' kappa ${f3(a.fleiss.value, a.fleiss.reason)} over ${a.n_complete} items rated by all; ` +
        `generalised Fleiss ${f3(a.fleiss_generalized.value, a.fleiss_generalized.reason)}; Krippendorff's alpha (missing ratings allowed) ${f3(a.alpha.value, a.alpha.reason)} over ${a.n_pairable} items`,
    );
  } else L.push(`  (${r.annotator_agreement.all_reason})`);
  L.push("");
  // one population, the file's labelled trajectories: compared + left out = r.items (review 17 item 3)
  const nLeft = Object.values(r.excluded_items).reduce((a, b) => a + b, 0);
  L.push(
    // its scale and order of reasons said, so estimate's counts can be set beside it (new user L3)
    `human consensus (majority, on the ${r.scale} scale${r.scale === "binary" ? "" : "; estimate's asr_behaviour reads it on the binary scale, as --scale binary"}) of the ${r.items} labelled trajectories: ` +
      `${r.consensus.n} compared with the judges below (in the run, not unattacked${r.excluded_items.outside_where ? ", kept by --where" : ""}, with a consensus on this scale: ${Object.entries(r.consensus.by_label).map(([k, v]) => `${k} ${v}`).join(", ")}); ` +
      `${nLeft} left out${nLeft ? `, each by the first reason that holds: ${ex(r.excluded_items)}` : ""}`,
  );
  if (r.consensus.adjudicated) L.push(`  of the ${r.consensus.n} compared, ${r.consensus.adjudicated} by an adjudicated label (${adjudicatorsText({ by: r.consensus.adjudicated_by })}; annotator "adjudicated": the item's consensus, not a vote; not in the annotators' agreement above)`);
  if (r.consensus.adjudication.length) {
    const why = Object.entries(r.excluded_items).filter(([k]) => k === "consensus_tie" || k === "consensus_coarser_than_scale");
    L.push(`  for adjudication (${r.consensus.adjudication.length}: ${ex(Object.fromEntries(why))}):`);
    for (const t of r.consensus.adjudication) L.push(`    ${t.trajectory_id}: ${Object.entries(t.labels).map(([k, v]) => `${k}=${v}`).join(", ")}`);
  }
  const nr = r.weights && r.judges.some((j) => j.design_weighted?.weights_used === "post_stratified") ? nonresponseText(r.weights.nonresponse_by_stratum) : undefined;
  if (nr) L.push(`  ${nr}`);
  for (const j of r.judges) {
    L.push("");
    const who = j.kind === "committee" ? `the ${committeeName({ members: j.members ?? [], quorum: r.quorum })}` : `judge ${quoted(j.rater)}`;
    // the design-weighted figure (the run's) first: the first figure is the one quoted (newuser52 8)
    const weighted = designWeightedLines(j);
    if (weighted.length) {
      L.push(`${who} vs the human consensus, design-weighted (the figure for the run, the sample's inclusion probabilities undone):`);
      L.push(...weighted);
      L.push(`  unweighted, over the labelled sample as drawn (each item counted once whatever its inclusion probability: not the run's figure when those differ):`);
    } else {
      L.push(`${who} vs the human consensus (unweighted, over the labelled sample${r.design_refused ? ": these trajectories only, not the run" : ""}):`);
    }
    L.push(...formatTwoRater(j.unweighted, "  "));
    L.push(...formatConfusion(j.unweighted.confusion, "  "));
    L.push(`  human-labelled compromises: ${j.human_compromised}; missed by ${j.rater}: ${j.missed_compromises}${j.missed_ids.length ? ` (${j.missed_ids.slice(0, 10).join(", ")}${j.missed_ids.length > 10 ? ", ..." : ""})` : ""}${coarseNote(r)}`);
    if (!j.design_weighted && j.design_weighted_reason && j.design_weighted_reason !== "no_weights_in_label_file") L.push(`  design-weighted: ${undefinedText(j.design_weighted_reason)}`);
  }
  L.push("");
  L.push(`bootstrap: B ${r.bootstrap.B}, seed ${r.bootstrap.seed}${r.judges.some((j) => j.kind === "committee") ? `; committee quorum ${r.quorum}` : ""}`);
  return L.join("\n");
}

/** The design-weighted lines of one judge (its estimator, kappa, AC1, PABAK, agreement, Kish n_eff, notes); [] without. */
function designWeightedLines(j: HumanAgreementReport["judges"][number]): string[] {
  if (!j.design_weighted) return [];
  const L: string[] = [];
  const d = j.design_weighted;
  const e = (x: { value: number | null; reason?: string; se?: number | null; se_reason?: string }) => estimateText({ value: x.value, reason: x.reason, se: x.se, se_reason: x.se_reason });
  // the same labels weighted: a one-category side makes this kappa 0 too (weighted p_o = p_e)
  const by = j.unweighted.kappa.note !== undefined && d.kappa.value !== null ? " (0 by construction, as the unweighted kappa below)" : "";
  const t = (x: Parameters<typeof e>[0]) => stratumWiseFigureText(x as SmallCountEstimate, smallCountFigureText(x as SmallCountEstimate, designFigureText(x as WeightedAgreement["po"], e)));
  L.push(`  design-weighted (${d.estimator}): kappa ${t(d.kappa)}${by}, AC1 ${t(d.ac1)}, PABAK ${t(d.pabak)}, agreement ${t(d.po)}; Kish n_eff of these weights ${f3(d.kish_n_eff)}`);
  for (const z of [zeroSeNote(d), smallCountNote(d), stratumWiseNote(d)]) if (z) L.push(`    ${z}`);
  return L;
}
