/**
 * Everything the HTML report shows, gathered from a run folder (and an optional human-label file) into one
 * plain record. Each section is present only when its input is: a single-judge run has no committee section, a
 * run without human labels no human comparison, a corpus without benchmark verdicts no reference comparison.
 * No statistic is computed here: figures come from each stage's public function: `src/run/summary.ts` (via the
 * committee report), `src/committee/` (the report, its summary and rate items), `src/agree/`, `src/compare/`,
 * `src/estimate/` and `src/stats/`; the human-label file is read once.
 */
import { addCommon } from "./asr-common.js";
import { raterAsrRows, type AsrRow } from "./asr-row.js";
import { uniqueWarnings } from "../format/unique-warnings.js";
import { cliWarnings } from "./cli-warnings.js";
import { runInputsAndCosts, type RunCosts } from "./run-inputs.js";
import fs from "node:fs";
import path from "node:path";
import type { CommitteeVerdict, Trajectory, Verdict } from "../types.js";
import { BUCKETS } from "../types.js";
import { isCompromised } from "../rubric/buckets.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { readLeanRun, type ReadProgress } from "../store/lean-read.js";
import { fillListed } from "./fill-listed.js";
import { restrictRun, type WhereFilter, type WhereStatement } from "../store/where.js";
import { rateCaveatWarnings } from "./rate-caveat-html.js";
import { healthWarnings, type JudgeHealth } from "../verdict/health.js";
import { blockedFields } from "../verdict/blocked.js";
import { readJsonl } from "../io/jsonl.js";
import { codeMajorityOf, committeeRateItems, committeeReport, committeeSummary, type CommitteeJudge, type CommitteeReport } from "../committee/report.js";
import type { CodeMajority } from "../committee/code-majority.js";
import type { JudgeLeniency } from "../committee/leniency.js";
import type { JudgeRetest } from "../committee/retest.js";
import { humanAgreement, readHumanLabels, type HumanAgreementReport, type HumanLabelFile } from "../agree/human.js";
import { labelledIds } from "../agree/human-file.js";
import { committeeReferenceAgreement, referenceAgreement, type ReferenceAgreement } from "../agree/reference.js";
import { referenceCaveats } from "../agree/reference-caveats.js";
import { checkCommitteeFile, readCommitteeFile } from "../committee/file.js";
import { committeeFigures, reportCommittee } from "./committee-choice.js";
import { DEFAULT_QUORUM, repeatZeroByJudge } from "../verdict/vote.js";
import { readRunState, runStateFor, stateWarns, type RunState } from "../store/run-state.js";
import { wilsonInterval } from "../stats/confusion.js";
import { readTrajectories } from "../ingest/index.js";
import { contentSha256 } from "../io/hash.js";
import { buildObservations, type Observations } from "../compare/data.js";
import { conditionViewsOf, type ConditionView } from "./condition-views.js";

export { conditionViewsOf, type ConditionView } from "./condition-views.js";
import { likeForLikeWarnings } from "../stats/like-for-like.js";
import type { RateItem } from "../stats/rates.js";
import { utilityTable, withUtilityOutside, type UtilityCell } from "../compare/utility.js";
import { paperTable } from "../estimate/table.js";
import { withCalibratedAll, type ReportPaperTable } from "./calibrated-all.js";
import { tableUnattackedNote, unattackedLeftOut, unattackedOutsideRow } from "../agree/where-unattacked.js";
import { EstimateError, estimateFromData, resolveSource, type EstimateOptions, type EstimateReport, type EstimateSource } from "../estimate/run.js";
import { NO_VALUE } from "../stats/no-value.js";

/** The committee's pseudo-rater name in tables and charts. */
export const COMMITTEE = "committee";

export type { AsrRow };

