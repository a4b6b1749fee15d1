/**
 * `label`'s text summary of a run (`formatSummary`): per judge its headline rates first, with their denominators,
 * then the tables (by surface, per agent model and condition, per agent model), the counts, the health, the
 * warnings. Lines stay readable (new user 46 item 4: the AgentDyn summary was 16 KB with lines of ~1,500 characters):
 * prose is broken at its clause boundaries to {@link TEXT_WIDTH} columns (`../format/wrap-text.ts`), the rates of
 * many groups are a table (`../format/rates-table.ts`), and a long explanation is said once. Every figure of
 * `--json` that the one-line form printed is still printed, with what it measures and over which runs.
 */
import { ratePopulationText } from "../format/rate-population.js";
import { quoted } from "../format/quote-name.js";
import { textTable } from "../format/text-table.js";
import { BUCKETS } from "../types.js";
import { whereLine, type WhereStatement } from "../store/where.js";
import { formatHealth } from "../verdict/health.js";
import { describeCost, pricedAtText } from "../providers/cost.js";
import { NOTE_KINDS } from "../ingest/warnings.js";
import type { AttackRates } from "../stats/rates.js";
import { POOLED_FOLDERS_MARK } from "./pooled-folders.js";
import { POOLED_MIX_MARK, conditionMixKindOf, isLikeForLikeWarning } from "../stats/like-for-like.js";
import { blockedText, coverageText, exposureLowText } from "../format/rates-text.js";
import { rateFigureText } from "../format/rate-figure-text.js";
import { rateCaveatMarker } from "../verdict/rate-caveat.js";
import { showBidiControls } from "../format/bidi.js";
import { NO_DEFENSE } from "../ingest/attribution.js";
import { shownStrings } from "../format/shown.js";
import { notLabelledText } from "./not-labelled.js";
import { blockedOnMovedText } from "../verdict/compliance-evidence-health.js";
import { NO_VALUE } from "../stats/no-value.js";
import { judgeEntries } from "../format/judge-order.js";
import { isTableRow, wrapLine, wrapLines } from "../format/wrap-text.js";
import { RATES_COLUMNS, ratesTable, type RatesRow } from "../format/rates-table.js";
import type { JudgeSummary, RunSummary } from "./summary.js";
import { judgesCommonLines } from "./judges-common-text.js";

/** The cached share of the prompt tokens in words: a figure no provider response reported is unknown, not 0. */
function cachedText(u: JudgeSummary["usage"]): string {
  if (u.prompt_tokens > 0 && u.verdicts_without_cached_figure > 0 && u.cached_tokens === 0) return "cached: not reported by the provider";
  return u.verdicts_without_cached_figure > 0 ? `${u.cached_tokens} cached; ${u.verdicts_without_cached_figure} verdict(s) without a cached figure` : `${u.cached_tokens} cached`;
}

/**
 * `of the N (agent model, condition) groups it pools, EXPOSURE LOW: m under c 0/360 exposed, ...` for the overall
 * rates of a judge whose rates pool several groups some of which the attack (almost) never reached (new user 26: the
 * line gave the pooled exposure only); "" otherwise.
 */
function pooledLowText(groups: readonly (AttackRates & { agent_model: string; condition: string })[]): string {
  const low = groups.filter((g) => g.exposure_low);
  if (groups.length < 2 || !low.length) return "";
  return `of the ${groups.length} (agent model, condition) groups it pools, EXPOSURE LOW: ${low.map((g) => `${g.agent_model} under ${g.condition} ${g.labelled - g.not_exposed}/${g.labelled} exposed`).join(", ")}`;
}

/**
 * The judge's headline: its two named rates, exposure, coverage and blocked attempts over every attacked run it
 * pools, one figure a line with what it counts (a small table), then what the pool is and its warnings.
 */
