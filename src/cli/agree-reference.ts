/**
 * The `--reference` path of `ipi-judge agree` (`./agree.ts` registers the command): each judge's agreement with
 * the benchmark's reference verdict, the committee's beside it, judge health and code-established figures.
 *
 * The run is read as columns (`../store/columns.ts`, a million trajectories in bounded memory), `--where` applied
 * to its row slots (`../store/where-columns.ts`), and the figures come from `referenceAgreementColumns`, a committee
 * file read as columns too (`../committee/file-columns.ts`): the same output as the compact objects of
 * `readRunWhere` (test/agree/reference-columns.test.ts, test/store/where-columns.test.ts).
 */
import { wrapProse, wrapText } from "../format/wrap-text.js";
import { countAttacks, dosAttackWarning } from "../agree/dos-attacks.js";
import { warnLine } from "./warn.js";
import { exitOnBrokenJudges } from "./broken-exit.js";
import { refuseStoppedJudges } from "../verdict/stopped-judges.js";
import { pooledExposureLowWarnings } from "../agree/exposure-groups.js";
import { codeEstablishedByJudge, codeEstablishedWarnings, formatCodeEstablished } from "../verdict/code-established.js";
import { COMMITTEE_RATER, formatReferenceAgreement, formatReferenceTable, type ReferenceAgreement } from "../agree/reference.js";
import { REFERENCE_ROW_FIELDS, referenceAgreementColumns } from "../agree/reference-columns.js";
import type { CommitteeFileCheck } from "../committee/file.js";
import { committeeName } from "../committee/members.js";
import { DEFAULT_QUORUM } from "../verdict/vote.js";
import { refuseOtherThanStored } from "./committee-options.js";
import { checkCommitteeColumns, committeeAsColumnRun, readCommitteeColumns, restrictCommitteeColumns } from "../committee/file-columns.js";
import { readRunState, runStateFor, runStateLine } from "../store/run-state.js";
import { eachVerdictRecord, readColumnRun } from "../store/columns.js";
import { UsageError } from "../errors.js";
import type { Verdict } from "../types.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { printJson, warnWhere, whereOf, withReadProgress } from "./util.js";
import { restrictColumns, whereRowFields } from "../store/where-columns.js";
import { whereLine, type WhereStatement } from "../store/where.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";
import { formatHealth, healthWarnings, judgeHealth } from "../verdict/health.js";
import { inReferenceCheck } from "../verdict/reference-goal.js";
import { rateCaveats } from "../verdict/rate-caveat.js";
import { toolArgumentsWarnings } from "../verdict/tool-arguments-health.js";
import { evidenceUnrelatedWarnings } from "../verdict/evidence-unrelated-health.js";
import { stepLine } from "./read-progress.js";
import { progressOf } from "./progress-mode.js";
import { poolingOf } from "../format/pooled-text.js";
import { SourceFold } from "../agree/pooled-sources.js";
import { IntColumn } from "../store/int-column.js";
import { recordedInputs } from "../sample/recover.js";
import { showControls } from "../format/shown.js";

/** What the `--reference` path reads of a run, from columns or from objects. */
interface ReferenceSource {
  /** judges with verdicts, sorted */
  judges: string[];
  nTrajectories: number;
  agreement(judgeId: string, reference: "security" | "utility"): ReferenceAgreement;
  /** the committee file as read (called only when there is one) */
  checkCommittee(): CommitteeFileCheck;
  committeeAgreement(reference: "security" | "utility"): ReferenceAgreement;
  /**
   * repeat-0 verdicts of the trajectories the figures use ({@link usedRow}: attacked, no agent error, a boolean
   * reference verdict), in order: the code-established figures' input, over the figures' own items (new user 18)
   */
  usedRepeat0(field: "security" | "utility"): Iterable<Verdict>;
  /** every current verdict (judge health's input), in order */
  all(): Iterable<Verdict>;
  /** the index row of the `k`-th verdict of {@link all} (health's fallback for a verdict without `attacked`, and its benchmark verdict) */
  rowOf(v: Verdict, k: number): { attacked?: boolean; attack?: string; run_error?: unknown; reference?: unknown } | undefined;
  /** the trajectory id of the `k`-th verdict of {@link all} (a column record carries none: health names items by it) */
  idOf(v: Verdict, k: number): string | undefined;
  /** attacked trajectories per recorded attack name, and all attacked trajectories (../agree/dos-attacks.ts) */
  attacks(): { byAttack: Map<string, number>; attacked: number };
  /** the rows read (attacked, agent_model, condition at least): what the figures pool (../format/pooled-text.ts) */
  rows(): Iterable<{ attacked?: boolean; agent_model?: string; condition?: string; suite?: string; run_error?: unknown; reference?: unknown }>;
  /** the formats and source folders of the rows the figures use (../agree/pooled-sources.ts) */
  sources: SourceFold;
}