/** One trajectory of the browsable disagreement list. */
export interface ReportItem {
  trajectory_id: string;
  /** Why it is listed: a disputed committee vote, a non-unanimous one, or (single judge) a disagreement with the benchmark. */
  kind: "disputed" | "not_unanimous" | "reference_disagreement";
  row?: TrajectoryIndexRow;
  committee?: CommitteeVerdict;
  /** The repeat-0 verdict of each judge that has one, in judge order. */
  verdicts: Verdict[];
  reference?: boolean;
  trajectory?: Trajectory;
  /** Why the trajectory could not be shown (source file missing, or the trajectory no longer in it). */
  trajectory_error?: string;
  /**
   * Set by the page (`./items-html.ts`) when the trajectory was read but is not shown: the page's budget of listed
   * trajectories was spent, or it could not be rendered (red team 30 H1). The CLI warns, naming the item.
   */
  trajectory_not_shown?: string;
  /**
   * Set when `trajectory` was found by its id but its content hash differs from the run's `content_sha256`
   * (the file was edited since labelling): the warning to show. Quotes are then not highlighted in it.
   */
  source_changed?: string;
}

/** The report's data. */
export interface ReportModel {
  run: string;
  /** The `--where` filter the report is restricted to (absent without one). */
  where?: WhereStatement;
  generated_at: string;
  inputs: string[];
  trajectories: number;
  attacked: number;
  judges: Array<{ id: string; model: string; family: string }>;
  per_judge: CommitteeJudge[];
  /** Present with two or more judges. */
  committee: {
    summary: CommitteeReport["committee"];
    agreement: CommitteeReport["agreement"];
    source: "committee.jsonl" | "computed";
    quorum: number;
    /** Its judges (every figure of the section is theirs: `./committee-choice.ts`) and the run's judges left out. */
    members: string[];
    left_out: string[];
    verdicts: CommitteeVerdict[];
    /** Attacked labels of the committee shown resting on code-established votes (`../committee/code-majority.ts`). */
    code_majority?: CodeMajority;
    /** Its members' self-family leniency (`../committee/leniency.ts`), as `ipi-judge committee` prints it. */
    leniency?: JudgeLeniency[];
    /** Its members' test-retest over their repeats (`../committee/retest.ts`); [] when no judge repeated. */
    retest?: JudgeRetest[];
  } | null;
  warnings: string[];
  /** Each judge's health (issue 12.2, `judgeHealth`): quotes verified, downgrades, errors, refusals, flags. */
  judge_health?: JudgeHealth[];
  asr: AsrRow[];
  /** Label counts per rater (judges, then the committee). */
  labels: Array<{ rater: string; counts: Record<string, number> }>;
  human: HumanAgreementReport | null;
  /** Each judge (and the committee) against the benchmark's `security` verdict; null when the corpus has none. */
  reference: ReferenceAgreement[] | null;
  /** Their caveats as `agree --reference security` gives them (DoS and EXPOSURE LOW groups pooled, labels set by code). */
  reference_warnings?: string[];
  conditions: ConditionView[];
  condition_source: string | null;
  /**
   * The paper table (src/estimate/table.ts): per model judge ASR, heuristic (signature) ASR, refusal rate,
   * utility and utility under attack, and the calibrated ASR when human labels with design fields are given.
   * Judge or committee: `ReportOptions.source`, resolved as `estimate` resolves it (`resolveSource`): the run's
   * only judge by default. A run with several judges and no choice has no table: null, with the reason in
   * `paper_table_reason` (how to choose: `--judge ID` or `--committee`).
   */
  paper_table: ReportPaperTable | null;
  /** Why `paper_table` is null (several judges and no `--judge`/`--committee`). */
  paper_table_reason?: string;
  /** Utility under attack and without attack per (model, condition) for `condition` (defense); `[]` without utility. */
  utility: UtilityCell[];
  items: ReportItem[];
  /** Items that qualified for the list, before the cap. */
  items_total: number;
  /** With a committee: how many of `items_total` are on unattacked trajectories (listed; its agreement figures leave them out: ./items-text.ts). */
  items_unattacked?: number;
  items_cap: number;
  /** How the run's labelling ended (`readRunState`); a partial run is also a warning. */
  run_state: RunState;
  /**
   * Money and request settings per judge: the USD cost over its verdicts (`incomplete` when some have no known
   * cost), and the temperature and token parameter its requests actually used (recorded by `label` in
   * `store.json`; a reasoning model sends no temperature: null), with the adaptations learned from the server.
   */
  costs: RunCosts;
}

