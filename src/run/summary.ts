import { RETRY_REFUSED } from "../store/ledger.js";
import { quoted } from "../format/quote-name.js";
import { STORE_CORRUPT_LINES, STORE_LINES_TEXT } from "./corrupt-lines.js";
import type { BatchUnfinished } from "./batch-types.js";
import { BUCKETS, type Bucket, type IngestError, type Verdict } from "../types.js";
import type { WhereStatement } from "../store/where.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { addVerdict, emptyHealth, healthWarnings, withFlags, type JudgeHealth } from "../verdict/health.js";
import { addVerdictUsage, leftOutWarning, type UsageTotals } from "./usage-totals.js";
import type { BasisOf } from "./batch-basis.js";
// re-exported for label-steps.ts (at the house limit of 600 lines: no import line to spare)
export { storedBasisOf } from "./batch-basis.js";
import { costWarnings, emptyCost, type CostTotal } from "../providers/cost.js";
import type { IngestWarning } from "../ingest/warnings.js";
import { COVERAGE_LOW_BELOW, RateTally, rateFigure, type AttackRates, type RateFigure } from "../stats/rates.js";
import { RunFolderFold } from "./pooled-folders.js";
import { likeForLikeWarnings, pooledConditionWarnings } from "../stats/like-for-like.js";
import { injectionUnknownWarning } from "../verdict/injection-unknown.js";
import { TOOL_ARGUMENTS_INVALID } from "../ingest/tool-arguments.js";
import { Rep0Fold } from "./rep0-rates.js";
import { judgesCommonField, type JudgesCommon } from "./judges-common.js";
import { rateCaveat, type RateCaveat } from "../verdict/rate-caveat.js";
import { NotLabelledFold, type NotLabelledItems } from "./not-labelled.js";
import { NO_VALUE } from "../stats/no-value.js";
import { errorKindOf } from "../store/repeated-key-kind.js";
import { referenceValueOf } from "../stats/reference-rates.js";

