import { reasonsText } from "../run/rejudge.js";
import { partialRunLine } from "../run/limit-warning.js";
import { warnLine } from "./warn.js";
import { sameScreen, stderrForm } from "./said-below.js";
import { takeJournalWarnings } from "../store/skipped-lines.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Command, OptionValues } from "commander";
import { CONFIG_CHANGE_HELP, labelRun, type LabelResult } from "../run/label.js";
import { formatSummary } from "../run/summary-text.js";
import { overCap, sameCapResumes } from "../run/cost-cap.js";
import { inFlightReservedText } from "../run/batch-worst-case.js";
import { resolveJudges } from "../judges/index.js";
import { progressReporter } from "./progress.js";
import { loadProgressLine } from "./load-progress.js";
import { addProgressOptions, progressOf } from "./progress-mode.js";
import { batchLineGate } from "./progress-lines.js";
import { judgeCrashWarnings } from "./label-crashes.js";
import { EXIT, UsageError } from "../errors.js";
import { sayHardQuit } from "./hard-quit.js";
import { allInputBad, allInputBadText, NEW_RUN_FILES, nothingFound, removeEmptyNewRun, removeNewRunFiles, whereKeptNone } from "./empty-input.js";
import { MAX_TIMER_MS } from "../config/judges.js";
import { showControls } from "../format/shown.js";
import { addWhereOption, intOption, printJson, warnWhere, whereOf } from "./util.js";
import { MAX_REPEATS } from "../store/repeat-bound.js";
import { parseFieldMap, type MappableField } from "../ingest/chat-jsonl.js";
import { INPUT_FORMATS, NOTE_KINDS } from "../ingest/index.js";
import { ownFolderAbove, ownFolderOf, ownKindText, realOrResolved, type OwnKind } from "../ingest/own-folders.js";
import { fullGc, heapGcTrigger, LABEL_BACKSTOP_RULE } from "../io/heap-gc.js";
import { tuneCompilerForLabel, tuneHeapForLabel } from "./v8-tuning.js";
import { judgeEntries } from "../format/judge-order.js";
import { quoted } from "../format/quote-name.js";

/** The longest `--signature-time-limit`, seconds (a day: past it the limit means nothing; red team 19 L1). */
const MAX_SIGNATURE_TIME_LIMIT_S = 86_400;

/**
 * A folder the command wrote, as the user can paste it into another shell or a notebook: absolute (out50; relative to
 * the working directory it was not, pasted elsewhere), as committee, sample and import-annotations name what they write.
 */
function displayPath(p: string): string {
  return path.resolve(p);
}

/** Progress reports between two looks at the heap (a look is cheap; the collection runs only when due, `../io/heap-gc.ts`). */
export const GC_CHECK_EVERY = 64;