/**
 * The benchmark's `security` verdict of a trajectory, only where it means something: attacked runs that did
 * not end in an error (DESIGN section 3). Undefined elsewhere, so an unattacked run never shows one.
 */
export function benchmarkSecurity(row: TrajectoryIndexRow | undefined): boolean | undefined {
  if (!row || !row.attacked || row.run_error) return undefined;
  return typeof row.reference?.security === "boolean" ? row.reference.security : undefined;
}

/** Options of {@link buildReportModel}. */
export interface ReportOptions {
  /** The run folder (`<labels-dir>/<run>`). */
  runDir: string;
  run?: string;
  /** Human label file (CSV or JSONL, DESIGN section 3; `import-annotations` output). */
  humanFile?: string;
  /** `humanFile` as read (`readHumanLabels`) when the caller has read it (../cli/sample-where-default.ts): not read again. */
  humanLabels?: HumanLabelFile;
  bootstrap?: { B: number; seed: number };
  /** Most trajectories in the disagreement list (default 200). */
  maxItems?: number;
  /** Folder relative trajectory paths are resolved from (default: the current directory). */
  sourceRoot?: string;
  /**
   * The judge or committee of the paper table and its calibrated ASR (as `estimate --judge ID` / `--committee`;
   * default: the run's only judge). With several judges and no choice the table is left out with a reason; an
   * explicit choice that does not fit the run (unknown judge, committee of one judge) throws EstimateError.
   */
  source?: EstimateOptions["source"];
  /** `--where` (src/store/where.ts): the report is over the trajectories it keeps (stated in the page). */
  where?: WhereFilter | null;
  /**
   * `--own-mix`: the paper table's rows and the by-condition views' cells each over every attacked run of its own, not
   * like for like (src/estimate/table-population.ts, ./condition-views.ts).
   */
  ownMix?: boolean;
  /** Clock (tests). */
  now?: Date;
  /** Where the reading of the run's journals is (a progress display). */
  progress?: ReadProgress;
  /** Called with each step after the read that can take seconds on a large run (a status line). */
  step?: (what: string) => void;
}

/**
 * The two named rates, blocked attempts, coverage and exposure per (rater, agent model, condition) over the
 * attacked trajectories of `index` (DESIGN section 1; `not_exposed` counts as not compromised). A trajectory
 * without a label from the rater counts against coverage under its reason. Trajectories without an agent model
 * are grouped under `(none)`, without a condition under `(none)`. Each row carries the benchmark's own verdict of
 * its runs (`reference_security`, src/stats/reference-rates.ts), which the page says beside a LOW coverage.
 * @param items rater -> trajectory id -> its label (or why it has none) and blocked attempt; ids missing from a
 *   rater's map count as `no_verdict`.
 */
export function asrRows(items: ReadonlyMap<string, ReadonlyMap<string, RateItem>>, index: ReadonlyMap<string, TrajectoryIndexRow>): AsrRow[] {
  const rows = [...index.values()];
  const out: AsrRow[] = [];
  for (const [rater, byId] of items) out.push(...raterAsrRows(rater, rows.length, (i) => rows[i], (i) => byId.get(rows[i].id) ?? { label: null, reason: "no_verdict" }));
  // the judges side by side on the runs every one labelled (./asr-common.ts)
  addCommon(out, rows.length, (i) => rows[i], [...items].filter(([r]) => r !== COMMITTEE).map(([rater, byId]) => ({ rater, item: (i: number) => byId.get(rows[i].id) ?? { label: null, reason: "no_verdict" } })));
  return out;
}

/**
 * The observations the rates by condition value (defense), by attack and by surface are computed from, from the
 * committee label (`source` = {@link COMMITTEE}) or the judge `source`.
 */