/** What the output shows of a committee file. */
interface CommitteeMeta {
  file: string;
  judges: string[];
  excluded_judges: string[] | null;
  quorum: number | null;
}

/** The run as columns (`--where`: its kept rows, `restrictColumns` of ../store/where-columns.ts). */
async function referenceSource(
  runDir: string,
  o: { where?: string[]; run: string; json?: boolean; progress?: string; progressInterval?: string; reference: "security" | "utility" },
): Promise<{ src: ReferenceSource; cf: CommitteeMeta | null; where: WhereStatement | null }> {
  const sources = new SourceFold(recordedInputs(runDir) ?? []);
  const f = whereOf(o);
  // per row slot: the code of its source key (`SourceFold.keyCode`), -1 for a row the figures do not use; the last row
  // of an id wins, as in the columns. A byte per trajectory while the run has few keys, not a string each (issue 26)
  const slotKey = new IntColumn(-1);
  const { read, readCc } = await withReadProgress(progressOf(o), async (progress) => {
    const onRow = (slot: number, t: TrajectoryIndexRow) => slotKey.set(slot, usedRow(t, o.reference) ? sources.keyCode(t) : -1);
    const read = await readColumnRun(runDir, { rowFields: whereRowFields(REFERENCE_ROW_FIELDS, f), progress, onRow });
    return { read, readCc: await readCommitteeColumns(runDir, read) };
  });
  const kept = f ? restrictColumns(read, f, o.run) : null;
  if (kept) warnWhere(kept.warnings);
  const run = kept ? kept.run : read;
  const cc = kept && readCc ? restrictCommitteeColumns(readCc, kept.slotMap) : readCc;
  const judges = [...new Set(run.verdicts.map((v) => v.judge_id))].sort();
  const rowsOf = function* () {
    for (let slot = 0; slot < run.nRows; slot++) yield run.rows[run.rowCode[slot]] as { attacked?: boolean; attack?: string; agent_model?: string; condition?: string; suite?: string; run_error?: unknown; reference?: unknown };
  };
  const src: ReferenceSource = {
    judges,
    nTrajectories: run.nRows,
    agreement: (j, reference) => referenceAgreementColumns(j, run, reference),
    checkCommittee: () => checkCommitteeColumns(cc!, run),
    committeeAgreement: (reference) => referenceAgreementColumns(COMMITTEE_RATER, committeeAsColumnRun(cc!, run, COMMITTEE_RATER), reference),
    usedRepeat0: (field) => eachVerdictRecord(run, (i, v) => v.repeat === 0 && run.vSlot[i] < run.nRows && usedRow(run.rows[run.rowCode[run.vSlot[i]]], field)),
    all: () => eachVerdictRecord(run),
    rowOf: (_v, k) => (run.vSlot[k] < run.nRows ? run.rows[run.rowCode[run.vSlot[k]]] : undefined),
    idOf: (_v, k) => run.ids.id(run.vSlot[k]),
    attacks: () => countAttacks(rowsOf()),
    rows: rowsOf,
    sources,
  };
  for (let s = 0; s < read.nRows; s++) {
    const k = slotKey.get(s);
    if (k >= 0 && (!kept || kept.slotMap[s] >= 0)) sources.addKey(sources.keyOfCode(k));
  }
  return { src, cf: cc, where: kept ? kept.statement : null };
}

/** Whether a reference comparison can use a row (`referencePairs`' rules): attacked, no agent error, a boolean `reference[field]`. */
function usedRow(r: { attacked?: boolean; run_error?: unknown; reference?: unknown } | undefined, field: "security" | "utility"): boolean {
  if (!r?.attacked || r.run_error) return false;
  return typeof (r.reference as Record<string, unknown> | null | undefined)?.[field] === "boolean";
}

/** The rows a reference comparison can use ({@link usedRow}). */
function* referenceRows<T extends { attacked?: boolean; run_error?: unknown; reference?: unknown }>(rows: Iterable<T>, field: "security" | "utility"): Generator<T> {
  for (const r of rows) if (usedRow(r, field)) yield r;
}