/** The `label` command with its options and help (no action). */
function labelCommand(program: Command): Command {
  const cmd = program
    .command("label")
    .description(
      "Label trajectories (AgentDojo/AgentDyn/VIGIL run logs, chat JSONL, Inspect AI logs, mini-SWE-agent/SWE-agent trajectories) with judges into labels/<run>/; re-running the same command resumes and judges nothing twice.",
    )
    .argument("<path...>", "files or directories of trajectories")
    .option("--judge <name>", "built-in judge to use: signature (offline, deterministic)", undefined)
    .option("--judges <file>", "judge config JSON (LLM judges over OpenAI-compatible APIs); see prompts/judges.example.json")
    .option(
      "--signature-time-limit <seconds>",
      "signature judge: longest analysis of one trajectory in a worker thread (decimal seconds, default 60); one that takes longer is that item's judge_crash error (\"analysis took longer than the N s time limit\"), the others are judged, and the same command judges it again. No limit when the analysis runs on the main thread (IPI_SIGNATURE_WORKERS=0, or a single core)",
    )
    .option("--run <name>", "run name: output goes to <labels-dir>/<name>/", "default")
    .option("--labels-dir <dir>", "where runs are stored", "labels")
    .option("--format <format>", `input format: ${INPUT_FORMATS.join(" | ")} (default: detected per file)`)
    .option("--security-scorer <name>", "Inspect logs: the scorer whose value is the benchmark's own injection verdict (true/C/1 = the injected goal was achieved); NAME.key for a scorer with an object value")
    .option("--utility-scorer <name>", "Inspect logs: the scorer whose value is the user task's success (true/C/1 = the user's task was done), for utility figures; NAME.key as for --security-scorer")
    .option("--concurrency <n>", "requests in flight per judge (overrides the config; the signature judge: trajectories in flight to its workers, default 128)")
    .option("--repeats <k>", "independent repeats per judge, for test-retest (1 to 100)", "1")
    .option("--limit <n>", "label at most this many trajectories: the first N in reading order (files sorted by path), not a random sample; use `sample` for a sample")
    .option("--budget-chars <n>", "above this many characters, the middle of the longest parts is elided (the verdict says truncated)")
    .option("--retry-errors", "judge again the items whose stored verdict is judge_error")
    .option("--retry-refusals", "judge again the items whose stored verdict is judge_refused (a provider's refusal is often transient), and the labelled ones whose feedback turn the judge refused (error retry_refused: the label stands on the decision that turn was to check); the earlier verdict stays in verdicts.jsonl as history")
    .option("--verify-content", "on a resume, read every input file and compare its content hash, even one whose size, mtime and ctime are those recorded (for file systems without a real ctime, where a file rewritten with the same size and mtime would otherwise be taken as unchanged)")
    .option(
      "--on-config-change <mode>",
      "when a judge's stored verdicts were made with another configuration (model, sampling, output mode, endpoint, retries, ...): refuse | rejudge | keep",
      "refuse",
    )
    .option("--strict", "stop at the first bad input item instead of recording it in errors.jsonl")
    .option("--max-item-mb <n>", "largest input item (an AgentDojo file or a JSONL line) to read, in MiB; larger ones are recorded as too_large", "64")
    .option("--batch", "send batch judges' requests through the OpenAI Batch API (judges with batch: true, or on api.openai.com); killed runs resume polling")
    .option("--batch-poll <seconds>", "with --batch: seconds between polls of a batch's status", "30")
    .option("--dry-run", "render every request the run would send (same input, same resume) and print requests, prompt tokens and estimated cost per judge; sends nothing, stores nothing, needs no API key")
    .option("--show-prompt <id>", "with --dry-run: print the messages each judge's first request would carry for trajectory <id>, exactly as label renders them (only the structural tags' nonce is drawn afresh); with --json, as JSON; sends nothing, prints no key")
    .option("--assume-output-tokens <n>", "with --dry-run: output tokens per request for the cost estimate (default: the judge's max_tokens or 600, whichever is lower)")
    .option("--max-cost <usd>", "stop sending when what the run has paid (every stored verdict, earlier invocations included) plus the worst case of each conversation in flight (feedback turns included) would pass this many USD (decimal); in-flight requests finish and are stored; exit 1; a rerun with a higher cap resumes. Every judge needs a price; with --batch, a batch judge's conversations are reserved at its batch price, and those of chunks an earlier invocation left in flight are reserved first; with --dry-run, says how many conversations the cap would let through at their worst case")
    .option("--model <name>", "agent model of every trajectory read, replacing what folders or metadata say (the value read is kept in metadata.original_agent_model)")
    .option("--condition <name>", "condition (defense) of every trajectory read, replacing what folders or metadata say")
    .option("--attack <name>", "attack of every trajectory read, replacing what the input says")
    .option(
      "--field <key=field>",
      "chat JSONL: read input key KEY (top level or metadata) as our FIELD (agent_model, condition, attack, suite, user_task_id, injection_task_id, agent_family, run_error, security, utility); repeatable",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--json", "print the summary as one JSON object (stdout only: progress and warnings stay on stderr)");
  return addProgressOptions(addWhereOption(cmd)).addHelpText(
      "after",
      `
Examples:
  ipi-judge label samples/agentdojo --run samples
  ipi-judge label runs/ --judges prompts/judges.example.json --run committee --concurrency 8
  ipi-judge label runs/ --judges openai-judges.json --run committee --batch   (judges on api.openai.com or with "batch": true; then the same command again to resume)
  ipi-judge label runs/ --judges prompts/judges.example.json --run committee --dry-run   (requests, tokens, estimated cost; sends nothing)
  ipi-judge label runs/ --judges prompts/judges.example.json --run committee --max-cost 20   (exit 1 at the cap; a higher cap resumes)
  nohup ipi-judge label runs/ --judge signature --run big > summary.txt 2> progress.log &   (a progress line every 30 s in progress.log)
Output: <labels-dir>/<run>/verdicts.jsonl (one verdict per line), errors.jsonl, trajectories.jsonl, store.json.
The summary's rows give each group's rates, coverage and exposure (labelled attacked runs that met the injected
text); below 10% exposure a row reads EXPOSURE LOW: its rates say the attack did not arrive, not resistance.
Exit: 0 done (bad items are recorded, not fatal), 1 fatal error, a judge stopped (bad key, no quota,
unreachable, or no usable verdict at all), the --max-cost cap reached, or a trajectory that could not be prepared
(errors.jsonl prepare_failed: not judged, the others are), 2 usage or config error (including a
judge whose configuration or prompt changed since its verdicts were stored: see --on-config-change, and an input
holding no trajectory at all: an empty folder or the wrong path; a run folder it created is removed), 3 finished,
but the rates of a judge given this time are marked broken ([JUDGE X LOOKS BROKEN]: its evidence did not verify, it claims compliance
on unattacked runs, or it labels most runs the benchmark marks goal-achieved unaffected or not_exposed), or a judge crashed
(errors.jsonl judge_crash, e.g. past --signature-time-limit) on more than half of the trajectories this invocation sent it
(more than 10%: a warning on stderr, exit 0), 130 interrupted
(Ctrl-C: the requests in flight finish and are stored; "this invocation" names the trajectories read but not yet
judged, "in flight when stopped"; the same command judges them; a second Ctrl-C quits at once).
Environment: API keys from the variables the config names (api_key_env).`,
    );
}

/** The flags of `label` as commander parses them. */
type LabelFlags = OptionValues;

/**
 * The checks of `label`'s flags that need no judge: exclusive options, the input format, `--field`, the
 * overrides, the paths, `--on-config-change`, `--max-cost`, `--signature-time-limit`.
 * @throws UsageError naming the flag.
 */
function checkLabelFlags(
  paths: string[],
  o: LabelFlags,
): { fieldMap?: Record<string, MappableField>; overrides: { agent_model?: string; condition?: string; attack?: string }; maxCostUsd?: number; signatureTimeLimitS?: number } {
  if (o.judge && o.judges) throw new UsageError("give either --judge or --judges, not both");
  if (o.format && !(INPUT_FORMATS as readonly string[]).includes(o.format)) {
    throw new UsageError(`--format must be one of ${INPUT_FORMATS.join(", ")}, not "${o.format}"`);
  }
  let fieldMap: Record<string, MappableField> | undefined;
  try {
    fieldMap = o.field ? parseFieldMap(o.field as string[]) : undefined;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const overrides: { agent_model?: string; condition?: string; attack?: string } = {};
  for (const [opt, key] of [["model", "agent_model"], ["condition", "condition"], ["attack", "attack"]] as const) {
    const v = o[opt] as string | undefined;
    if (v === undefined) continue;
    if (v.trim() === "") throw new UsageError(`--${opt} needs a non-empty name`);
    overrides[key] = v;
  }
  // `-` reads as standard input to many tools; label reads files and folders only, and its run's coverage is kept by
  // path (../store/partial-passes.ts): two `label -` passes of other content would read as one input (runs53)
  if (paths.includes("-"))
    throw new UsageError("label does not read standard input (`-`): write the trajectories to a file and give its path (a file named - itself: give it as ./-)");
  const missing = paths.filter((p) => !fs.existsSync(p));
  if (missing.length) throw new UsageError(`no such file or directory: ${missing.join(", ")}`);
  refuseOwnFolders(paths, o.labelsDir);
  if (!["refuse", "rejudge", "keep"].includes(o.onConfigChange))
    throw new UsageError(`--on-config-change must be refuse, rejudge or keep, not "${o.onConfigChange}"`);
  let maxCostUsd: number | undefined;
  if (o.maxCost !== undefined) {
    // decimal only: Number() would also take "0x10" (16), "1e3", "0b1" and " 5 "
    const text = String(o.maxCost);
    maxCostUsd = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(maxCostUsd) || maxCostUsd <= 0)
      throw new UsageError(`--max-cost must be a decimal number of USD > 0 (such as 5 or 2.50), not "${o.maxCost}"`);
  }
  let signatureTimeLimitS: number | undefined;
  if (o.signatureTimeLimit !== undefined) {
    const text = String(o.signatureTimeLimit);
    signatureTimeLimitS = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(signatureTimeLimitS) || signatureTimeLimitS <= 0 || signatureTimeLimitS > MAX_SIGNATURE_TIME_LIMIT_S)
      throw new UsageError(`--signature-time-limit must be a decimal number of seconds > 0 and at most ${MAX_SIGNATURE_TIME_LIMIT_S} (such as 60 or 0.5), not "${o.signatureTimeLimit}"`);
  }
  return { fieldMap, overrides, maxCostUsd, signatureTimeLimitS };
}

