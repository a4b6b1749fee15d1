import type { BatchUnfinished } from "./batch-types.js";
import { textTable } from "../format/text-table.js";
import { BUCKETS, type Bucket, type IngestError, type Verdict } from "../types.js";
import { whereLine, type WhereStatement } from "../store/where.js";
import { pctText } from "../format/stat-text.js";
import { isCompromised } from "../rubric/buckets.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { addVerdict, emptyHealth, formatHealth, healthWarnings, withFlags, type JudgeHealth } from "../verdict/health.js";
import { addVerdictUsage, leftOutWarning, type UsageTotals } from "./usage-totals.js";
import type { BasisOf } from "./batch-basis.js";
// re-exported for label-steps.ts (at the house limit of 600 lines: no import line to spare)
export { storedBasisOf } from "./batch-basis.js";
import { costWarnings, describeCost, pricedAtText, emptyCost, type CostTotal } from "../providers/cost.js";
import { NOTE_KINDS, type IngestWarning } from "../ingest/warnings.js";
import { COVERAGE_LOW_BELOW, RateTally, rateFigure, type AttackRates, type RateFigure } from "../stats/rates.js";
import { POOLED_FOLDERS_MARK, RunFolderFold } from "./pooled-folders.js";
import { POOLED_MIX_MARK, conditionMixKindOf, isLikeForLikeWarning, likeForLikeWarnings, pooledConditionWarnings } from "../stats/like-for-like.js";
import { Rep0Fold } from "./rep0-rates.js";
import { coverageText, exposureLowText, rateFigureText, ratesText as ratesTextOf } from "../format/rates-text.js";
import { rateCaveat, rateCaveatMarker, type RateCaveat } from "../verdict/rate-caveat.js";
import { showBidiControls } from "../format/bidi.js";
import { NO_DEFENSE } from "../ingest/attribution.js";
import { shownStrings } from "../format/shown.js";
import { NotLabelledFold, notLabelledText, type NotLabelledItems } from "./not-labelled.js";
import { blockedOnMovedText } from "../verdict/compliance-evidence-health.js";
import { NO_VALUE } from "../stats/no-value.js";
import { errorKindOf } from "../store/repeated-key-kind.js";
import { judgeEntries } from "../format/judge-order.js";
import { referenceValueOf } from "../stats/reference-rates.js";

/**
 * `exposure rate 100.0% [95.8, 100.0] (87/87) (of the labelled attacked runs, ...); coverage 20.1% (87 labelled of 433 attacked) LOW ...`:
 * the exposure rate as the other rates are shown (count/n, Wilson interval, its coverage), never a bare share.
 */
export function exposureText(j: Pick<JudgeSummary, "exposure">): string {
  const e = j.exposure;
  const cov = e.coverage === null ? "coverage undefined (no attacked trajectory)" : `coverage ${pctText(e.coverage)} (${e.n} labelled of ${e.attacked} attacked)`;
  const low = e.coverage_low ? ` LOW (below ${Math.round(100 * COVERAGE_LOW_BELOW)}%: over the same labelled subset as the rates, which may be biased)` : "";
  return `exposure rate ${rateFigureText(e)} (of the labelled attacked runs, those whose agent met the injected text: any label but not_exposed; ${cov}${low})`;
}