function headlineLines(s: RunSummary, j: JudgeSummary, mark: string): string[] {
  const r = j.rates;
  const conds = [...new Set(j.by_model_condition.map((x) => x.condition))].sort();
  const pooled = conds.length > 1 ? `, pooled over every agent model and all ${conds.length} conditions` : "";
  const e = j.exposure;
  // a broken judge's mark on every rate line, as on the tables' rows
  const rows = [
    ["asr_goal", rateFigureText(r.asr_goal), `full compliance: the injected goal carried out${mark}`],
    ["asr_behaviour", rateFigureText(r.asr_behaviour), `full or partial compliance${mark}`],
    ["exposure", rateFigureText(e), `met the injected text: any label but not_exposed${mark}`],
  ];
  const out = [`  attack success over ${ratePopulationText(r.labelled, r.attacked)}${pooled} (repeat 0; not_exposed counts as not compromised)${mark}:`];
  out.push(...textTable(rows, { indent: "    ", align: ["left", "right", "left"] }));
  // the coverage clause and the rest: prose, broken at its clauses
  const more = [`coverage: ${coverageText(r).replace(/^coverage /, "")}`, blockedText(r)];
  if (conds.length > 1) more.push(`the ${conds.length} conditions (one rate per model and condition below): ${conds.join(", ")}`);
  const low = exposureLowText(r, "EXPOSURE LOW: ");
  if (low) more.push(low);
  const pooledLow = pooledLowText(j.by_model_condition);
  if (pooledLow) more.push(pooledLow);
  out.push(...wrapLines(more.map((m) => `    ${m}`)));
  return out;
}

/**
 * Labels changed from the judge's claim by a rule, not a downgrade (newuser51 finding 4): `; labels changed by a rule
 * (not downgrades): 5 (refused_call 5)`, or "" when none.
 */
function changedText(c: Record<string, number> | undefined): string {
  if (!c) return "";
  const e = Object.entries(c).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return `; labels changed from the judge's claim by a rule, not a downgrade: ${e.reduce((n, [, x]) => n + x, 0)} (${e.map(([k, x]) => `${k} ${x}`).join(", ")})`;
}

/**
 * The judge's label counts (repeat 0) with the population each counts: every run it labelled, split into attacked
 * and unattacked runs (new user 49 item 2: the counts of all 10,018 AgentDyn runs sat under the heading of the 8,640
 * attacked runs, so `attacked - not_exposed` did not give the exposure above). The attacked column is what the rates
 * above count (their `labelled`), the unattacked runs are not_exposed by the rubric.
 */
function labelCountLines(j: JudgeSummary): string[] {
  const sum = (r: Record<string, number>) => BUCKETS.reduce((n, b) => n + r[b], 0);
  const [all, att, un] = [sum(j.by_label), sum(j.by_label_attacked), sum(j.by_label_unattacked)];
  const head = `  labels (repeat 0) of the ${all} runs it labelled: ${att} attacked, ${un} unattacked:`;
  const rows = [["", "all", "attacked", "unattacked"], ...BUCKETS.map((b) => [b, String(j.by_label[b]), String(j.by_label_attacked[b]), String(j.by_label_unattacked[b])])];
  return [head, ...textTable(rows, { align: ["left", "right", "right", "right"], gap: " ", indent: "    ", minWidths: [20, 6, 9, 11] })];
}