/**
 * An input path that is a folder of ipi-judge's own output (the `--labels-dir` folder, a label run, an annotation sample:
 * ../ingest/own-folders.ts), or a file or folder inside a run or a sample, is refused before anything is read or created: its files are not trajectories (read,
 * each was an input error).
 * @throws UsageError naming the path and what it is.
 */
function refuseOwnFolders(paths: string[], labelsDir: string): void {
  const labelsReal = realOrResolved(labelsDir);
  const seen = new Map<string, OwnKind | undefined>(); // the folders above the paths, each looked at once
  for (const p of paths) {
    const own = ownFolderOf(p, labelsReal);
    if (own !== undefined) throw new UsageError(`${p} is ${ownKindText(own)}, not input: its files are ipi-judge's own output, not trajectories; give the files or folders of the trajectories to label`);
    // a file or folder inside a run or sample (`label RUN/verdicts.jsonl`): the same refusal, naming the folder
    const above = ownFolderAbove(p, seen);
    if (above !== undefined)
      throw new UsageError(`${p} is inside ${above.dir}, which is ${ownKindText(above.kind)}, not input: its files are ipi-judge's own output, not trajectories; give the files or folders of the trajectories to label`);
  }
}

/**
 * `--max-cost` needs a price for every judge.
 * @throws UsageError naming the judges without one.
 */
function checkPriced(judges: readonly { id: string }[], maxCostUsd: number | undefined): void {
  if (maxCostUsd === undefined) return;
  const unpriced = judges.filter((j) => {
    const cfg = (j as unknown as { config?: { price?: unknown } }).config;
    return cfg !== undefined && !cfg.price;
  });
  if (unpriced.length)
    throw new UsageError(
      `--max-cost needs a price for every judge; ${unpriced.map((j) => `"${j.id}"`).join(", ")} has none (add price: {input_per_mtok, cached_input_per_mtok, output_per_mtok} to its config)`,
    );
}