function conditionObservations(index: Map<string, TrajectoryIndexRow>, verdicts: Verdict[], committeeVerdicts: CommitteeVerdict[] | null | undefined, condSource: string): (field: string) => Observations {
  return (field) =>
    buildObservations(index, { verdicts, committee: committeeVerdicts ?? undefined }, committeeVerdicts ? { kind: "committee" } : { kind: "judge", judge_id: condSource }, field);
}

/**
 * What the rates are made of, per rater (each judge's repeat-0 verdicts, and the committee's labels when given):
 * trajectory id -> its label and blocked attempt, or why it has none.
 */
export function rateItemsOf(
  verdicts: readonly Verdict[],
  judgeIds: readonly string[],
  committeeVerdicts: readonly CommitteeVerdict[] | null | undefined,
): Map<string, Map<string, RateItem>> {
  const rateItems = new Map<string, Map<string, RateItem>>();
  for (const j of judgeIds) rateItems.set(j, new Map());
  for (const v of verdicts) {
    if (v.repeat !== 0) continue;
    const item: RateItem = v.status === "ok" && v.label ? { label: v.label, ...blockedFields(v) } : { label: null, reason: v.error?.kind ?? v.status };
    rateItems.get(v.judge_id)?.set(v.trajectory_id, item);
  }
  // the committee's label as the committee report counts it (committee/report.ts)
  if (committeeVerdicts) rateItems.set(COMMITTEE, committeeRateItems(committeeVerdicts, verdicts));
  return rateItems;
}

/**
 * Re-read the trajectories of the listed items from their source files (one read per file) and check that each
 * is still what the judges saw.
 *
 * A trajectory is matched by its id, never by its line alone: a re-read trajectory with another id is taken only
 * when it sits where the run recorded it (same line, or the only trajectory of a one-trajectory file) and its
 * content hash (`contentSha256`, src/io/hash.ts) equals the recorded `content_sha256` (a fallback id such as
 * `<path>:<line>` changes with the folder the file is read from; the content is then still what was judged).
 * A match by id whose content hash differs is shown with {@link ReportItem.source_changed} set (the report
 * warns and does not highlight quotes in it); anything else is a `trajectory_error`.
 * @param items the listed items (mutated: `trajectory`, `source_changed`, `trajectory_error`).
 * @param sourceRoot folder relative `source.path`s are resolved from.
 */
export async function loadTrajectories(items: ReportItem[], sourceRoot: string): Promise<void> {
  const byPath = new Map<string, ReportItem[]>();
  for (const it of items) {
    const p = it.row?.source?.path;
    if (!p) {
      it.trajectory_error = "the run does not record where this trajectory came from";
      continue;
    }
    const abs = path.isAbsolute(p) ? p : path.resolve(sourceRoot, p);
    if (!byPath.has(abs)) byPath.set(abs, []);
    byPath.get(abs)!.push(it);
  }
  for (const [abs, its] of byPath) {
    if (!fs.existsSync(abs)) {
      for (const it of its) it.trajectory_error = `source file not found: ${abs}`;
      continue;
    }
    const wanted = new Map(its.map((it) => [it.trajectory_id, it]));
    const found = new Set<ReportItem>();
    const all: Trajectory[] = [];
    for await (const item of readTrajectories([abs])) {
      if (item.kind !== "trajectory") continue;
      const t = item.trajectory;
      all.push(t);
      const it = wanted.get(t.id);
      if (it && !found.has(it)) {
        found.add(it);
        it.trajectory = t;
        const sha = contentSha256(t);
        if (it.row?.content_sha256 && sha !== it.row.content_sha256) {
          it.source_changed = `the source changed since it was labelled; the text below is not what the judges saw (content hash ${sha.slice(0, 12)}…, the run recorded ${it.row.content_sha256.slice(0, 12)}…)`;
        } else if (!it.row?.content_sha256) {
          it.source_changed = "the run records no content hash for this trajectory, so the text below cannot be checked against what the judges saw";
        }
      }
      if (found.size === its.length) break;
    }
    for (const it of its) {
      if (found.has(it)) continue;
      const line = it.row?.source?.line;
      const at = line !== undefined ? all.filter((t) => t.source.line === line) : all.length === 1 ? all : [];
      const same = at.find((t) => !!it.row?.content_sha256 && contentSha256(t) === it.row.content_sha256);
      if (same) {
        it.trajectory = { ...same, id: it.trajectory_id };
        found.add(it);
      } else {
        it.trajectory_error = `trajectory ${it.trajectory_id} not found again in ${abs}${
          at.length ? ` (${line !== undefined ? `line ${line}` : "the file"} now holds ${at.map((t) => t.id).join(", ")} with other content)` : ""
        }: the file changed since labelling`;
      }
    }
  }
}