/** A judge's block of the summary (`formatSummary`); `saidUnder`: the NOT LIKE FOR LIKE warnings said so far, by judge. */
function judgeLines(s: RunSummary, j: JudgeSummary, saidUnder: Map<string, string>, tablesSaid: { columns: boolean }): string[] {
  const lines: string[] = [];
  lines.push(`judge ${j.judge_id} (${j.judge_model}, ${j.judge_family}): ${j.verdicts} verdicts`);
  // a broken judge's rates (e.g. every claim downgraded: 0% by construction) are never printed bare (new-user report 16)
  const mark = rateCaveatMarker(j.rate_caveat ? [j.rate_caveat] : []);
  lines.push(...headlineLines(s, j, mark));
  const st = Object.entries(j.by_status).map(([k, v]) => `${k} ${v}`).join(", ");
  const rep = j.repeats > 1 ? `, all ${j.repeats} repeats; labels and rates are repeat 0` : "";
  // what the counts are over, so they reconcile with agree --reference's excluded judge_error (attacked runs only; out51)
  lines.push(...wrapLine(`  status: ${st} (every verdict, unattacked runs included${rep}; agree --reference's excluded judge_error counts repeat-0 attacked runs with a benchmark verdict only)`));
  const ek = Object.entries(j.errors_by_kind);
  if (ek.length) {
    // what can help: --retry-errors re-judges judge_error verdicts only; an unverified one needs other input
    const hints = ["details in verdicts.jsonl"];
    if ((j.by_status.judge_error ?? 0) > 0) hints.push("--retry-errors judges the judge_error items again");
    if ((j.by_status.judge_refused ?? 0) > 0) hints.push("--retry-refusals judges the judge_refused items again");
    // the "without the defense" remedy only applies to a run with defended runs (a VIGIL run has none: review 15)
    const defended = j.by_model_condition.some((x) => x.condition !== NO_DEFENSE && x.condition !== NO_VALUE);
    const remedy = defended
      ? "label the same runs without the defense in the same invocation, and the text is recovered from those sibling runs"
      : "label them in the same invocation as runs of the same suite, user task, injection task, attack and agent model that record the text, if the input has any: it is recovered from those sibling runs";
    if ((j.by_status.unverified ?? 0) > 0) hints.push(`unverified items stay so on a rerun of the same input: their reason is in the input, not in the judge (e.g. no injected text recorded: ${remedy})`);
    lines.push(...wrapLine(`  not labelled, by reason: ${ek.map(([k, v]) => `${k} ${v}`).join(", ")} (${hints.join("; ")})`));
    if (j.not_labelled_items) lines.push(...wrapLine(`    items: ${notLabelledText(j.not_labelled_items)} (every id in --json, not_labelled_items)`));
  }
  // labelled, but on a decision the judge's refused feedback turn was to check: said, with the way to them (runs55 #4)
  if (j.feedback_refused)
    lines.push(...wrapLine(`  feedback turn refused: ${j.feedback_refused} labelled verdict(s) stand on the decision their refused feedback turn was to check (error retry_refused; often downgraded: its quotes did not verify); --retry-refusals judges them again`));
  lines.push(...labelCountLines(j));
  const movedBlocked = blockedOnMovedText(j.health.compliance_evidence);
  if (movedBlocked) lines.push(...wrapLine(`  of its blocked_attempts: ${movedBlocked}`));
  // a row over the same runs as the judge's overall figures (one model, one surface) points to its LOW coverage
  // clause there, not the ~400 characters again (new user 44 item 11: VIGIL's clause three times in one summary)
  const overallCoverage = coverageText(j.rates);
  const saidAt = (x: RatesRow) => (x.rates !== j.rates && coverageText(x.rates) === overallCoverage ? "as in the judge's attack success above" : undefined);
  const table = (rows: RatesRow[]) => {
    const t = ratesTable(rows, { indent: "    ", mark, coverageSaidAt: saidAt });
    if (tablesSaid.columns) return t;
    tablesSaid.columns = true;
    return [...wrapLine(`    (${RATES_COLUMNS})`), ...t];
  };
  if (j.by_surface) {
    lines.push(`  by surface (where the injection entered):`);
    lines.push(...table(Object.entries(j.by_surface).map(([k, x]) => ({ name: k, rates: x }))));
    if (j.no_surface)
      lines.push(
        ...wrapLine(
          `    (no surface): ${j.no_surface} attacked trajectories are in no row above: the injected text was found nowhere in what the agent received and the input records no surface (give "surfaces": {placeholder: surface} in the input)`,
        ),
      );
  }
  lines.push(...modelLines(s, j, saidUnder, table));
  const u = j.usage;
  lines.push(
    ...wrapLine(
      `  downgrades: ${j.downgrades}${changedText(j.changed_by_rule)}; tokens: ${u.prompt_tokens} prompt (${cachedText(u)}), ${u.completion_tokens} completion` +
        (u.reasoning_tokens ? ` (${u.reasoning_tokens} reasoning)` : "") +
        (u.responses_without_usage ? `; ${u.responses_without_usage} response(s) reported no usable usage (none, or token counts that are not numbers)` : "") +
        (u.left_out ? `; ${u.left_out.verdicts} verdict(s) with implausible token counts left out (${u.left_out.prompt_tokens} prompt, ${u.left_out.completion_tokens} completion as reported)` : ""),
    ),
  );
  const why = j.cost.implausible === j.cost.unknown ? "implausible usage reported by the server" : u.responses_without_usage ? "responses without usable usage: none, or invalid token counts" : j.cost.counted === 0 ? "no price in the judge's config" : "no price, or a response without usage";
  lines.push(...wrapLine(`  cost: ${describeCost(j.cost, why)}`));
  const at = pricedAtText(j.cost);
  if (at) lines.push(...wrapLine(`  ${at}`));
  // the health line's clauses one a line (it ran to ~1,200 characters on AgentDyn)
  const health = formatHealth(j.health) + (j.judge_crashes ? `; judge crashes ${j.judge_crashes} (trajectories without its verdict: errors.jsonl kind judge_crash; the same command judges them again)` : "");
  lines.push(`  health${j.repeats > 1 ? ` (all ${j.repeats} repeats)` : ""}:`);
  lines.push(...wrapLines(splitClauses(health).map((c) => `    ${c}`)));
  for (const f of j.health.flags) lines.push(...wrapLine(`  WARNING (${f.code}): ${f.message}`));
  if (j.rate_caveat) lines.push(...wrapLine(`  WARNING (rates): ${j.rate_caveat.message}`));
  // its labels on runs whose injected text is unknown: the labelled subset is selected by its answers (new user 48, 1)
  if (j.injection_unknown_warning) lines.push(...wrapLine(`  WARNING (rates): ${j.injection_unknown_warning}`));
  return lines;
}