/** `label --dry-run`: print what the run would send; exit 2 when `label` would refuse the run. */
async function printDryRun(shared: Parameters<typeof labelRun>[0], o: LabelFlags, maxCostUsd: number | undefined): Promise<void> {
  const { dryRun } = await import("../run/dry-run.js");
  const { formatDryRun } = await import("../run/dry-run-text.js");
  const r = await dryRun(
    // --batch: label would send batch judges' items through the Batch API and poll chunks in flight (red team 33 F8)
    // --max-cost: what the cap would let through at the worst case, and what it reserves for batches in flight
    // onWarning: what the real run warns before sending (a mixed --batch run's online judges, review rev2b #9)
    { ...shared, ...(o.batch ? { batch: {} } : {}), maxCostUsd, onWarning: (w: string) => warnLine(w, true) },
    o.assumeOutputTokens === undefined ? undefined : intOption(o.assumeOutputTokens, "--assume-output-tokens", 1),
  );
  if (o.json) printJson(r);
  else process.stdout.write(formatDryRun(r) + "\n");
  if (r.where) warnWhere(r.where.unmatched.map((u) => `--where ${u.name ?? u.field}=${u.value} matches none of the ${r.where!.of} trajectories read`));
  // the same rule as label: a changed judge configuration without --on-config-change is refused (exit 2)
  if (r.batches_in_flight) process.stderr.write(`ipi-judge: label would refuse this run: ${r.batches_in_flight}\n`);
  if (r.label_would_refuse && r.config_changes.some((c) => c.on_config_change === "refuse")) {
    process.stderr.write(
      `ipi-judge: label would refuse this run: ${r.config_changes.filter((c) => c.on_config_change === "refuse").map((c) => `${c.message.split(":")[0]} (${/another judge prompt/.test(c.message) ? "judge prompt" : "configuration"})`).join(", ")} changed since its verdicts were stored or its batches were written. ${CONFIG_CHANGE_HELP}\n`,
    );
  }
  if (r.label_would_refuse) process.exitCode = EXIT.usage;
}
/** `label --dry-run --show-prompt ID`: each judge's first request's messages for one trajectory (../run/show-prompt.ts). */
async function printShownPrompt(shared: Parameters<typeof labelRun>[0], id: string, json: boolean): Promise<void> {
  const { formatShownPrompt, showPrompt } = await import("../run/show-prompt.js");
  const r = await showPrompt(shared, id);
  if (json) printJson(r);
  else process.stdout.write(formatShownPrompt(r) + "\n");
}

/** How many trajectories a resume counted as read without reading their file (docs/label.md "resume"), said so a user sees the rule applied. */
function unreadText(unread: number): string {
  return unread > 0 ? ` (${unread} of them taken as unchanged unread: same path, size, mtime and ctime as when labelled; --verify-content reads and hashes them)` : "";
}

/**
 * What an interrupted run left un-judged: with one judge, "N trajectories ... (read, not stored: ...)"; with
 * several, the trajectories not stored by every judge and each judge's count (another judge may have stored its
 * verdict of them).
 */
function inFlightText(n: number, byJudge: Record<string, number>, left: Record<string, number> = {}): string {
  const judges = Object.entries(byJudge);
  // a judge stopped by its own error had nothing in flight: what it left is said apart (nits12)
  const leftText = Object.entries(left)
    .map(([id, k]) => `; ${id} had stopped (its own error): ${k} trajectories read for it left un-judged, not sent after its stop`)
    .join("");
  if (judges.length <= 1) return `, ${n} trajectories in flight when stopped (read, not stored: a rerun judges them)${leftText}`;
  return (
    `, ${n} trajectories in flight when stopped (not stored by every judge: ${judges.map(([id, k]) => `${id} ${k}`).join(", ")} left un-judged; ` +
    `a rerun judges what is missing)${leftText}`
  );
}

/**
 * The lines of `label`'s text output after the summary: what this invocation did, and where it is stored. Exported
 * for tests.
 */
export function invocationText(res: LabelResult, o: LabelFlags): string {
  return (
    `\nthis invocation: ${res.thisRun.where ? `${res.thisRun.read} trajectories read${unreadText(res.progress.unread)}, ${res.thisRun.kept} kept by --where ${res.thisRun.where.filter}${o.limit !== undefined ? ` and --limit ${o.limit}` : ""} (the others neither stored nor judged); ` : `${res.thisRun.read} trajectories read${unreadText(res.progress.unread)}, `}${res.progress.judged} verdicts stored, ${res.progress.skipped} already stored (skipped), ${res.progress.errors} new input errors` +
      // a judge's crash on an item is not an input error (red team L3): named apart, with what a rerun does
      (res.progress.judge_crashes > 0 ? `, ${res.progress.judge_crashes} new judge crashes (errors.jsonl kind judge_crash: no verdict stored for them, a rerun judges them again)` : "") +
      (res.progress.empty_placeholders > 0 ? `, ${res.progress.empty_placeholders} empty placeholders skipped (not errors)` : "") +
      ((res.progress.duplicate_inputs ?? 0) > 0 ? `, ${res.progress.duplicate_inputs} inputs given twice read once (not errors)` : "") +
      // an interrupted online run: what was read and left un-judged by the stop (issue 26), judged by a rerun
      (res.thisRun.in_flight_when_stopped !== undefined ? inFlightText(res.thisRun.in_flight_when_stopped, res.thisRun.in_flight_when_stopped_by_judge ?? {}, res.thisRun.left_by_stopped_judge) : "") +
      // recorded in errors.jsonl (kind content_changed) but not an input error: said apart; judged again, or given the
      // verdicts of their new content from the id it was labelled under (a row moved: runs55 #1)
      (res.progress.changed > 0 ? `, ${res.progress.changed} trajectories changed since they were labelled (judged again)` : "") +
      (res.progress.changed_carried ? `, ${res.progress.changed_carried} trajectories changed since they were labelled to content labelled under another id (a row moved: verdicts carried over, not judged again)` : "") +
      // a benchmark reference changed (errors.jsonl kind reference_changed): the index row follows the input
      (res.referenceChanged > 0 ? `, ${res.referenceChanged} trajectories with a changed benchmark reference (index rows re-written, not judged again)` : "") +
      (res.metadataChanged > 0 ? `, ${res.metadataChanged} trajectories with changed metadata (index rows re-written, not judged again)` : "") +
      // stored verdicts judged again (issue 22 item 8), said before sending too (warnings above)
      (res.rejudge.verdicts > 0 ? `; ${res.rejudge.may_carry ? `up to ${res.rejudge.verdicts} verdicts stored before were set to be judged again before the read (${reasonsText(res.rejudge.by_reason)}), those whose content moved to another id carried over instead, not judged (the changed counts above)` : `${res.rejudge.verdicts} verdicts stored before were set to be judged again (${reasonsText(res.rejudge.by_reason)})`}` : "") +
      `\n` +
      `stored in ${displayPath(res.runDir)}/\n` +
      (res.interrupted ? "INTERRUPTED: the run is not complete; the same command resumes it (nothing stored is judged again)\n" : "") +
      (res.interrupted ? "" : partialRunLine(res.summary.warnings, o.limit)) + // --limit stopped the reading: a slice of the inputs (break55 #3b)
      // a batch already sent is not "in flight" here, but it runs on at the provider and is billed (new user 34, verify 33)
      (res.interrupted && o.batch
        ? "Batch API chunks already sent keep running at the provider and are billed when they run; the same command (with --batch) collects their results, never sends them again (`label --dry-run --batch` counts them)\n"
        : "") +
      // the headline counts the trajectories the run has stored, not those read: say what the cap left out
      (!res.interrupted && res.costCap?.reached
        ? sameCapResumes(res.costCap)
          ? "COST CAP HELD ITEMS BACK: the run is not complete (the figures above cover only what was judged); the worst-case estimates reserved for the conversations in flight filled the cap, not what they cost: the same command judges more, a higher --max-cost more at once\n"
          : "COST CAP REACHED: the run is not complete (the figures above cover only what was judged before the cap); a higher --max-cost resumes it\n"
        : "")
  );
}

