/**
 * The report's data (`ReportModel` of `./data.ts`) from a run read as columns (`../store/columns.ts`), for runs of
 * a million trajectories: the same model as `buildReportModelObjects`, with the figures from the column functions
 * (`committeeReportColumns`, `referenceAgreementColumns`, `buildObservationsColumns`, `paperTableColumns`, and
 * `./slots.ts`), costs summed as the verdict records are read, the human comparison over the verdicts of the
 * human-labelled trajectories only, and the disagreement list as slots (only the listed ones made objects).
 * `--where`: over the rows it keeps (./run-columns.ts). The calibrated estimate (human labels with a paper table) from
 * the same columns (./calibrated-columns.ts). `--where` with human labels: the human comparison's sample frame and
 * the calibrated estimate over the whole read (every row, `--where` their domain), the rest over the kept rows, as
 * the object path reads `fullIndex` beside the restricted index. Not here (the caller takes the object path): a
 * committee file not one line per trajectory.
 */
import { committeeFigures, reportCommittee } from "./committee-choice.js";
import { DEFAULT_QUORUM } from "../verdict/vote.js";
import { cliWarnings } from "./cli-warnings.js";
import type { Observations } from "../compare/data.js";
import path from "node:path";
import type { CommitteeVerdict, Verdict } from "../types.js";
import { eachVerdictRecord, letGoContentCodes, type ColumnRun } from "../store/columns.js";
import { runFolderWarnings } from "../run/pooled-folders.js";
import { ColumnIndex } from "../store/column-index.js";
import { humanVerdicts, populationRows } from "../agree/human-columns.js";
import { readRunState, runStateFor } from "../store/run-state.js";
import { rateCaveatWarnings } from "./rate-caveat-html.js";
import { healthWarnings } from "../verdict/health.js";
import { readHumanLabels, humanAgreement, type HumanAgreementReport } from "../agree/human.js";
import { labelledIds, type HumanLabelFile } from "../agree/human-file.js";
import { COMMITTEE_RATER, type ReferenceAgreement } from "../agree/reference.js";
import { referenceAgreementColumns, REFERENCE_ROW_FIELDS } from "../agree/reference-columns.js";
import { referenceCaveats } from "../agree/reference-caveats.js";
import { checkCommitteeColumns, committeeAsColumnRun, type CommitteeColumns } from "../committee/file-columns.js";
import { committeeColumns, committeeReportColumns, COMMITTEE_ROW_FIELDS } from "../committee/report-columns.js";
import { buildObservationsColumns, COMPARE_ROW_FIELDS } from "../compare/data-columns.js";
import { paperTableColumns, TABLE_ROW_FIELDS } from "../estimate/table-columns.js";
import { EstimateError, resolveSource, type EstimateReport, type EstimateSource } from "../estimate/run.js";
import type { PaperTable, TableOptions } from "../estimate/table.js";
import { tableUnattackedNote, unattackedOutsideRow } from "../agree/where-unattacked.js";
import { uniqueWarnings } from "../format/unique-warnings.js";
import { readReportColumns, type ReportColumns } from "./run-columns.js";
import { calibratedColumns, CALIBRATED_ROW_FIELDS } from "./calibrated-columns.js";
import { withCalibratedAll, type ReportPaperTable } from "./calibrated-all.js";
import { utilityTable, withUtilityOutside } from "../compare/utility.js";
import { likeForLikeWarnings } from "../stats/like-for-like.js";
import { lazyDisagreements } from "./lazy-disagreements.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { fillListed } from "./fill-listed.js";
import { benchmarkSecurity, COMMITTEE, conditionViewsOf, loadTrajectories, type ConditionView, type ReportItem, type ReportModel, type ReportOptions } from "./data.js";
import { runInputsAndCosts } from "./run-inputs.js";
import {
  asrRowsColumns,
  committeeObservations,
  committeeRateItems,
  committeeSummarySlots,
  codeMajoritySlots,
  committeeSlotsOfFile,
  disagreementSlots,
  judgeRateItems,
  labelCountsColumns,
  paperTableCommitteeColumns,
  type CommitteeSlots,
} from "./slots.js";
import { rep0ByJudge } from "../committee/file-columns.js";
import { NO_VALUE } from "../stats/no-value.js";
import { rowRecords } from "../store/row-records.js";