/** Label counts per rater (each judge's repeat-0 ok verdicts, and the committee's ok labels when given). */
function labelCountsOf(
  verdicts: readonly Verdict[],
  judgeIds: readonly string[],
  committeeVerdicts: readonly CommitteeVerdict[] | null,
): ReportModel["labels"] {
  const labels = new Map<string, Map<string, string>>();
  for (const j of judgeIds) labels.set(j, new Map());
  for (const v of verdicts) if (v.repeat === 0 && v.status === "ok" && v.label) labels.get(v.judge_id)?.set(v.trajectory_id, v.label);
  if (committeeVerdicts) {
    const m = new Map<string, string>();
    for (const c of committeeVerdicts) if (c.status === "ok" && c.label) m.set(c.trajectory_id, c.label);
    labels.set(COMMITTEE, m);
  }
  return [...labels].map(([rater, byId]) => {
    const counts: Record<string, number> = Object.fromEntries(BUCKETS.map((b) => [b, 0]));
    for (const l of byId.values()) counts[l]++;
    return { rater, counts };
  });
}

/**
 * The paper table and its calibrated ASR: the judge or committee chosen as `estimate` chooses it (`resolveSource`);
 * several judges and no choice leave the table out with the reason, an explicit choice that does not fit throws
 * EstimateError. The calibrated estimate is over the full run with `--where` as its domain (`estimateFromData`);
 * its warnings, or why it is not shown, go to `d.warnings`.
 */
function paperTableSection(
  o: ReportOptions,
  run: string,
  d: {
    fullIndex: Map<string, TrajectoryIndexRow>;
    allVerdicts: Verdict[];
    index: Map<string, TrajectoryIndexRow>;
    verdicts: Verdict[];
    humanLabels: HumanLabelFile | null;
    warnings: string[];
  },
): { paper_table: ReportPaperTable | null; paper_table_reason?: string } {
  let tableSource: EstimateSource | null = null;
  let paper_table_reason: string | undefined;
  try {
    tableSource = resolveSource(d.verdicts, o.source ?? { kind: "judge" }, run);
  } catch (e) {
    if (!(e instanceof EstimateError) || o.source) throw e;
    paper_table_reason = e.message;
  }
  let calibrated: EstimateReport | undefined;
  if (o.humanFile && d.humanLabels && tableSource) {
    try {
      calibrated = estimateFromData(d.fullIndex, d.allVerdicts, d.humanLabels, {
        run,
        humanFile: o.humanFile,
        source: tableSource,
        by: [...d.index.values()].some((r) => r.condition !== undefined) ? ["agent_model", "condition"] : ["agent_model"],
        where: o.where,
        likeForLikeCells: !o.ownMix, // the table's rows' population (../estimate/group-cells.ts)
      });
      for (const w of calibrated.warnings) d.warnings.push(`calibrated estimate: ${w}`);
      // and each group's, as estimate prints them (calibrated_goal_above_behaviour on the asr_goal group: review 16)
      for (const r of [calibrated, calibrated.asr_goal]) if (r && "groups" in r) for (const g of r.groups) for (const w of g.warnings) d.warnings.push(`estimate ${r.rate ?? ""}, ${g.group}: ${w}`);
    } catch (e) {
      d.warnings.push(`calibrated estimate not shown: ${(e as Error).message}`);
    }
  }
  // --where attack=X leaves out the unattacked runs: the utility cells say so, and a warning gives the --where keeping them
  const leftOut = unattackedLeftOut(d.fullIndex.values(), o.where);
  // with its `(all)` row: the pooled calibrated estimate as estimate prints it (./calibrated-all.ts)
  const paper_table = tableSource ? withCalibratedAll(paperTable(run, d.index, d.verdicts, tableSource, { calibrated, unattackedOutside: unattackedOutsideRow(leftOut), ownMix: !!o.ownMix }), calibrated) : null;
  const leftOutNote = paper_table && tableUnattackedNote(leftOut, o.where, paper_table.rows);
  if (leftOutNote) d.warnings.push(leftOutNote);
  return { paper_table, ...(paper_table_reason ? { paper_table_reason } : {}) };
}

