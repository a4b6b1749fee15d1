/**
 * The `--human FILE` path of `ipi-judge agree` (`./agree.ts` registers the command): every judge and the committee
 * against the human consensus, with code-established figures and judge health.
 *
 * The run is read as columns (`../store/columns.ts`), `--where` applied to its row slots (`../store/where-columns.ts`),
 * and `humanAgreement` is given only the verdicts of the labelled trajectories (`../agree/human-columns.ts`), the
 * committee file read as columns too (a million trajectories in bounded memory: issue 26): the same output as the
 * compact objects of `readRunWhere` (test/agree/human-columns.test.ts, test/store/where-columns.test.ts, the CLI
 * outputs compared at 11,384 and 100k in README-bench.md).
 */
import { drawnItems, drawnWarning } from "../agree/drawn-items.js";
import { wrapText } from "../format/wrap-text.js";
import { codeEstablishedByJudge, codeEstablishedWarnings, formatCodeEstablished } from "../verdict/code-established.js";
import { warnLine } from "./warn.js";
import { exitOnBrokenJudges } from "./broken-exit.js";
import { refuseStoppedJudges } from "../verdict/stopped-judges.js";
import { judgeHealth, type JudgeHealth } from "../verdict/health.js";
import { progressOf } from "./progress-mode.js";
import { stepLine } from "./read-progress.js";
import { readRunState, runStateFor, runStateLine } from "../store/run-state.js";
import { formatHumanAgreement, humanAgreement, readHumanLabels, HumanLabelsError } from "../agree/human.js";
import { labelledIds, type HumanLabelFile } from "../agree/human-file.js";
import { humanVerdicts, populationRows } from "../agree/human-columns.js";
import { REFERENCE_ROW_FIELDS } from "../agree/reference-columns.js";
import type { HumanScale } from "../rubric/scale.js";
import { UsageError } from "../errors.js";
import { intOption, printJson, warnWhere, whereOf, withReadProgress } from "./util.js";
import { restrictColumns } from "../store/where-columns.js";
import { committeeAsk } from "./committee-options.js";
import { checkCommitteeColumns, readCommitteeColumns, restrictCommitteeColumns } from "../committee/file-columns.js";
import { CommitteeChoiceError, committeeMembers, storedCommittee, type StoredCommittee } from "../committee/members.js";
import { WHERE_FIELDS, whereLine, type WhereStatement } from "../store/where.js";
import { showControls } from "../format/shown.js";
import { missingAdjudicationsWarning } from "../agree/sample-adjudications.js";
import { labelDesignDriftWarning } from "../agree/label-design-drift.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";
import { eachVerdictRecord, letGoContentCodes, readColumnRun } from "../store/columns.js";
import { ColumnIndex } from "../store/column-index.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { Verdict } from "../types.js";

/** The row fields the column path keeps: health's and the sample frame's (`sample_where` names a --where field). */
const HUMAN_ROW_FIELDS: readonly string[] = [...new Set([...REFERENCE_ROW_FIELDS, ...Object.values(WHERE_FIELDS)])];

/** What the `--human` path reads of a run, from columns or from objects. */
interface HumanSource {
  /** judges with verdicts, sorted */
  judges: string[];
  /** what `humanAgreement` reads (the column path: the labelled trajectories' verdicts and one of every other judge) */
  verdicts: readonly Verdict[];
  index: ReadonlyMap<string, TrajectoryIndexRow>;
  /** every row of the run (the sample frame), not the --where subset */
  population: readonly TrajectoryIndexRow[];
  contentOf?: (id: string) => string | null;
  /** the stored committee and whether it is stale, null without a committee file */
  committee(): StoredCommittee | null;
  health(): JudgeHealth[];
  where: WhereStatement | null;
}

/**
 * The run as columns (`--where`: its kept rows, `restrictColumns` of ../store/where-columns.ts, the sample frame and
 * the labels' content hashes still the whole run's, as `readRunWhere`'s `fullIndex`).
 */
