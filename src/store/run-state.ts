/**
 * Whether a run's labelling finished, read from the run folder without taking its lock: `store.json`'s
 * `label_state` (written by every `label` invocation: `running` at the start, its outcome at the end), the lock
 * file (a killed process leaves its lock behind) and, for runs written by older versions, `summary.json`.
 * `agree`, `committee` and `report` show it so that figures of a killed or partial run are never read as the
 * whole corpus.
 */
import fs from "node:fs";
import path from "node:path";
import { readRunLock, type LockHolder } from "./lock.js";
import type { LabelState } from "./run-store.js";
import { removedAllMoved, removedStatement } from "./removed-ids.js";
import { byJudgeName } from "../format/judge-order.js";
import { carriedPasses, passText } from "./partial-passes.js";
import type { PartialPass, RunSnapshot } from "./run-snapshot.js";

/** The labelling state of a run. */
export interface RunState {
  /**
   * `complete`; `limited` (complete, with `--limit N`); `partial` (every pass since the run began, or since a pass
   * without --limit/--where last covered its inputs, had --limit or --where: `./partial-passes.ts`); `history_unknown`
   * (complete, but an older build labelled some inputs in earlier invocations without recording whether they were read
   * whole: {@link historyUnknownText}); `running` (a label process holds the run now, here or on
   * another host); `killed` (the last label process ended without finishing and without closing the store:
   * killed, or the machine stopped); `interrupted` (Ctrl-C / SIGTERM); `stopped_judges` (judges stopped by a
   * fatal error: bad key, no quota); `cost_cap` (stopped by
   * `label --max-cost` with items un-judged); `failed` (ended on an error); `unknown` (no record of how it ended);
   * `inputs_removed` (complete; trajectories whose input is gone are left out of the figures, `./removed-ids.ts`, or,
   * for a run recorded before that, still counted: {@link inputsRemovedText}).
   */
  status: "inputs_removed" | "complete" | "limited" | "partial" | "history_unknown" | "running" | "killed" | "interrupted" | "stopped_judges" | "cost_cap" | "failed" | "unknown";
  /** True when the last labelling finished; false when the figures cover only part of it; null when unknown. */
  complete: boolean | null;
  /** What to tell the user (null when there is nothing to say). */
  message: string | null;
  label_state: LabelState | null;
  lock: LockHolder | null;
  /**
   * Judges whose verdicts in use were made by more than one model or configuration, as the last label run's summary
   * (`summary.json` `mixed_configurations`) says, one warning each; empty when none (red team 28: agree, estimate and
   * report printed such pooled figures under one model's name). When the last label run wrote no summary (failed,
   * killed, still running) the file's list is an earlier run's: one warning saying the check is not known instead
   * ({@link mixUnknownText}), never the stale list.
   */
  mixed_configurations: string[];
  /**
   * Set when the status is `inputs_removed` and every id left out is an old id of a trajectory that moved (its content
   * counted under the new id, `./removed-ids.ts`): nothing was lost, so it is said as a note, as `label` says it (runs53).
   */
  removed_moved_only?: true;
  /**
   * Input items of the run that could not be read, as `errors.jsonl` stood when the last label run wrote `summary.json`
   * `errors` (truncated or invalid files, rows that are no trajectory; an earlier pass's error stays until its file is
   * read again without one), said as a warning by every command that prints figures: they are in no figure, and a truncated log is
   * often a long or crashed run, so the loss need not be at random (break54 #1). Absent when none, or when the summary
   * is not the last label run's (the mixed-configuration warning then says so).
   */
  input_errors?: string;
}

/** Whether a run state's message is a warning though the run is complete: removed inputs (not all moved) or an unknown history. */
export function stateWarns(s: Pick<RunState, "status" | "removed_moved_only">): boolean {
  return (s.status === "inputs_removed" && !s.removed_moved_only) || s.status === "history_unknown";
}