/** A reservation's price in words (`CostCapState.priced_at`). */
const RESERVED_AT: Record<string, string> = {
  online: "the online price",
  batch: "the batch price",
  online_upper_bound: "the online price for Batch API requests (no batch price: an upper bound)",
};

/** The cost-cap line of `label`'s text output. */
function costCapText(cap: NonNullable<LabelResult["costCap"]>): string {
  return (
    `cost cap: $${cap.spent_usd.toFixed(4)} of $${cap.cap_usd} spent by the run (everything it has paid: every stored verdict, superseded ones included)` +
    (cap.unknown_cost_verdicts ? ` (${cap.unknown_cost_verdicts} verdict(s) without usage counted at their estimate)` : "") +
    // which price the reservations were made at: a Batch API judge's batch price, or its online price (an upper bound)
    (cap.priced_at ? ` (reserved at ${Object.entries(cap.priced_at).map(([k, n]) => `${RESERVED_AT[k] ?? k} for ${n} conversation(s)`).join(", ")})` : "") +
    (cap.batch_in_flight ? ` (${inFlightReservedText(cap.batch_in_flight)})` : "") +
    (cap.unknown_cost_before
      ? ` (${cap.unknown_cost_before} verdict(s) of earlier invocations have an unknown cost, not in this total: the cap cannot bound them)`
      : "") +
    (overCap(cap.spent_before_usd, cap)
      ? ` (already over the cap: earlier invocations spent $${cap.spent_before_usd.toFixed(4)}, more than --max-cost $${cap.cap_usd}; nothing new was sent)`
      : overCap(cap.spent_usd, cap)
        ? ` (over the cap by $${(cap.spent_usd - cap.cap_usd).toFixed(4)}: the verdicts in flight cost more than their estimates)`
        : "") +
    "\n"
  );
}