/** The index fields the report reads (every section's). */
export const REPORT_ROW_FIELDS: readonly string[] = [
  ...new Set([...COMMITTEE_ROW_FIELDS, ...REFERENCE_ROW_FIELDS, ...COMPARE_ROW_FIELDS, ...TABLE_ROW_FIELDS, "agent_family", "surface", "user_task_id", "injection_task_id"]),
];

/**
 * The human-label file, read before the run, and what the column read keeps of it: the labelled trajectories'
 * content hashes (`onRow`), to check each label against the text the run has now (../agree/label-pairing.ts).
 */
function humanInput(file: string | undefined, read?: HumanLabelFile): { labels: HumanLabelFile | null; content: Map<string, string>; onRow?: (slot: number, row: TrajectoryIndexRow) => void } {
  const labels = file ? (read ?? readHumanLabels(file)) : null;
  const content = new Map<string, string>();
  if (!labels) return { labels, content };
  const labelled = labelledIds(labels);
  return { labels, content, onRow: (_slot, row) => void (labelled.has(row.id) && content.set(row.id, row.content_sha256)) };
}

/**
 * The agreement with the human labels over a column run (`humanAgreement` with the run's rows and content hashes):
 * the figures over `colRun` (the rows `--where` keeps), the sample frame and the labels' content over `full` (every
 * row of the run; `colRun` itself without a filter), as `agree --human --where` reads them (../cli/agree-human.ts).
 */
function humanAgreementColumns(colRun: ColumnRun, full: ColumnRun, hi: ReturnType<typeof humanInput>, file: string, bootstrap: { B: number; seed: number }, c: { members: string[]; quorum: number }): HumanAgreementReport {
  const labels = hi.labels!;
  const colIndex = new ColumnIndex(colRun);
  const fullIndex = full === colRun ? colIndex : new ColumnIndex(full);
  const contentOf = (id: string) => (fullIndex.has(id) ? hi.content.get(id) : null);
  // the rows of a column run are shared projections without their id: the frame check needs it (made as read)
  const population = populationRows(fullIndex);
  return humanAgreement(labels, humanVerdicts(colRun, labels.rows), colIndex, { file, bootstrap, contentOf, population, committee: c.members, quorum: c.quorum });
}

/**
 * The report's data from a run read as columns (module docstring).
 * @returns the model, or null when the report needs the object path (a committee file whose lines are not one per
 *   trajectory of the run): the caller builds it from objects.
 * @throws as `buildReportModelObjects`.
 */
export async function buildReportModelColumns(o: ReportOptions): Promise<ReportModel | null> {
  const built = await figuresColumns(o);
  if (!built) return null;
  // the listed items filled in with the column run out of scope: at 1M its columns (~50 MB) are let go before the
  // verdicts are read back and the page is written (issue 26 point 3: the tail was report's peak with them)
  const { model, judgeIds } = built;
  o.step?.(`reading the ${model.items.length} listed trajectories back`);
  await fillListed(o.runDir, model.items, judgeIds, o.progress);
  await loadTrajectories(model.items, o.sourceRoot ?? process.cwd());
  model.generated_at = (o.now ?? new Date()).toISOString();
  return model;
}