/** A JSON file's object (`summary.json`, `store.json`), or null when it is missing, unreadable or not an object. */
export function readJson(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const RESUME = "run the same label command again to finish it (nothing stored is judged again)";

/**
 * Read how a run's last `label` invocation ended.
 * @param runDir the run folder (`<labels-dir>/<run>`).
 * @returns the state, never throws (an unreadable store gives `unknown`).
 */
export function readRunState(runDir: string): RunState {
  const st = lastLabelState(runDir);
  const summary = readJson(path.join(runDir, "summary.json"));
  const mixed = summary?.mixed_configurations;
  const listed = Array.isArray(mixed) ? mixed.filter((m): m is string => typeof m === "string") : [];
  const why = notSummarized(st, summary);
  st.mixed_configurations = why ? [mixUnknownText(why, summary ? listed.length : null, st.status === "running")] : listed;
  const unread = why ? undefined : inputErrorsText(summary?.errors);
  if (unread) st.input_errors = unread;
  return st;
}

/** errors.jsonl kinds about inputs that were read and are counted (a change followed, a judge's crash), never unread ones. */
const READ_KINDS: ReadonlySet<string> = new Set(["content_changed", "reference_changed", "metadata_changed", "judge_crash"]);

/**
 * The `input_errors` warning ({@link RunState.input_errors}) from a summary's `errors` (`{total, by_kind}`), or
 * undefined when it records none or is not of that shape.
 */
export function inputErrorsText(errors: unknown): string | undefined {
  const e = errors as { total?: unknown; by_kind?: unknown } | undefined;
  if (typeof e?.total !== "number" || !(e.total > 0)) return undefined;
  // by kind, leaving out the records of inputs that were read (rev2b #5: a benchmark verdict that changed was said
  // to be an unread item "in no figure"); a summary without kinds is taken at its total
  const entries =
    e.by_kind && typeof e.by_kind === "object"
      ? Object.entries(e.by_kind as Record<string, unknown>)
          .filter((x): x is [string, number] => typeof x[1] === "number" && x[1] > 0 && !READ_KINDS.has(x[0]))
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      : null;
  const n = entries ? entries.reduce((a, [, v]) => a + v, 0) : e.total;
  if (!(n > 0)) return undefined;
  const kinds = entries ? entries.map(([k, v]) => `${k} ${v}`).join(", ") : "";
  return (
    `input_errors: ${n} input item${n === 1 ? "" : "s"} of this run could not be read${kinds ? ` (${kinds})` : ""}, as errors.jsonl stood at the last label run (an error of an earlier pass stays until its file is read again without one), and ${n === 1 ? "is" : "are"} in no figure: ` +
    `every rate is over the trajectories that were read, and an unreadable log (truncated, a crashed or killed agent run) need not be missing at random; ` +
    `errors.jsonl in the run folder names each file and line: fix them and run the same label command again`
  );
}

/**
 * Why `summary.json` is not the last label run's (so its `mixed_configurations` may be stale), or null when it is, or
 * when nothing says otherwise (a run of an older version: no `label_state`, or a summary without `label_started_at`
 * after a run that ended writing one). A label run writes the file only when it ends, stamped with its `started_at`.
 */
function notSummarized(st: RunState, summary: Record<string, unknown> | null): string | null {
  const ls = st.label_state;
  if (st.status === "running") return "a label run is in progress (its summary.json is written when it ends)";
  if (st.status === "failed") return `the last label run failed (${ls?.finished_at ?? ls?.started_at ?? "?"}) before writing its summary.json`;
  if (st.status === "killed") return "the last label run ended without finishing (killed or crashed), before writing its summary.json";
  if (!ls || typeof ls.started_at !== "string") return null;
  if (!summary) return `the last label run (started ${ls.started_at}) wrote no summary.json`;
  const stamp = summary.label_started_at;
  return typeof stamp === "string" && stamp !== ls.started_at ? `summary.json is from an earlier label run (started ${stamp}): the last one (started ${ls.started_at}) did not write its own` : null;
}

/**
 * The one warning that replaces a summary's `mixed_configurations` that is not the last label run's (item of
 * {@link RunState.mixed_configurations}); it names no judge, so every command shows it.
 * @param why from {@link notSummarized}; @param listed how many warnings the earlier summary held (null: no
 *   summary.json); @param running a label process holds the run now.
 */
function mixUnknownText(why: string, listed: number | null, running: boolean): string {
  const earlier =
    listed === null
      ? "no summary.json holds it"
      : `the one in summary.json is an earlier label run's (${listed === 0 ? "no judge mixed then" : `${listed} warning(s) then`}), and the verdicts stored since may have changed it, e.g. a rejudge under a new configuration cut short`;
  return (
    `mixed configurations not known: ${why}, so whether each judge's verdicts in use were made by one model under one configuration is not checked (${earlier}); ` +
    (running ? "read the run again when the label process has ended" : "run the same label command again (nothing stored is judged again): its summary checks it")
  );
}

/** {@link readRunState} without `mixed_configurations` (set to none). */
function lastLabelState(runDir: string): RunState {
  const lock = readRunLock(runDir);
  const store = readJson(path.join(runDir, "store.json"));
  const st = (store?.label_state ?? null) as LabelState | null;
  const out = (status: RunState["status"], complete: boolean | null, message: string | null): RunState => ({ status, complete, message, label_state: st, lock, mixed_configurations: [] });
  if (lock?.unreadable)
    return out("running", false, `the run's lock file ${path.join(runDir, ".lock")} cannot be read as a lock (${lock.unreadable}): whether labelling is going on is unknown; delete it if no ipi-judge process uses this run`);
  const otherHost = lock && !lock.this_host;
  if (otherHost) {
    return out(
      "running",
      false,
      `the run is locked by process ${lock.pid ?? "?"} on host ${lock.host} (since ${lock.since ?? "?"}): labelling may still be going on there, so these figures may cover only part of the run`,
    );
  }
  if (lock && lock.alive) {
    return out("running", false, `labelling is in progress (process ${lock.pid}, since ${lock.since ?? "?"}): these figures cover only the verdicts stored so far`);
  }
  if (st && typeof st.state === "string") {
    const counts = store?.counts as { trajectories?: unknown } | undefined;
    const inputs = Array.isArray(store?.inputs) ? (store.inputs as unknown[]).filter((i): i is string => typeof i === "string") : [];
    const last = store?.last_invocation as RunSnapshot["last_invocation"] | undefined;
    const r = labelStateOf(st, out, runDir, typeof counts?.trajectories === "number" ? counts.trajectories : undefined, { inputs, last_invocation: Array.isArray(last?.inputs) ? last : undefined });
    // removed input files recorded by an earlier complete read stand through a later partial one (red team 14)
    if (r && r.status !== "inputs_removed" && st.inputs_removed && st.inputs_removed.count > 0) {
      r.message = `${r.message ? `${r.message}; ` : ""}${removedStatement(runDir) ?? inputsRemovedText(st.inputs_removed)}`;
      if (r.complete !== false) r.status = "inputs_removed"; // said as a WARNING, not a note (runStateLine)
    }
    if (r?.status === "inputs_removed" && removedAllMoved(runDir)) r.removed_moved_only = true;
    if (r) return r;
  }
  if (lock && lock.alive === false) {
    return out("killed", false, `a label process (${lock.pid ?? "?"}, since ${lock.since ?? "?"}) left its lock behind: it was killed or crashed, so these figures may cover only part of the run; ${RESUME}`);
  }
  // Older runs: summary.json is written when a label invocation ends.
  const summary = readJson(path.join(runDir, "summary.json"));
  if (summary) {
    if (summary.interrupted === true) return out("interrupted", false, `the last label run was interrupted: these figures cover only the verdicts stored before it stopped; ${RESUME}`);
    const stopped = summary.stopped_judges && typeof summary.stopped_judges === "object" ? Object.keys(summary.stopped_judges).sort(byJudgeName) : [];
    if (stopped.length) return out("stopped_judges", false, `judge(s) ${stopped.join(", ")} were stopped by a fatal error in the last label run: their verdicts cover only part of the run`);
    return out("complete", true, null);
  }
  return out("unknown", null, store ? "the run does not record whether its labelling finished (store.json from an older version, no summary.json)" : "the run folder has no store.json: whether its labelling finished is unknown");
}

/**
 * The warning for a run whose `store.json` says it holds trajectories whose input file no longer exists but which has
 * no `inputs-removed.json` to leave them out by (written by the version before it existed): they still count.
 * A run with that file says {@link removedStatement} instead (they are left out).
 */
export function inputsRemovedText(r: { count: number; examples: string[] }): string {
  const n = r.count;
  return (
    `input_removed: ${n} trajector${n === 1 ? "y" : "ies"} of this run ${n === 1 ? "was" : "were"} read from input files that no longer exist ` +
    `(e.g. ${r.examples.map((e) => JSON.stringify(e)).join(", ")}): ${n === 1 ? "it still counts" : "they still count"} in the run's figures, ` +
    `so they cover more than the current input files (the verdicts are kept); restore the files, or run the same label command again: it now leaves them out of the figures`
  );
}

/**
 * The run state as a command that uses the verdicts of `judges` only says it (`--judge`, `--exclude-judge`, the
 * members of a committee it shows): the mixed-configuration warnings of the other judges left out. Each such warning
 * starts `judge "<id>": ` (`../run/summary.ts`; `judge <id>: ` in a summary.json of a build before session 49); one naming no judge (the check not known: {@link readRunState}) is kept.
 * The warnings stay the whole run's check, not a `--where` subset's.
 * @returns `s` itself when nothing is left out, else a copy.
 */
export function runStateFor(s: RunState, judges: Iterable<string>): RunState {
  const ids = [...judges];
  const mixed = (s.mixed_configurations ?? []).filter((w) => !w.startsWith("judge ") || ids.some((id) => w.startsWith(`judge ${JSON.stringify(id)}: `) || w.startsWith(`judge ${id}: `)));
  return mixed.length === (s.mixed_configurations ?? []).length ? s : { ...s, mixed_configurations: mixed };
}

/** The line to print for a run state: `WARNING: ...` for a partial run, `note: ...` otherwise; null when complete. */
export function runStateLine(s: RunState): string | null {
  const lines = s.message ? [`${s.complete === false ? "WARNING: run incomplete: " : stateWarns(s) ? "WARNING: " : "note: "}${s.message}`] : [];
  for (const m of s.mixed_configurations ?? []) lines.push(`WARNING: ${m}`);
  if (s.input_errors) lines.push(`WARNING: ${s.input_errors}`);
  return lines.length ? lines.join("\n") : null;
}

/**
 * {@link runStateLine}'s lines as entries of a report's `warnings` (which its text prints each as `WARNING: ...`), the
 * prefix taken off (new user 30, M4: no `WARNING: note: ...`): its `WARNING: ` lines and every `note: ` line but the
 * one that inputs moved with nothing lost, which {@link runStateNotes} gives (a `--limit` pass is a slice of the run:
 * a warning, rev2a #1). [] for null.
 */
export function runStateWarnings(line: string | null): string[] {
  return line ? line.split("\n").filter((l) => !isMovedNote(l)).map((l) => l.replace(/^(WARNING|note): /, "")) : [];
}

/**
 * Whether a line of {@link runStateLine} is the note that inputs moved and nothing was lost (`input_removed: the N old
 * ids ... moved`, ./removed-ids.ts): the one note compare and estimate keep apart from their warnings. Every other
 * note stays among the warnings (rev2a #1: a `--limit` pass after files were added, a slice of the run, was filed as
 * a mere note).
 */
function isMovedNote(l: string): boolean {
  return l.startsWith("note: input_removed: ");
}

/**
 * {@link runStateLine}'s `note: ` lines, the prefix taken off: what compare and estimate print as `note: ...` and carry
 * in `--json` as `notes` (fixb54: the moved-folder statement read `WARNING:` there while label and agree said `note:`). [] for null.
 */
export function runStateNotes(line: string | null): string[] {
  return line ? line.split("\n").filter(isMovedNote).map((l) => l.slice("note: ".length)) : [];
}

/** The state of a run from its `label_state` (statuses and messages of {@link runState}); undefined for an unknown state. */
function labelStateOf(
  st: LabelState,
  out: (status: RunState["status"], complete: boolean | null, message: string | null) => RunState,
  runDir: string,
  trajectories: number | undefined,
  snap: Pick<RunSnapshot, "inputs" | "last_invocation">,
): RunState | undefined {
  const when = st.finished_at ?? st.started_at;
  switch (st.state) {
    case "running":
      return out("killed", false, `the last label run (started ${st.started_at}, process ${st.pid}) ended without finishing (killed or crashed): these figures cover only the verdicts stored before it stopped; ${RESUME}`);
    case "interrupted":
      return out("interrupted", false, `the last label run was interrupted (${when}): these figures cover only the verdicts stored before it stopped; ${RESUME}`);
    case "stopped_judges":
      return out(
        "stopped_judges",
        false,
        `in the last label run (${when}) judge(s) ${[...(st.stopped_judges ?? [])].sort(byJudgeName).join(", ")} were stopped by a fatal error (bad key, no quota, unreachable): their verdicts cover only part of the run; fix the cause and ${RESUME}`,
      );
    case "cost_cap":
      return out(
        "cost_cap",
        false,
        `the last label run (${when}) was stopped by its cost cap (--max-cost $${st.cost_cap?.cap_usd ?? "?"}; $${st.cost_cap ? st.cost_cap.spent_usd.toFixed(4) : "?"} spent by the run): items were left un-judged, so these figures cover only part of the run; run label again with a higher --max-cost to finish it`,
      );
    case "failed":
      return out("failed", false, `the last label run failed (${when}): these figures cover only the verdicts stored before it stopped; fix the error it reported and ${RESUME}`);
    case "complete":
      if (st.inputs_removed && st.inputs_removed.count > 0) return out("inputs_removed", true, removedStatement(runDir) ?? inputsRemovedText(st.inputs_removed));
      {
        // a record of an older build (no covered_inputs) is read as a new pass would carry it (./partial-passes.ts)
        // (only its history_unknown entry added: a last pass under --limit keeps its `limited` note below)
        const passes = st.covered_inputs ? (st.partial_passes ?? []) : [...(st.partial_passes ?? []), ...carriedPasses(st, trajectories ?? 0, snap).partial_passes.filter((p) => p.history_unknown)];
        if (passes.some((p) => !p.history_unknown)) return out("partial", false, partialText(passes, trajectories));
        if (passes.length) return out("history_unknown", null, historyUnknownText(passes));
      }
      return st.limit !== undefined ? out("limited", true, limitedText(st.limit, trajectories)) : out("complete", true, null);
  }
  return undefined;
}

/**
 * The note of a run whose last label pass had `--limit N` (new user 30, M4: "figures cover those only" was false after
 * `label --limit 5` resumed into a run of 1,048 labelled trajectories). The figures cover every verdict the run has
 * stored, whatever pass stored it; what the limit leaves out is the input trajectories past it that no pass reached.
 * @param trajectories the run's trajectory count (`store.json` `counts`), when known.
 */
export function limitedText(limit: number, trajectories?: number): string {
  const held = trajectories === undefined ? "" : ` (its ${trajectories.toLocaleString("en-US")} trajectories, from this and any earlier label run)`;
  return (
    `the last label run was limited to the first ${limit} trajectories of its inputs (--limit): these figures cover every verdict the run has stored${held}; ` +
    "input trajectories past the limit that no label run reached are not in them (run label again without --limit to label the rest)"
  );
}

/**
 * The message of a `partial` run (break 51 #2): which passes limited it, and that its figures cover an arbitrary slice
 * of its inputs (the first files in walk order, one filter's trajectories) until a pass without them completes it.
 * @param trajectories the run's trajectory count (`store.json` `counts`), when known.
 */
export function partialText(passes: readonly PartialPass[], trajectories?: number): string {
  const held = trajectories === undefined ? "the trajectories" : `the ${trajectories.toLocaleString("en-US")} trajectories`;
  return (
    `partial run: inputs were read only in part by label runs with --limit or --where that no later label run without them covered (${passes.map(passText).join("; ")}), so these figures cover ${held} ` +
    "the runs stored, a slice of those inputs (the first files read, or what a filter kept), not the inputs: run label again on them without --limit and --where to cover them"
  );
}

/**
 * The message of a `history_unknown` run: an older build labelled some of its inputs in earlier invocations and did
 * not record whether they were read whole (`--limit`, `--where`), so complete cannot be said; not guessed either way.
 */
export function historyUnknownText(passes: readonly PartialPass[]): string {
  const one = passes.length === 1 && passes[0]!.inputs?.length === 1;
  return (
    `${passes.map(passText).join("; ")}: earlier label runs read ${one ? "this input" : "these inputs"} and did not record whether with --limit or --where, ` +
    `so whether these figures cover ${one ? "it" : "them"} whole is unknown: run label again on ${one ? "it" : "them"} without --limit and --where to know`
  );
}