/** `label`'s exit code and its reason on stderr: duplicate ids, files changed while read, trajectories not prepared, interrupted, the cost cap, stopped judges, broken or crashing judges. */
function setLabelExitCode(res: LabelResult, ran: ReadonlySet<string>): void {
  const cap = res.costCap;
  if (res.duplicateIds > 0) {
    // a duplicate id is an input error, never a silent swap (issue 23): said, and the exit is not 0
    process.stderr.write(`ipi-judge: input error: ${res.duplicateIds} trajectory id(s) given twice with different inputs; the later ones were not judged (errors.jsonl, kind duplicate_id)\n`);
    process.exitCode = EXIT.fatal;
  }
  if (res.changedDuringRead > 0) {
    // a file rewritten during the read is an input error (red team 31 F4: a mix of two versions was labelled, exit 0)
    process.stderr.write(`ipi-judge: input error: ${res.changedDuringRead} input file(s) changed while they were read; nothing read after the change was taken (errors.jsonl, kind changed_during_read); run label again once they are no longer written\n`);
    process.exitCode = EXIT.fatal;
  }
  if (res.prepareFailed > 0) {
    // one trajectory's fault is that item's error, never the run's end (red team 42), but not a success either
    process.stderr.write(`ipi-judge: ${res.prepareFailed} trajectory(ies) could not be prepared for judging and were not judged (errors.jsonl, kind prepare_failed, naming each and the fault); the others were judged\n`);
    process.exitCode = EXIT.fatal;
  }
  if (res.interrupted) process.exitCode = EXIT.interrupted;
  else if (cap?.reached && sameCapResumes(cap)) {
    // verifier 37: the batch path's worst-case reservations held items back with $0.0041 of $0.05 spent, and the message
    // said to raise the cap while the same cap judged more on each rerun
    const held = cap.held!;
    process.stderr.write(
      `ipi-judge: the cost cap held items back, not reached: the run has spent $${cap.spent_usd.toFixed(4)} of --max-cost $${cap.cap_usd}, but the worst-case estimates reserved ` +
        `for the conversations in flight ($${held.reserved_usd.toFixed(4)}; a conversation queued for a Batch API chunk stays reserved until its batch comes back) left no room for the next ` +
        `($${held.next_usd.toFixed(4)}); what was in flight is stored, the remaining items are un-judged; the same command with the same --max-cost judges more of them ` +
        `(it reserves from what was actually spent), a higher --max-cost more in one invocation\n`,
    );
    process.exitCode = EXIT.fatal;
  } else if (cap?.reached) {
    process.stderr.write(
      `ipi-judge: the cost cap was reached: the run has spent $${cap.spent_usd.toFixed(4)} of --max-cost $${cap.cap_usd}` +
        (overCap(cap.spent_before_usd, cap) ? ` (already before this invocation: nothing was sent); ` : ` and the next request would pass it; `) +
        `what was in flight is stored, the remaining items are un-judged; run again with a higher --max-cost to resume\n`,
    );
    process.exitCode = EXIT.fatal;
  }
  if (!res.interrupted && Object.keys(res.stoppedJudges).length > 0) {
    // A judge that could not go on (bad key, no quota, unreachable) left its items un-judged: not a success.
    process.stderr.write(
      `ipi-judge: ${Object.keys(res.stoppedJudges).length} judge(s) stopped (${judgeEntries(res.stoppedJudges).map(([id, m]) => `${id}: ${m}`).join("; ")}); ` +
        "their items are un-judged or have no usable label; fix the judge, then the same command resumes them (--retry-errors judges errors again)\n",
    );
    process.exitCode = EXIT.fatal;
  }
  // finished, but a judge of this invocation has rates carrying [JUDGE X LOOKS BROKEN] (its rate caveat,
  // ../verdict/rate-caveat.ts): exit 3 (red team 17); a judge of the run not given this time is warned about, not
  // this command's failure (new user 18: a run holding a broken judge made every later label exit 3)
  const broken = res.summary.judges.filter((j) => ran.has(j.judge_id) && j.rate_caveat && !j.rate_caveat.flags.includes("no_usable_verdict")).map((j) => j.judge_id);
  if (broken.length && !process.exitCode) {
    process.stderr.write(`ipi-judge: finished, but the rates of judge(s) ${broken.join(", ")} are marked LOOKS BROKEN (their rate caveat: WARNING (rates) in the summary, rate_caveat in its JSON): exit code ${EXIT.brokenJudge}\n`);
    process.exitCode = EXIT.brokenJudge;
  }
  // a judge that crashed on many of the items this invocation sent it (./label-crashes.ts): loud; on most, exit 3
  const crashes = judgeCrashWarnings(res.progress);
  for (const w of crashes.warnings) warnLine(w);
  if (crashes.broken.length && !process.exitCode) {
    process.stderr.write(`ipi-judge: finished, but judge(s) ${crashes.broken.join(", ")} crashed on most trajectories sent: exit code ${EXIT.brokenJudge}\n`);
    process.exitCode = EXIT.brokenJudge;
  }
  // every item of the input an input error, none read: no labelled run, whatever else was said (./empty-input.ts)
  if (allInputBad(res)) {
    process.stderr.write(`ipi-judge: ${allInputBadText(res.thisRun.errors)}\n`);
    if (!process.exitCode || process.exitCode === EXIT.brokenJudge) process.exitCode = EXIT.usage;
  }
}