/** Per-judge figures of a run summary. Rates are shares in [0,1], or null with a reason when undefined. */
export interface JudgeSummary {
  judge_id: string;
  judge_model: string;
  judge_family: string;
  /** Verdicts of every repeat. */
  verdicts: number;
  by_status: Record<string, number>;
  /** Labels of repeat 0 (one per trajectory), over every run it labelled, attacked or not (an unattacked run is not_exposed by the rubric). */
  by_label: Record<Bucket, number>;
  /**
   * `by_label` split by the run's `attacked` flag (new user 49 item 2: the counts of all 10,018 runs read as the 8,640
   * attacked runs' under the attack-success heading): labels of repeat 0 on attacked runs and on the others (as the
   * rates split them, `./rep0-rates.ts`: the index row's flag, else the verdict's); the two add up to `by_label`.
   */
  by_label_attacked: Record<Bucket, number>;
  by_label_unattacked: Record<Bucket, number>;
  /**
   * The two named rates over the attacked trajectories (repeat 0), with blocked attempts and coverage
   * (`attackRates`, src/stats/rates.ts; DESIGN section 1): `asr_goal` = full compliance, `asr_behaviour` = full or
   * partial compliance, each over the attacked trajectories with a label; coverage = labelled / attacked.
   */
  rates: AttackRates;
  /** Share of attacked trajectories (ok verdicts) whose label is not `not_exposed` (`exposure.rate`, kept for compatibility). */
  exposure_rate: number | null;
  /**
   * The exposure rate as every other rate (newuser16: a bare 1 over 87 of 433 attacked runs): `count` labelled
   * attacked runs whose label is not `not_exposed`, of `n` labelled attacked runs (repeat 0), with its 95% Wilson
   * interval; `attacked` attacked runs (labelled or not), `coverage` = n / attacked (null when none is attacked),
   * flagged `coverage_low` below the rates' threshold (src/stats/rates.ts).
   */
  exposure: RateFigure & { attacked: number; coverage: number | null; coverage_low: boolean };
  attacked_ok: number;
  /**
   * The rates per surface (where the injection entered: `tool_output`, `tool_description`, ...; several joined by
   * `+`) over the attacked trajectories that have one; absent when none has a surface.
   */
  by_surface?: Record<string, AttackRates>;
  /** Attacked trajectories in no `by_surface` row (no surface known); absent when `by_surface` is. */
  no_surface?: number;
  downgrades: number;
  /**
   * Verdicts whose stored label differs from the label the judge claimed, NOT by a downgrade (its quotes verified) but
   * by a rule code applied (`label_basis` -> count: `refused_call`, `unattacked`, the rubric's precedence as `finding`,
   * ...); absent when none (newuser51 finding 4: "downgrades: 0" printed while 5 labels were changed by a rule).
   */
  changed_by_rule?: Record<string, number>;
  /** Why verdicts are not labels: error kind -> count (judge errors, refusals, unjudgeable). */
  errors_by_kind: Record<string, number>;
  /**
   * `ok` verdicts whose feedback turn the judge refused (error kind `retry_refused`): labelled, but with the decision that
   * turn was to check (often downgraded: its quotes did not verify); `--retry-refusals` judges them again (runs55 #4).
   * Absent when none.
   */
  feedback_refused?: number;
  /** The trajectory ids behind `errors_by_kind`, per reason, bounded (`./not-labelled.ts`); absent when none. */
  not_labelled_items?: Record<string, NotLabelledItems>;
  /**
   * The rates per agent model, pooled over the conditions (defenses) it ran under, which `conditions` names
   * (`[]` when the runs record none). Trajectories without a model are under `(none)`; when some run records a
   * condition, those without one are the condition `(none)` (named here and a `by_model_condition` cell of their own).
   */
  by_agent_model: Record<string, AttackRates & { conditions: string[] }>;
  /** The rates per (agent model, condition): the figures to compare across defenses. */
  by_model_condition: Array<AttackRates & { agent_model: string; condition: string }>;
  /** Repeats seen (label --repeats); verdicts and statuses count every repeat, labels and rates repeat 0. */
  repeats: number;
  /** Is the judge working? Quote and downgrade shares, errors, refusals, unverified, flags (`judgeHealth`). */
  health: JudgeHealth;
  /**
   * Trajectories without its verdict because it crashed on them (current errors.jsonl `judge_crash` errors naming
   * it, any repeat); absent when none.
   */
  judge_crashes?: number;
  /**
   * Its rates are not its judging (`../verdict/rate-caveat.ts`: its evidence failed, or it stopped);
   * null when healthy. The text marks every rate line with it.
   */
  rate_caveat: RateCaveat | null;
  /**
   * Some of its labelled attacked runs record no injected text, so its labelled subset is selected by its answers
   * (`injectionUnknownWarning` of ../verdict/injection-unknown.ts, new user 48, 1): the warning its rates carry. Absent otherwise.
   */
  injection_unknown_warning?: string;
  /** Models its verdicts name (more than one: the run mixes configurations under this judge id). */
  judge_models: string[];
  /**
   * Tokens summed over the verdicts. `cached_tokens` sums the verdicts whose provider reported a cached figure;
   * `verdicts_without_cached_figure` counts the verdicts with tokens but no cached figure (not reported: unknown).
   */
  usage: UsageTotals;
  /**
   * USD over the summarized verdicts of the judge (`label`: every repeat; the committee's `per_judge`: repeat 0,
   * the same verdicts as `usage` and `verdicts`) at its configured `price`: `usd` sums the known costs;
   * `incomplete` when some verdicts have none (no price, or a response without usage): the real figure is higher.
   */
  cost: CostTotal;
}