async function humanSource(runDir: string, file: HumanLabelFile, o: { where?: string[]; run: string; progress?: string; progressInterval?: string }): Promise<HumanSource> {
  const labelled = labelledIds(file);
  const f = whereOf(o);
  const content = new Map<string, string>(); // the labelled trajectories' content hashes, the last row's
  const onRow = (_slot: number, row: TrajectoryIndexRow) => void (labelled.has(row.id) && content.set(row.id, row.content_sha256));
  const { read, readCc } = await withReadProgress(progressOf(o), async (progress) => {
    const read = await readColumnRun(runDir, { rowFields: HUMAN_ROW_FIELDS, progress, onRow });
    return { read, readCc: await readCommitteeColumns(runDir, read) };
  });
  const full = new ColumnIndex(read);
  // the whole read is kept beside the kept rows (the sample frame): their ids a view on its id table, not a second
  // table (~100 MB at 1M, as report --where --human); no figure here reads content codes (test-retest is not made)
  const kept = f ? restrictColumns(read, f, o.run, { view: true }) : null;
  letGoContentCodes(read, "agree --human, which makes no test-retest");
  if (kept) letGoContentCodes(kept.run, "agree --human, which makes no test-retest");
  if (kept) warnWhere(kept.warnings);
  const run = kept ? kept.run : read;
  const cc = kept && readCc ? restrictCommitteeColumns(readCc, kept.slotMap) : readCc;
  const index = kept ? new ColumnIndex(run) : full;
  return {
    judges: [...new Set(run.verdicts.map((v) => v.judge_id))].sort(),
    verdicts: humanVerdicts(run, file.rows),
    index,
    // the rows of a column run are shared projections without their id: the frame check needs it (made as read)
    population: populationRows(full),
    contentOf: (id) => (full.has(id) ? (content.get(id) ?? null) : null),
    committee: () => (cc ? storedCommittee(cc, checkCommitteeColumns(cc, run).stale) : null),
    health: () =>
      judgeHealth(eachVerdictRecord(run), {
        rowOf: (_v, k) => (run.vSlot[k] < run.nRows ? run.rows[run.rowCode[run.vSlot[k]]] : undefined),
        idOf: (_v, k) => run.ids.id(run.vSlot[k]),
      }),
    where: kept ? kept.statement : null,
  };
}