/** {@link buildReportModelColumns} but the listed items' full records (the figures; null: the object path). */
async function figuresColumns(o: ReportOptions): Promise<{ model: ReportModel; judgeIds: string[] } | null> {
  const run = o.run ?? path.basename(o.runDir);
  const bootstrap = o.bootstrap ?? { B: 2000, seed: 12345 };
  const maxItems = o.maxItems ?? 200;
  const step = o.step ?? (() => {});
  const hi = humanInput(o.humanFile, o.humanLabels);
  // --where: its kept rows and their committee lines (./run-columns.ts); human labels: the calibrated fields, the whole read kept
  const rowFields = hi.labels ? [...new Set([...REPORT_ROW_FIELDS, ...CALIBRATED_ROW_FIELDS])] : REPORT_ROW_FIELDS;
  const rd = await readReportColumns(o.runDir, run, rowFields, o.where, { verdictOmit: [], progress: o.progress, onRow: hi.onRow }, !!hi.labels);
  const { run: colRun, cf } = rd;
  if (cf) step(`checking committee.jsonl against ${colRun.nVerdicts.toLocaleString("en-US")} verdicts`);
  const cfCheck = cf ? checkCommitteeColumns(cf, colRun) : null;
  // one committee for every section: the stored one's members, --exclude-judge's, or every judge (./committee-choice.ts)
  const rc = reportCommittee([...new Set(colRun.verdicts.map((v) => v.judge_id))], cf, cfCheck?.stale ?? null, o.source, run, DEFAULT_QUORUM);
  const fileSlots = cf && rc.m.matches_file ? committeeSlotsOfFile(cf, colRun) : null;
  if (fileSlots === undefined) return null;
  if (colRun.nVerdicts === 0) throw new Error(`run ${run} has no verdicts (${path.join(o.runDir, "verdicts.jsonl")})`);

  // the table's source (as the object path resolves it); with human labels its calibrated estimate (below) over the columns too
  let tableSource: EstimateSource | null = null;
  let paper_table_reason: string | undefined;
  try {
    tableSource = resolveSource(colRun.verdicts, rc.source ?? { kind: "judge" }, run);
  } catch (e) {
    if (!(e instanceof EstimateError) || o.source) throw e;
    paper_table_reason = e.message;
  }
  const { inputs, costs } = runInputsAndCosts(o.runDir, eachVerdictRecord(colRun));
  // human labels: with --where the figures over every row first, then the whole read let go (the kept rows' copy stays)
  const hf = humanFigures(rd, hi, { ...o, run, bootstrap, tableSource }, rc.m, step);

  step(`committee and per-judge figures over ${colRun.nRows.toLocaleString("en-US")} trajectories`);
  // every judge's figures, and the committee's own (its verdicts, its members' agreement) when it is not every judge
  const f = committeeFigures((excludeJudges, quorum, everyJudge) => committeeReportColumns(colRun, { run, bootstrap: { B: 0, seed: bootstrap.seed }, leniencyGapCi: true, excludeJudges, quorum, everyJudge, step: (s) => step(`committee and per-judge figures: ${s}`) }), rc);
  const { cr, crc, computed, multi } = f;
  // test-retest (made above) is the one reader of the verdicts' content codes: let go before the steps over the kept
  // rows that follow (ASR by condition, the paper table: report's peak at 1M, issue 26 point 3), ~15 MB at 1M
  letGoContentCodes(colRun, "report, after its committee figures");
  const judgeIds = cr.judges.map((j) => j.id);
  const runState = runStateFor(readRunState(o.runDir), judgeIds); // no mixed configuration of a judge not shown (review s29)
  const cs: CommitteeSlots | null = multi ? (fileSlots ?? { code: Int32Array.from(computed.code), verdicts: computed.verdicts }) : null;
  const warnings = f.warnings.concat(rateCaveatWarnings(cr.judge_health, judgeIds)); // rates not the judging: said (new-user report 16)
  if (runState.complete === false && runState.message) warnings.unshift(`run incomplete: ${runState.message}`);
  else if (runState.message) warnings.push(`note: ${runState.message}`);
  warnings.push(...(runState.mixed_configurations ?? []), ...(runState.input_errors ? [runState.input_errors] : []), ...(rd.where?.warnings ?? []), ...likeForLikeWarnings(attackedRecords(colRun))); // mixed judge configurations (red team 28)
  // one model and condition from several run folders (VIGIL's debug_run beside runs_base): every figure pools them
  warnings.push(...runFolderWarnings(rowRecords(colRun)));
  warnings.push(...rc.warnings);
  if (cfCheck?.notes.length && fileSlots) warnings.push(...cfCheck.notes);

  // each group of figures below made in a function of its own: its transient columns (a committee's as a column run,
  // the rater's verdict per slot: 4-8 MB each at 1M) go when it returns, not held by this frame to its end
  step("rates and label counts");
  const rep0 = rep0ByJudge(colRun);
  const { asr, labels } = rateFigures(colRun, judgeIds, rep0, cs);

  const human = hf.human();

  const reference = referenceFigures(colRun, judgeIds, cs, fileSlots && cf ? cf : null, step);
  // with a committee its listed items are its own disagreements, and the id table is held to the end for its verdicts:
  // the raters' disagreements with the benchmark (never on the page) wait there as slots, not through the peak steps
  if (cs) for (const r of reference ?? []) lazyDisagreements(r, colRun.ids);

  const condSource = cs ? COMMITTEE : judgeIds[0];
  step("ASR by condition, attack and surface");
  const conditions = conditionFigures(colRun, condSource, cs, rep0, warnings, !!o.ownMix);

  step("the paper table");
  // --where attack=X leaves out the unattacked runs: the utility cells say so, and a warning gives the --where keeping them
  const outside = rd.where ? { unattackedOutside: unattackedOutsideRow(rd.leftOut) } : {};
  const { calibrated, warnings: calibratedWarnings } = hf.calibrated();
  warnings.push(...calibratedWarnings); // the calibrated estimate's, where the object path gives them
  const paper_table: ReportPaperTable | null = tableSource ? withCalibratedAll(paperTableOf(run, colRun, tableSource, rep0, { ...outside, calibrated, ownMix: !!o.ownMix }), calibrated) : null;
  const leftOutNote = paper_table && tableUnattackedNote(rd.leftOut, o.where, paper_table.rows);
  if (leftOutNote) warnings.push(leftOutNote);
  const utility = withUtilityOutside(utilityTable(rowRecords(colRun), "condition"), unattackedOutsideRow(rd.where ? rd.leftOut : null)); // the filter's reason, not "none" (break53 #3b)

  let items: ReportItem[] = [];
  let [items_total, items_unattacked] = [0, undefined as number | undefined]; // unattacked: of a committee's list
  const rowAt = (s: number) => colRun.rows[colRun.rowCode[s]] as TrajectoryIndexRow;
  if (cs) {
    const d = disagreementSlots(colRun, cs, maxItems);
    [items_total, items_unattacked] = [d.total, d.unattacked];
    items = d.slots.map((s) => {
      const c = cs.verdicts[cs.code[s]];
      const trajectory_id = colRun.ids.id(s);
      return { trajectory_id, kind: c.status === "disputed" ? "disputed" : "not_unanimous", row: rowAt(s), committee: { trajectory_id, ...c } as CommitteeVerdict, verdicts: [], reference: benchmarkSecurity(rowAt(s)) };
    });
  } else if (reference && reference[0]) {
    items_total = reference[0].disagreements.length;
    items = reference[0].disagreements.slice(0, maxItems).map((d) => {
      const s = colRun.ids.slotOf(d.trajectory_id);
      return { trajectory_id: d.trajectory_id, kind: "reference_disagreement", row: s >= 0 && s < colRun.nRows ? rowAt(s) : undefined, verdicts: [], reference: d.reference };
    });
  }
  let attacked = 0;
  for (let s = 0; s < colRun.nRows; s++) if (colRun.rows[colRun.rowCode[s]].attacked) attacked++;
  const committee: ReportModel["committee"] = cs
    ? ({
        summary: fileSlots ? committeeSummarySlots(colRun, cs, rep0) : crc.committee,
        code_majority: fileSlots ? codeMajoritySlots(colRun, cs, rep0, rc.m.members) : crc.code_majority,
        agreement: crc.agreement,
        leniency: crc.leniency,
        retest: crc.retest,
        source: fileSlots ? "committee.jsonl" : "computed",
        quorum: rc.m.quorum,
        members: rc.m.members,
        left_out: rc.m.left_out,
      } as NonNullable<ReportModel["committee"]>)
    : null;
  // the committee verdicts as objects only when a library caller reads them (a million at 1M; the page never does)
  if (committee && cs) lazyCommitteeVerdicts(committee, colRun.ids, colRun.nRows, cs, fileSlots && cf ? cf : null);

  return { judgeIds, model: {
    run,
    ...(rd.where ? { where: rd.where.statement } : {}),
    generated_at: (o.now ?? new Date()).toISOString(),
    inputs,
    trajectories: colRun.nRows,
    attacked,
    judges: cr.judges,
    per_judge: cr.per_judge,
    committee,
    warnings: rd.where ? uniqueWarnings(warnings) : warnings, // as the object path gives them with --where
    judge_health: cr.judge_health,
    asr,
    labels,
    human,
    reference,
    reference_warnings: reference ? referenceWarningsColumns(colRun, judgeIds) : [],
    conditions,
    condition_source: conditions.length ? condSource : null,
    paper_table,
    ...(paper_table_reason ? { paper_table_reason } : {}),
    utility,
    items,
    items_total, ...(items_unattacked !== undefined ? { items_unattacked } : {}),
    items_cap: maxItems,
    run_state: runState,
    costs,
  } };
}