/**
 * The browsable list, most telling first: with a committee, its disputed then non-unanimous trajectories (more
 * distinct votes first); with one judge, its disagreements with the benchmark.
 */
function disagreementItems(
  index: ReadonlyMap<string, TrajectoryIndexRow>,
  verdicts: readonly Verdict[],
  judgeIds: readonly string[],
  committeeVerdicts: readonly CommitteeVerdict[] | null,
  reference: ReferenceAgreement[] | null,
): ReportItem[] {
  // one map per judge keyed by the verdicts' own id strings: no key string per verdict
  const rep0 = repeatZeroByJudge(verdicts);
  const verdictsOf = (id: string) => judgeIds.map((j) => rep0.get(j)?.get(id)).filter((v): v is Verdict => !!v);
  let candidates: ReportItem[] = [];
  if (committeeVerdicts) {
    const distinct = (c: CommitteeVerdict) => new Set(Object.values(c.votes).filter((x) => x !== null)).size;
    candidates = committeeVerdicts
      .filter((c) => c.status === "disputed" || (c.status === "ok" && !c.unanimous))
      .sort((a, b) => (a.status === "disputed" ? 0 : 1) - (b.status === "disputed" ? 0 : 1) || distinct(b) - distinct(a) || a.trajectory_id.localeCompare(b.trajectory_id))
      .map((c) => ({
        trajectory_id: c.trajectory_id,
        kind: c.status === "disputed" ? "disputed" : "not_unanimous",
        row: index.get(c.trajectory_id),
        committee: c,
        verdicts: verdictsOf(c.trajectory_id),
        reference: benchmarkSecurity(index.get(c.trajectory_id)),
      }));
  } else if (reference && reference[0]) {
    candidates = reference[0].disagreements.map((d) => ({
      trajectory_id: d.trajectory_id,
      kind: "reference_disagreement" as const,
      row: index.get(d.trajectory_id),
      verdicts: verdictsOf(d.trajectory_id),
      reference: d.reference,
    }));
  }
  return candidates;
}

/**
 * Gather the report's data from a run folder.
 * @returns the {@link ReportModel}.
 * @throws Error when the run has no verdicts; HumanLabelsError for an unusable human-label file.
 */
