/**
 * Judges asked for by a figure command (agree, committee, compare, estimate, report) that stored no verdict among the
 * rows it reads because they were stopped: a fatal error (401, no quota, unreachable: `store.json`
 * `stopped_judges`), the last label run cut short (Ctrl-C / SIGTERM, `--max-cost`, a failure, a kill: its
 * `label_state`) before the judge stored any verdict there, or a crash on most items (`./broken-judge.ts`'s crash
 * rule over `summary.json`). The broken-judge rule (`./broken-judge.ts`, docs/label.md "Exit codes") says a broken or stopped judge behind
 * a command's figures is exit 3, not "nothing to compare" with exit 0 nor a usage error: {@link refuseStoppedJudges}
 * throws the error the CLI maps to exit 3 (`StoppedJudgesError`), naming each judge and why. A judge with no verdict
 * whose last label run finished normally is none of these (the caller's own message stands).
 */
import path from "node:path";
import { StoppedJudgesError } from "../errors.js";
import { readJson, readRunState } from "../store/run-state.js";
import { storedJudgeCrashes } from "../store/stored-crashes.js";
import { crashBroken, type BrokenJudge } from "./broken-judge.js";
import { byJudgeName } from "../format/judge-order.js";

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The judges of a run as `store.json` lists them: its last label invocation's, then every configured one. */
export function runJudgeIds(runDir: string): string[] {
  const store = readJson(path.join(runDir, "store.json"));
  const last = strings((store?.last_invocation as { judges?: unknown } | undefined)?.judges);
  const all = Array.isArray(store?.judges) ? (store.judges as unknown[]).map((j) => (j as { id?: unknown })?.id).filter((x): x is string => typeof x === "string") : [];
  return [...new Set([...last, ...all])];
}

/**
 * Why each judge of the run's last label invocation may have stored no verdict: stopped by a fatal error (its
 * message), the invocation cut short (how), or crashed on most items; judges with none of these are absent.
 * @param runDir the run folder.
 */
export function whyJudgesStopped(runDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const store = readJson(path.join(runDir, "store.json"));
  const summary = readJson(path.join(runDir, "summary.json"));
  // store.json's map is the last invocation's (reset when one starts); summary.json's is the older versions' record
  for (const src of [summary?.stopped_judges, store?.stopped_judges])
    if (src && typeof src === "object" && !Array.isArray(src))
      for (const [id, msg] of Object.entries(src as Record<string, unknown>)) out.set(id, `it was stopped by a fatal error in the last label run (${typeof msg === "string" ? msg : "no message recorded"})`);
  const st = readRunState(runDir);
  const cut: Partial<Record<typeof st.status, string>> = {
    interrupted: "the last label run was interrupted (Ctrl-C / SIGTERM)",
    cost_cap: `the last label run was stopped by its cost cap (--max-cost $${st.label_state?.cost_cap?.cap_usd ?? "?"})`,
    failed: "the last label run failed",
    killed: "the last label run ended without finishing (killed or crashed)",
  };
  const how = cut[st.status];
  const when = st.label_state?.finished_at ?? st.label_state?.started_at;
  if (how) {
    const last = strings((store?.last_invocation as { judges?: unknown } | undefined)?.judges);
    for (const id of last.length ? last : runJudgeIds(runDir))
      if (!out.has(id)) out.set(id, `${how}${when ? ` (${when})` : ""} before it stored a verdict of this judge here`);
  }
  for (const [id, c] of storedJudgeCrashes(runDir)) {
    const b = crashBroken(id, c);
    if (b && !out.has(id)) out.set(id, b.why);
  }
  return out;
}

/**
 * The judges among `asked` with no verdict in `have` that were stopped ({@link whyJudgesStopped}), each with why.
 * @param asked the judges the command was asked for (its `--judge` options), or null: every judge of the run
 *   ({@link runJudgeIds}), for a command asked for none that found no verdict at all.
 * @param have the judges with a verdict among the rows the command reads.
 */
export function stoppedWithoutVerdicts(runDir: string, asked: readonly string[] | null, have: Iterable<string>): BrokenJudge[] {
  const with_ = new Set(have);
  const missing = (asked ?? runJudgeIds(runDir)).filter((id) => !with_.has(id));
  if (!missing.length) return [];
  const why = whyJudgesStopped(runDir);
  return [...new Set(missing)]
    .filter((id) => why.has(id))
    .sort(byJudgeName)
    .map((id) => ({ judge_id: id, why: why.get(id)! }));
}

/**
 * Throw `StoppedJudgesError` (exit 3) when a judge `command` was asked for stored no verdict among the rows it reads
 * because it was stopped ({@link stoppedWithoutVerdicts}); return when none was (the caller's own message or figures
 * stand).
 * @param command e.g. "agree"; @param run the run's name; @param asked the judges asked for, or null (every judge of
 *   the run: then it refuses only when no judge has a verdict there); @param have the judges with a verdict there.
 * @param subset a phrase when the rows are a subset (`--where`), e.g. "among the rows --where selects".
 * @param words `asked`: who the judges are in the message (default "it was asked for", or "of the run" when `asked`
 *   is null), e.g. committee's "of the committee"; `also`: another way out, said after the rerun's (its
 *   `--exclude-judge`), given the stopped judges' ids.
 */
export function refuseStoppedJudges(
  command: string,
  runDir: string,
  run: string,
  asked: readonly string[] | null,
  have: Iterable<string>,
  subset?: string,
  words: { asked?: string; also?: (stopped: string[]) => string } = {},
): void {
  const with_ = [...have];
  if (asked === null && with_.length > 0) return; // asked for none, and some judge has figures: not this rule's case
  const stopped = stoppedWithoutVerdicts(runDir, asked, with_);
  if (!stopped.length) return;
  // a crash count is summary.json's, the whole run's: said so beside rows narrowed by --where (task s41 #2)
  const named = stopped.map((j) => `${j.judge_id}: ${j.why}${subset && j.why.startsWith("it crashed on ") ? ", over the whole run" : ""}`).join("; ");
  const one = stopped.length === 1;
  const also = words.also?.(stopped.map((j) => j.judge_id));
  throw new StoppedJudgesError(
    `${command} has no figures: the judge${one ? "" : "s"} ${words.asked ?? (asked ? "it was asked for" : "of the run")} stored no verdict in run ${run}${subset ? ` ${subset}` : ""} and ${one ? "was" : "were"} stopped (${named}); ` +
      `fix the cause and run the same label command again (nothing stored is judged again)${also ? `, or ${also}` : ""}: exit code 3`,
  );
}