/** The ASR rows and label counts of each judge and of the committee (`cs`, when shown). */
function rateFigures(colRun: ColumnRun, judgeIds: string[], rep0: ReadonlyMap<string, Uint32Array>, cs: CommitteeSlots | null): Pick<ReportModel, "asr" | "labels"> {
  const raters = judgeIds.map((j) => ({ rater: j, item: judgeRateItems(colRun, rep0.get(j)) }));
  if (cs) raters.push({ rater: COMMITTEE, item: committeeRateItems(colRun, cs, rep0, "no_verdict") });
  return { asr: asrRowsColumns(colRun, raters, judgeIds), labels: labelCountsColumns(colRun, judgeIds, rep0, cs ? { name: COMMITTEE, cs } : null) };
}

/**
 * Each judge's agreement with the benchmark's verdicts, and the committee's (`cs`; from the committee file's lines
 * `cf` when they are its verdicts); null when no attacked row carries the benchmark's `security`.
 */
function referenceFigures(colRun: ColumnRun, judgeIds: string[], cs: CommitteeSlots | null, cf: CommitteeColumns | null, step: (s: string) => void): ReferenceAgreement[] | null {
  if (!hasReferenceColumns(colRun)) return null;
  step("agreement with the benchmark's verdicts");
  const reference = judgeIds.map((j) => referenceAgreementColumns(j, colRun));
  if (cs) reference.push(referenceAgreementColumns(COMMITTEE_RATER, committeeAsColumnRun(cf ?? asFileColumns(cs), colRun, COMMITTEE_RATER)));
  return reference;
}