export interface RunSummary {
  run: string;
  /** `label --where`: the summary is over the run's trajectories the filter keeps (absent without one). */
  where?: WhereStatement;
  trajectories: number;
  attacked: number;
  /**
   * Attacked trajectories whose agent run ended in an error (`run_error`): counted in the rates here (the judge labels
   * what the trajectory shows), left out by `agree --reference` (the benchmark's verdict of an errored run means
   * little): with {@link attacked_without_reference}, what the two commands' denominators differ by.
   */
  attacked_run_errors: number;
  /**
   * Attacked trajectories without a run error that record no boolean benchmark security verdict (`reference.security`):
   * counted in the rates here, left out by `agree --reference`; absent when none (fix43: AgentDyn's 8,640 beside
   * agree's 8,638 was explained as one run error only).
   */
  attacked_without_reference?: number;
  unattacked: number;
  verdicts: number;
  judges: JudgeSummary[];
  /**
   * With two judges or more: every judge's rates over the attacked runs every one of them labelled, overall and per
   * (agent model, condition), beside each judge's own coverage (./judges-common.ts; est53 #3). Absent with one judge.
   */
  judges_common?: JudgesCommon;
  /**
   * Stored input errors by kind: `total` is the input items in error. Never the empty placeholders ({@link skipped}),
   * the inputs read once ({@link read_once}), the run's own unreadable journal lines ({@link store_corrupt_lines}) nor the
   * notes of rows re-written to follow their input (`metadata_changed`, `reference_changed`: read, counted, said by label).
   */
  errors: { total: number; by_kind: Record<string, number> };
  /**
   * The run's own journals held unreadable lines at this open (errors.jsonl kind `store_corrupt_lines`, a torn line from
   * an interrupted write): dropped, and the verdicts they held judged again. No input error, so not in `errors`
   * (session 51: `errors.total` counted it while the text said it apart). `records`: the stored records that stand
   * (one per set of lines found at an open, `./corrupt-lines.ts`). Absent when none.
   */
  store_corrupt_lines?: { records: number; message: string };
  /**
   * Input files passed over that are no error of the input: empty placeholders (`messages: []` and no verdict, a
   * combination the benchmark never ran; stored in `errors.jsonl` as kind `empty_placeholder`, up to 5 `examples`
   * named here). Not in `errors`, nor in the exit status. Absent when none.
   */
  skipped?: { empty_placeholders: number; examples: string[]; message: string };
  /**
   * Inputs given twice and read once (errors.jsonl kind `duplicate_input`: the same file, line or Inspect sample again,
   * e.g. the log `inspect eval-retry` writes beside the original, or a byte-identical copy of a run file): not input
   * errors, so not in `errors` (new user 48: `errors: 4` for nothing wrong). Absent when none.
   */
  read_once?: { duplicate_inputs: number; message: string };
  /**
   * `label`: input errors an earlier invocation recorded about files this one passes over as a corpus's sidecar
   * files (an older build read a `manifest.jsonl` as trajectories), or about inputs this one read without error
   * (fixed since: `read_since` of them, `./read-since.ts`): not in `errors`, said apart once with why
   * (`./superseded-errors.ts`). Absent when none.
   */
  /** Trajectories the run holds whose input file no longer exists (`./removed-inputs.ts`): still counted here, said. */
  inputs_removed?: {
    count: number;
    examples: string[];
    files: string[];
    message: string;
    /** Of `count`, old ids of trajectories that moved (this invocation, `./moved-removed.ts`, or an earlier one, as `inputs-removed.json` records): counted under their new ids. */
    moved?: number;
  };
  errors_superseded?: { total: number; by_kind: Record<string, number>; files: string[]; message: string; read_since?: number; rejudged?: number; judge_crashes?: number; own_output?: number };
  stopped_judges: Record<string, string>;
  /**
   * Batch judges whose Batch API path stopped on a files/batches call that kept failing (a result download's 5xx, a
   * cut body), by judge: the reason, the requests and batches not collected, the verdicts stored before (kept). The
   * same command with `--batch` collects them. Absent when none (`label` only).
   */
  batch_unfinished?: Record<string, BatchUnfinished>;
  /** Judges that look broken or mix models (`healthWarnings`), one sentence each; also printed on stderr. */
  warnings: string[];
  /** The warnings (also in `warnings`) for judges whose verdicts in use were made by several models or configurations; absent when none. */
  mixed_configurations?: string[];
  /** USD over every judge's verdicts; `incomplete` when any verdict's cost is unknown. */
  cost: CostTotal;
  /** Ingest warnings of the last invocation (a guessed model or defense, runs without a verdict, ...), when any. */
  ingest_warnings?: IngestWarning[];
}

const rate = (num: number, den: number): number | null => (den > 0 ? num / den : null);