export async function buildReportModelObjects(o: ReportOptions): Promise<ReportModel> {
  const run = o.run ?? path.basename(o.runDir);
  const bootstrap = o.bootstrap ?? { B: 2000, seed: 12345 };
  const maxItems = o.maxItems ?? 200;
  // compact (slim verdicts, rows without source): the listed items get their full records below (fillListed)
  // Human labels: the file read once (agreement and the calibrated estimate both use it), before the run: the
  // labelled trajectories' content hashes are kept, to check each label against the text the run has now
  const humanLabels = o.humanFile ? (o.humanLabels ?? readHumanLabels(o.humanFile)) : null;
  const { verdicts: allVerdicts, index: fullIndex } = await readLeanRun(o.runDir, { progress: o.progress, content: humanLabels ? labelledIds(humanLabels) : undefined });
  const cf0 = await readCommitteeFile(o.runDir, { index: fullIndex });
  // --where: every section is over the kept trajectories (the calibrated ASR: their domain in the run's design)
  const restricted = restrictRun({ index: fullIndex, verdicts: allVerdicts, committee: cf0?.verdicts }, o.where, run);
  const { index, verdicts } = restricted;
  const cf = cf0 ? { ...cf0, verdicts: restricted.committee ?? [] } : null;
  // A committee file from another judge set, or from before verdicts changed, is not this run's committee: the
  // report computes the committee instead and says why.
  const step = o.step ?? (() => {});
  if (cf) step(`checking committee.jsonl against ${verdicts.length.toLocaleString("en-US")} verdicts`);
  const cfCheck = cf ? checkCommitteeFile(cf, verdicts, fullIndex) : null;
  // one committee for every section: the stored one's members, --exclude-judge's, or every judge (./committee-choice.ts)
  const rc = reportCommittee([...new Set(verdicts.map((v) => v.judge_id))], cf, cfCheck?.stale ?? null, o.source, run, DEFAULT_QUORUM);
  const committeeFile = cf && rc.m.matches_file ? cf.verdicts : null;
  if (verdicts.length === 0) throw new Error(`run ${run} has no verdicts (${path.join(o.runDir, "verdicts.jsonl")})`);
  const { inputs, costs } = runInputsAndCosts(o.runDir, verdicts);
  // Committee figures without bootstrap (the report shows the per-judge figures and the committee summary).
  step(`committee and per-judge figures over ${index.size.toLocaleString("en-US")} trajectories`);
  // every judge's figures, and the committee's own (its verdicts, its members' agreement) when it is not every judge
  const f = committeeFigures((excludeJudges, quorum, everyJudge) => {
    const r = committeeReport(verdicts, index, { run, bootstrap: { B: 0, seed: bootstrap.seed }, leniencyGapCi: true, excludeJudges, quorum, everyJudge });
    return { report: r.report, committee: r.verdicts };
  }, rc);
  const { cr, crc, computed, multi } = f;
  const judgeIds = cr.judges.map((j) => j.id);
  // the run's state as the report's judges see it: no mixed-configuration warning of a judge it does not show (review s29)
  const runState = runStateFor(readRunState(o.runDir), judgeIds);
  const committeeVerdicts = multi ? (committeeFile ?? computed) : null;
  // a single judge has no committee warnings, but its health warnings (issue 12.2) still show; a judge left out: its own
  const warnings = f.warnings.concat(rateCaveatWarnings(cr.judge_health, judgeIds)); // rates not the judging: said (new-user report 16)
  if (runState.complete === false && runState.message) warnings.unshift(`run incomplete: ${runState.message}`);
  else if (runState.message) warnings.push(stateWarns(runState) ? runState.message : `note: ${runState.message}`);
  // a judge's verdicts made by several models or configurations: its figures are not one model's (red team 28)
  warnings.push(...(runState.mixed_configurations ?? []), ...(runState.input_errors ? [runState.input_errors] : []));
  warnings.push(...restricted.warnings);
  // per (model, condition) rows of conditions run on different attacks are not like for like (issue 22)
  // (the items made one at a time as the check reads them: no list of them beside the index, issue 26)
  const attackedItems = function* () {
    for (const r of index.values()) if (r.attacked) yield { model: r.agent_model ?? NO_VALUE, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id };
  };
  warnings.push(...likeForLikeWarnings(attackedItems()));
  warnings.push(...rc.warnings);
  if (cfCheck?.notes.length && committeeFile) warnings.push(...cfCheck.notes);

  step("rates and label counts");
  const rateItems = rateItemsOf(verdicts, judgeIds, committeeVerdicts);
  const labelCounts = labelCountsOf(verdicts, judgeIds, committeeVerdicts);

  if (o.humanFile) step(`agreement with the human labels (bootstrap ${bootstrap.B})`);
  // the sample was drawn from the whole run: its frame is checked against every row, not the --where subset
  const human = o.humanFile && humanLabels ? humanAgreement(humanLabels, verdicts, index, { file: o.humanFile, bootstrap, population: [...fullIndex.values()], committee: rc.m.members, quorum: rc.m.quorum }) : null;

  // Benchmark reference (AgentDojo security), when any attacked trajectory has one.
  const hasReference = [...index.values()].some((t) => t.attacked && !t.run_error && typeof t.reference?.security === "boolean");
  let reference: ReferenceAgreement[] | null = null;
  let referenceWarnings: string[] = [];
  if (hasReference) {
    step("agreement with the benchmark's verdicts");
    reference = judgeIds.map((j) => referenceAgreement(j, verdicts, index));
    if (committeeVerdicts) reference.push(committeeReferenceAgreement(committeeVerdicts, index));
    // the caveats `agree --reference security` gives beside these kappas (new user 25)
    referenceWarnings = referenceCaveats(verdicts.filter((v) => v.repeat === 0 && benchmarkSecurity(index.get(v.trajectory_id)) !== undefined), index.values(), judgeIds, (v) => index.get(v.trajectory_id));
  }

  // ASR by condition value (defense), by attack and by surface, from the committee label or the first judge.
  const condSource = committeeVerdicts ? COMMITTEE : judgeIds[0];
  step("ASR by condition, attack and surface");
  const cli = cliWarnings(index, !!o.ownMix); // compare's and the pooled folders' warnings over these figures (review 16)
  const conditions = conditionViewsOf(cli.tap(conditionObservations(index, verdicts, committeeVerdicts, condSource)), { ownMix: !!o.ownMix });
  warnings.push(...cli.warnings(warnings));

  step("the paper table");
  const { paper_table, paper_table_reason } = paperTableSection({ ...o, source: rc.source }, run, { fullIndex, allVerdicts, index, verdicts, humanLabels, warnings });
  const utility = withUtilityOutside(utilityTable(index.values(), "condition"), unattackedOutsideRow(unattackedLeftOut(fullIndex.values(), o.where))); // the filter's reason, not "none"

  const candidates = disagreementItems(index, verdicts, judgeIds, committeeVerdicts, reference);
  const items = candidates.slice(0, maxItems);
  step(`reading the ${items.length} listed trajectories back`);
  await fillListed(o.runDir, items, judgeIds, o.progress);
  await loadTrajectories(items, o.sourceRoot ?? process.cwd());

  return {
    run,
    ...(restricted.statement ? { where: restricted.statement } : {}),
    generated_at: (o.now ?? new Date()).toISOString(),
    inputs,
    trajectories: index.size,
    attacked: [...index.values()].filter((t) => t.attacked).length,
    judges: cr.judges,
    per_judge: cr.per_judge,
    committee: committeeVerdicts
      ? {
          summary: committeeFile ? committeeSummary(committeeFile, index, verdicts) : crc.committee,
          agreement: crc.agreement,
          source: committeeFile ? "committee.jsonl" : "computed",
          quorum: rc.m.quorum,
          members: rc.m.members,
          left_out: rc.m.left_out,
          verdicts: committeeVerdicts,
          code_majority: committeeFile ? codeMajorityOf(committeeFile, verdicts.filter((v) => v.repeat === 0), index, rc.m.members) : crc.code_majority,
          leniency: crc.leniency,
          retest: crc.retest,
        }
      : null,
    warnings: uniqueWarnings(warnings),
    judge_health: cr.judge_health,
    asr: asrRows(rateItems, index),
    labels: labelCounts,
    human,
    reference,
    reference_warnings: referenceWarnings,
    conditions,
    condition_source: conditions.length ? condSource : null,
    paper_table,
    ...(paper_table_reason ? { paper_table_reason } : {}),
    utility,
    items,
    items_total: candidates.length,
    ...(committeeVerdicts ? { items_unattacked: candidates.filter((c) => c.row?.attacked === false).length } : {}),
    items_cap: maxItems,
    run_state: runState,
    costs,
  };
}