/**
 * The ASR by condition, attack and surface of `condSource` (the committee when `cs`), `compare`'s warnings over them
 * added to `warnings` (those not there already); like for like unless `ownMix` (./condition-views.ts).
 */
function conditionFigures(colRun: ColumnRun, condSource: string, cs: CommitteeSlots | null, rep0: ReadonlyMap<string, Uint32Array>, warnings: string[], ownMix: boolean): ConditionView[] {
  const given = cs ? committeeObservations(colRun, cs, rep0, COMMITTEE) : rep0.has(condSource) ? { codes: rep0.get(condSource)!, verdicts: colRun.verdicts } : undefined; // the rater's verdict per slot, once for the three fields
  const observationsOf = (field: string): Observations => {
    const obs = buildObservationsColumns(colRun, condSource, field, given);
    return cs ? { ...obs, source: { kind: "committee" } } : obs;
  };
  // compare's warnings over these figures, taken as each field is built (review 16); the pooled run folders are said above already
  const cli = cliWarnings({ values: () => rowRecords(colRun) }, ownMix);
  const conditions = conditionViewsOf(cli.tap(observationsOf), { ownMix }); // like for like unless --own-mix (./condition-views.ts)
  warnings.push(...cli.warnings(warnings));
  return conditions;
}

/** {@link humanFigures}' two figures, each made on its first call (or before, when the whole read is to be let go). */
interface HumanFigures {
  human(): HumanAgreementReport | null;
  /** The calibrated estimate and its warnings, apart, for the caller to add where the object path adds them. */
  calibrated(): { calibrated: EstimateReport | undefined; warnings: string[] };
}