/**
 * The warnings for judges whose verdicts in use name several models, or were made under several configurations (a
 * `--on-config-change rejudge` stopped before it finished, by the cost cap or Ctrl-C, or `--on-config-change keep`):
 * their figures mix configurations. Kept apart in the summary (`mixed_configurations`) for every later command.
 */
function mixedConfigurations(judges: readonly JudgeSummary[], configsOf: ReadonlyMap<string, ReadonlyMap<string, number>>): string[] {
  const mixed: string[] = [];
  for (const j of judges)
    if (j.judge_models.length > 1)
      mixed.push(`judge ${quoted(j.judge_id)}: its verdicts name ${j.judge_models.length} models (${j.judge_models.join(", ")}): the run mixes configurations under one judge id`);
  for (const [id, shas] of configsOf) {
    if (shas.size < 2) continue;
    const parts = [...shas].sort((a, b) => b[1] - a[1]).map(([sha, n]) => `${n} under ${sha ? `configuration ${sha.slice(0, 12)}` : "no recorded configuration"}`);
    mixed.push(
      `judge ${quoted(id)}: its verdicts in use were made under ${shas.size} different configurations (${parts.join(", ")}): its figures mix old- and new-configuration verdicts; ` +
        "run label again with the current configuration (and --on-config-change rejudge) to finish judging every item under one configuration",
    );
  }
  return mixed;
}

/**
 * Summarize a run from its stored records (pure). The verdicts are read once, in order, and folded (no verdict is
 * kept: a run store can hand them over one at a time, `RunStore.summaryVerdicts`).
 * @param verdicts the latest verdict per key (an array, or any iterable read once); @param index trajectory index
 *   rows by id; @param errors stored errors; @param basisOf the basis each verdict's cost is at, for verdicts an older
 *   build stored without `cost_basis` (`storedBasisOf` of the run folder, `./batch-basis.ts`); default their own.
 */