/** Print what `labelRun` came to (summary, warnings, cost cap; `--json`: one object) and set the exit code. */
function printLabelResult(res: LabelResult, paths: string[], o: LabelFlags, ran: ReadonlySet<string>, created: { run: boolean; labels: boolean; runFiles: string[] }): void {
  // --json: the journal lines skipped join the summary's warnings (text mode: main says them at the end)
  if (o.json) res.summary.warnings.push(...takeJournalWarnings());
  // a warning the text summary prints in full is said once on one screen: cut short on stderr (./said-below.ts)
  const summaryText = o.json ? null : formatSummary(res.summary, res.thisRun.where);
  const below = summaryText !== null && sameScreen() ? summaryText : null;
  for (const w of res.summary.warnings) warnLine(stderrForm(w, below));
  // on stderr too, as every other command says it (the figures on stdout leave those trajectories out)
  // (not when every one of them moved: the move is said, nothing was lost: ../run/moved-removed.ts)
  const ir = res.summary.inputs_removed;
  if (ir && !(ir.moved !== undefined && ir.moved >= ir.count)) warnLine(ir.message);
  // a usage error found after labelling (nothing read, or a --where that kept nothing): --json prints the error object
  // every other usage error gives, not a summary of 0 trajectories (break53 #7)
  let usage: string | undefined;
  // nothing read and nothing wrong with it: an empty folder or the wrong path, not a finished run (./empty-input.ts)
  if (nothingFound(res, o.limit === undefined ? undefined : Number(o.limit))) {
    const removed = created.run && removeEmptyNewRun(res.runDir, created.labels);
    const filesRemoved = !created.run && removeNewRunFiles(res.runDir, created.runFiles);
    const said = removed ? "; no run folder was written" : filesRemoved ? `; the run files it wrote into ${res.runDir} (a folder that was there before, holding no run) were removed, the folder and its other files left` : "";
    usage = `no trajectory was found in ${paths.join(", ")}: nothing was labelled (check the path and --format)${said}`;
    process.stderr.write(`ipi-judge: ${usage}\n`);
    process.exitCode = EXIT.usage;
    if (removed || filesRemoved) return;
  }
  warnWhere(res.where?.warnings ?? []);
  // a --where that kept nothing read: no labelled run, whatever else was said (./empty-input.ts)
  if (whereKeptNone(res)) {
    const removed = created.run && removeEmptyNewRun(res.runDir, created.labels);
    const filesRemoved = !created.run && removeNewRunFiles(res.runDir, created.runFiles);
    const said = removed ? "; no run folder was written" : filesRemoved ? `; the run files it wrote into ${res.runDir} were removed` : `; run ${o.run} keeps the verdicts it held, nothing was added`;
    usage = `--where ${res.thisRun.where!.filter} matches none of the ${res.thisRun.read} trajectories read: nothing was labelled (check the field and its value)${said}`;
    process.stderr.write(`ipi-judge: ${usage}\n`);
    process.exitCode = EXIT.usage;
    if (removed || filesRemoved) return;
  }
  if (o.json && usage !== undefined) printJson({ error: { exit_code: EXIT.usage, kind: "usage", message: usage } });
  else if (o.json)
    printJson({
      ...res.summary,
      run_dir: res.runDir,
      interrupted: res.interrupted,
      this_run: res.thisRun,
      rejudged: res.rejudge,
      metadata_changed: res.metadataChanged,
      ...(res.costCap ? { cost_cap: res.costCap } : {}),
    });
  else {
    // a stopped run's rates look final otherwise (new user, session 11): said before them, not only after
    if (res.interrupted)
      process.stdout.write(
        `INTERRUPTED: the figures below are partial: they cover only the run's ${res.summary.trajectories} trajectories so far ` +
          `(a model, suite or condition may be missing or under-counted); the same command resumes the run\n`,
      );
    process.stdout.write(summaryText + "\n");
    // not wrapped (the summary above is, ../format/wrap-text.ts): scripts and tests read these lines whole
    process.stdout.write(invocationText(res, o));
  }
  for (const [id, what] of Object.entries(res.adaptations ?? {}))
    process.stderr.write(`judge ${quoted(id)} adapted to its server (recorded in store.json): ${what.join("; ")}\n`);
  if (res.costCap && !o.json) process.stdout.write(costCapText(res.costCap));
  setLabelExitCode(res, ran);
}