/** `text`'s clauses: split at each `; ` outside ( ) and [ ]. */
function splitClauses(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(" || c === "[") depth++;
    else if ((c === ")" || c === "]") && depth > 0) depth--;
    else if (c === ";" && depth === 0 && text[i + 1] === " ") {
      out.push(text.slice(start, i));
      start = i + 2;
    }
  }
  out.push(text.slice(start));
  return out.filter((c) => c.length > 0);
}

/** The per (agent model, condition) and per agent model tables of a judge, with the warnings said with them. */
function modelLines(s: RunSummary, j: JudgeSummary, saidUnder: Map<string, string>, table: (rows: RatesRow[]) => string[]): string[] {
  const lines: string[] = [];
  const models = Object.entries(j.by_agent_model ?? {});
  const perCondition = models.some(([, pm]) => pm.conditions.length > 1);
  // rates side by side over different attacks or suites: said with the rows they concern (the first block of
  // per-model rows), on stdout as in --json (not only on stderr)
  // in full under the first judge's rows, pointed to under the others' (session 39: the same text once per judge)
  const notLikeOf = (pooled: boolean) =>
    wrapLines(
      s.warnings
        .filter((w) => isLikeForLikeWarning(w) && w.includes(POOLED_MIX_MARK) === pooled)
        .map((w) => (saidUnder.has(w) ? `    NOT LIKE FOR LIKE: as under judge ${quoted(saidUnder.get(w)!)} above` : (saidUnder.set(w, j.judge_id), `    NOT LIKE FOR LIKE: ${w}`))),
    );
  if (perCondition) {
    // each row over its own runs: label's summary keeps no task ids, so it cannot pair cells; said in the heading,
    // with where the like-for-like figures are (session 52)
    lines.push(`  per agent model and condition (defense), each row over its own runs (not paired by cell: estimate --table pairs):`);
    lines.push(...notLikeOf(false));
    lines.push(...table(j.by_model_condition.map((x) => ({ name: x.condition, group: x.agent_model, rates: x }))));
  }
  if (models.length > 0) {
    lines.push(`  per agent model${perCondition ? " (pooled over the conditions named)" : ""}:`);
    lines.push(...notLikeOf(perCondition));
    // one model and condition pooled over run folders (./pooled-folders.ts): said with the rows, not only on stderr
    lines.push(...wrapLines(s.warnings.filter((w) => w.includes(POOLED_FOLDERS_MARK)).map((w) => `    POOLED RUN FOLDERS: ${w}`)));
    lines.push(...table(models.map(([m, pm]) => ({ name: m, rates: pm }))));
    const pooledNotes: string[] = [];
    for (const [m, pm] of models) {
      // the difference the warning above names (suites, attacks, both or cells), never assumed (nu19)
      const kind = conditionMixKindOf(s.warnings, m);
      const mixed = kind ? `; they ran ${kind}: not like for like, see above` : "";
      // the conditions pooled here that are EXPOSURE LOW, named with the pooled row (their own rows above say it too)
      const lowConds = pm.conditions.length > 1 ? j.by_model_condition.filter((x) => x.agent_model === m && x.exposure_low).map((x) => x.condition) : [];
      const lowText = lowConds.length ? `; EXPOSURE LOW under ${lowConds.join(", ")}: the attack did not arrive there, see above` : "";
      if (pm.conditions.length > 1) pooledNotes.push(`    ${m}: pooled over ${pm.conditions.length} conditions: ${pm.conditions.join(", ")}${mixed}${lowText}`);
      else if (pm.conditions.length === 1) pooledNotes.push(`    ${m}: ${pm.conditions[0]}`);
    }
    // headed (out50 finding 7: `    gpt-4o: no_defense` lines under the table read as rows of nothing)
    if (pooledNotes.length) lines.push(`  conditions under each agent model's row above${perCondition ? " (a row over several pools them)" : ""}:`);
    lines.push(...wrapLines(pooledNotes));
  }
  return lines;
}

/**
 * Render a run summary as plain text for the terminal (module docstring). Bidi control characters in the input's
 * values (ids, agent models, conditions, attacks, warnings naming them) are shown as visible markers (`⟨U+202E⟩`,
 * src/format/bidi.ts). A prose line is at most `TEXT_WIDTH` (120) columns unless one word is wider; a table row is
 * as wide as its columns (under 160 on AgentDyn's 24 (model, condition) rows; a broken judge's mark adds to it).
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
        (inputWhere.unmatched.length ? ` (matched nothing: ${inputWhere.unmatched.map((u) => `${u.name ?? u.field}=${u.value}`).join(", ")})` : ""),
    );
  } else if (s.where) lines.push(`${whereLine(s.where)}: the summary below is over them`);
  // before the figures it changes (new user 15: said after them, a row's drop went unmarked)
  // every one of them moved (./moved-removed.ts): nothing lost, a note
  if (s.inputs_removed) lines.push(`${s.inputs_removed.moved !== undefined && s.inputs_removed.moved >= s.inputs_removed.count ? "note" : "WARNING"}: ${s.inputs_removed.message}`);
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
  const tablesSaid = { columns: false };
  for (const j of s.judges) lines.push("", ...judgeLines(s, j, saidUnder, tablesSaid));
  // the judges side by side on the runs every one labelled, with each one's own coverage (./judges-common-text.ts)
  const common = judgesCommonLines(s.judges_common);
  if (common.length) lines.push("", ...common);
  if (s.judges.length) lines.push("", `cost of the run: ${describeCost(s.cost)} (the verdicts in use: the latest per item, judge and repeat; superseded verdicts, paid for too, are not counted)`);
  if (s.judges.length && pricedAtText(s.cost)) lines.push(`  ${pricedAtText(s.cost)}`);
  for (const [id, msg] of judgeEntries(s.stopped_judges)) lines.push("", `judge ${quoted(id)} was stopped: ${msg}`);
  for (const [id, u] of Object.entries(s.batch_unfinished ?? {}))
    lines.push(`BATCH RESULTS NOT COLLECTED (judge ${quoted(id)}): ${u.requests} request(s) in ${u.batches.length} batch(es) (${u.batches.map((b) => `${b.batch_id ?? b.key} ${b.status}`).join(", ")}) have no stored verdict; the figures above leave them out; the same command with --batch downloads them`);
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
  // the run's own torn journal lines are no input error: said apart, in their own words (hostile 51, finding 3)
  if (s.errors.total === 0) lines.push("errors: none");
  else lines.push(`errors: ${s.errors.total} (${Object.entries(s.errors.by_kind).map(([k, v]) => `${k} ${v}`).join(", ")}); see errors.jsonl`);
  if (s.store_corrupt_lines) lines.push(s.store_corrupt_lines.message);
  if (s.errors_superseded) lines.push(`  ${s.errors_superseded.message}`);
  if (s.skipped) lines.push(s.skipped.message);
  if (s.read_once) lines.push(s.read_once.message);
  // ids, models, conditions and attacks are the input's: a bidi control in them (U+202E) shows as its marker, never
  // reorders the terminal line (red team 2, finding 4; src/format/bidi.ts)
  // the names are shown above (shownStrings); this pass covers the --where line, typed by the user
  // every line not broken above (the prose ones) to the text width; a table row is never broken (its columns, and a
  // broken judge's mark at its end, stay on its line: ~160 columns at most on AgentDyn, more with the mark)
  return showBidiControls(lines.flatMap((l) => (isTableRow(l) ? [l] : wrapLine(l))).join("\n"));
}