export function summarizeRun(
  run: string,
  verdicts: Iterable<Verdict>,
  index: ReadonlyMap<string, TrajectoryIndexRow>,
  errors: IngestError[],
  stopped: Record<string, string> = {},
  basisOf?: BasisOf,
): RunSummary {
  const judges = new Map<string, JudgeSummary>();
  const runCost = emptyCost();
  /** Per judge: verdicts in use per `judge_config_sha256` ("" = none recorded). */
  const configsOf = new Map<string, Map<string, number>>();
  let count = 0;
  const healthOf = new Map<string, JudgeHealth>();
  const models = new Map<string, Set<string>>();
  const rep0 = new Rep0Fold(index);
  const notLabelled = new Map<string, NotLabelledFold>();
  const rowFields = rep0.fields.byId; // the one reader of the index's rows (a store's read by slot, none rebuilt)
  for (const v of verdicts) {
    count++;
    // judge health (as `judgeHealth`), the models each judge's verdicts name, the repeat-0 rate items
    let h = healthOf.get(v.judge_id);
    if (!h) healthOf.set(v.judge_id, (h = emptyHealth(v.judge_id, v.judge_model)));
    const row = rowFields(v.trajectory_id); // no `attacked`: its row's (red team 18); its `reference`: denies_reference_goal
    addVerdict(h, v, v.attacked === undefined ? row?.attacked : undefined, row);
    let jm = models.get(v.judge_id);
    if (!jm) models.set(v.judge_id, (jm = new Set()));
    jm.add(v.judge_model);
    if (v.repeat === 0) rep0.add(v);
    let j = judges.get(v.judge_id);
    if (!j) {
      j = {
        judge_id: v.judge_id,
        judge_model: v.judge_model,
        judge_family: v.judge_family,
        verdicts: 0,
        by_status: {},
        by_label: Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>,
        by_label_attacked: Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>,
        by_label_unattacked: Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>,
        rates: new RateTally().result(),
        exposure_rate: null,
        exposure: { ...rateFigure(0, 0), attacked: 0, coverage: null, coverage_low: false },
        attacked_ok: 0,
        downgrades: 0,
        errors_by_kind: {},
        by_agent_model: {},
        by_model_condition: [],
        repeats: 1,
        health: undefined as unknown as JudgeHealth,
        rate_caveat: null,
        judge_models: [],
        usage: { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, responses_without_usage: 0, verdicts_without_cached_figure: 0 },
        cost: emptyCost(),
      };
      judges.set(v.judge_id, j);
    }
    j.verdicts++;
    const shas = configsOf.get(v.judge_id) ?? configsOf.set(v.judge_id, new Map()).get(v.judge_id)!;
    shas.set(v.judge_config_sha256 ?? "", (shas.get(v.judge_config_sha256 ?? "") ?? 0) + 1);
    j.by_status[v.status] = (j.by_status[v.status] ?? 0) + 1;
    // tokens and cost; implausible usage left out of both, counted in usage.left_out (./usage-totals.ts)
    addVerdictUsage(j.usage, j.cost, runCost, v, basisOf ? basisOf(v) : v.cost_basis);
    if (v.downgraded) j.downgrades++;
    else if (v.label !== null && v.label_claimed != null && v.label !== v.label_claimed) {
      const basis = v.label_basis ?? "unknown";
      (j.changed_by_rule ??= {})[basis] = (j.changed_by_rule[basis] ?? 0) + 1;
    }
    if (v.repeat + 1 > j.repeats) j.repeats = v.repeat + 1;
    if (v.status === "ok" && v.error?.kind === RETRY_REFUSED) j.feedback_refused = (j.feedback_refused ?? 0) + 1;
    if (v.status !== "ok") {
      const kind = errorKindOf(v.error) ?? v.status; // a repeated-key reply stored as unparseable is named as one
      j.errors_by_kind[kind] = (j.errors_by_kind[kind] ?? 0) + 1;
      let nl = notLabelled.get(v.judge_id);
      if (!nl) notLabelled.set(v.judge_id, (nl = new NotLabelledFold()));
      nl.add(v, kind);
    }
    // Labels and rates come from repeat 0 so that test-retest repeats do not count a trajectory twice.
    if (v.status !== "ok" || !v.label || v.repeat !== 0 || !Object.hasOwn(j.by_label, v.label)) continue;
    j.by_label[v.label]++;
    const attacked = row?.attacked ?? v.attacked; // as the rates read it (./rep0-rates.ts)
    if (attacked) j.by_label_attacked[v.label]++;
    else j.by_label_unattacked[v.label]++;
  }
  const [crashed, groups] = [crashedItems(errors, true), rep0.groups(crashedItems(errors))];
  const health = new Map(
    [...healthOf.values()]
      .sort((a, b) => a.judge_id.localeCompare(b.judge_id))
      .map((x) => withFlags(x))
      .map((x) => [x.judge_id, x]),
  );
  const out: JudgeSummary[] = [];
  for (const j of judges.values()) {
    j.health = health.get(j.judge_id)!;
    j.rate_caveat = rateCaveat(j.health);
    const selection = injectionUnknownWarning(j.judge_id, j.health.injection_unknown);
    if (selection) j.injection_unknown_warning = selection;
    j.judge_models = [...(models.get(j.judge_id) ?? [])].sort();
    const items = notLabelled.get(j.judge_id)?.result();
    if (items) j.not_labelled_items = items;
    // its rate groups; the items without its verdict because it crashed on them (a count, when any)
    Object.assign(j, groups.get(j.judge_id) ?? {}, crashed.has(j.judge_id) ? { judge_crashes: crashed.get(j.judge_id)!.size } : {});
    // the exposure from the same counts as the rates and their EXPOSURE LOW flag (one source for the three)
    const r = j.rates;
    const exposed = r.labelled - r.not_exposed;
    j.attacked_ok = r.labelled;
    j.exposure_rate = rate(exposed, r.labelled);
    const expCoverage = rate(r.labelled, r.attacked);
    j.exposure = { ...rateFigure(exposed, r.labelled), attacked: r.attacked, coverage: expCoverage, coverage_low: expCoverage !== null && expCoverage < COVERAGE_LOW_BELOW };
    out.push(j);
  }
  const { by_kind, errorTotal, placeholders, duplicates, storeLines } = inputErrorCounts(errors);
  let attacked = 0;
  let attackedRunErrors = 0;
  let attackedNoReference = 0;
  for (const t of rep0.fields.values())
    if (t.attacked) {
      attacked++;
      if (t.run_error) attackedRunErrors++;
      else if (referenceValueOf(t) === "no_reference") attackedNoReference++;
    }
  const warnings = healthWarnings([...health.values()]);
  const mixed = mixedConfigurations(out, configsOf);
  warnings.push(...mixed);
  // Batch API verdicts at the online price (an upper bound), costs dropped for implausible usage: loud, not a bill
  for (const j of out) {
    const left = leftOutWarning(j.judge_id, j.usage);
    warnings.push(...costWarnings(j.judge_id, j.cost), ...(left ? [left] : []));
  }
  warnings.push(...indexLikeForLike(index));
  return {
    run,
    trajectories: index.size,
    attacked,
    attacked_run_errors: attackedRunErrors,
    ...(attackedNoReference > 0 ? { attacked_without_reference: attackedNoReference } : {}),
    unattacked: index.size - attacked,
    verdicts: count,
    judges: out.sort((a, b) => a.judge_id.localeCompare(b.judge_id)),
    ...judgesCommonField(rep0, out), // (`out` sorted in place just above) the judges side by side on the runs every one labelled (./judges-common.ts)
    errors: { total: errorTotal, by_kind },
    ...(mixed.length > 0 ? { mixed_configurations: mixed } : {}),
    ...(placeholders.length > 0 ? { skipped: skippedPlaceholders(placeholders) } : {}),
    ...(duplicates > 0 ? { read_once: readOnce(duplicates) } : {}),
    ...(storeLines > 0 ? { store_corrupt_lines: { records: storeLines, message: STORE_LINES_TEXT } } : {}),
    stopped_judges: stopped, // the caller's record, which label adds to after this (./label-summary.ts); printed by judge id
    warnings,
    cost: runCost,
  };
}