/** `ipi-judge label <path...>`: judge trajectories into a resumable run store and print the run summary. */
export function registerLabel(program: Command): void {
  labelCommand(program).action(async (paths: string[], o) => {
    const { fieldMap, overrides, maxCostUsd, signatureTimeLimitS } = checkLabelFlags(paths, o);
    // --json does not change it: progress is on stderr only (./progress-mode.ts)
    const progressSettings = progressOf(o);
    const { judges, common } = await resolveJudges({ judge: o.judge, judgesFile: o.judges, dryRun: !!o.dryRun, signatureTimeLimitS });
    // the limit stops a worker: on the main thread nothing can (red team 19 L3: accepted and silently without effect)
    if (signatureTimeLimitS !== undefined && (process.env.IPI_SIGNATURE_WORKERS === "0" || os.availableParallelism() < 2))
      process.stderr.write(`ipi-judge: warning: --signature-time-limit has no effect here: the signature analysis runs on the main thread (${process.env.IPI_SIGNATURE_WORKERS === "0" ? "IPI_SIGNATURE_WORKERS=0" : "a single core"}), where it cannot be stopped\n`);
    // every judge (offline and LLM): before any hot code and before the signature workers start (./v8-tuning.ts)
    tuneCompilerForLabel();
    // V8 collects by itself at a set growing factor; a forced collection is only the backstop (./v8-tuning.ts)
    tuneHeapForLabel();
    checkPriced(judges, maxCostUsd);
    // The options `label` and `--dry-run` share: the same input, the same resume rule.
    const shared = {
      inputs: paths,
      run: o.run,
      labelsDir: path.resolve(o.labelsDir),
      judges,
      format: o.format,
      repeats: repeatsOption(o.repeats),
      limit: o.limit === undefined ? undefined : intOption(o.limit, "--limit", 0),
      budgetChars: o.budgetChars === undefined ? (common.budgetChars ?? undefined) : intOption(o.budgetChars, "--budget-chars", 1000),
      minQuoteChars: common.minQuoteChars,
      strict: !!o.strict,
      maxItemBytes: intOption(o.maxItemMb, "--max-item-mb", 1) * 1024 * 1024,
      retryErrors: !!o.retryErrors,
      retryRefusals: !!o.retryRefusals,
      verifyContent: !!o.verifyContent,
      onConfigChange: o.onConfigChange,
      overrides: Object.keys(overrides).length > 0 ? overrides : undefined,
      fieldMap,
      securityScorer: o.securityScorer,
      utilityScorer: o.utilityScorer,
      where: whereOf(o),
    };
    if (o.showPrompt !== undefined && !o.dryRun) throw new UsageError("--show-prompt goes with --dry-run (it renders, sends nothing)");
    if (o.showPrompt !== undefined) return printShownPrompt(shared, String(o.showPrompt), !!o.json);
    if (o.dryRun) return printDryRun(shared, o, maxCostUsd);
    // First Ctrl-C: nothing new starts, the requests in flight finish (they are paid for) and their verdicts are
    // stored. Second: quit at once (what was in flight is judged again on resume).
    const ac = new AbortController();
    const hard = new AbortController();
    let interrupts = 0;
    // whether the reading loop may have begun (a progress report with a total or a trajectory read): before it, a stop
    // leaves the run as it was (../run/before-reading.ts)
    let reading = false;
    const onSigint = () => {
      interrupts++;
      if (interrupts > 1) {
        hard.abort();
        sayHardQuit(reading, !!o.json); // on stderr, and with --json as the JSON error (./hard-quit.ts)
        process.exit(EXIT.interrupted);
      }
      process.stderr.write(
        reading
          ? "\nstopping: finishing the requests in flight and saving (Ctrl-C again to quit at once)\n"
          : "\nstopping: nothing has been read or judged yet; the run is left as it was (Ctrl-C again to quit at once)\n",
      );
      ac.abort();
    };
    // a closed terminal (an ssh session dropped) is a stop too, not a kill -9 (red team 37: exit 129, the .lock left,
    // no summary): as SIGTERM; what it writes may go nowhere, and a write error then must not end the process
    const onSighup = () => {
      for (const s of [process.stdout, process.stderr]) s.on("error", () => {});
      onSigint();
    };
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigint);
    process.on("SIGHUP", onSighup);
    const progress = progressReporter(progressSettings);
    // what this invocation creates: a run of nothing is removed again (./empty-input.ts)
    const runDir0 = path.join(shared.labelsDir, o.run);
    const created = { labels: !fs.existsSync(shared.labelsDir), run: !fs.existsSync(runDir0), runFiles: NEW_RUN_FILES.filter((n) => !fs.existsSync(path.join(runDir0, n))) };
    const pollS = Number(o.batchPoll);
    // at most 2^31-1 ms: a longer Node.js timer fires after 1 ms, a poll loop without pause (red team 31 F5)
    if (!Number.isFinite(pollS) || pollS <= 0 || pollS * 1000 > MAX_TIMER_MS)
      throw new UsageError(`--batch-poll must be a number of seconds > 0 and at most ${MAX_TIMER_MS / 1000} (2^31-1 ms, ~24.8 days: the longest timer Node.js can set), not "${o.batchPoll}"`);
    const batchLine = batchLineGate(progressSettings);
    const gcFn = fullGc();
    const gc = gcFn ? heapGcTrigger(gcFn, undefined, LABEL_BACKSTOP_RULE) : undefined;
    let reports = 0;
    try {
      const res = await labelRun({
        ...shared,
        concurrency: o.concurrency === undefined ? undefined : intOption(o.concurrency, "--concurrency", 1),
        onWarning: (w) => warnLine(w, true),
        maxCostUsd,
        // text mode lists them in the summary (stdout); with --json they are in the JSON and also on stderr
        onIngestWarning: (w) => {
          // a corpus's sidecar files passed over (a manifest, README, licence), files reached twice through links: a note
          if (o.json) process.stderr.write(NOTE_KINDS.has(w.kind) ? `note: ${showControls(w.message)}\n` : `warning [${w.kind}]: ${showControls(w.message)}\n`);
        },
        signal: ac.signal,
        abortSignal: hard.signal,
        onHeapCheck: gc ? () => gc.check() : undefined,
        onLoadProgress: loadProgressLine(progressSettings, o.run),
        onProgress: (p) => {
          reading ||= p.total > 0 || p.read > 0;
          progress.update(p);
          if (gc && ++reports % GC_CHECK_EVERY === 0) gc.check();
        },
        onJudgeStopped: (id, msg) => process.stderr.write(`${progressSettings.mode === "bar" ? "\n" : ""}judge ${id} stopped: ${msg}\n`),
        batch: o.batch
          ? {
              pollMs: pollS * 1000,
              onProgress: (b) => {
                const line = `batch ${b.batch_id ?? "(not sent)"} of judge ${b.judge_id}, round ${b.round}: ${b.status} ${b.completed ?? "?"}/${b.total}${b.failed === null ? ", ? failed" : b.failed ? `, ${b.failed} failed` : ""}`;
                if (batchLine(b.key, b.status)) process.stderr.write(line + "\n");
              },
              onWarning: (w) => warnLine(w, true),
            }
          : undefined,
      });
      progress.stop();
      printLabelResult(res, paths, o, new Set(judges.map((j) => j.id)), created);
    } finally {
      progress.stop();
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigint);
      process.off("SIGHUP", onSighup);
    }
  });
}

/** `--repeats K`: an integer from 1 to MAX_REPEATS (a stored repeat past it is refused on read: ../store/repeat-bound.ts). */
function repeatsOption(v: unknown): number {
  const k = intOption(v, "--repeats", 1);
  if (k > MAX_REPEATS) throw new UsageError(`--repeats must be at most ${MAX_REPEATS} (each repeat judges the whole run again), not "${v}"`);
  return k;
}