/** `ipi-judge agree --reference FIELD` (options checked by the caller). */
export async function agreeReference(
  runDir: string,
  o: { reference: "security" | "utility"; judge?: string; json?: boolean; run: string; where?: string[]; excludeJudge?: string[]; quorum?: string; progress?: string; progressInterval?: string },
): Promise<void> {
  const { src, cf, where } = await referenceSource(runDir, o);
  const runState0 = readRunState(runDir);
  if (o.json && runState0.complete === false) warnLine(`run incomplete: ${runState0.message}`);
  let judges = src.judges;
  // the judge asked for (or, none named, every judge) stopped before storing a verdict here: exit 3, not "nothing to compare"
  refuseStoppedJudges("agree", runDir, o.run, o.judge ? [o.judge] : null, judges, where ? "among the rows --where selects" : undefined);
  if (o.judge) {
    if (!judges.includes(o.judge)) throw new UsageError(`judge "${o.judge}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
    judges = [o.judge];
  }
  if (judges.length === 0) {
    // No verdict yet (e.g. every item was bad): say so, with the same shape and kappa null with a reason.
    const none = src.agreement("(none)", o.reference);
    const out = { ...none, judge_id: null, kappa_reason: "no_verdicts", ...(where ? { where } : {}), run_state: runState0 };
    const stateLine = [whereLine(where), runStateLine(runState0)].filter(Boolean).join("\n");
    if (o.json) {
      // the run's journal notes (lines skipped, stale verdicts), as the other outputs carry them (verifier 37 V2.2)
      const warnings = takeJournalWarnings();
      for (const w of warnings) warnLine(w);
      printJson({ ...out, warnings });
    } else process.stdout.write(`${stateLine ? stateLine + "\n" : ""}run ${o.run} has no verdicts yet (${src.nTrajectories} trajectories read; see errors.jsonl): nothing to compare\n`);
    return;
  }
  const step = stepLine(`comparing ${judges.length} judge(s) with the reference over ${src.nTrajectories.toLocaleString("en-US")} trajectories`, progressOf(o));
  const results = judges.map((j) => src.agreement(j, o.reference));
  step.done();
  // The committee beside the judges, when the run has a committee file that still describes it.
  let committee: ReferenceAgreement | null = null;
  let committeeReason: string | undefined;
  const committeeNotes: string[] = [];
  if (!cf) committeeReason = "no committee.jsonl (run ipi-judge committee)";
  else {
    refuseOtherThanStored(src.judges, cf, o, "agree --reference"); // the row is read from the file: another selection is refused
    const check = src.checkCommittee();
    if (check.stale.length) committeeReason = `committee.jsonl is stale: ${check.stale.join("; ")}; run ipi-judge committee --run ${o.run} again`;
    else if (cf.judges.length < 2) {
      // One judge is no committee (its quorum cannot be met): no committee row of "undefined" figures beside it.
      committeeReason = `committee.jsonl holds ${cf.judges.length} judge (${cf.judges.join(", ") || "none"}): a committee needs at least two, so it is not reported`;
    } else {
      committee = src.committeeAgreement(o.reference);
      committeeNotes.push(...check.notes);
    }
  }
  // the run's state as the judges compared see it: the mixed-configuration warnings of those judges and of the
  // committee's members when its row is shown, none of a judge --judge leaves out (review s29)
  const runState = runStateFor(runState0, committee && cf ? [...judges, ...cf.judges] : judges);
  const stateLine = [whereLine(where), runStateLine(runState)].filter(Boolean).join("\n");
  // Labels code established (no finding held) agree with a reference for the code's reasons, not the judge's: counted
  // over the trajectories the figures use (new user 18: "1648 of 10880" beside figures over 10,861)
  const code_established = codeEstablishedByJudge(src.usedRepeat0(o.reference), judges);
  // one kappa over every model and defense of the run: said in one line (as label's summary says it)
  // counted over what the figures are computed over (review 16: utility counted every trajectory): attacked, no agent
  // error, a boolean reference verdict of the field compared (referencePairs' rules)
  const pooling = poolingOf(
    referenceRows(src.rows(), o.reference),
    `the figures${where ? " (of the trajectories --where keeps)" : ""}`,
    "--where model=..., --where condition=... or --where suite=... for one",
    false,
    // an upper bound per rater: a judge's figures leave out what it did not label (red team 16 F6: VIGIL 402 vs 87)
    `attacked, with a benchmark ${o.reference} verdict, no agent error; each rater's n below is those of them it labelled`,
  );
  const at = o.reference === "security" ? src.attacks() : null;
  const dos = at ? dosAttackWarning(at.byAttack, at.attacked) : null;
  const unexposed = pooledExposureLowWarnings(src.usedRepeat0(o.reference), judges);
  // runs read from several folders or formats (two benchmarks labelled into one run): one kappa over both checkers
  const mixedSources = src.sources.warning(`the figures${where ? " (of the trajectories --where keeps)" : ""}`, `runs compared, attacked with a benchmark ${o.reference} verdict and no agent error`);
  const rest = [...(mixedSources ? [mixedSources] : []), ...(dos ? [dos] : []), ...unexposed, ...(committeeReason && cf ? [committeeReason] : []), ...committeeNotes, ...codeEstablishedWarnings(code_established, "agreement with the reference"), ...(o.json ? takeJournalWarnings() : [])];
  // issue 12.2: each judge's health beside its agreement; a judge that looks broken is named on stderr
  // with --reference security this output is the check the flags advise: said so, not "check with" itself (nu19)
  const own = (t: string) => (o.reference === "security" ? inReferenceCheck(t) : t);
  const health = judgeHealth(src.all(), { rowOf: src.rowOf, idOf: src.idOf }).map((h) => ({ ...h, flags: h.flags.map((f) => ({ ...f, message: own(f.message) })) }));
  const judge_health = health.filter((h) => judges.includes(h.judge_id));
  for (const w of healthWarnings(judge_health)) warnLine(w);
  // a broken judge's rates are marked in its row (the committee's: its judges'), as every command marks them (new
  // user 18), and said once: on stdout as text, in warnings as JSON (stderr has said it above)
  const caveats = (ids: readonly string[]) => rateCaveats(health, ids).map((c) => ({ ...c, message: own(c.message) }));
  const rate_caveats = caveats(judges);
  for (const r of results) {
    const c = caveats([r.judge_id]);
    if (c.length) r.rate_caveats = c;
  }
  if (committee && cf) {
    const c = caveats(cf.judges);
    if (c.length) committee.rate_caveats = c;
    // named with its members in every output (new user 30: "committee" was 3 judges here, 4 in agree --human)
    committee.members = [...cf.judges];
    committee.quorum = cf.quorum ?? DEFAULT_QUORUM;
  }
  // and the judges' successes on calls whose arguments are not valid JSON (../verdict/tool-arguments-health.ts)
  const warnings = [...rate_caveats.map((c) => c.message), ...toolArgumentsWarnings(health, judges), ...evidenceUnrelatedWarnings(health, judges), ...rest];
  if (o.json) {
    for (const w of rest) warnLine(w);
    const extra = {
      committee,
      ...(committee ? {} : { committee_reason: committeeReason }),
      ...(cf ? { committee_file: { file: cf.file, judges: cf.judges, excluded_judges: cf.excluded_judges } } : {}),
      ...(where ? { where } : {}),
      run_state: runState,
      pooling,
      warnings,
      judge_health,
      ...(rate_caveats.length ? { rate_caveats } : {}),
      code_established,
    };
    if (results.length === 1) printJson({ ...results[0], ...extra });
    else printJson({ ...results[0], per_judge: results, ...extra });
  } else {
    const head: string[] = [];
    if (stateLine) head.push(stateLine);
    for (const w of warnings) head.push(`WARNING: ${showControls(w)}`);
    head.push(pooling.text);
    const named = committee ? { ...committee, judge_id: committeeName({ members: committee.members ?? [], quorum: committee.quorum ?? DEFAULT_QUORUM }) } : null;
    head.push(formatReferenceTable(named ? [...results, named] : results));
    if (!committee && !cf) head.push(`(committee: ${showControls(committeeReason ?? "")})`);
    const blocks = [...results, ...(named ? [named] : [])].map(formatReferenceAgreement);
    // lines broken for a reader (../format/wrap-text.ts); the table's rows whole, a broken judge's mark at a row's end
    // staying on its row (a row is one line, for grep, as estimate --table's)
    process.stdout.write([wrapProse(head.join("\n")), ...blocks.map((b) => wrapText(b))].join("\n\n") + "\n");
    // two bases in one output, each named (new user 23: 414 attacked labels in the health line, 411 in the next)
    const over = where ? "every verdict --where keeps" : "every verdict of the run";
    process.stdout.write(wrapText(judge_health.map((h) => `\nhealth of judge ${showControls(h.judge_id)} (over ${over}, compared or not): ${formatHealth(h)}`).join("")) + "\n");
    process.stdout.write(wrapText(code_established.map((c) => `labels established by code (of the attacked runs compared above): ${formatCodeEstablished(c)}\n`).join("")));
  }
  // a judge of these figures that looks broken: exit 3, as label (the committee row's members too, when it is shown)
  await exitOnBrokenJudges("agree", health, committee && cf ? [...judges, ...cf.judges] : judges, runDir, whereOf(o));
}