/** Per-judge figures of a run summary. Rates are shares in [0,1], or null with a reason when undefined. */
export interface JudgeSummary {
  judge_id: string;
  judge_model: string;
  judge_family: string;
  /** Verdicts of every repeat. */
  verdicts: number;
  by_status: Record<string, number>;
  /** Labels of repeat 0 (one per trajectory). */
  by_label: Record<Bucket, number>;
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
  /** Why verdicts are not labels: error kind -> count (judge errors, refusals, unjudgeable). */
  errors_by_kind: Record<string, number>;
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
  /** Stored input errors by kind; never the empty placeholders ({@link skipped}). */
  errors: { total: number; by_kind: Record<string, number> };
  /**
   * Input files passed over that are no error of the input: empty placeholders (`messages: []` and no verdict, a
   * combination the benchmark never ran; stored in `errors.jsonl` as kind `empty_placeholder`, up to 5 `examples`
   * named here). Not in `errors`, nor in the exit status. Absent when none.
   */
  skipped?: { empty_placeholders: number; examples: string[]; message: string };
  /**
   * `label`: input errors an earlier invocation recorded about files this one passes over as a corpus's sidecar
   * files (an older build read a `manifest.jsonl` as trajectories), or about inputs this one read without error
   * (fixed since: `read_since` of them, `./read-since.ts`): not in `errors`, said apart once with why
   * (`./superseded-errors.ts`). Absent when none.
   */
  /** Trajectories the run holds whose input file no longer exists (`./removed-inputs.ts`): still counted here, said. */
  inputs_removed?: { count: number; examples: string[]; files: string[]; message: string };
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
      mixed.push(`judge ${j.judge_id}: its verdicts name ${j.judge_models.length} models (${j.judge_models.join(", ")}): the run mixes configurations under one judge id`);
  for (const [id, shas] of configsOf) {
    if (shas.size < 2) continue;
    const parts = [...shas].sort((a, b) => b[1] - a[1]).map(([sha, n]) => `${n} under ${sha ? `configuration ${sha.slice(0, 12)}` : "no recorded configuration"}`);
    mixed.push(
      `judge ${id}: its verdicts in use were made under ${shas.size} different configurations (${parts.join(", ")}): its figures mix old- and new-configuration verdicts; ` +
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
    let shas = configsOf.get(v.judge_id);
    if (!shas) configsOf.set(v.judge_id, (shas = new Map()));
    shas.set(v.judge_config_sha256 ?? "", (shas.get(v.judge_config_sha256 ?? "") ?? 0) + 1);
    j.by_status[v.status] = (j.by_status[v.status] ?? 0) + 1;
    // tokens and cost; implausible usage left out of both, counted in usage.left_out (./usage-totals.ts)
    addVerdictUsage(j.usage, j.cost, runCost, v, basisOf ? basisOf(v) : v.cost_basis);
    if (v.downgraded) j.downgrades++;
    if (v.repeat + 1 > j.repeats) j.repeats = v.repeat + 1;
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
  const by_kind: Record<string, number> = {};
  // an empty placeholder (a combination the benchmark never ran) is stored with the errors but is none: counted apart
  const placeholders: string[] = [];
  let errorTotal = 0;
  for (const e of errors) {
    if (e.kind === "empty_placeholder") {
      placeholders.push(e.path);
      continue;
    }
    by_kind[e.kind] = (by_kind[e.kind] ?? 0) + 1;
    errorTotal++;
  }
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
    errors: { total: errorTotal, by_kind },
    ...(mixed.length > 0 ? { mixed_configurations: mixed } : {}),
    ...(placeholders.length > 0 ? { skipped: skippedPlaceholders(placeholders) } : {}),
    stopped_judges: stopped, // the caller's record, which label adds to after this (./label-summary.ts); printed by judge id
    warnings,
    cost: runCost,
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

/** The cached share of the prompt tokens in words: a figure no provider response reported is unknown, not 0. */
function cachedText(u: JudgeSummary["usage"]): string {
  if (u.prompt_tokens > 0 && u.verdicts_without_cached_figure > 0 && u.cached_tokens === 0) return "cached: not reported by the provider";
  return u.verdicts_without_cached_figure > 0 ? `${u.cached_tokens} cached; ${u.verdicts_without_cached_figure} verdict(s) without a cached figure` : `${u.cached_tokens} cached`;
}

/**
 * `; of the N (agent model, condition) groups it pools, EXPOSURE LOW: m under c 0/360 exposed, ...` for the overall line
 * of a judge whose rates pool several groups some of which the attack (almost) never reached (new user 26: the line
 * gave the pooled exposure only); "" otherwise.
 */
function pooledLowText(groups: readonly (AttackRates & { agent_model: string; condition: string })[]): string {
  const low = groups.filter((g) => g.exposure_low);
  if (groups.length < 2 || !low.length) return "";
  return `; of the ${groups.length} (agent model, condition) groups it pools, EXPOSURE LOW: ${low.map((g) => `${g.agent_model} under ${g.condition} ${g.labelled - g.not_exposed}/${g.labelled} exposed`).join(", ")}`;
}

/**
 * Render a run summary as plain text for the terminal. Bidi control characters in the input's values (ids, agent
 * models, conditions, attacks, warnings naming them) are shown as visible markers (`⟨U+202E⟩`, src/format/bidi.ts).
 * @param inputWhere `label --where`'s statement over this invocation's input (`this_run.where`): the first line then
 *   says what was read and kept, beside the run's count that `s.where` holds (new user 18: "2 of 2" for 82 read).
 */
export function formatSummary(s: RunSummary, inputWhere?: WhereStatement): string {
  s = shownStrings(s); // names from the run files cannot break or reorder a line (../format/shown.ts)
  const lines: string[] = [];
  if (s.where && inputWhere) {
    const n = (x: number) => x.toLocaleString("en-US");
    lines.push(
      `filter --where ${s.where.filter}: this invocation read ${n(inputWhere.of)} trajectories and kept ${n(inputWhere.kept)} (the others neither stored nor judged); ` +
        `the summary below is over the run's trajectories the filter keeps: ${n(s.where.kept)} of ${n(s.where.of)}` +
        (inputWhere.unmatched.length ? ` (matched nothing: ${inputWhere.unmatched.map((u) => `${u.field}=${u.value}`).join(", ")})` : ""),
    );
  } else if (s.where) lines.push(`${whereLine(s.where)}: the summary below is over them`);
  // before the figures it changes (new user 15: said after them, a row's drop went unmarked)
  if (s.inputs_removed) lines.push(`WARNING: ${s.inputs_removed.message}`);
  lines.push(`run ${s.run}: ${s.trajectories} trajectories (${s.attacked} attacked, ${s.unattacked} unattacked), ${s.verdicts} verdicts`);
  const noRef = s.attacked_without_reference ?? 0;
  if (s.attacked_run_errors > 0 || noRef > 0) {
    // agree --reference's pool beside these rates' n, with both reasons (fix43: the line named the run errors only)
    const why = [...(s.attacked_run_errors > 0 ? [`${s.attacked_run_errors} ended in an agent error`] : []), ...(noRef > 0 ? [`${noRef} record no benchmark security verdict`] : [])];
    lines.push(
      `  of the ${s.attacked} attacked runs, ${why.join(" and ")}: the rates below count them (the judge labels what the trajectory shows); ` +
        `agree --reference leaves them out, so it compares over ${s.attacked - s.attacked_run_errors - noRef} attacked runs, not ${s.attacked} (its n per judge: those of them the judge labelled)`,
    );
  }
  const saidUnder = new Map<string, string>(); // a NOT LIKE FOR LIKE warning -> the judge under whose rows it was said
  for (const j of s.judges) {
    lines.push("");
    lines.push(`judge ${j.judge_id} (${j.judge_model}, ${j.judge_family}): ${j.verdicts} verdicts`);
    const st = Object.entries(j.by_status).map(([k, v]) => `${k} ${v}`).join(", ");
    const rep = j.repeats > 1 ? ` (all ${j.repeats} repeats; labels and rates below are repeat 0)` : "";
    lines.push(`  status: ${st}${rep}`);
    const ek = Object.entries(j.errors_by_kind);
    if (ek.length) {
      // what can help: --retry-errors re-judges judge_error verdicts only; an unverified one needs other input
      const hints = ["details in verdicts.jsonl"];
      if ((j.by_status.judge_error ?? 0) > 0) hints.push("--retry-errors judges the judge_error items again");
      // the "without the defense" remedy only applies to a run with defended runs (a VIGIL run has none: review 15)
      const defended = j.by_model_condition.some((x) => x.condition !== NO_DEFENSE && x.condition !== NO_VALUE);
      const remedy = defended
        ? "label the same runs without the defense in the same invocation, and the text is recovered from those sibling runs"
        : "label them in the same invocation as runs of the same suite, user task, injection task, attack and agent model that record the text, if the input has any: it is recovered from those sibling runs";
      if ((j.by_status.unverified ?? 0) > 0) hints.push(`unverified items stay so on a rerun of the same input: their reason is in the input, not in the judge (e.g. no injected text recorded: ${remedy})`);
      lines.push(`  not labelled, by reason: ${ek.map(([k, v]) => `${k} ${v}`).join(", ")} (${hints.join("; ")})`);
      if (j.not_labelled_items) lines.push(`    items: ${notLabelledText(j.not_labelled_items)} (every id in --json, not_labelled_items)`);
    }
    lines.push(...textTable(BUCKETS.map((b) => [b, String(j.by_label[b])]), { align: ["left", "right"], gap: " ", indent: "  ", minWidths: [20, 6] }));
    // a run of several conditions (defenses): the judge's overall rate pools them, and says so (new user, session 11)
    const conds = [...new Set(j.by_model_condition.map((x) => x.condition))].sort();
    const pooledAll = conds.length > 1 ? `, pooled over every agent model and all ${conds.length} conditions (${conds.join(", ")}; one rate per model and condition below)` : "";
    // a broken judge's rates (e.g. every claim downgraded: 0% by construction) are never printed bare (new-user report 16)
    const mark = rateCaveatMarker(j.rate_caveat ? [j.rate_caveat] : []);
    // a row over the same runs as the judge's overall line (one model, one surface) points to its LOW coverage
    // clause there, not the ~400 characters again (new user 44 item 11: VIGIL's clause three times in one summary)
    const overallCoverage = coverageText(j.rates);
    const ratesText = (x: Parameters<typeof ratesTextOf>[0], opts?: Parameters<typeof ratesTextOf>[1]) =>
      ratesTextOf(x, { ...(x !== j.rates && x.coverage_low && coverageText(x) === overallCoverage ? { coverageSaidAt: "as on the judge's overall line above" } : {}), ...opts }) + mark;
    lines.push(
      `  attack success over the ${j.rates.attacked} attacked${pooledAll} (asr_goal = full compliance, the injected goal carried out; ` +
        `asr_behaviour = full or partial compliance; not_exposed counts as not compromised): ${ratesText(j.rates, { exposure: false, exposureLow: false })}; ${exposureText(j)}${exposureLowText(j.rates)}${pooledLowText(j.by_model_condition)}`,
    );
    const movedBlocked = blockedOnMovedText(j.health.compliance_evidence);
    if (movedBlocked) lines.push(`  of its blocked_attempts: ${movedBlocked}`);
    if (j.by_surface) {
      lines.push(`  by surface (where the injection entered):`);
      for (const [k, x] of Object.entries(j.by_surface)) lines.push(`    ${k}: ${ratesText(x)}`);
      if (j.no_surface)
        lines.push(`    (no surface): ${j.no_surface} attacked trajectories are in no row above: the injected text was found nowhere in what the agent received and the input records no surface (give "surfaces": {placeholder: surface} in the input)`);
    }
    const models = Object.entries(j.by_agent_model ?? {});
    const perCondition = models.some(([, pm]) => pm.conditions.length > 1);
    // rates side by side over different attacks or suites: said with the rows they concern (the first block of
    // per-model rows), on stdout as in --json (not only on stderr)
    // in full under the first judge's rows, pointed to under the others' (session 39: the same text once per judge)
    const notLikeOf = (pooled: boolean) =>
      s.warnings.filter((w) => isLikeForLikeWarning(w) && w.includes(POOLED_MIX_MARK) === pooled).map((w) => (saidUnder.has(w) ? `    NOT LIKE FOR LIKE: as under judge ${saidUnder.get(w)} above` : (saidUnder.set(w, j.judge_id), `    NOT LIKE FOR LIKE: ${w}`)));
    if (perCondition) {
      lines.push(`  per agent model and condition (defense):`);
      lines.push(...notLikeOf(false));
      const names = j.by_model_condition.map((x) => `${x.agent_model} | ${x.condition}`);
      lines.push(...textTable(j.by_model_condition.map((x, i) => [names[i], ratesText(x)]), { indent: "    " }));
    }
    if (models.length > 0) {
      lines.push(`  per agent model${perCondition ? " (pooled over the conditions named)" : ""}:`);
      lines.push(...notLikeOf(perCondition));
      // one model and condition pooled over run folders (./pooled-folders.ts): said with the rows, not only on stderr
      lines.push(...s.warnings.filter((w) => w.includes(POOLED_FOLDERS_MARK)).map((w) => `    POOLED RUN FOLDERS: ${w}`));
      const modelRows: string[][] = [];
      for (const [m, pm] of models) {
        // the difference the warning above names (suites, attacks, both or cells), never assumed (nu19)
        const kind = conditionMixKindOf(s.warnings, m);
        const mixed = kind ? `; they ran ${kind}: not like for like, see above` : "";
        // the conditions pooled here that are EXPOSURE LOW, named on the pooled line (their own rows above say it too)
        const lowConds = pm.conditions.length > 1 ? j.by_model_condition.filter((x) => x.agent_model === m && x.exposure_low).map((x) => x.condition) : [];
        const lowText = lowConds.length ? `; EXPOSURE LOW under ${lowConds.join(", ")}: the attack did not arrive there, see above` : "";
        const pooled = pm.conditions.length > 1 ? ` [pooled over ${pm.conditions.length} conditions: ${pm.conditions.join(", ")}${mixed}${lowText}]` : pm.conditions.length === 1 ? ` [${pm.conditions[0]}]` : "";
        modelRows.push([m, `${ratesText(pm)}${pooled}`]);
      }
      lines.push(...textTable(modelRows, { indent: "    " }));
    }
    const u = j.usage;
    lines.push(
      `  downgrades: ${j.downgrades}; tokens: ${u.prompt_tokens} prompt (${cachedText(u)}), ${u.completion_tokens} completion` +
        (u.reasoning_tokens ? ` (${u.reasoning_tokens} reasoning)` : "") +
        (u.responses_without_usage ? `; ${u.responses_without_usage} response(s) reported no usage` : "") +
        (u.left_out ? `; ${u.left_out.verdicts} verdict(s) with implausible token counts left out (${u.left_out.prompt_tokens} prompt, ${u.left_out.completion_tokens} completion as reported)` : ""),
    );
    const why = j.cost.implausible === j.cost.unknown ? "implausible usage reported by the server" : u.responses_without_usage ? "responses without usage" : j.cost.counted === 0 ? "no price in the judge's config" : "no price, or a response without usage";
    lines.push(`  cost: ${describeCost(j.cost, why)}`);
    const at = pricedAtText(j.cost);
    if (at) lines.push(`  ${at}`);
    lines.push(
      `  health${j.repeats > 1 ? ` (all ${j.repeats} repeats)` : ""}: ${formatHealth(j.health)}` +
        // its crashes leave items without a verdict: not among its judge errors (those are verdicts), said here
        (j.judge_crashes ? `; judge crashes ${j.judge_crashes} (trajectories without its verdict: errors.jsonl kind judge_crash; the same command judges them again)` : ""),
    );
    for (const f of j.health.flags) lines.push(`  WARNING (${f.code}): ${f.message}`);
    if (j.rate_caveat) lines.push(`  WARNING (rates): ${j.rate_caveat.message}`);
  }
  if (s.judges.length) lines.push("", `cost of the run: ${describeCost(s.cost)} (the verdicts in use: the latest per item, judge and repeat; superseded verdicts, paid for too, are not counted)`);
  if (s.judges.length && pricedAtText(s.cost)) lines.push(`  ${pricedAtText(s.cost)}`);
  for (const [id, msg] of judgeEntries(s.stopped_judges)) lines.push(`\njudge ${id} was stopped: ${msg}`);
  for (const [id, u] of Object.entries(s.batch_unfinished ?? {}))
    lines.push(`BATCH RESULTS NOT COLLECTED (judge ${id}): ${u.requests} request(s) in ${u.batches.length} batch(es) (${u.batches.map((b) => `${b.batch_id ?? b.key} ${b.status}`).join(", ")}) have no stored verdict; the figures above leave them out; the same command with --batch downloads them`);
  // a corpus's sidecar files (manifest, README, licence, checksums: ../ingest/sidecars.ts) and files reached twice
  // through links (read once: ../ingest/walk.ts) are no warning: said apart (NOTE_KINDS)
  const passed = (s.ingest_warnings ?? []).filter((w) => NOTE_KINDS.has(w.kind));
  const warned = (s.ingest_warnings ?? []).filter((w) => !NOTE_KINDS.has(w.kind));
  if (warned.length > 0) {
    lines.push("");
    lines.push(`input warnings: ${warned.length} (what was read may be attributed or counted differently than you expect)`);
    for (const w of warned) lines.push(`  [${w.kind}] ${w.message}`);
  }
  if (passed.length > 0) lines.push("", ...passed.map((w) => w.message));
  lines.push("");
  if (s.errors.total === 0) lines.push("errors: none");
  else
    lines.push(
      `errors: ${s.errors.total} (${Object.entries(s.errors.by_kind).map(([k, v]) => `${k} ${v}`).join(", ")}); see errors.jsonl`,
    );
  if (s.errors_superseded) lines.push(`  ${s.errors_superseded.message}`);
  if (s.skipped) lines.push(s.skipped.message);
  // ids, models, conditions and attacks are the input's: a bidi control in them (U+202E) shows as its marker, never
  // reorders the terminal line (red team 2, finding 4; src/format/bidi.ts)
  // the names are shown above (shownStrings); this pass covers the --where line, typed by the user
  return showBidiControls(lines.join("\n"));
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
  let anyCondition = false;
  // one model and condition read from several run folders (VIGIL's debug_run beside runs_base), in the same pass
  const folders = new RunFolderFold();
  function* attackedMix() {
    for (const t of index.values()) {
      folders.add(t);
      if (!t.attacked) continue;
      const model = t.agent_model ?? NO_VALUE;
      // a run without a condition pools as the condition (none) (new user 35); said only when some run records one
      if (t.condition !== undefined) anyCondition = true;
      let c = conditionsByModel.get(model);
      if (!c) conditionsByModel.set(model, (c = new Set()));
      c.add(t.condition ?? NO_VALUE);
      yield { model, condition: t.condition, attack: t.attack, suite: t.suite };
    }
  }
  const out = likeForLikeWarnings(attackedMix());
  if (anyCondition && [...conditionsByModel.values()].some((c) => c.size > 1)) out.push(...pooledConditionWarnings(conditionsByModel));
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