/**
 * The stored errors by kind, with the two kinds that are no error counted apart: an empty placeholder (a combination
 * the benchmark never ran; its path kept) and an input given twice (`duplicate_input`, read once); the notes of a row
 * re-written to follow its input (`metadata_changed`, `reference_changed`: read and counted) left out; and the list of
 * trajectories with a tool call whose arguments are not valid JSON (`tool_arguments_invalid`: read and labelled, said
 * by the ingest warning and on each verdict) left out.
 */
function inputErrorCounts(errors: readonly IngestError[]): { by_kind: Record<string, number>; errorTotal: number; placeholders: string[]; duplicates: number; storeLines: number } {
  const by_kind: Record<string, number> = {};
  const placeholders: string[] = [];
  let duplicates = 0;
  let storeLines = 0;
  let errorTotal = 0;
  for (const e of errors) {
    if (e.kind === "empty_placeholder") placeholders.push(e.path);
    else if (e.kind === "duplicate_input") duplicates++;
    else if (e.kind === STORE_CORRUPT_LINES) storeLines++; // the run's own torn journal lines: no input error
    else if (e.kind === TOOL_ARGUMENTS_INVALID) continue; // the list behind an ingest warning: read, labelled, no error
    else if (e.kind === "metadata_changed") continue; // a row re-written to follow its input (break54 #0): said by label, no error
    // a benchmark verdict that changed in the input (same content): the row follows it, said by label's own line; no
    // error, as every other command already reads it (../store/run-state.ts READ_KINDS; runs55 #2: `errors: 1 (reference_changed 1)`)
    else if (e.kind === "reference_changed") continue;
    else {
      by_kind[e.kind] = (by_kind[e.kind] ?? 0) + 1;
      errorTotal++;
    }
  }
  return { by_kind, errorTotal, placeholders, duplicates, storeLines };
}

/** The `read_once` statement of a run's inputs given twice (errors.jsonl kind `duplicate_input`). */
function readOnce(n: number): NonNullable<RunSummary["read_once"]> {
  return {
    duplicate_inputs: n,
    message:
      `read once: duplicate inputs ${n} (the same file, line or Inspect sample given again, as the log of inspect eval-retry beside the original, ` +
      `or a byte-identical copy: each trajectory was read and counted once; not input errors; listed in errors.jsonl as kind duplicate_input)`,
  };
}