/** The `--human FILE` path of `ipi-judge agree`. */
export async function agreeHuman(
  runDir: string,
  o: { human: string; scale?: string; bootstrap: string; seed: string; quorum?: string; excludeJudge?: string[]; judge?: string; json?: boolean; run: string; where?: string[]; progress?: string; progressInterval?: string },
): Promise<void> {
  if (o.scale !== undefined && !["six", "three", "binary"].includes(o.scale)) throw new UsageError(`--scale must be six, three or binary, not "${o.scale}"`);
  const B = intOption(o.bootstrap, "--bootstrap", 0);
  const seed = intOption(o.seed, "--seed", 0);
  let file;
  try {
    file = readHumanLabels(o.human);
  } catch (e) {
    if (e instanceof HumanLabelsError) throw new UsageError(e.message);
    throw e;
  }
  const src = await humanSource(runDir, file, o);
  const { judges, verdicts, index, where } = src;
  // the judge asked for (or, none named, every judge) stopped before storing a verdict here: exit 3 (../verdict/stopped-judges.ts)
  refuseStoppedJudges("agree", runDir, o.run, o.judge ? [o.judge] : null, judges, where ? "among the rows --where selects" : undefined);
  if (o.judge && !judges.includes(o.judge)) throw new UsageError(`judge "${o.judge}" has no verdicts in run ${o.run} (judges: ${judges.join(", ")})`);
  // the committee row: the stored committee's members unless the options say otherwise (../committee/members.ts)
  let members;
  try {
    members = committeeMembers(judges, src.committee(), committeeAsk(o), o.run);
  } catch (e) {
    if (e instanceof CommitteeChoiceError) throw new UsageError(e.message);
    throw e;
  }
  const quorum = members.quorum;
  let compared = new Set<string>();
  const step = stepLine(`comparing the judges with ${file.rows.length.toLocaleString("en-US")} human label rows`, progressOf(o));
  const report = humanAgreement(file, verdicts, index, {
    file: o.human,
    // the sample was drawn from the whole run: its frame is checked against every row, not the --where subset
    population: src.population,
    ...(src.contentOf ? { contentOf: src.contentOf } : {}),
    scale: o.scale as HumanScale | undefined,
    bootstrap: { B, seed },
    quorum,
    judges: o.judge ? [o.judge] : undefined,
    committee: members.members,
    onCompared: (ids) => (compared = new Set(ids)),
  });
  step.done();
  report.warnings.unshift(...members.warnings);
  // the run's state as the raters compared see it: the committee row is its members'; without it, --judge's only (review s29)
  const hasCommittee = report.judges.some((j) => j.kind === "committee");
  const runState = runStateFor(readRunState(runDir), !o.judge ? judges : hasCommittee ? [...new Set([o.judge, ...members.members])] : [o.judge]);
  const stateLine = [whereLine(where), runStateLine(runState)].filter(Boolean).join("\n");
  // Counted over the trajectories compared with the judges, the figures' own (new user 18: "12 of 53" beside 42 compared)
  const code_established = codeEstablishedByJudge(
    verdicts.filter((v) => v.repeat === 0 && compared.has(v.trajectory_id) && index.get(v.trajectory_id)?.attacked),
    o.judge ? [o.judge] : judges,
  );
  const codeWarnings = codeEstablishedWarnings(code_established, "agreement with the human labels");
  report.warnings.push(...codeWarnings);
  // the sample folder's adjudications the label file lacks (new-user report 38 F1)
  // and rows carrying another design than the manifest they name (session 41)
  const drawn = drawnItems(o.human); // drawn items without a label (break 51 #7)
  if (drawn) report.drawn = drawn;
  const fileNotes = [missingAdjudicationsWarning(o.human), labelDesignDriftWarning(o.human), drawnWarning(o.human, drawn)].filter((w): w is string => w !== undefined);
  report.warnings.unshift(...fileNotes);
  if (o.json) {
    // the run's journal notes (stale verdicts, skipped lines) join `warnings`, said on stderr here, not at exit
    const journal = takeJournalWarnings();
    report.warnings.push(...journal);
    for (const w of fileNotes) warnLine(w);
    if (runState.complete === false) warnLine(`run incomplete: ${runState.message}`);
    for (const w of [...members.warnings, ...codeWarnings, ...journal]) warnLine(w);
    printJson({ ...report, bad_rows: file.bad_rows, ...(where ? { where } : {}), run_state: runState, code_established });
  } else {
    process.stdout.write(wrapText((stateLine ? stateLine + "\n" : "") + formatHumanAgreement(report)) + "\n"); // lines broken for a reader (../format/wrap-text.ts)
    process.stdout.write(code_established.map((x) => `${wrapText(`labels established by code: ${formatCodeEstablished(x)}`)}\n`).join(""));
    if (file.bad_rows.length) {
      process.stdout.write(`\nrows that could not be read (${file.bad_rows.length}):\n`);
      for (const b of file.bad_rows.slice(0, 20)) process.stdout.write(`${wrapText(`  line ${b.line}: ${showControls(b.message)}`)}\n`);
    }
  }
  // a judge of the raters compared (the committee row: its members) that looks broken: exit 3, as label; its health
  // over the verdicts compared (after --where), as every command computes it
  const used = [...(o.judge ? [o.judge] : judges), ...(hasCommittee ? members.members : [])];
  await exitOnBrokenJudges("agree", src.health(), used, runDir, whereOf(o));
}