/**
 * The figures of human labels, which read every row of the run: the agreement (its sample frame over every row, its
 * figures over the kept ones) and the paper table's calibrated estimate (over every row, `--where` its domain).
 * With `--where` (the whole read `rd.full` kept beside the kept rows) both are made now, before the other figures, and
 * the whole read is let go (set to null): at 1M under `--where attacked=true` the two held to the end were 586 MB.
 * Without it (no whole read apart) each is made where the caller first asks, as before: made first, the calibrated
 * estimate's transient met more live memory (`report --human --judge signature` at 1M 494,980 KB against 481,936;
 * issue 26 point 3). Without human labels: null, undefined and no warnings.
 */
function humanFigures(
  rd: ReportColumns,
  hi: ReturnType<typeof humanInput>,
  o: { humanFile?: string; where?: ReportOptions["where"]; run: string; bootstrap: { B: number; seed: number }; tableSource: EstimateSource | null; ownMix?: boolean },
  m: { members: string[]; quorum: number },
  step: (s: string) => void,
): HumanFigures {
  const { humanFile, tableSource } = o;
  if (!humanFile || !hi.labels) return { human: () => null, calibrated: () => ({ calibrated: undefined, warnings: [] }) };
  const labels = hi.labels;
  // read from rd when made, never held in a variable: a closure below holding it would keep the whole read alive after
  // `rd.full = null` (it did: at 100k under --where attacked=true, the whole read's ~14 MB of columns stayed to the end)
  const fullOf = () => rd.full ?? rd.run;
  let human: { v: HumanAgreementReport | null } | undefined;
  let cal: { calibrated: EstimateReport | undefined; warnings: string[] } | undefined;
  const figures: HumanFigures = {
    human() {
      if (!human) {
        step(`agreement with the human labels (bootstrap ${o.bootstrap.B})`);
        human = { v: humanAgreementColumns(rd.run, fullOf(), hi, humanFile, o.bootstrap, m) };
      }
      return human.v;
    },
    calibrated() {
      if (!cal) {
        const warnings: string[] = [];
        if (tableSource && rd.full) step("the calibrated estimate");
        const calibrated = tableSource ? calibratedColumns(fullOf(), hi.content, labels, { run: o.run, humanFile, source: tableSource, where: o.where, shown: rd.run, ownMix: o.ownMix }, warnings) : undefined;
        cal = { calibrated, warnings };
      }
      return cal;
    },
  };
  if (rd.full) {
    figures.human();
    figures.calibrated();
    rd.full = null;
  }
  return figures;
}

/** Whether any attacked trajectory that did not end in an agent error has the benchmark's `security` verdict. */
function hasReferenceColumns(colRun: ColumnRun): boolean {
  for (let s = 0; s < colRun.nRows; s++) {
    const t = colRun.rows[colRun.rowCode[s]];
    if (t.attacked && !t.run_error && typeof t.reference?.security === "boolean") return true;
  }
  return false;
}