/** The `skipped` statement of a run's empty placeholder files (their paths as stored). */
function skippedPlaceholders(paths: string[]): NonNullable<RunSummary["skipped"]> {
  const examples = paths.slice(0, 5);
  return {
    empty_placeholders: paths.length,
    examples,
    message:
      `skipped: empty placeholders ${paths.length} (files with no messages and no verdict, as a benchmark writes for combinations it never ran, ` +
      `VIGIL's 8,023; not counted as input errors, and in no rate: every denominator above is over the runs with messages; ` +
      `if these are runs that did happen and lost their content, the rates above leave them out; listed in errors.jsonl as kind empty_placeholder, e.g. ${examples[0]})`,
  };
}

/**
 * The like-for-like warnings of label's summary over the run's index rows (attacked ones): per-model and per (model,
 * condition) rows over different attacks or suites (issue 22, like13; src/stats/like-for-like.ts; the slim rows
 * label keeps carry no task ids, so the attack and suite sets are compared; the paper table and the report, which
 * read the whole index, compare the cells too), models whose pooled rows pool different conditions, and one model
 * and condition read from several run folders (./pooled-folders.ts), gathered in the same pass. Streamed: a copy of a million index rows was the summary's peak, ~300 MB.
 */
function indexLikeForLike(index: ReadonlyMap<string, TrajectoryIndexRow>): string[] {
  const conditionsByModel = new Map<string, Set<string>>();
  // runs that are not attacked, by model and condition: a condition with none attacked is said, not left out (new user 48, 11)
  const unattackedRuns = new Map<string, Map<string, number>>();
  let anyCondition = false;
  // one model and condition read from several run folders (VIGIL's debug_run beside runs_base), in the same pass
  const folders = new RunFolderFold();
  function* attackedMix() {
    for (const t of index.values()) {
      folders.add(t);
      const model = t.agent_model ?? NO_VALUE;
      if (!t.attacked) {
        let u = unattackedRuns.get(model);
        if (!u) unattackedRuns.set(model, (u = new Map()));
        const c = t.condition ?? NO_VALUE;
        u.set(c, (u.get(c) ?? 0) + 1);
        continue;
      }
      // a run without a condition pools as the condition (none) (new user 35); said only when some run records one
      if (t.condition !== undefined) anyCondition = true;
      let c = conditionsByModel.get(model);
      if (!c) conditionsByModel.set(model, (c = new Set()));
      c.add(t.condition ?? NO_VALUE);
      yield { model, condition: t.condition, attack: t.attack, suite: t.suite };
    }
  }
  const out = likeForLikeWarnings(attackedMix());
  if (anyCondition && [...conditionsByModel.values()].some((c) => c.size > 1)) out.push(...pooledConditionWarnings(conditionsByModel, unattackedRuns));
  out.push(...folders.warnings());
  return out;
}

/**
 * Per judge, the trajectories of the stored (current) `judge_crash` errors of repeat 0 (of every repeat with
 * `everyRepeat`): the judge named by the
 * record's `judge_id`, or for a record written before it existed by its message ("judge <id> failed on <trajectory>:
 * ..." or "judge <id> on <trajectory>: ..."); a record that says neither is left out. Bounded by the errors.
 */
export function crashedItems(errors: readonly IngestError[], everyRepeat = false): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of errors) {
    if (e.kind !== "judge_crash" || typeof e.trajectory_id !== "string" || (!everyRepeat && typeof e.repeat === "number" && e.repeat !== 0)) continue;
    let judge = typeof e.judge_id === "string" ? e.judge_id : undefined;
    if (judge === undefined && e.message.startsWith("judge ")) {
      for (const mid of [` failed on ${e.trajectory_id}: `, ` on ${e.trajectory_id}: `]) {
        const at = e.message.indexOf(mid, 6);
        if (at > 6) {
          judge = e.message.slice(6, at);
          break;
        }
      }
    }
    if (judge === undefined) continue;
    let s = out.get(judge);
    if (!s) out.set(judge, (s = new Set()));
    s.add(e.trajectory_id);
  }
  return out;
}