/** The paper table of a judge, or of the committee of the source's members with its quorum (computed per row slot). */
function paperTableOf(run: string, colRun: ColumnRun, source: EstimateSource, rep0: ReadonlyMap<string, Uint32Array>, opts: Pick<TableOptions, "unattackedOutside" | "calibrated" | "ownMix">): PaperTable {
  if (source.kind === "judge") return paperTableColumns(run, colRun, source, opts);
  const none = new Uint32Array(colRun.ids.size);
  const cc = committeeColumns(colRun, source.members, source.members.map((j) => rep0.get(j) ?? none), source.quorum);
  return paperTableCommitteeColumns(run, colRun, { code: Int32Array.from(cc.code), verdicts: cc.verdicts }, rep0, source, opts);
}

/** Committee slots as the committee-file columns `committeeAsColumnRun` reads (one line per row slot, in order). */
function asFileColumns(cs: CommitteeSlots): CommitteeColumns {
  const slots: number[] = [];
  for (let s = 0; s < cs.code.length; s++) if (cs.code[s] >= 0) slots.push(s);
  const code = Uint32Array.from(slots, (s) => cs.code[s]);
  return { file: "", judges: [], excluded_judges: null, quorum: null, bad_lines: [], n: slots.length, slot: Int32Array.from(slots), code, rows: cs.verdicts };
}

/** `ReportModel.committee.verdicts` made when first read (in the file's order, or the rows' order when computed). */
function lazyCommitteeVerdicts(committee: NonNullable<ReportModel["committee"]>, ids: ColumnRun["ids"], nRows: number, cs: CommitteeSlots, cf: CommitteeColumns | null): void {
  let made: CommitteeVerdict[] | null = null;
  Object.defineProperty(committee, "verdicts", {
    enumerable: true,
    configurable: true,
    get: () => {
      if (made) return made;
      made = [];
      if (cf) for (let i = 0; i < cf.n; i++) made.push({ trajectory_id: ids.id(cf.slot[i]), ...cf.rows[cf.code[i]] } as CommitteeVerdict);
      else for (let s = 0; s < nRows; s++) if (cs.code[s] >= 0) made.push({ trajectory_id: ids.id(s), ...cs.verdicts[cs.code[s]] } as CommitteeVerdict);
      return made;
    },
  });
}

/** The attacked rows' fields `likeForLikeWarnings` reads, one per distinct row record (it counts sets, not rows). */
function* attackedRecords(run: ColumnRun): Generator<Parameters<typeof likeForLikeWarnings>[0] extends Iterable<infer T> ? T : never> {
  const seen = new Uint8Array(run.rows.length);
  for (let s = 0; s < run.nRows; s++) {
    const c = run.rowCode[s];
    if (seen[c]) continue;
    seen[c] = 1;
    const r = run.rows[c];
    if (r.attacked) yield { model: r.agent_model ?? NO_VALUE, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id };
  }
}

/** The caveats `agree --reference security` gives beside its kappas (`referenceCaveats`), over a column run (new user 25). */
function referenceWarningsColumns(colRun: ColumnRun, judgeIds: readonly string[]): string[] {
  const slotRow = (i: number) => (colRun.vSlot[i] < colRun.nRows ? (colRun.rows[colRun.rowCode[colRun.vSlot[i]]] as TrajectoryIndexRow) : undefined);
  // the used verdicts walked over the columns each time they are read (referenceCaveats reads them twice), the row of
  // the one reached kept beside it: a column record is shared by trajectories, so the row comes from the walk (review
  // 26: the EXPOSURE LOW groups pooled, which read the row's model and condition, were named on objects only). Not two
  // arrays of ~1.9 million references at 1M (issue 26 point 3: they, grown by copying, were report's 60-80 MiB spike)
  let row: TrajectoryIndexRow | undefined;
  const used: Iterable<Verdict> = {
    [Symbol.iterator]: () =>
      eachVerdictRecord(colRun, (i, v) => {
        if (v.repeat !== 0) return false;
        const r = slotRow(i);
        if (benchmarkSecurity(r) === undefined) return false;
        row = r;
        return true;
      }),
  };
  return referenceCaveats(used, rowRecords(colRun), judgeIds, () => row);
}
